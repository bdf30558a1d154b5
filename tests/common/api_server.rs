//! A real kube-apiserver (with its etcd) for rsbuilder's own tests, to judge what rsbuilder
//! writes: one per test binary, started by the first test that asks, and reached with
//! kubectl as a member of `system:masters`. The binaries are the envtest ones
//! (`KUBEBUILDER_ASSETS`, which `.ci/run` sets from `rsbuilder envtest use`). The processes
//! die with the test binary (`PR_SET_PDEATHSIG`), and a normal exit removes their directory.

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

pub struct ApiServer {
    kubeconfig: PathBuf,
    dir: PathBuf,
}

static SERVER: OnceLock<Result<ApiServer, String>> = OnceLock::new();
static PROCESSES: Mutex<Vec<Child>> = Mutex::new(Vec::new());
static DIR: OnceLock<PathBuf> = OnceLock::new();

/// The API server of this test binary.
pub fn api_server() -> &'static ApiServer {
    let started = SERVER.get_or_init(|| {
        // PR_SET_PDEATHSIG fires when the thread that started a process ends, and a test's
        // thread ends with the test: start them from a thread that lives as long as the
        // test binary.
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = sender.send(start());
            loop {
                std::thread::park();
            }
        });
        receiver
            .recv()
            .unwrap_or_else(|_| Err("the API server's thread died".into()))
    });
    match started {
        Ok(server) => server,
        Err(error) => panic!("cannot start kube-apiserver: {error}"),
    }
}

