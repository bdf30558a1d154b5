//! `rsbuilder create api --from-crd`: kinds the project uses but does not own. Their types
//! come from their CRD, their CRD is never generated, shipped or installed, their
//! controller is a built-in kind's, and bad input is one clear error that writes nothing.

mod common;

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::*;

fn fixture(name: &str) -> PathBuf {
    repo_root().join("testdata/external-crds").join(name)
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    ok(&rsbuilder(
        dir.path(),
        &["init", "--domain", "example.com", "--project-name", "demo"],
    ));
    dir
}

fn from_crd(dir: &Path, file: &Path, extra: &[&str]) -> String {
    let mut args = vec!["create", "api", "--from-crd", file.to_str().unwrap()];
    args.extend(extra);
    ok(&rsbuilder(dir, &args))
}

#[test]
fn a_kind_from_its_crd_gets_types_a_controller_and_no_crd_of_the_project() {
    let dir = project();
    let out = from_crd(dir.path(), &fixture("certificate.yaml"), &["--controller"]);
    assert!(
        out.contains("The cluster must have the CRD of Certificate (cert-manager.io)"),
        "{out}"
    );
    let types = read(
        dir.path(),
        "src/api/external/cert_manager_io/v1/certificate.rs",
    );
    for line in [
        "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]",
        "    group = \"cert-manager.io\",",
        "    status = \"CertificateStatus\",",
        "pub struct CertificateSpec {",
    ] {
        assert!(types.contains(line), "no {line:?} in:\n{types}");
    }
    let project = read(dir.path(), "PROJECT");
    assert!(
        project.contains(
            "  path: src/api/external/cert_manager_io/v1/certificate.rs\n  external: true\n  crd: config/external-crds/cert-manager.io_certificates.yaml\n"
        ),
        "{project}"
    );
    // The CRD is kept, but nothing installs it: no config/crd, no kustomization names it.
    let copy = read(
        dir.path(),
        "config/external-crds/cert-manager.io_certificates.yaml",
    );
    assert!(
        copy.contains("name: certificates.cert-manager.io"),
        "{copy}"
    );
    assert!(!dir.path().join("config/crd").exists());
    let controller = read(dir.path(), "src/controllers/certificate.rs");
    assert!(
        controller
            .contains("use crate::api::external::cert_manager_io::v1::certificate::Certificate;"),
        "{controller}"
    );
    // `generate rbac` grants the controller's verbs on the kind.
    ok(&rsbuilder(dir.path(), &["generate", "rbac"]));
    let role = read(dir.path(), "config/rbac/role.yaml");
    assert!(
        role.contains("- apiGroups:\n  - cert-manager.io\n  resources:\n  - certificates\n  verbs:\n  - list\n  - watch\n"),
        "{role}"
    );
    let makefile = read(dir.path(), "Makefile");
    assert!(makefile.contains("deploy: external-crds\n"), "{makefile}");
}

