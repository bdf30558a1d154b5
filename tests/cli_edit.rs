//! `rsbuilder edit --storage-version`: moves the storage version and touches nothing else.

mod common;

use std::path::Path;

use common::*;

fn project_with_three_versions() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    ok(&rsbuilder(
        dir.path(),
        &["init", "--domain", "example.com", "--project-name", "demo"],
    ));
    for version in ["v1alpha1", "v1beta1", "v1"] {
        ok(&rsbuilder(
            dir.path(),
            &[
                "create",
                "api",
                "--group",
                "batch",
                "--version",
                version,
                "--kind",
                "CronJob",
            ],
        ));
    }
    dir
}

const EDIT: &[&str] = &[
    "edit",
    "--storage-version",
    "v1",
    "--kind",
    "CronJob",
    "--group",
    "batch",
];

#[test]
fn the_storage_version_moves_and_nothing_else_changes() {
    let dir = project_with_three_versions();
    let before = snapshot(dir.path());
    let out = ok(&rsbuilder(dir.path(), EDIT));
    let after = snapshot(dir.path());
    let changed: Vec<String> = after
        .iter()
        .filter(|(path, contents)| before.get(*path) != Some(*contents))
        .map(|(path, _)| path.display().to_string())
        .collect();
    assert_eq!(
        changed,
        [
            "config/crd/bases/batch.example.com_cronjobs.yaml",
            "src/api/batch/mod.rs",
            "src/api/batch/v1/cron_job.rs",
            "src/api/batch/v1alpha1/cron_job.rs",
        ],
        "{out}"
    );
    let text = |snap: &std::collections::BTreeMap<_, Option<Vec<u8>>>, path: &str| {
        String::from_utf8(snap[Path::new(path)].clone().unwrap()).unwrap()
    };
    let old_storage = "src/api/batch/v1alpha1/cron_job.rs";
    assert_eq!(
        text(&after, old_storage),
        text(&before, old_storage).replace(
            "    version = \"v1alpha1\",\n",
            "    version = \"v1alpha1\",\n    storage = false,\n"
        )
    );
    let new_storage = "src/api/batch/v1/cron_job.rs";
    assert_eq!(
        text(&after, new_storage),
        text(&before, new_storage).replace("    storage = false,\n", "")
    );
    let group = "src/api/batch/mod.rs";
    assert_eq!(
        text(&after, group),
        text(&before, group).replace("pub use v1alpha1::cron_job;", "pub use v1::cron_job;")
    );
    let crd = read(
        dir.path(),
        "config/crd/bases/batch.example.com_cronjobs.yaml",
    );
    let stored = crd.find("storage: true").unwrap();
    let v1 = crd.find("name: v1\n").unwrap();
    assert!(
        v1 < stored && !crd[v1..stored].contains("name: v1beta1"),
        "{crd}"
    );
    assert_eq!(crd.matches("storage: true").count(), 1, "{crd}");

    // Again: nothing to do.
    let out = ok(&rsbuilder(dir.path(), EDIT));
    assert!(out.contains("nothing to do"), "{out}");
    assert_eq!(snapshot(dir.path()), after);
}

#[test]
fn a_version_that_does_not_exist_is_refused() {
    let dir = project_with_three_versions();
    refused(
        dir.path(),
        &["edit", "--storage-version", "v2", "--kind", "CronJob"],
        1,
        "CronJob (batch.example.com) has no version v2; its versions are v1alpha1, v1beta1, v1",
    );
    refused(
        dir.path(),
        &["edit", "--storage-version", "V1", "--kind", "CronJob"],
        1,
        "invalid version \"V1\"",
    );
}

#[test]
fn unknown_and_ambiguous_kinds_are_refused() {
    let dir = project_with_three_versions();
    refused(
        dir.path(),
        &["edit", "--storage-version", "v1", "--kind", "Tenant"],
        1,
        "this project has no kind Tenant",
    );
    refused(
        dir.path(),
        &[
            "edit",
            "--storage-version",
            "v1",
            "--kind",
            "CronJob",
            "--group",
            "infra",
        ],
        1,
        "this project has no kind CronJob in the group infra",
    );
    ok(&rsbuilder(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "other",
            "--version",
            "v1",
            "--kind",
            "CronJob",
            "--controller=false",
        ],
    ));
    refused(
        dir.path(),
        &["edit", "--storage-version", "v1", "--kind", "CronJob"],
        1,
        "the kind CronJob exists in the groups batch, other; pass --group",
    );
    ok(&rsbuilder(dir.path(), EDIT));
}

#[test]
fn outside_a_project_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    refused(dir.path(), EDIT, 1, "not an rsbuilder project");
    refused(
        dir.path(),
        &["edit", "--kind", "CronJob"],
        2,
        "--storage-version",
    );
}
