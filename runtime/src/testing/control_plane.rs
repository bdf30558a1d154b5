//! A real Kubernetes control plane for a project's tests, in the shape of
//! controller-runtime's `envtest.Environment`: etcd and kube-apiserver on free loopback
//! ports with certificates of their own, RBAC authorization, users that authenticate with
//! client certificates, and the project's CRDs installed and Established before the first
//! test runs. What it installs besides is the test binary's [`Environment`] (envtest's
//! install options): more CRD directories, and the project's webhooks, served by the test
//! binary on 127.0.0.1 with a certificate of the control plane's CA, their configurations
//! and the CRDs' conversion pointed at it by `url:` as envtest's `WebhookInstallOptions`
//! does. Where the manager issues its certificate itself (`--webhook-certs self`), the
//! webhooks keep the Service of their manifests instead, and the API server reaches it
//! through an HTTP CONNECT proxy of the tests (its egress selector for the cluster
//! network, which envtest lacks).
//!
//! One control plane serves a whole test binary ([`ControlPlane::shared`]); each test
//! works in a namespace of its own ([`ControlPlane::namespace`]). What envtest has not: no
//! kubelet (no pod runs), no controller-manager (no garbage collection of owned objects,
//! namespaces never finish terminating).
//!
//! ```ignore
//! use rsbuilder_runtime::testing::control_plane::{ControlPlane, Environment};
//!
//! fn control_plane() -> &'static ControlPlane {
//!     ControlPlane::shared(|| Environment::new(env!("CARGO_MANIFEST_DIR")))
//! }
//!
//! #[tokio::test]
//! async fn a_test() {
//!     let namespace = control_plane().namespace("a-test").await;
//!     let client = control_plane().admin().await;
//!     // ...
//! }
//! ```
//!
//! The binaries are found as controller-runtime finds them: `TEST_ASSET_KUBE_APISERVER`
//! and `TEST_ASSET_ETCD`, `KUBEBUILDER_ASSETS`, then setup-envtest's store, where
//! `rsbuilder envtest use` (run by a project's `make test`) puts them.
//!
//! Nothing outlives the test binary: the processes get SIGKILL when it exits, however it
//! exits (`PR_SET_PDEATHSIG`), a normal exit also removes their directory, and a directory
//! left by a killed run is removed by the next one.

use std::collections::BTreeMap;
use std::future::Future;
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::rbac::v1::{ClusterRoleBinding, RoleBinding};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::core::GroupVersionKind;
use kube::discovery::ApiResource;
use kube::{Client, Config};
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use serde_json::{Value, json};

/// A user like the manager's in a cluster (the ServiceAccount `controller-manager`), one
/// per test namespace, so that the role bound to one test's manager lends no rule to
/// another's. RBAC matches a ServiceAccount subject by this name.
pub fn manager_user(namespace: &str) -> String {
    format!("system:serviceaccount:{namespace}:controller-manager")
}

/// How long the control plane may take to start.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a test waits for what it expects ([`eventually`]).
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// The prefix of the control planes' directories under the temporary directory.
const DIR_PREFIX: &str = "rsbuilder-envtest-";

/// What a test binary installs into its control plane, as envtest's `Environment`.
pub struct Environment {
    /// The project's root (its `CARGO_MANIFEST_DIR`): the paths of the other fields and
    /// the manifests the control plane reads are relative to it.
    pub project: PathBuf,
    /// Directories of CRD manifests, relative to the project (`CRDDirectoryPaths`).
    pub crd_directories: Vec<&'static str>,
    /// Serves the project's webhooks on a port, with the certificate in a directory
    /// (`tls.crt`, `tls.key`); the control plane then installs
    /// `config/webhook/manifests.yaml` and the conversion of the CRDs that
    /// `config/crd/patches/webhook_in_<plural>.yaml` converts, pointed at it.
    pub webhooks: Option<ServeWebhooks>,
    /// Who signs the webhook server's certificate: the control plane's CA (`None`), or
    /// the manager's own certificate task (`--webhook-certs self`), run as the manager's
    /// user with what `config/webhook-certs` grants, which injects its CA into the
    /// configurations and CRDs, their webhooks keeping the Service of the manifests.
    pub webhook_certs: Option<IssueCerts>,
}

impl Environment {
    /// The project at `project` with its CRDs (`config/crd/bases`), no webhooks.
    pub fn new(project: impl Into<PathBuf>) -> Self {
        Self {
            project: project.into(),
            crd_directories: vec!["config/crd/bases"],
            webhooks: None,
            webhook_certs: None,
        }
    }
}

/// Runs a webhook server until the test binary ends.
pub type ServeWebhooks =
    fn(u16, PathBuf) -> Pin<Box<dyn Future<Output = anyhow::Result<()>> + Send>>;

/// Starts the manager's certificate task as the client's user, to run until the test
/// binary ends; resolves once the webhook server serves a certificate of the CA it
/// injected.
pub type IssueCerts =
    fn(Client, ManagerCerts) -> Pin<Box<dyn Future<Output = anyhow::Result<()>> + Send>>;

