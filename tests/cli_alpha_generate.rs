//! `rsbuilder alpha generate`: replaying PROJECT into a fresh tree.

mod common;

use std::fs;

use common::*;

#[test]
fn every_golden_project_is_reproduced_exactly_from_its_project_file() {
    for name in golden_projects() {
        let out = tempfile::tempdir().unwrap();
        let target = out.path().join("regenerated");
        let input = repo_root().join("testdata").join(&name);
        let args = [
            "alpha",
            "generate",
            "--input-dir",
            input.to_str().unwrap(),
            "--output-dir",
            target.to_str().unwrap(),
        ];
        ok(&rsbuilder(out.path(), &args));
        assert_eq!(
            runtime_copy::without_copy(snapshot(&target)),
            snapshot(&input),
            "{name}: the replay differs from the golden project"
        );
    }
}

#[test]
fn the_finalizer_of_a_controller_is_replayed() {
    // project-v1's CronJob controller keeps a finalizer; its other controllers do not.
    let input = repo_root().join("testdata/project-v1");
    let work = tempfile::tempdir().unwrap();
    let out = ok(&rsbuilder(
        work.path(),
        &[
            "--dry-run",
            "alpha",
            "generate",
            "--input-dir",
            input.to_str().unwrap(),
            "--output-dir",
            "new",
        ],
    ));
    let creates: Vec<&str> = out.lines().filter(|l| l.contains("create api")).collect();
    let with: Vec<&str> = creates
        .iter()
        .copied()
        .filter(|l| l.ends_with(" --finalizer"))
        .collect();
    assert_eq!(
        with,
        [
            "would run: rsbuilder create api --group batch --version v1alpha1 --kind CronJob --plural cronjobs --controller=true --finalizer"
        ],
        "{out}"
    );
    assert_eq!(creates.len(), 5, "{out}");
}

#[test]
fn the_users_code_is_carried_over_and_the_manifests_follow_it() {
    let work = tempfile::tempdir().unwrap();
    let input = work.path().join("old");
    runtime_copy::copy_golden("project-v1", &input);
    let types = input.join("src/api/infra/v1/tenant.rs");
    let text = fs::read_to_string(&types).unwrap();
    fs::write(
        &types,
        text.replace(
            "pub struct TenantSpec {",
            "pub struct TenantSpec {\n    pub quota: u32,",
        ),
    )
    .unwrap();
    let controller = input.join("src/controllers/tenant.rs");
    let text = fs::read_to_string(&controller)
        .unwrap()
        .replace("nothing to converge yet", "tenant converged");
    fs::write(&controller, text).unwrap();

    let out = ok(&rsbuilder(
        work.path(),
        &[
            "alpha",
            "generate",
            "--input-dir",
            "old",
            "--output-dir",
            "new",
        ],
    ));
    assert!(out.contains("re-scaffolded"), "{out}");
    let new = work.path().join("new");
    assert!(
        fs::read_to_string(new.join("src/controllers/tenant.rs"))
            .unwrap()
            .contains("tenant converged")
    );
    assert!(
        fs::read_to_string(new.join("src/api/infra/v1/tenant.rs"))
            .unwrap()
            .contains("pub quota: u32")
    );
    let crd =
        fs::read_to_string(new.join("config/crd/bases/infra.example.com_tenants.yaml")).unwrap();
    assert!(
        crd.contains("quota:"),
        "the CRD was not regenerated from the user's types:\n{crd}"
    );
}

#[test]
fn a_non_empty_output_dir_is_refused() {
    let work = tempfile::tempdir().unwrap();
    fs::create_dir(work.path().join("taken")).unwrap();
    fs::write(work.path().join("taken/keep.txt"), "mine").unwrap();
    let input = repo_root().join("testdata/project-init");
    let before = snapshot(work.path());
    let err = fails(
        &rsbuilder(
            work.path(),
            &[
                "alpha",
                "generate",
                "--input-dir",
                input.to_str().unwrap(),
                "--output-dir",
                "taken",
            ],
        ),
        1,
    );
    assert!(err.contains("taken is not empty"), "{err}");
    assert_eq!(snapshot(work.path()), before);
}

