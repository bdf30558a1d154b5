//! The chart `rsbuilder edit --helm` writes (`dist/chart`), installed, upgraded and
//! uninstalled by the real helm on the real API server, in a project scaffolded by the real
//! CLI. What is judged is the contract of the two tools, not the chart's text:
//!
//! - `helm install` creates every object the chart renders for the release
//!   (https://helm.sh/docs/helm/helm_install/); an envtest API server runs no kubelet and no
//!   controllers, so no pod ever runs, and helm is not asked to wait for any: the Deployment
//!   exists all the same.
//! - The CRDs are in `templates/`, not `crds/`: Helm installs `crds/` once and never
//!   upgrades or deletes it, while what `templates/` renders is upgraded by `helm upgrade`
//!   like any other object
//!   (https://helm.sh/docs/chart_best_practices/custom_resource_definitions/).
//! - A CRD's new version, served beside the stored one, keeps the stored objects readable,
//!   at either version (with no conversion webhook the API server only rewrites apiVersion:
//!   https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/).
//! - `helm uninstall` deletes the release's objects but those annotated
//!   `helm.sh/resource-policy: keep`
//!   (https://helm.sh/docs/howto/charts_tips_and_tricks/#tell-helm-not-to-uninstall-a-resource),
//!   which the chart puts on its CRDs while `crd.keep` (true by default); deleting a CRD
//!   deletes every object of its kind
//!   (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#delete-a-customresourcedefinition),
//!   so with `crd.keep=false` uninstalling takes the users' objects with it.
#![allow(clippy::disallowed_methods)] // reads helm's and kubectl's own output

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

use common::api_server::{ApiServer, api_server};
use common::{ok, rsbuilder};

/// helm against the test's API server, its cache, configuration and data in a directory of
/// its own (not the user's home).
struct Helm {
    home: tempfile::TempDir,
    kubeconfig: PathBuf,
}

impl Helm {
    fn new(server: &ApiServer) -> Self {
        Helm {
            home: tempfile::tempdir().unwrap(),
            kubeconfig: server.kubeconfig().to_path_buf(),
        }
    }

    /// `helm <args> --kubeconfig <the server's>` in `dir`.
    fn run(&self, dir: &Path, args: &[&str]) -> Output {
        let home = self.home.path();
        Command::new(common::helm())
            .args(args)
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .current_dir(dir)
            .env_remove("KUBECONFIG")
            .env("HOME", home)
            .env("HELM_CACHE_HOME", home.join("cache"))
            .env("HELM_CONFIG_HOME", home.join("config"))
            .env("HELM_DATA_HOME", home.join("data"))
            .output()
            .expect("helm runs")
    }

    /// Like [`Helm::run`], and asserts success with no warning (the API server's warnings,
    /// an unknown or deprecated field's, reach stderr); its stdout.
    #[track_caller]
    fn ok(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.run(dir, args);
        let what = format!("helm {}", args.join(" "));
        let stdout = succeeded(&what, &out);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.to_ascii_lowercase().contains("warn"),
            "{what} warned:\n{stderr}"
        );
        stdout
    }
}