fn start() -> Result<ApiServer, String> {
    let assets = std::env::var_os("KUBEBUILDER_ASSETS").ok_or(
        "KUBEBUILDER_ASSETS is not set: run `cargo run -- envtest use -p path` and export it \
         (.ci/run does)",
    )?;
    let assets = PathBuf::from(assets);
    let dir = std::env::temp_dir().join(format!("rsbuilder-api-server-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("etcd")).map_err(|e| e.to_string())?;
    let _ = DIR.set(dir.clone());
    extern "C" fn stop_at_exit() {
        stop();
    }
    // SAFETY: registers a plain function with no arguments, as atexit(3) asks.
    unsafe { libc::atexit(stop_at_exit) };

    let path = |name: &str| dir.join(name).display().to_string();
    // The key that signs ServiceAccount tokens, which kube-apiserver requires.
    let key = Command::new("openssl")
        .args(["genrsa", "-out", &path("sa.key"), "2048"])
        .output()
        .map_err(|e| format!("cannot run openssl: {e}"))?;
    check("openssl genrsa", &key)?;
    // A static token: tests act as an administrator, RBAC is not what they judge.
    let token = format!("rsbuilder-test-{}", std::process::id());
    std::fs::write(
        dir.join("tokens.csv"),
        format!("{token},admin,admin,system:masters\n"),
    )
    .map_err(|e| e.to_string())?;

    // Picked together, so that none of them is picked twice (a port picked and released
    // can be picked again).
    let [etcd_port, peer_port, port] = free_ports()?;
    let etcd_url = format!("http://127.0.0.1:{etcd_port}");
    let peer_url = format!("http://127.0.0.1:{peer_port}");
    spawn(
        &assets.join("etcd"),
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
    spawn(
        &assets.join("kube-apiserver"),
        &dir.join("kube-apiserver.log"),
        &[
            format!("--etcd-servers={etcd_url}"),
            // No certificate given: it writes a self-signed one here.
            format!("--cert-dir={}", path("certs")),
            format!("--secure-port={port}"),
            "--bind-address=127.0.0.1".into(),
            "--advertise-address=127.0.0.1".into(),
            "--endpoint-reconciler-type=none".into(),
            "--service-cluster-ip-range=10.0.0.0/24".into(),
            "--authorization-mode=RBAC".into(),
            format!("--token-auth-file={}", path("tokens.csv")),
            format!("--service-account-issuer=https://127.0.0.1:{port}"),
            format!("--service-account-key-file={}", path("sa.key")),
            format!("--service-account-signing-key-file={}", path("sa.key")),
        ],
    )?;
    // Its certificate is self-signed and on loopback: the tests skip verifying it.
    let kubeconfig = dir.join("kubeconfig");
    let config = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    \
         server: https://127.0.0.1:{port}\n    insecure-skip-tls-verify: true\n\
         users:\n- name: admin\n  user:\n    token: {token}\ncontexts:\n- name: test\n  \
         context:\n    cluster: test\n    user: admin\ncurrent-context: test\n"
    );
    std::fs::write(&kubeconfig, config).map_err(|e| e.to_string())?;
    let server = ApiServer { kubeconfig, dir };
    let started = Instant::now();
    loop {
        let ready = server.kubectl(&["get", "--raw", "/readyz"]);
        if ready.status.success() {
            return Ok(server);
        }
        if started.elapsed() > Duration::from_secs(90) {
            return Err(format!(
                "not ready within 90 s: {}\n{}",
                String::from_utf8_lossy(&ready.stderr),
                server.log_tail()
            ));
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

impl ApiServer {
    /// The kubeconfig that reaches this server as an administrator, for clients other than
    /// kubectl.
    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// `kubectl <args>` against this server.
    pub fn kubectl(&self, args: &[&str]) -> Output {
        Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .args(args)
            .output()
            .expect("kubectl runs")
    }

    /// Applies `manifest` server-side, as `make install` does; the error text when the
    /// server refuses it.
    pub fn apply(&self, manifest: &Path) -> Result<(), String> {
        let out = self.kubectl(&[
            "apply",
            "--server-side",
            "--force-conflicts",
            "-f",
            &manifest.display().to_string(),
        ]);
        check("kubectl apply", &out)
    }

    /// Waits until the CRD `name` is Established; the error gives its conditions.
    pub fn established(&self, name: &str) -> Result<(), String> {
        let crd = format!("crd/{name}");
        let started = Instant::now();
        loop {
            let out = self.kubectl(&["get", &crd, "-o", "jsonpath={.status.conditions}"]);
            let conditions = String::from_utf8_lossy(&out.stdout).into_owned();
            let value: serde_json::Value =
                serde_json::from_str(&conditions).unwrap_or(serde_json::Value::Null);
            let established = value
                .as_array()
                .into_iter()
                .flatten()
                .any(|c| c["type"] == "Established" && c["status"] == "True");
            if established {
                return Ok(());
            }
            if started.elapsed() > Duration::from_secs(60) {
                return Err(format!(
                    "{name} is not Established within 60 s: {conditions}"
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Deletes the CRD `name` and waits until it is gone, for a name a test uses again.
    /// The wait is long: on a loaded CI machine a CRD once took more than a minute to go,
    /// though it had no objects (see `discard_crd`). A panic shows its `Terminating`
    /// condition, which says what the CRD finalizer is waiting for.
    pub fn delete_crd(&self, name: &str) {
        let crd = format!("crd/{name}");
        let out = self.kubectl(&["delete", &crd, "--wait=true", "--timeout=180s"]);
        if let Err(e) = check(&format!("delete {name}"), &out) {
            let left = self.kubectl(&["get", &crd, "-o", "jsonpath={.status.conditions}"]);
            panic!(
                "{e}\nits conditions: {}",
                String::from_utf8_lossy(&left.stdout)
            );
        }
    }

    /// Deletes the CRD `name` without waiting for it to go, for a name no test uses again.
    /// The CRD goes once its finalizer has listed and deleted its objects, and on a loaded
    /// 2-core machine that took more than a minute after `Established` now and then, though
    /// no object was ever created: a wait that only made the test flaky.
    pub fn discard_crd(&self, name: &str) {
        let crd = format!("crd/{name}");
        let out = self.kubectl(&["delete", &crd, "--wait=false"]);
        check(&format!("delete {name}"), &out).unwrap_or_else(|e| panic!("{e}"));
    }

    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.dir.join("kube-apiserver.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }
}

fn check(what: &str, out: &Output) -> Result<(), String> {
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ))
}

/// `N` distinct free ports on 127.0.0.1: each is held until all are picked.
fn free_ports<const N: usize>() -> Result<[u16; N], String> {
    let held = (0..N)
        .map(|_| TcpListener::bind("127.0.0.1:0"))
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(|e| e.to_string())?;
    let mut ports = [0; N];
    for (port, listener) in ports.iter_mut().zip(&held) {
        *port = listener.local_addr().map_err(|e| e.to_string())?.port();
    }
    Ok(ports)
}

/// Starts `program`, its output into `log`, to be killed when the test binary ends.
fn spawn(program: &Path, log: &Path, args: &[String]) -> Result<(), String> {
    let log = std::fs::File::create(log).map_err(|e| e.to_string())?;
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(log.try_clone().map_err(|e| e.to_string())?)
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
        .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    PROCESSES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(child);
    Ok(())
}

fn stop() {
    let mut processes = PROCESSES.lock().unwrap_or_else(|e| e.into_inner());
    for child in processes.iter_mut().rev() {
        let _ = child.kill();
        let _ = child.wait();
    }
    processes.clear();
    if let Some(dir) = DIR.get() {
        let _ = std::fs::remove_dir_all(dir);
    }
}