#[test]
fn an_input_without_project_is_refused() {
    let work = tempfile::tempdir().unwrap();
    let err = fails(
        &rsbuilder(work.path(), &["alpha", "generate", "--output-dir", "out"]),
        1,
    );
    assert!(err.contains("rsbuilder init"), "{err}");
    assert!(!work.path().join("out").exists());
}

#[test]
fn a_failing_replay_leaves_no_output_behind() {
    let work = tempfile::tempdir().unwrap();
    let input = work.path().join("old");
    runtime_copy::copy_golden("project-v1", &input);
    // A type the static CRD generator cannot read makes the final `generate manifests` fail.
    let types = input.join("src/api/infra/v1/tenant.rs");
    let text = fs::read_to_string(&types).unwrap();
    fs::write(
        &types,
        text.replace(
            "pub struct TenantSpec {",
            "pub struct TenantSpec {\n    pub at: chrono::DateTime<chrono::Utc>,",
        ),
    )
    .unwrap();
    let err = fails(
        &rsbuilder(
            work.path(),
            &[
                "alpha",
                "generate",
                "--input-dir",
                "old",
                "--output-dir",
                "new",
            ],
        ),
        1,
    );
    assert!(err.contains("manifests"), "{err}");
    assert!(
        !work.path().join("new").exists(),
        "a half-built tree was left behind"
    );
}

#[test]
fn a_project_from_before_the_runtime_crate_gets_the_new_layout_with_its_types() {
    // project-v1 as an rsbuilder before rsbuilder-runtime left it: no dependency on the
    // crate and no copy, the shared helpers in the project's own files, and the user's
    // edits in a type and in a controller.
    let work = tempfile::tempdir().unwrap();
    let input = work.path().join("old");
    let golden = repo_root().join("testdata/project-v1");
    copy_tree(&golden, &input);
    runtime_copy::drop_dependency(&input);
    let old_helper = "//! The old layout's own copy of the error policy.\n";
    fs::write(input.join("src/controllers/backoff.rs"), old_helper).unwrap();
    fs::write(
        input.join("tests/leader.rs"),
        "// leader election, tested in the project\n",
    )
    .unwrap();
    let types = read(&input, "src/api/infra/v1/tenant.rs") + "// the user's own line\n";
    fs::write(input.join("src/api/infra/v1/tenant.rs"), &types).unwrap();
    let controller = read(&input, "src/controllers/tenant.rs") + "// old reconcile logic\n";
    fs::write(input.join("src/controllers/tenant.rs"), &controller).unwrap();

    let output = work.path().join("new");
    let run = rsbuilder(
        work.path(),
        &[
            "alpha",
            "generate",
            "--input-dir",
            input.to_str().unwrap(),
            "--output-dir",
            output.to_str().unwrap(),
        ],
    );
    ok(&run);
    let note = stderr(&run);
    for file in [
        "src/controllers/tenant.rs",
        "src/controllers/backoff.rs",
        "tests/leader.rs",
    ] {
        assert!(
            note.contains(&format!("\n  {file}")),
            "{file} not named:\n{note}"
        );
    }
    assert!(note.contains("predates rsbuilder-runtime"), "{note}");
    // The types are carried over; everything else is the new layout, as the golden has it.
    assert_eq!(read(&output, "src/api/infra/v1/tenant.rs"), types);
    for file in ["src/controllers/tenant.rs", "Cargo.toml", "src/main.rs"] {
        assert_eq!(read(&output, file), read(&golden, file), "{file}");
    }
    // The old helpers are not carried over: the new layout has what the golden has.
    for file in ["src/controllers/backoff.rs", "tests/leader.rs"] {
        let fresh = fs::read(golden.join(file)).ok();
        assert_eq!(fs::read(output.join(file)).ok(), fresh, "{file}");
    }
    assert_eq!(
        runtime_copy::digest(&output),
        fs::read_to_string(runtime_copy::sum_file()).unwrap()
    );
}