#[track_caller]
fn succeeded(what: &str, out: &Output) -> String {
    assert!(
        out.status.success(),
        "{what} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[track_caller]
fn kubectl(server: &ApiServer, args: &[&str]) -> String {
    succeeded(
        &format!("kubectl {}", args.join(" ")),
        &server.kubectl(args),
    )
}

/// An object as the API server knows it: kind, namespace ("" when cluster-scoped), name.
type Identity = (String, String, String);

fn identity(object: &Value) -> Identity {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    (
        text(&object["kind"]),
        text(&object["metadata"]["namespace"]),
        text(&object["metadata"]["name"]),
    )
}

/// A project scaffolded by the real CLI in a directory of its own: `init`, one kind, and
/// the chart (`edit --helm`).
fn scaffold(name: &str, group: &str, kind: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    ok(&rsbuilder(
        root,
        &[
            "init",
            "--domain",
            "example.com",
            "--project-name",
            name,
            "--fetch-deps=false",
        ],
    ));
    ok(&rsbuilder(
        root,
        &[
            "create",
            "api",
            "--group",
            group,
            "--version",
            "v1",
            "--kind",
            kind,
        ],
    ));
    ok(&rsbuilder(root, &["edit", "--helm"]));
    dir
}

/// What `helm template` renders of the project's chart for `release` in `namespace`, with
/// `values` (`--set` arguments): written to `rendered.yaml` in a directory of the test's,
/// for kubectl to look the objects up, and their identities.
fn render(
    helm: &Helm,
    project: &Path,
    release: &str,
    namespace: &str,
    values: &[&str],
    out_dir: &Path,
) -> (PathBuf, BTreeSet<Identity>) {
    let mut args = vec!["template", release, "dist/chart", "--namespace", namespace];
    for value in values {
        args.extend(["--set", value]);
    }
    let yaml = helm.ok(project, &args);
    let objects: BTreeSet<Identity> = common::documents(&yaml)
        .iter()
        .filter(|d| !d.is_null())
        .map(|d| identity(&serde_json::to_value(d).unwrap()))
        .collect();
    let file = out_dir.join("rendered.yaml");
    fs::write(&file, yaml).unwrap();
    (file, objects)
}

/// Those of the objects of `manifest` the API server has, as it has them.
fn present(server: &ApiServer, manifest: &Path) -> Vec<Value> {
    let text = kubectl(
        server,
        &[
            "get",
            "-f",
            &manifest.display().to_string(),
            "--ignore-not-found",
            "-o",
            "json",
        ],
    );
    if text.trim().is_empty() {
        return Vec::new();
    }
    let value: Value = serde_json::from_str(&text).unwrap();
    // One object comes back as itself, several as a List.
    if value["kind"] == "List" {
        value["items"].as_array().cloned().unwrap_or_default()
    } else {
        vec![value]
    }
}

/// The identities of [`present`].
fn present_identities(server: &ApiServer, manifest: &Path) -> BTreeSet<Identity> {
    present(server, manifest).iter().map(identity).collect()
}

/// Polls `check` until it passes, for at most 60 s (deletions the API server finishes after
/// answering: a CRD's, which first deletes the objects of its kind); else fails with what
/// `check` last said.
#[track_caller]
fn eventually(what: &str, mut check: impl FnMut() -> Result<(), String>) {
    let started = Instant::now();
    while let Err(state) = check() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "not within 60 s: {what}: {state}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The CRD `name` as the API server has it, or None.
fn crd(server: &ApiServer, name: &str) -> Option<Value> {
    let text = kubectl(
        server,
        &["get", "crd", name, "--ignore-not-found", "-o", "json"],
    );
    (!text.trim().is_empty()).then(|| serde_json::from_str(&text).unwrap())
}

/// The served versions of a CRD, in its order, and its storage version.
fn versions(crd: &Value) -> (Vec<String>, String) {
    let versions = crd["spec"]["versions"].as_array().unwrap();
    let served = versions
        .iter()
        .filter(|v| v["served"] == true)
        .map(|v| v["name"].as_str().unwrap().to_string())
        .collect();
    let storage = versions
        .iter()
        .find(|v| v["storage"] == true)
        .map(|v| v["name"].as_str().unwrap().to_string())
        .unwrap_or_default();
    (served, storage)
}

/// The custom resource `name` read at `resource` (`plural.version.group`) in `namespace`.
#[track_caller]
fn custom_resource(server: &ApiServer, resource: &str, namespace: &str, name: &str) -> Value {
    let text = kubectl(
        server,
        &[
            "get",
            resource,
            name,
            "--namespace",
            namespace,
            "-o",
            "json",
        ],
    );
    serde_json::from_str(&text).unwrap()
}

fn has(objects: &BTreeSet<Identity>, kind: &str, name: &str) -> bool {
    objects.iter().any(|(k, _, n)| k == kind && n == name)
}

#[test]
#[ignore = "needs kube-apiserver and etcd (KUBEBUILDER_ASSETS) and helm (HELM); run with --include-ignored"]
fn the_chart_installs_upgrades_a_crd_to_a_new_version_and_uninstalls_keeping_the_crd() {
    let server = api_server();
    let helm = Helm::new(server);
    let scratch = tempfile::tempdir().unwrap();
    let project = scaffold("helm-e2e", "ship", "Frigate");
    let root = project.path();
    let (release, namespace) = ("frigates", "helm-e2e-system");
    let crd_name = "frigates.ship.example.com";
    let deployment = "helm-e2e-controller-manager";

    // Install. Helm 4 waits for nothing but hooks unless told (`--wait=hookOnly`, its
    // default, said here as the brief of this test): no pod runs on this server.
    helm.ok(
        root,
        &[
            "install",
            release,
            "dist/chart",
            "--namespace",
            namespace,
            "--create-namespace",
            "--wait=hookOnly",
        ],
    );
    let (manifest, rendered) = render(&helm, root, release, namespace, &[], scratch.path());
    for (kind, name) in [
        ("CustomResourceDefinition", crd_name),
        ("Deployment", deployment),
        ("ServiceAccount", deployment),
    ] {
        assert!(
            has(&rendered, kind, name),
            "helm template renders no {kind} {name}: {rendered:?}"
        );
    }
    assert!(
        rendered
            .iter()
            .all(|(kind, ns, _)| kind != "Namespace" && (ns.is_empty() || ns == namespace)),
        "every namespaced object in the release's namespace, and no Namespace object: {rendered:?}"
    );
    let installed = present(server, &manifest);
    let found: BTreeSet<Identity> = installed.iter().map(identity).collect();
    let missing: Vec<_> = rendered.difference(&found).collect();
    assert!(
        missing.is_empty(),
        "rendered but not on the server after helm install: {missing:?}"
    );
    eprintln!(
        "helm install {release}: {} objects rendered, all on the server",
        rendered.len()
    );
    // Every object is the release's, as Helm marks what it owns (and refuses to adopt from
    // another release).
    for object in &installed {
        let annotations = &object["metadata"]["annotations"];
        assert_eq!(
            (
                &annotations["meta.helm.sh/release-name"],
                &annotations["meta.helm.sh/release-namespace"],
            ),
            (&Value::from(release), &Value::from(namespace)),
            "{:?} is not marked as the release's",
            identity(object)
        );
    }
    server
        .established(crd_name)
        .unwrap_or_else(|e| panic!("{e}"));
    let installed_crd = crd(server, crd_name).unwrap();
    assert_eq!(
        installed_crd["metadata"]["annotations"]["helm.sh/resource-policy"], "keep",
        "crd.keep is true by default"
    );
    assert_eq!(
        versions(&installed_crd),
        (vec!["v1".to_string()], "v1".to_string())
    );

    // A Frigate, as the project's sample describes it.
    kubectl(
        server,
        &[
            "create",
            "--namespace",
            namespace,
            "-f",
            &root
                .join("config/samples/ship_v1_frigate.yaml")
                .display()
                .to_string(),
        ],
    );
    let frigate = custom_resource(
        server,
        "frigates.v1.ship.example.com",
        namespace,
        "frigate-sample",
    );
    assert_eq!(frigate["spec"]["foo"], "an example Frigate");

    // A second version of the kind; `generate manifests` brings the chart in step with
    // config/, and helm upgrade takes the new CRD to the server.
    ok(&rsbuilder(
        root,
        &[
            "create",
            "api",
            "--group",
            "ship",
            "--version",
            "v2",
            "--kind",
            "Frigate",
        ],
    ));
    ok(&rsbuilder(root, &["generate", "manifests"]));
    ok(&rsbuilder(root, &["generate", "helm", "--check"]));
    helm.ok(
        root,
        &[
            "upgrade",
            release,
            "dist/chart",
            "--namespace",
            namespace,
            "--wait=hookOnly",
        ],
    );
    let (manifest, rendered) = render(&helm, root, release, namespace, &[], scratch.path());
    let found = present_identities(server, &manifest);
    let missing: Vec<_> = rendered.difference(&found).collect();
    assert!(
        missing.is_empty(),
        "rendered but not on the server after helm upgrade: {missing:?}"
    );
    let upgraded = crd(server, crd_name).unwrap();
    assert_eq!(
        versions(&upgraded),
        (vec!["v1".to_string(), "v2".to_string()], "v1".to_string()),
        "helm upgrade serves the new version beside the stored one"
    );
    server
        .established(crd_name)
        .unwrap_or_else(|e| panic!("{e}"));
    for version in ["v1", "v2"] {
        let read = custom_resource(
            server,
            &format!("frigates.{version}.ship.example.com"),
            namespace,
            "frigate-sample",
        );
        assert_eq!(read["apiVersion"], format!("ship.example.com/{version}"));
        assert_eq!(
            read["spec"]["foo"], "an example Frigate",
            "the Frigate stored before the upgrade, read at {version}"
        );
        assert_eq!(read["metadata"]["uid"], frigate["metadata"]["uid"]);
    }
    let history = helm.ok(
        root,
        &["history", release, "--namespace", namespace, "-o", "json"],
    );
    let history: Value = serde_json::from_str(&history).unwrap();
    assert_eq!(
        history.as_array().map(Vec::len),
        Some(2),
        "one install, one upgrade: {history}"
    );

    // Uninstall: everything goes but the CRD (keep), and with it the Frigate stays.
    assert!(has(&rendered, "Deployment", deployment));
    helm.ok(root, &["uninstall", release, "--namespace", namespace]);
    let kept: BTreeSet<Identity> = rendered
        .iter()
        .filter(|(kind, _, _)| kind == "CustomResourceDefinition")
        .cloned()
        .collect();
    eventually("helm uninstall deletes all but the CRD", || {
        let left = present_identities(server, &manifest);
        if left == kept {
            Ok(())
        } else {
            Err(format!("left on the server {left:?}, expected {kept:?}"))
        }
    });
    let kept_crd = crd(server, crd_name).expect("the CRD stays");
    assert!(kept_crd["metadata"]["deletionTimestamp"].is_null());
    let frigate = custom_resource(
        server,
        "frigates.v2.ship.example.com",
        namespace,
        "frigate-sample",
    );
    assert_eq!(frigate["spec"]["foo"], "an example Frigate");
}

#[test]
#[ignore = "needs kube-apiserver and etcd (KUBEBUILDER_ASSETS) and helm (HELM); run with --include-ignored"]
fn with_crd_keep_false_helm_uninstall_deletes_the_crd_and_its_objects() {
    let server = api_server();
    let helm = Helm::new(server);
    let scratch = tempfile::tempdir().unwrap();
    // Another project, group and kind than the test above: a CRD (and cluster roles) no other
    // release owns, as Helm refuses to take an object over from another release.
    let project = scaffold("helm-drop", "dock", "Barge");
    let root = project.path();
    let (release, namespace) = ("barges", "helm-drop-system");
    let crd_name = "barges.dock.example.com";

    helm.ok(
        root,
        &[
            "install",
            release,
            "dist/chart",
            "--namespace",
            namespace,
            "--create-namespace",
            "--wait=hookOnly",
            "--set",
            "crd.keep=false",
        ],
    );
    let (manifest, rendered) = render(
        &helm,
        root,
        release,
        namespace,
        &["crd.keep=false"],
        scratch.path(),
    );
    assert!(has(&rendered, "CustomResourceDefinition", crd_name));
    let found = present_identities(server, &manifest);
    let missing: Vec<_> = rendered.difference(&found).collect();
    assert!(
        missing.is_empty(),
        "rendered but not on the server after helm install: {missing:?}"
    );
    server
        .established(crd_name)
        .unwrap_or_else(|e| panic!("{e}"));
    let installed = crd(server, crd_name).unwrap();
    assert!(
        installed["metadata"]["annotations"]["helm.sh/resource-policy"].is_null(),
        "crd.keep=false: no keep policy on the CRD: {}",
        installed["metadata"]
    );
    kubectl(
        server,
        &[
            "create",
            "--namespace",
            namespace,
            "-f",
            &root
                .join("config/samples/dock_v1_barge.yaml")
                .display()
                .to_string(),
        ],
    );
    custom_resource(
        server,
        "barges.v1.dock.example.com",
        namespace,
        "barge-sample",
    );

    helm.ok(root, &["uninstall", release, "--namespace", namespace]);
    eventually("helm uninstall deletes every object, the CRD too", || {
        let left = present_identities(server, &manifest);
        if left.is_empty() {
            Ok(())
        } else {
            Err(format!("left on the server: {left:?}"))
        }
    });
    // The Barge went with its CRD: the API server no longer serves the kind.
    let gone = server.kubectl(&[
        "get",
        "barges.v1.dock.example.com",
        "barge-sample",
        "--namespace",
        namespace,
    ]);
    assert!(!gone.status.success(), "the Barge outlived its CRD");
}
