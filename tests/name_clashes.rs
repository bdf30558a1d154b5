//! Names the API server refuses because another kind of the same group claims them
//! (issue 21, items 5 and 6): `create api` refuses them or drops a derived short name with
//! a note, and `generate crds` refuses them with `file:line`. `api_server_names.rs` shows
//! the server's verdict on the same pairs; `lint.rs` has lint's rule.

mod common;

use std::path::Path;

use common::name_cases::{clashing_pairs, kind};
use common::*;
use rsbuilder::crd::{SourceFile, generate};

/// A copy of testdata/project-v1: CronJob (cronjobs) in batch, Tenant (tnt) in infra.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    runtime_copy::copy_golden("project-v1", dir.path());
    dir
}

fn create_api<'a>(group: &'a str, kind: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "create",
        "api",
        "--group",
        group,
        "--version",
        "v1",
        "--kind",
        kind,
    ];
    args.extend(extra);
    args
}

fn short_names(dir: &Path, crd: &str) -> Vec<String> {
    let doc = &documents(&read(dir, crd))[0];
    doc["spec"]["names"]["shortNames"]
        .as_sequence()
        .into_iter()
        .flatten()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_kind_whose_singular_is_another_kind_s_plural_is_refused() {
    let dir = project();
    refused(
        dir.path(),
        &create_api("batch", "CronJobs", &[]),
        1,
        "invalid kind \"CronJobs\": its singular \"cronjobs\" is the plural of CronJob (batch.example.com)",
    );
}

#[test]
fn a_kind_equal_to_another_kind_s_list_kind_is_refused() {
    let dir = project();
    refused(
        dir.path(),
        &create_api("batch", "CronJobList", &[]),
        1,
        "invalid kind \"CronJobList\": it is the list kind of CronJob (batch.example.com)",
    );
}

#[test]
fn a_plural_equal_to_another_kind_s_singular_is_refused() {
    let dir = project();
    refused(
        dir.path(),
        &create_api("batch", "Widget", &["--plural", "cronjob"]),
        1,
        "invalid plural \"cronjob\": it is the singular of CronJob (batch.example.com); pass --plural with another name",
    );
}

#[test]
fn a_derived_short_name_another_kind_of_the_group_has_is_dropped_with_a_note() {
    let dir = project();
    ok(&rsbuilder(
        dir.path(),
        &create_api("batch", "ReplicaPool", &[]),
    ));
    let pools = "config/crd/bases/batch.example.com_replicapools.yaml";
    assert_eq!(short_names(dir.path(), pools), ["rp"]);
    let out = ok(&rsbuilder(
        dir.path(),
        &create_api("batch", "RetryPolicy", &[]),
    ));
    let policies = "config/crd/bases/batch.example.com_retrypolicies.yaml";
    assert_eq!(short_names(dir.path(), policies), Vec::<String>::new());
    assert!(
        out.contains("note: RetryPolicy gets no short name: \"rp\" is the short name of ReplicaPool (batch.example.com)"),
        "{out}"
    );
    // Another group claims nothing in this one.
    ok(&rsbuilder(
        dir.path(),
        &create_api("infra", "RetryPolicy", &["--controller=false"]),
    ));
    let other = "config/crd/bases/infra.example.com_retrypolicies.yaml";
    assert_eq!(short_names(dir.path(), other), ["rp"]);
}

#[test]
fn a_derived_short_name_of_a_built_in_kind_is_dropped_with_a_note() {
    let dir = project();
    let out = ok(&rsbuilder(
        dir.path(),
        &create_api("batch", "ClusterJob", &[]),
    ));
    let crd = "config/crd/bases/batch.example.com_clusterjobs.yaml";
    assert_eq!(short_names(dir.path(), crd), Vec::<String>::new());
    assert!(
        out.contains("note: ClusterJob gets no short name: \"cj\" is the short name of Kubernetes' cronjobs.batch"),
        "{out}"
    );
    // IPAddress (networking.k8s.io/v1) has `ip` since Kubernetes 1.33.
    let out = ok(&rsbuilder(
        dir.path(),
        &create_api("batch", "IngressPolicy", &[]),
    ));
    assert!(
        out.contains("\"ip\" is the short name of Kubernetes' ipaddresses.networking.k8s.io"),
        "{out}"
    );
}

fn sources(a: &str, b: &str) -> Vec<SourceFile> {
    vec![
        SourceFile {
            path: "src/a.rs".into(),
            text: a.into(),
        },
        SourceFile {
            path: "src/b.rs".into(),
            text: b.into(),
        },
    ]
}

#[test]
fn generate_crds_refuses_names_another_kind_of_the_group_claims() {
    for (case, a, b, message) in clashing_pairs() {
        let err = generate(&sources(&a, &b))
            .map(|files| format!("{:?}", files.keys()))
            .expect_err(case)
            .to_string();
        assert!(err.contains("src/b.rs:6:12:"), "{case}: {err}");
        assert!(err.contains(message), "{case}: {err}");
        let why = ["NamesAccepted=False", "would be the one CRD"];
        assert!(why.iter().any(|w| err.contains(w)), "{case}: {err}");
        // Each kind alone is fine.
        for one in [&a, &b] {
            generate(&sources(one, "")).unwrap_or_else(|e| panic!("{case}: {e}"));
        }
    }
}

/// The API server accepts it (`api_server_names.rs`), so kube-derive's output stands.
#[test]
fn a_short_name_listed_twice_is_written_as_kube_derive_writes_it() {
    let twice = kind("Frigate", ", shortname = \"fr\", shortname = \"fr\"");
    let files = generate(&sources(&twice, "")).unwrap();
    let yaml = &files["ship.example.com_frigates.yaml"];
    assert_eq!(
        yaml.lines().filter(|l| l.trim() == "- fr").count(),
        2,
        "{yaml}"
    );
}

#[test]
fn kinds_of_other_groups_and_versions_of_one_kind_do_not_clash() {
    let other_group = kind("Sloop", ", shortname = \"fr\", plural = \"frigates\"")
        .replace("ship.example.com", "boat.example.com");
    let a = kind("Frigate", ", shortname = \"fr\"");
    generate(&sources(&a, &other_group)).unwrap();
    let v2 = a.replace("\"v1\"", "\"v2\", storage = false");
    let files = generate(&sources(&a, &v2)).unwrap();
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        ["ship.example.com_frigates.yaml"]
    );
}

#[test]
fn generate_crds_names_the_file_and_line_of_the_clash() {
    let dir = tempfile::tempdir().unwrap();
    let (_, a, b, message) = clashing_pairs().remove(0);
    std::fs::create_dir(dir.path().join("types")).unwrap();
    std::fs::write(dir.path().join("types/a.rs"), a).unwrap();
    std::fs::write(dir.path().join("types/b.rs"), b).unwrap();
    let args = [
        "generate",
        "crds",
        "--paths",
        "types",
        "--output-dir",
        "out",
    ];
    let before = snapshot(dir.path());
    let err = fails(&rsbuilder(dir.path(), &args), 1);
    assert!(err.contains("types/b.rs:6:12:"), "{err}");
    assert!(err.contains(message), "{err}");
    assert_eq!(snapshot(dir.path()), before);
}