/// `generate crds` reads every `#[derive(CustomResource)]` under src/api but those of
/// src/api/external: the project's own CRDs come out, never an external kind's.
#[test]
fn generate_crds_writes_the_projects_crds_and_never_an_external_one() {
    let dir = project();
    from_crd(
        dir.path(),
        &fixture("servicemonitor.yaml"),
        &["--controller"],
    );
    ok(&rsbuilder(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "web",
            "--version",
            "v1",
            "--kind",
            "Site",
        ],
    ));
    ok(&rsbuilder(dir.path(), &["generate", "crds"]));
    let bases: Vec<String> = fs::read_dir(dir.path().join("config/crd/bases"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(bases, ["web.example.com_sites.yaml"]);
    ok(&rsbuilder(
        dir.path(),
        &["generate", "manifests", "--check"],
    ));
    let kustomization = read(dir.path(), "config/crd/kustomization.yaml");
    assert!(
        !kustomization.contains("servicemonitors"),
        "{kustomization}"
    );
    let api = read(dir.path(), "src/api/mod.rs");
    assert!(
        api.contains("pub mod external;") && !api.contains("service_monitor"),
        "{api}"
    );
}

#[test]
fn the_crd_can_come_from_stdin_and_name_one_kind_of_several() {
    let dir = project();
    let mut child = rsbuilder_command(
        dir.path(),
        &[
            "create",
            "api",
            "--from-crd",
            "-",
            "--kind",
            "HTTPRoute",
            "--version",
            "v1beta1",
        ],
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&fs::read(fixture("gateway-api.yaml")).unwrap())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    ok(&out);
    let types = read(
        dir.path(),
        "src/api/external/gateway_networking_k8s_io/v1beta1/http_route.rs",
    );
    assert!(types.contains("    storage = false,"), "{types}");
    assert!(types.contains("    deprecated = "), "{types}");
    // Types only: no controller without --controller.
    assert!(!dir.path().join("src/controllers/http_route.rs").exists());
    assert!(read(dir.path(), "PROJECT").contains("  controller: false\n  path: src/api/external/"));
}

#[test]
fn a_controller_can_follow_the_types() {
    let dir = project();
    from_crd(dir.path(), &fixture("rollout.yaml"), &[]);
    let args = [
        "create",
        "api",
        "--group",
        "argoproj.io",
        "--version",
        "v1alpha1",
        "--kind",
        "Rollout",
        "--resource=false",
        "--controller",
    ];
    ok(&rsbuilder(dir.path(), &args));
    let controller = read(dir.path(), "src/controllers/rollout.rs");
    assert!(controller.contains("api::external::argoproj_io::v1alpha1::rollout::Rollout"));
    assert!(read(dir.path(), "PROJECT").contains("  kind: Rollout\n  plural: rollouts\n  domain: ''\n  namespaced: true\n  controller: true\n"));
    refused(dir.path(), &args, 1, "already has a controller");
    let mut wrong = args.to_vec();
    wrong[5] = "v1";
    refused(
        dir.path(),
        &wrong,
        1,
        "is typed at v1alpha1 in this project",
    );
}

#[test]
fn force_generates_the_types_again_and_keeps_the_controller() {
    let dir = project();
    from_crd(dir.path(), &fixture("certificate.yaml"), &["--controller"]);
    let path = dir
        .path()
        .join("src/api/external/cert_manager_io/v1/certificate.rs");
    fs::write(&path, "// edited\n").unwrap();
    from_crd(dir.path(), &fixture("certificate.yaml"), &["--force"]);
    assert!(
        read(
            dir.path(),
            "src/api/external/cert_manager_io/v1/certificate.rs"
        )
        .contains("pub struct CertificateSpec {")
    );
    assert!(read(dir.path(), "PROJECT").contains("  controller: true\n  path: src/api/external/"));
}

#[test]
fn bad_input_is_one_clear_error_and_writes_nothing() {
    let dir = project();
    let scratch = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = scratch.path().join(name);
        fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let configmap = write(
        "cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
    );
    let own = write(
        "own.yaml",
        &fs::read_to_string(fixture("rollout.yaml"))
            .unwrap()
            .replace("argoproj.io", "apps.example.com"),
    );
    let garbage = write("garbage.yaml", "kind: [unclosed\n");
    let gateway = fixture("gateway-api.yaml");
    let gateway = gateway.to_str().unwrap();
    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        (
            vec!["--from-crd", &configmap],
            1,
            "holds no CustomResourceDefinition (it holds ConfigMap)",
        ),
        (
            vec!["--from-crd", &own],
            1,
            "Rollout (apps.example.com) is in this project's domain example.com, so it is not an external kind",
        ),
        (
            vec![
                "--from-crd",
                gateway,
                "--kind",
                "HTTPRoute",
                "--version",
                "v1alpha2",
            ],
            1,
            "the CRD of HTTPRoute has the version v1alpha2 but does not serve it; it serves v1, v1beta1",
        ),
        (
            vec![
                "--from-crd",
                gateway,
                "--kind",
                "HTTPRoute",
                "--version",
                "v3",
            ],
            1,
            "the CRD of HTTPRoute has no version v3",
        ),
        (
            vec!["--from-crd", gateway],
            1,
            "holds 2 CRDs (HTTPRoute, GRPCRoute); name the one to type with --kind",
        ),
        (vec!["--from-crd", &garbage], 1, "is not valid YAML"),
        (
            vec!["--from-crd", "missing.yaml"],
            1,
            "--from-crd missing.yaml: no such file",
        ),
        (vec!["--from-crd", gateway, "--group", "x"], 2, "--group"),
        (vec!["--from-crd", gateway, "--finalizer"], 2, "--finalizer"),
    ];
    for (extra, code, message) in cases {
        let mut args = vec!["create", "api"];
        args.extend(extra);
        refused(dir.path(), &args, code, message);
    }
    // The same kind twice.
    from_crd(dir.path(), &fixture("certificate.yaml"), &[]);
    let cert = fixture("certificate.yaml");
    refused(
        dir.path(),
        &[
            "create",
            "api",
            "--from-crd",
            cert.to_str().unwrap(),
            "--controller",
        ],
        1,
        "Certificate (cert-manager.io) is already in this project (src/api/external/cert_manager_io/v1/certificate.rs); add --force",
    );
    // Webhooks and storage versions are for the project's own kinds.
    refused(
        dir.path(),
        &[
            "create",
            "webhook",
            "--group",
            "cert-manager.io",
            "--version",
            "v1",
            "--kind",
            "Certificate",
            "--defaulting",
        ],
        1,
        "is an external kind",
    );
    refused(
        dir.path(),
        &["edit", "--storage-version", "v1", "--kind", "Certificate"],
        1,
        "this project has no kind Certificate",
    );
    // A group of the project's own may not take the external kinds' module.
    refused(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "external",
            "--version",
            "v1",
            "--kind",
            "Thing",
        ],
        1,
        "its Rust module would be src/api/external",
    );
}

#[test]
fn dry_run_writes_nothing() {
    let dir = project();
    let before = snapshot(dir.path());
    let cert = fixture("certificate.yaml");
    let out = ok(&rsbuilder(
        dir.path(),
        &[
            "--dry-run",
            "create",
            "api",
            "--from-crd",
            cert.to_str().unwrap(),
            "--controller",
        ],
    ));
    assert!(
        out.contains("would create src/api/external/cert_manager_io/v1/certificate.rs"),
        "{out}"
    );
    assert_eq!(snapshot(dir.path()), before);
}