/// What the manager's certificate task is told, as its flags tell it in a cluster: the
/// names of `config/webhook`, and where the tests' webhook server reads its certificate.
pub struct ManagerCerts {
    /// The namespace of the webhook Service (`config/webhook/service.yaml`).
    pub namespace: String,
    /// The webhook Service's name.
    pub service: String,
    /// The MutatingWebhookConfiguration's name, if the project has one.
    pub mutating: Option<String>,
    /// The ValidatingWebhookConfiguration's name, if the project has one.
    pub validating: Option<String>,
    /// The CRDs whose conversion goes through the webhook.
    pub conversion_crds: Vec<String>,
    /// Where the tests' webhook server reads `tls.crt` and `tls.key`.
    pub cert_dir: PathBuf,
    /// The port the tests' webhook server listens on, on 127.0.0.1.
    pub port: u16,
}

/// The running control plane of this test binary.
pub struct ControlPlane {
    project: PathBuf,
    dir: PathBuf,
    url: String,
    ca: Issuer<'static, KeyPair>,
    ca_pem: String,
}

/// Where the test binary serves the webhooks.
struct WebhookServer {
    port: u16,
    cert_dir: PathBuf,
    /// The control plane's CA, for `url:` client configs; `None` where the manager
    /// injects its own into the manifests' Service references.
    ca_bundle: Option<Value>,
}

static CONTROL_PLANE: OnceLock<Result<ControlPlane, String>> = OnceLock::new();
static PROCESSES: Mutex<Vec<Child>> = Mutex::new(Vec::new());
/// The control plane's directory, removed when the test binary exits.
static DIR: OnceLock<PathBuf> = OnceLock::new();
/// Where the tests' HTTP CONNECT proxy takes a connection to `host:port` (a Service's
/// cluster IP and port, as the API server resolves a webhook's Service): a port on
/// 127.0.0.1.
static ROUTES: Mutex<BTreeMap<String, u16>> = Mutex::new(BTreeMap::new());

impl ControlPlane {
    /// The control plane of this test binary, started by the first test that asks with
    /// what `environment` installs; later calls return the same control plane and leave
    /// their `environment` uncalled. Panics when it cannot start, with the reason and the
    /// last lines etcd and kube-apiserver logged.
    pub fn shared(environment: impl FnOnce() -> Environment) -> &'static ControlPlane {
        let started = CONTROL_PLANE.get_or_init(|| {
            let environment = environment();
            // PR_SET_PDEATHSIG fires when the *thread* that started a process ends, and
            // test threads end with their test: the processes are started from a thread
            // that lives as long as the test binary, and whose runtime serves the webhooks
            // meanwhile.
            let (sender, receiver) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let runtime = match tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .enable_all()
                    .build()
                {
                    Ok(runtime) => runtime,
                    Err(error) => {
                        let _ = sender.send(Err(format!("cannot start a runtime: {error}")));
                        return;
                    }
                };
                let started = runtime.block_on(start(environment));
                let _ = sender.send(started.map_err(|e| format!("{e:#}")));
                runtime.block_on(std::future::pending::<()>());
            });
            receiver
                .recv()
                .unwrap_or_else(|_| Err("the control plane's thread died".into()))
        });
        match started {
            Ok(control_plane) => control_plane,
            Err(error) => panic!("cannot start the envtest control plane: {error}"),
        }
    }
}

