//! `rsbuilder generate manifests`: CRDs, RBAC and webhook manifests in one pass.

mod common;

use std::fs;

use common::*;

fn golden_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    runtime_copy::copy_golden("project-v1", dir.path());
    dir
}

#[test]
fn the_golden_project_is_up_to_date() {
    let dir = golden_copy();
    let out = ok(&rsbuilder(
        dir.path(),
        &["generate", "manifests", "--check"],
    ));
    assert!(out.contains("up to date"), "{out}");
    let out = ok(&rsbuilder(dir.path(), &["generate", "manifests"]));
    assert!(out.contains("nothing to do"), "{out}");
}

#[test]
fn check_lists_every_stale_manifest_and_writes_nothing() {
    let dir = golden_copy();
    let d = dir.path();
    let types = d.join("src/api/infra/v1/tenant.rs");
    let text = fs::read_to_string(&types).unwrap();
    let text = text.replace(
        "pub struct TenantSpec {",
        "pub struct TenantSpec {\n    pub owner_email: String,",
    );
    fs::write(&types, text).unwrap();
    let controller = d.join("src/controllers/tenant.rs");
    let text = fs::read_to_string(&controller).unwrap();
    fs::write(
        &controller,
        format!("// +rsbuilder:rbac:groups=\"\",resources=secrets,verbs=get\n{text}"),
    )
    .unwrap();
    fs::write(d.join("config/webhook/manifests.yaml"), "stale\n").unwrap();

    let before = snapshot(d);
    let err = fails(&rsbuilder(d, &["generate", "manifests", "--check"]), 1);
    for file in [
        "config/crd/bases/infra.example.com_tenants.yaml (differs)",
        "config/rbac/role.yaml (differs)",
        "config/webhook/manifests.yaml (differs)",
    ] {
        assert!(err.contains(file), "{file} missing from:\n{err}");
    }
    assert_eq!(snapshot(d), before);

    let out = ok(&rsbuilder(d, &["generate", "manifests"]));
    assert!(out.contains("update config/rbac/role.yaml"), "{out}");
    assert!(
        fs::read_to_string(d.join("config/crd/bases/infra.example.com_tenants.yaml"))
            .unwrap()
            .contains("ownerEmail")
    );
    assert!(
        fs::read_to_string(d.join("config/rbac/role.yaml"))
            .unwrap()
            .contains("secrets")
    );
    ok(&rsbuilder(d, &["generate", "manifests", "--check"]));
}

#[test]
fn a_type_that_cannot_be_read_writes_none_of_the_manifests() {
    let dir = golden_copy();
    let d = dir.path();
    fs::write(d.join("config/webhook/manifests.yaml"), "stale\n").unwrap();
    let types = d.join("src/api/infra/v1/tenant.rs");
    let text = fs::read_to_string(&types).unwrap();
    fs::write(
        &types,
        text.replace(
            "pub struct TenantSpec {",
            "pub struct TenantSpec {\n    pub when: chrono::DateTime<chrono::Utc>,",
        ),
    )
    .unwrap();
    let before = snapshot(d);
    let err = fails(&rsbuilder(d, &["generate", "manifests"]), 1);
    assert!(
        err.contains("src/api/infra/v1/tenant.rs:") && err.contains("--exact"),
        "{err}"
    );
    assert_eq!(
        snapshot(d),
        before,
        "nothing may be written when one generator fails"
    );
}