async fn start(environment: Environment) -> anyhow::Result<ControlPlane> {
    let binaries = Binaries::find()?;
    remove_stale_dirs();
    let dir = std::env::temp_dir().join(format!("{DIR_PREFIX}{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("etcd"))?;
    let _ = DIR.set(dir.clone());
    extern "C" fn stop_at_exit() {
        stop();
    }
    // SAFETY: registers a plain function with no arguments, as atexit(3) asks.
    unsafe { libc::atexit(stop_at_exit) };

    let ca_key = KeyPair::generate()?;
    let mut ca_params = CertificateParams::new(Vec::new())?;
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "envtest CA");
    let ca_pem = ca_params.self_signed(&ca_key)?.pem();
    std::fs::write(dir.join("ca.crt"), &ca_pem)?;
    let ca = Issuer::new(ca_params, ca_key);

    serving_certificate(&ca, &dir, "apiserver")?;
    // Signs and verifies ServiceAccount tokens (TokenRequest, TokenReview).
    let service_accounts = KeyPair::generate()?;
    std::fs::write(dir.join("sa.key"), service_accounts.serialize_pem())?;
    std::fs::write(dir.join("sa.pub"), service_accounts.public_key_pem())?;

    // etcd's clients and peers, kube-apiserver.
    let [etcd_port, peer_port, port] = free_ports()?;
    let etcd_url = format!("http://127.0.0.1:{etcd_port}");
    let peer_url = format!("http://127.0.0.1:{peer_port}");
    let path = |name: &str| dir.join(name).display().to_string();
    spawn(
        &binaries.etcd,
        &dir.join("etcd.log"),
        &[
            format!("--data-dir={}", path("etcd")),
            format!("--listen-client-urls={etcd_url}"),
            format!("--advertise-client-urls={etcd_url}"),
            format!("--listen-peer-urls={peer_url}"),
            format!("--initial-advertise-peer-urls={peer_url}"),
            format!("--initial-cluster=default={peer_url}"),
            "--unsafe-no-fsync=true".into(),
        ],
    )?;
    // The API server's connections to the cluster network (a webhook's Service) go to
    // the tests' proxy
    // (https://kubernetes.io/docs/tasks/extend-kubernetes/setup-konnectivity/), over a
    // Unix socket: kube-apiserver 1.37 cannot dial one over TCP without TLS.
    let socket = dir.join("egress.sock");
    let proxy = tokio::net::UnixListener::bind(&socket)?;
    let uds = format!("        udsName: {}", socket.display());
    let egress = [
        "apiVersion: apiserver.k8s.io/v1beta1",
        "kind: EgressSelectorConfiguration",
        "egressSelections:",
        "- name: cluster",
        "  connection:",
        "    proxyProtocol: HTTPConnect",
        "    transport:",
        "      uds:",
        &uds,
    ];
    std::fs::write(dir.join("egress.yaml"), egress.join("\n"))?;
    tokio::spawn(egress_proxy(proxy));
    // As controller-runtime's envtest starts it (pkg/internal/testing/controlplane).
    spawn(
        &binaries.kube_apiserver,
        &dir.join("kube-apiserver.log"),
        &[
            format!("--etcd-servers={etcd_url}"),
            format!("--cert-dir={}", path("certs")),
            format!("--tls-cert-file={}", path("apiserver.crt")),
            format!("--tls-private-key-file={}", path("apiserver.key")),
            format!("--client-ca-file={}", path("ca.crt")),
            format!("--secure-port={port}"),
            "--bind-address=127.0.0.1".into(),
            "--advertise-address=127.0.0.1".into(),
            // No `kubernetes` Service endpoints: nothing in a test reaches the API server
            // through them, and the reconciler refuses a loopback address.
            "--endpoint-reconciler-type=none".into(),
            "--service-cluster-ip-range=10.0.0.0/24".into(),
            "--allow-privileged=true".into(),
            "--disable-admission-plugins=ServiceAccount".into(),
            "--authorization-mode=RBAC".into(),
            format!("--service-account-issuer=https://127.0.0.1:{port}"),
            format!("--service-account-key-file={}", path("sa.pub")),
            format!("--service-account-signing-key-file={}", path("sa.key")),
            format!("--egress-selector-config-file={}", path("egress.yaml")),
        ],
    )?;
    let control_plane = ControlPlane {
        project: environment.project,
        url: format!("https://127.0.0.1:{port}"),
        dir,
        ca,
        ca_pem,
    };
    let installed = async {
        control_plane.wait_ready().await?;
        let by_manager = environment.webhook_certs.is_some();
        let webhooks = match environment.webhooks {
            Some(serve) => Some(control_plane.serve_webhooks(serve, by_manager).await?),
            None => None,
        };
        control_plane
            .install_crds(&environment.crd_directories, webhooks.as_ref())
            .await?;
        if let Some(webhooks) = &webhooks {
            control_plane.install_webhook_configurations(webhooks).await;
            if let Some(issue) = environment.webhook_certs {
                control_plane.issue_certs(issue, webhooks).await?;
            }
        }
        anyhow::Ok(())
    };
    installed
        .await
        .map_err(|error| anyhow::anyhow!("{error:#}\n{}", control_plane.log_tails()))?;
    Ok(control_plane)
}

impl ControlPlane {
    /// A client of a member of `system:masters`, which RBAC never refuses: for arranging
    /// and inspecting a test, never for the code under test.
    pub async fn admin(&self) -> Client {
        self.client("envtest-admin", &["system:masters"]).await
    }

    /// A client that authenticates as `user` in `groups`, with a client certificate.
    pub async fn client(&self, user: &str, groups: &[&str]) -> Client {
        let config = self.config(user, groups).await;
        Client::try_from(config).expect("a client")
    }

    /// The client configuration of `user`; its kubeconfig is kept beside the control plane
    /// for a look with kubectl (`KUBECONFIG=<dir>/<user>.kubeconfig`). A user's
    /// certificate is made once: later calls, from any test, reuse it.
    pub async fn config(&self, user: &str, groups: &[&str]) -> Config {
        let kubeconfig = self.kubeconfig(user, groups);
        Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
            .await
            .expect("a client configuration")
    }

    /// The kubeconfig file of `user` in `groups`, for a process of its own (the manager
    /// that `testing::scale` runs), made as [`ControlPlane::config`] makes it.
    pub fn kubeconfig_file(&self, user: &str, groups: &[&str]) -> PathBuf {
        self.kubeconfig(user, groups);
        self.dir
            .join(format!("{}.kubeconfig", Self::file_of(user, groups)))
    }

    /// The base name of `user`'s files beside the control plane.
    fn file_of(user: &str, groups: &[&str]) -> String {
        format!(
            "{}-{}",
            user.replace(':', "_"),
            groups.join("_").replace(':', "_")
        )
    }

    fn kubeconfig(&self, user: &str, groups: &[&str]) -> Kubeconfig {
        static USERS: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());
        let mut users = USERS.lock().unwrap_or_else(|e| e.into_inner());
        let id = format!("{user}@{}", groups.join(","));
        let text = users.entry(id).or_insert_with(|| {
            let file = Self::file_of(user, groups);
            let key = KeyPair::generate().expect("a key");
            let mut params = CertificateParams::new(Vec::new()).expect("parameters");
            params.distinguished_name.push(DnType::CommonName, user);
            for group in groups {
                params
                    .distinguished_name
                    .push(DnType::OrganizationName, *group);
            }
            let cert = params
                .signed_by(&key, &self.ca)
                .expect("a client certificate");
            let crt = self.dir.join(format!("{file}.crt"));
            let key_file = self.dir.join(format!("{file}.key"));
            std::fs::write(&crt, cert.pem()).expect("the client certificate");
            std::fs::write(&key_file, key.serialize_pem()).expect("the client key");
            let kubeconfig = json!({
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "envtest", "cluster": {
                    "server": self.url,
                    "certificate-authority": self.dir.join("ca.crt"),
                }}],
                "users": [{"name": user, "user": {
                    "client-certificate": crt,
                    "client-key": key_file,
                }}],
                "contexts": [{"name": "envtest", "context": {"cluster": "envtest", "user": user}}],
                "current-context": "envtest",
            });
            let text = serde_json::to_string_pretty(&kubeconfig).expect("a kubeconfig");
            std::fs::write(self.dir.join(format!("{file}.kubeconfig")), &text)
                .expect("the kubeconfig");
            text
        });
        Kubeconfig::from_yaml(text).expect("a kubeconfig")
    }

    /// A fresh namespace named after `test`, for one test's objects.
    pub async fn namespace(&self, test: &str) -> String {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut name: String = test
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .take(50)
            .collect();
        name = format!("{}-{n}", name.trim_matches('-'));
        let namespace: Namespace =
            serde_json::from_value(json!({"metadata": {"name": name}})).expect("a namespace");
        Api::<Namespace>::all(self.admin().await)
            .create(&PostParams::default(), &namespace)
            .await
            .expect("the test namespace");
        name
    }

    /// Grants `user` what `config/rbac` grants the manager, and nothing else: the role
    /// `make manifests` generates (`role.yaml`, a ClusterRole, or a Role in `namespace`
    /// for a namespace-scoped project) and the leader-election Role, in `namespace`.
    /// `edit` may change the generated role first, to show what a missing rule does.
    pub async fn grant_manager_role(
        &self,
        user: &str,
        namespace: &str,
        edit: impl FnOnce(&mut Value),
    ) {
        let admin = self.admin().await;
        let mut role = self.manifest("config/rbac/role.yaml");
        edit(&mut role);
        self.bind(&admin, role, user, namespace).await;
        self.grant(user, namespace, "config/rbac/leader_election_role.yaml")
            .await;
    }

    /// Grants `user` the roles in the project file `path`: each ClusterRole cluster-wide,
    /// each Role in `namespace`.
    pub async fn grant(&self, user: &str, namespace: &str, path: &str) {
        let admin = self.admin().await;
        let roles: Vec<Value> = documents(&self.project.join(path))
            .into_iter()
            .filter(|d| d["kind"] == "Role" || d["kind"] == "ClusterRole")
            .collect();
        assert!(!roles.is_empty(), "{path} holds no role");
        for role in roles {
            self.bind(&admin, role, user, namespace).await;
        }
    }

    /// Creates `role` (named after `user`, so that users can hold different versions of
    /// one role) and binds it to `user`: a ClusterRole cluster-wide, a Role in `namespace`.
    async fn bind(&self, admin: &Client, mut role: Value, user: &str, namespace: &str) {
        let kind = role["kind"].as_str().expect("a role kind").to_string();
        // RBAC names may hold colons, as `system:` roles do.
        let name = format!("{}:{user}", role.name_or("role"));
        role["metadata"] = json!({"name": name});
        let subject =
            json!([{"kind": "User", "name": user, "apiGroup": "rbac.authorization.k8s.io"}]);
        let role_ref = json!({"kind": kind, "name": name, "apiGroup": "rbac.authorization.k8s.io"});
        if kind == "ClusterRole" {
            self.apply(admin, None, &role).await;
            let binding: ClusterRoleBinding = serde_json::from_value(
                json!({"metadata": {"name": name}, "roleRef": role_ref, "subjects": subject}),
            )
            .expect("a binding");
            self.apply(admin, None, &serde_json::to_value(binding).expect("json"))
                .await;
        } else {
            role["metadata"]["namespace"] = json!(namespace);
            self.apply(admin, Some(namespace), &role).await;
            let binding: RoleBinding = serde_json::from_value(json!({
                "metadata": {"name": name, "namespace": namespace},
                "roleRef": role_ref,
                "subjects": subject,
            }))
            .expect("a binding");
            self.apply(
                admin,
                Some(namespace),
                &serde_json::to_value(binding).expect("json"),
            )
            .await;
        }
    }

    /// The last lines each process logged, for a failure message (the directory goes
    /// when the test binary exits).
    fn log_tails(&self) -> String {
        ["etcd.log", "kube-apiserver.log"]
            .iter()
            .map(|name| {
                let text = std::fs::read_to_string(self.dir.join(name)).unwrap_or_default();
                let lines: Vec<&str> = text.lines().collect();
                let tail = lines[lines.len().saturating_sub(15)..].join("\n");
                format!("--- {name} (last lines):\n{tail}")
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    async fn wait_ready(&self) -> anyhow::Result<()> {
        let started = Instant::now();
        let admin = self.admin().await;
        loop {
            let request = http::Request::get("/readyz")
                .body(Vec::new())
                .expect("a request");
            match admin.request_text(request).await {
                Ok(text) if text.trim() == "ok" => return Ok(()),
                result if started.elapsed() > START_TIMEOUT => {
                    anyhow::bail!("kube-apiserver is not ready after {START_TIMEOUT:?}: {result:?}")
                }
                _ => tokio::time::sleep(Duration::from_millis(200)).await,
            }
            if !processes_alive() {
                anyhow::bail!("etcd or kube-apiserver exited");
            }
        }
    }

    /// Serves the webhooks with `serve` on a free port, with a certificate of this
    /// control plane's CA for 127.0.0.1 unless the manager issues one (`by_manager`),
    /// and waits until they listen.
    async fn serve_webhooks(
        &self,
        serve: ServeWebhooks,
        by_manager: bool,
    ) -> anyhow::Result<WebhookServer> {
        let cert_dir = self.dir.join("webhook-certs");
        std::fs::create_dir_all(&cert_dir)?;
        let ca_bundle = if by_manager {
            None
        } else {
            serving_certificate(&self.ca, &cert_dir, "tls")?;
            Some(serde_json::to_value(ByteString(
                self.ca_pem.clone().into_bytes(),
            ))?)
        };
        let port = free_port()?;
        let dir = cert_dir.clone();
        tokio::spawn(async move {
            if let Err(error) = serve(port, dir).await {
                eprintln!("the webhook server of the tests stopped: {error:#}");
            }
        });
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if started.elapsed() > START_TIMEOUT {
                anyhow::bail!("the webhook server does not listen on port {port}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(WebhookServer {
            port,
            cert_dir,
            ca_bundle,
        })
    }

    /// Points the project's webhooks (`config/webhook/manifests.yaml` and the CRDs'
    /// conversion) at a server that the caller runs itself on 127.0.0.1:`port`, a manager
    /// process of its own, and returns the directory that holds its certificate
    /// (`tls.crt`, `tls.key`, of this control plane's CA): its `--webhook-cert-dir`.
    pub async fn serve_webhooks_at(&self, port: u16) -> anyhow::Result<PathBuf> {
        let cert_dir = self.dir.join(format!("webhook-certs-{port}"));
        std::fs::create_dir_all(&cert_dir)?;
        serving_certificate(&self.ca, &cert_dir, "tls")?;
        let server = WebhookServer {
            port,
            cert_dir: cert_dir.clone(),
            ca_bundle: Some(serde_json::to_value(ByteString(
                self.ca_pem.clone().into_bytes(),
            ))?),
        };
        self.install_crds(&["config/crd/bases"], Some(&server))
            .await?;
        self.install_webhook_configurations(&server).await;
        Ok(cert_dir)
    }

    /// Runs the manager's certificate task as in a cluster: as the manager's user in the
    /// namespace of the webhook Service, created from `config/webhook/service.yaml` and
    /// routed to the tests' webhook server, with what `config/webhook-certs` grants.
    /// Returns once the API server calls the webhooks with that certificate: every
    /// sample passes a dry-run create.
    async fn issue_certs(&self, issue: IssueCerts, server: &WebhookServer) -> anyhow::Result<()> {
        use anyhow::Context as _;
        let admin = self.admin().await;
        let service = self.manifest("config/webhook/service.yaml");
        let namespace = service["metadata"]["namespace"]
            .as_str()
            .unwrap_or("default")
            .to_string();
        let namespaces: Api<Namespace> = Api::all(admin.clone());
        let object = serde_json::from_value(json!({"metadata": {"name": namespace}}))?;
        match namespaces.create(&PostParams::default(), &object).await {
            Err(kube::Error::Api(status)) if status.is_already_exists() => {}
            created => {
                created.context("the webhook Service's namespace")?;
            }
        }
        let created = self.apply(&admin, Some(&namespace), &service).await;
        let cluster_ip = created.data["spec"]["clusterIP"]
            .as_str()
            .context("the webhook Service has no cluster IP")?;
        for port in created.data["spec"]["ports"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let target = format!("{cluster_ip}:{}", port["port"]);
            routes().insert(target, server.port);
        }
        let user = manager_user(&namespace);
        self.grant(&user, &namespace, "config/webhook-certs/resources.yaml")
            .await;
        let configurations = self.manifests_in("config/webhook");
        let named = |kind: &str| {
            let found = configurations.iter().find(|c| c["kind"] == kind);
            found.map(|c| c.name_or(kind))
        };
        let conversion_crds = self
            .manifests_in("config/crd/patches")
            .iter()
            .filter(|patch| patch["spec"]["conversion"]["strategy"] == "Webhook")
            .map(|patch| patch.name_or("crd"))
            .collect();
        let certs = ManagerCerts {
            namespace,
            service: service.name_or("webhook-service"),
            mutating: named("MutatingWebhookConfiguration"),
            validating: named("ValidatingWebhookConfiguration"),
            conversion_crds,
            cert_dir: server.cert_dir.clone(),
            port: server.port,
        };
        issue(self.client(&user, &[]).await, certs)
            .await
            .context("the manager's certificate task")?;
        // The API server reads the injected bundles from its caches a moment later.
        let started = Instant::now();
        while let Err(error) = self.dry_run_samples("default").await {
            if started.elapsed() > START_TIMEOUT {
                anyhow::bail!("the API server cannot call the webhooks: {error}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Ok(())
    }

    /// Creates every sample of `config/samples` as a dry run (in `namespace` when its
    /// kind is namespaced), which calls the webhooks of its kind and version (and the
    /// conversion to the stored version) and stores nothing; the first refusal.
    pub async fn dry_run_samples(&self, namespace: &str) -> Result<(), String> {
        let admin = self.admin().await;
        let dry_run = PostParams {
            dry_run: true,
            ..PostParams::default()
        };
        for sample in self.manifests_in("config/samples") {
            let scope = self.namespaced(&sample).then_some(namespace);
            let object: DynamicObject =
                serde_json::from_value(sample.clone()).map_err(|e| e.to_string())?;
            self.dynamic_api(&admin, scope, &sample)
                .create(&dry_run, &object)
                .await
                .map_err(|e| format!("{}: {e}", sample.name_or("sample")))?;
        }
        Ok(())
    }

    /// `config/webhook/manifests.yaml`, each webhook pointed at the test's server.
    async fn install_webhook_configurations(&self, server: &WebhookServer) {
        let admin = self.admin().await;
        let path = self.project.join("config/webhook/manifests.yaml");
        for mut configuration in documents(&path) {
            for webhook in configuration["webhooks"]
                .as_array_mut()
                .into_iter()
                .flatten()
            {
                webhook["clientConfig"] = server.client_config(&webhook["clientConfig"]);
            }
            self.apply(&admin, None, &configuration).await;
        }
    }

    /// Applies every CRD of `directories` (with its conversion webhook pointed at
    /// `webhooks`, when there are webhooks) and waits until the API server serves it.
    async fn install_crds(
        &self,
        directories: &[&str],
        webhooks: Option<&WebhookServer>,
    ) -> anyhow::Result<()> {
        let admin = self.admin().await;
        let crds: Api<CustomResourceDefinition> = Api::all(admin);
        let conversions: Vec<Value> = self
            .manifests_in("config/crd/patches")
            .into_iter()
            .filter(|patch| patch["spec"]["conversion"]["strategy"] == "Webhook")
            .collect();
        let mut names = Vec::new();
        for mut crd in directories.iter().flat_map(|dir| self.manifests_in(dir)) {
            let name = crd.name_or("crd");
            let conversion = conversions.iter().find(|p| p.name_or("") == name);
            if let (Some(server), Some(patch)) = (webhooks, conversion) {
                let mut conversion = patch["spec"]["conversion"].clone();
                let webhook = &mut conversion["webhook"];
                webhook["clientConfig"] = server.client_config(&webhook["clientConfig"]);
                crd["spec"]["conversion"] = conversion;
            }
            crds.patch(
                &name,
                &PatchParams::apply("envtest").force(),
                &Patch::Apply(&crd),
            )
            .await
            .map_err(|e| anyhow::anyhow!("the API server refused the CRD {name}: {e}"))?;
            names.push(name);
        }
        for name in names {
            eventually(&format!("CRD {name} Established"), || async {
                let crd = crds.get(&name).await.ok()?;
                established(&crd).then_some(())
            })
            .await;
        }
        Ok(())
    }
}

impl WebhookServer {
    /// `config` (a Service reference, as the manifests have it) as a URL of this server,
    /// or as it is where the manager injects its CA.
    fn client_config(&self, config: &Value) -> Value {
        let Some(ca_bundle) = &self.ca_bundle else {
            return config.clone();
        };
        let path = config["service"]["path"].as_str().unwrap_or("/");
        let url = format!("https://127.0.0.1:{}{path}", self.port);
        json!({"url": url, "caBundle": ca_bundle})
    }
}

fn routes() -> std::sync::MutexGuard<'static, BTreeMap<String, u16>> {
    ROUTES.lock().unwrap_or_else(|e| e.into_inner())
}

/// The API server's egress to the cluster network: a tunnel to the route of each
/// `CONNECT host:port`, and 502 Bad Gateway for a target without one.
async fn egress_proxy(listener: tokio::net::UnixListener) {
    while let Ok((stream, _)) = listener.accept().await {
        tokio::spawn(tunnel(stream));
    }
}

async fn tunnel(mut stream: tokio::net::UnixStream) -> std::io::Result<()> {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    // The client sends nothing more before the answer to its request head.
    let mut head = Vec::new();
    let mut buf = [0; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let read = stream.read(&mut buf).await?;
        if read == 0 || head.len() > 8192 {
            return Ok(());
        }
        head.extend_from_slice(&buf[..read]);
    }
    let head = String::from_utf8_lossy(&head);
    let target = head
        .strip_prefix("CONNECT ")
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_default();
    let Some(port) = routes().get(target).copied() else {
        return stream.write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n").await;
    };
    let mut upstream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
    stream
        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
        .await?;
    tokio::io::copy_bidirectional(&mut stream, &mut upstream).await?;
    Ok(())
}

/// Writes `<name>.crt` and `<name>.key` into `dir`: a serving certificate for 127.0.0.1
/// and localhost, signed by `ca`.
fn serving_certificate(ca: &Issuer<'_, KeyPair>, dir: &Path, name: &str) -> anyhow::Result<()> {
    let key = KeyPair::generate()?;
    let cert = CertificateParams::new(vec!["127.0.0.1".into(), "localhost".into()])?
        .signed_by(&key, ca)?;
    std::fs::write(dir.join(format!("{name}.crt")), cert.pem())?;
    std::fs::write(dir.join(format!("{name}.key")), key.serialize_pem())?;
    Ok(())
}

/// Whether the API server serves `crd`: its `Established` condition is `True`.
pub fn established(crd: &CustomResourceDefinition) -> bool {
    crd.status
        .iter()
        .flat_map(|status| status.conditions.iter().flatten())
        .any(|c| c.type_ == "Established" && c.status == "True")
}

/// The counter `metric` of `controller` in `text`, metrics in Prometheus' text format; 0
/// while it was never counted.
pub fn counter(text: &str, metric: &str, controller: &str) -> u64 {
    let prefix = format!("{metric}{{controller=\"{controller}\"}} ");
    text.lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .map_or(0, |n| n.trim().parse().expect("a count"))
}

/// Polls `check` until it returns something, for at most [`TIMEOUT`].
pub async fn eventually<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let started = Instant::now();
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(
            started.elapsed() < TIMEOUT,
            "not within {TIMEOUT:?}: {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The project's manifests, read from [`Environment::project`].
impl ControlPlane {
    /// The project's directory ([`Environment::project`]).
    pub fn project(&self) -> &Path {
        &self.project
    }

    /// The one YAML document of the project file `path`, as JSON.
    pub fn manifest(&self, path: &str) -> Value {
        let text = std::fs::read_to_string(self.project.join(path))
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// Every YAML document of the `.yaml` files in the project directory `dir`, in file
    /// order; none when there is no such directory.
    pub fn manifests_in(&self, dir: &str) -> Vec<Value> {
        let Ok(entries) = std::fs::read_dir(self.project.join(dir)) else {
            return Vec::new();
        };
        let mut paths: Vec<PathBuf> = entries
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| {
                path.extension().is_some_and(|ext| ext == "yaml")
                    && path
                        .file_name()
                        .is_some_and(|name| name != "kustomization.yaml")
            })
            .collect();
        paths.sort();
        paths.iter().flat_map(|path| documents(path)).collect()
    }

    /// The API of `object`'s kind (a kind of the project's CRDs or one of Kubernetes'
    /// own), in `namespace` when given.
    pub fn dynamic_api(
        &self,
        client: &Client,
        namespace: Option<&str>,
        object: &Value,
    ) -> Api<DynamicObject> {
        let api_version = object["apiVersion"].as_str().expect("an apiVersion");
        let kind = object["kind"].as_str().expect("a kind");
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        let gvk = GroupVersionKind::gvk(group, version, kind);
        let plural = self.plural_of(&gvk);
        let resource = ApiResource::from_gvk_with_plural(&gvk, &plural);
        match namespace {
            Some(namespace) => Api::namespaced_with(client.clone(), namespace, &resource),
            None => Api::all_with(client.clone(), &resource),
        }
    }

    /// Server-side applies `object` (any kind the API server serves) as the test's field
    /// manager, and returns what the server stored.
    pub async fn apply(
        &self,
        client: &Client,
        namespace: Option<&str>,
        object: &Value,
    ) -> DynamicObject {
        let api = self.dynamic_api(client, namespace, object);
        let name = object.name_or("object");
        api.patch(
            &name,
            &PatchParams::apply("envtest").force(),
            &Patch::Apply(object),
        )
        .await
        .unwrap_or_else(|e| panic!("cannot apply {name}: {e}"))
    }

    /// Whether `object`'s kind is namespaced: as its CRD says, and so for Kubernetes' own
    /// kinds that tests create.
    fn namespaced(&self, object: &Value) -> bool {
        let api_version = object["apiVersion"].as_str().unwrap_or_default();
        let group = api_version.rsplit_once('/').map_or("", |(group, _)| group);
        !self.manifests_in("config/crd/bases").iter().any(|crd| {
            crd["spec"]["group"] == group
                && crd["spec"]["names"]["kind"] == object["kind"]
                && crd["spec"]["scope"] == "Cluster"
        })
    }

    /// The plural of a kind: from the project's CRDs, else the lowercase kind plus `s`,
    /// which is what Kubernetes' own kinds that tests apply (roles, bindings, namespaces)
    /// use.
    fn plural_of(&self, gvk: &GroupVersionKind) -> String {
        self.manifests_in("config/crd/bases")
            .into_iter()
            .find(|crd| {
                crd["spec"]["group"] == gvk.group.as_str()
                    && crd["spec"]["names"]["kind"] == gvk.kind.as_str()
            })
            .and_then(|crd| crd["spec"]["names"]["plural"].as_str().map(str::to_string))
            .unwrap_or_else(|| format!("{}s", gvk.kind.to_lowercase()))
    }
}

/// The YAML documents of the file at `path`, as JSON; none when there is no such file.
fn documents(path: &Path) -> Vec<Value> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let documents: Vec<Value> =
        serde_saphyr::from_multiple(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    documents.into_iter().filter(|d| !d.is_null()).collect()
}

trait NameOf {
    fn name_or(&self, fallback: &str) -> String;
}

impl NameOf for Value {
    fn name_or(&self, fallback: &str) -> String {
        self["metadata"]["name"]
            .as_str()
            .unwrap_or(fallback)
            .to_string()
    }
}

struct Binaries {
    kube_apiserver: PathBuf,
    etcd: PathBuf,
}

impl Binaries {
    /// controller-runtime's lookup order, then setup-envtest's store.
    fn find() -> anyhow::Result<Self> {
        let var = |name| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        if let (Some(kube_apiserver), Some(etcd)) =
            (var("TEST_ASSET_KUBE_APISERVER"), var("TEST_ASSET_ETCD"))
        {
            return Ok(Self {
                kube_apiserver,
                etcd,
            });
        }
        let in_dir = |dir: PathBuf| Self {
            kube_apiserver: dir.join("kube-apiserver"),
            etcd: dir.join("etcd"),
        };
        if let Some(dir) = var("KUBEBUILDER_ASSETS") {
            return Ok(in_dir(dir));
        }
        let data =
            var("XDG_DATA_HOME").or_else(|| var("HOME").map(|home| home.join(".local/share")));
        let store = data.map(|data| data.join("kubebuilder-envtest/k8s"));
        // The newest 1.37 release in the store: the Kubernetes API this project is built for.
        let newest = store
            .as_deref()
            .and_then(|store| std::fs::read_dir(store).ok())
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                let rest = name.strip_prefix("1.37.")?;
                let patch: u32 = rest.split('-').next()?.parse().ok()?;
                let dir = entry.path();
                dir.join("kube-apiserver").is_file().then_some((patch, dir))
            })
            .max_by_key(|(patch, _)| *patch);
        match newest {
            Some((_, dir)) => Ok(in_dir(dir)),
            None if Path::new("/usr/local/kubebuilder/bin/kube-apiserver").is_file() => {
                Ok(in_dir("/usr/local/kubebuilder/bin".into()))
            }
            None => anyhow::bail!(
                "no kube-apiserver and etcd: run `make setup-envtest` (rsbuilder envtest use), or set KUBEBUILDER_ASSETS"
            ),
        }
    }
}

/// Starts `program`, its output into `log`, to be killed when the test binary ends.
fn spawn(program: &Path, log: &Path, args: &[String]) -> anyhow::Result<()> {
    use anyhow::Context as _;
    let log = std::fs::File::create(log)?;
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log);
    // SAFETY: prctl(2) is async-signal-safe, as a pre_exec closure must be.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = command
        .spawn()
        .with_context(|| format!("cannot start {}", program.display()))?;
    processes().push(child);
    Ok(())
}

fn processes() -> std::sync::MutexGuard<'static, Vec<Child>> {
    PROCESSES.lock().unwrap_or_else(|e| e.into_inner())
}

fn processes_alive() -> bool {
    processes()
        .iter_mut()
        .all(|child| matches!(child.try_wait(), Ok(None)))
}

/// Stops the processes, kube-apiserver first, and removes their directory.
fn stop() {
    let mut children = processes();
    for child in children.iter_mut().rev() {
        let _ = child.kill();
        let _ = child.wait();
    }
    children.clear();
    if let Some(dir) = DIR.get() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Removes the directories of control planes whose test binary is gone (killed).
fn remove_stale_dirs() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|name| name.strip_prefix(DIR_PREFIX))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// A port free on 127.0.0.1.
pub(crate) fn free_port() -> std::io::Result<u16> {
    let [port] = free_ports()?;
    Ok(port)
}

/// `N` distinct ports free on 127.0.0.1: each is held until all are picked, as a port
/// released is free to be picked again.
pub(crate) fn free_ports<const N: usize>() -> std::io::Result<[u16; N]> {
    let held = (0..N)
        .map(|_| TcpListener::bind("127.0.0.1:0"))
        .collect::<std::io::Result<Vec<_>>>()?;
    let mut ports = [0; N];
    for (port, listener) in ports.iter_mut().zip(&held) {
        *port = listener.local_addr()?.port();
    }
    Ok(ports)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// A port picked and released can be picked again before the process it was picked
    /// for listens on it: kube-apiserver once got etcd's and did not start ("bind: address
    /// already in use"). Picked one after the other, about one set in 5,000 repeated a
    /// port (Linux 6.18).
    #[test]
    fn the_control_planes_ports_are_distinct() {
        for _ in 0..100_000 {
            let ports: [u16; 3] = free_ports().expect("free ports");
            assert_eq!(BTreeSet::from(ports).len(), 3, "{ports:?}");
        }
    }
}
