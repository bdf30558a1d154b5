//! `rsbuilder create webhook` and `rsbuilder generate webhooks`: what a user sees, that
//! bad input writes nothing, and that a second webhook extends the files of the first
//! without touching what the user wrote.

mod common;

use std::fs;
use std::path::Path;
use std::process::Command;

use common::*;

/// A project with CronJob in v1alpha1, v1beta1 and v1 (stored).
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["init", "--domain", "example.com", "--project-name", "demo"][..],
        &[
            "create",
            "api",
            "--group",
            "batch",
            "--version",
            "v1alpha1",
            "--kind",
            "CronJob",
        ],
        &[
            "create",
            "api",
            "--group",
            "batch",
            "--version",
            "v1beta1",
            "--kind",
            "CronJob",
        ],
        &[
            "create",
            "api",
            "--group",
            "batch",
            "--version",
            "v1",
            "--kind",
            "CronJob",
        ],
        &[
            "edit",
            "--storage-version",
            "v1",
            "--kind",
            "CronJob",
            "--group",
            "batch",
        ],
    ] {
        ok(&rsbuilder(dir.path(), args));
    }
    dir
}

const WEBHOOK: &[&str] = &["create", "webhook", "--group", "batch", "--kind", "CronJob"];

fn webhook(dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = WEBHOOK.to_vec();
    args.extend(extra);
    rsbuilder(dir, &args)
}

/// Runs `extra` and expects exit code 1 with `message`, and an untouched tree.
#[track_caller]
fn refused(dir: &Path, extra: &[&str], message: &str) {
    let before = snapshot(dir);
    let err = fails(&webhook(dir, extra), 1);
    assert!(err.contains(message), "expected {message:?} in:\n{err}");
    assert_eq!(snapshot(dir), before, "the tree changed");
}

#[test]
fn outside_a_project_it_says_to_run_init() {
    let dir = tempfile::tempdir().unwrap();
    let err = fails(
        &webhook(dir.path(), &["--version", "v1", "--defaulting"]),
        1,
    );
    assert!(err.contains("run `rsbuilder init`"), "{err}");
}

#[test]
fn bad_requests_are_refused_before_anything_is_written() {
    let dir = project();
    let d = dir.path();
    refused(d, &["--version", "v1"], "nothing to create");
    refused(
        d,
        &["--version", "v2", "--defaulting"],
        "CronJob (batch.example.com) has no version v2; its versions are v1alpha1, v1beta1, v1",
    );
    let mut args = vec!["create", "webhook", "--group", "apps", "--version", "v1"];
    args.extend(["--kind", "Job", "--defaulting"]);
    let before = snapshot(d);
    let err = fails(&rsbuilder(d, &args), 1);
    assert!(err.contains("apps.example.com has no kind Job"), "{err}");
    assert!(err.contains("rsbuilder create api"), "{err}");
    assert_eq!(snapshot(d), before);
    refused(
        d,
        &[
            "--version",
            "v1beta1",
            "--conversion",
            "--spoke",
            "v1alpha1",
        ],
        "v1beta1 is not the storage version of CronJob (v1 is)",
    );
    refused(
        d,
        &["--version", "v1", "--conversion", "--spoke", "v1,v1alpha1"],
        "--spoke v1 is the hub itself",
    );
    refused(
        d,
        &["--version", "v1", "--conversion", "--spoke", "v2alpha1"],
        "--spoke v2alpha1: CronJob (batch.example.com) has no version v2alpha1",
    );
    refused(
        d,
        &["--version", "v1", "--conversion", "--spoke", "../x"],
        "invalid version",
    );
    // --conversion and --spoke need each other: a usage error.
    fails(&webhook(d, &["--version", "v1", "--conversion"]), 2);
    fails(&webhook(d, &["--version", "v1", "--spoke", "v1alpha1"]), 2);
}

#[test]
fn the_same_webhook_twice_is_refused_and_writes_nothing() {
    let dir = project();
    let d = dir.path();
    ok(&webhook(d, &["--version", "v1", "--defaulting"]));
    refused(
        d,
        &[
            "--version",
            "v1",
            "--defaulting",
            "--programmatic-validation",
        ],
        "CronJob (batch.example.com/v1) already has a defaulting webhook",
    );
    ok(&webhook(
        d,
        &["--version", "v1", "--conversion", "--spoke", "v1alpha1"],
    ));
    refused(
        d,
        &[
            "--version",
            "v1",
            "--conversion",
            "--spoke",
            "v1beta1,v1alpha1",
        ],
        "CronJob already converts between v1alpha1 and v1",
    );
}

#[test]
fn a_second_webhook_type_extends_the_file_and_keeps_user_code() {
    let dir = project();
    let d = dir.path();
    let out = ok(&webhook(d, &["--version", "v1", "--defaulting"]));
    assert!(
        out.contains("create src/webhooks/batch_v1_cron_job.rs"),
        "{out}"
    );
    let file = "src/webhooks/batch_v1_cron_job.rs";
    let mine = "    cron_job.spec.foo.get_or_insert_with(|| \"mine\".into());\n";
    let text = read(d, file).replacen(
        "    // TODO(user): the defaults of a CronJob",
        &format!("{mine}    // TODO(user): the defaults of a CronJob"),
        1,
    );
    fs::write(d.join(file), &text).unwrap();

    let out = ok(&webhook(
        d,
        &["--version", "v1", "--programmatic-validation"],
    ));
    assert!(
        out.contains("update src/webhooks/batch_v1_cron_job.rs"),
        "{out}"
    );
    let text = read(d, file);
    assert!(text.contains(mine), "user code was dropped:\n{text}");
    for needle in [
        "pub fn default(cron_job: &mut CronJob)",
        "pub fn validate_create(cron_job: &CronJob) -> Result<(), String>",
        "pub fn validate_update(old: &CronJob, new: &CronJob)",
        "pub fn validate_delete(cron_job: &CronJob)",
        "async fn the_defaulting_webhook_fills_in_foo_and_keeps_a_given_one()",
        "async fn the_validating_webhook_refuses_an_empty_foo()",
        "async fn the_validating_webhook_answers_every_operation()",
    ] {
        assert_eq!(text.matches(needle).count(), 1, "{needle}:\n{text}");
    }
    let routes = read(d, "src/webhooks/mod.rs");
    assert!(
        routes.contains("admission::defaulting(batch_v1_cron_job::default)"),
        "{routes}"
    );
    assert!(
        routes.contains("batch_v1_cron_job::validate_create,\n"),
        "{routes}"
    );
    assert_eq!(routes.matches("pub mod batch_v1_cron_job;").count(), 1);

    let project = read(d, "PROJECT");
    assert!(
        project.contains(
            "webhooks:\n    defaulting: true\n    validation: true\n    conversion: false"
        ),
        "{project}"
    );
    let manifests = read(d, "config/webhook/manifests.yaml");
    assert!(manifests.starts_with("# Code generated by rsbuilder. DO NOT EDIT."));
    for needle in [
        "kind: MutatingWebhookConfiguration",
        "kind: ValidatingWebhookConfiguration",
        "path: /mutate-batch-example-com-v1-cronjob",
        "path: /validate-batch-example-com-v1-cronjob",
        "sideEffects: None",
        "failurePolicy: Fail",
        "admissionReviewVersions:\n  - v1",
    ] {
        assert!(manifests.contains(needle), "{needle}:\n{manifests}");
    }
}

#[test]
fn the_first_webhook_brings_the_server_and_later_ones_reuse_it() {
    let dir = project();
    let d = dir.path();
    ok(&webhook(
        d,
        &["--version", "v1", "--programmatic-validation"],
    ));
    let cargo = read(d, "Cargo.toml");
    // The server and the reviews are the runtime's, behind its feature `webhooks`.
    assert!(
        cargo.contains(
            "rsbuilder-runtime = { path = \"rsbuilder-runtime\", features = [\"webhooks\"] }"
        ),
        "{cargo}"
    );
    let main = read(d, "src/main.rs");
    // The flags and the server are the runtime's; main.rs hands them the routes.
    assert!(
        main.contains("webhooks: rsbuilder_runtime::webhook::WebhookArgs,"),
        "{main}"
    );
    assert!(main.contains("demo::webhooks::routes(),"), "{main}");
    assert!(read(d, "src/lib.rs").contains("pub mod webhooks;"));
    let default = read(d, "config/default/kustomization.yaml");
    for needle in [
        "- ../webhook",
        "- ../webhook-certs",
        "- path: manager_webhook_patch.yaml",
        "- path: webhook_certs_replacements.yaml",
    ] {
        assert!(default.contains(needle), "{needle}:\n{default}");
    }
    assert!(read(d, "Makefile").contains("export ENABLE_WEBHOOKS ?= false"));

    // The conversion webhook of the same kind reuses all of it.
    let routes = read(d, "src/webhooks/mod.rs");
    fs::write(
        d.join("src/webhooks/mod.rs"),
        format!("{routes}// my note\n"),
    )
    .unwrap();
    ok(&webhook(
        d,
        &[
            "--version",
            "v1",
            "--conversion",
            "--spoke",
            "v1alpha1,v1beta1",
        ],
    ));
    assert!(read(d, "src/webhooks/mod.rs").ends_with("// my note\n"));
    assert_eq!(read(d, "Cargo.toml").matches("\"webhooks\"").count(), 1);
    let default = read(d, "config/default/kustomization.yaml");
    assert_eq!(default.matches("- ../webhook\n").count(), 1, "{default}");
    assert_eq!(
        default.matches("- ../webhook-certs\n").count(),
        1,
        "{default}"
    );
    // cert-manager injects the CA into the converting CRD (namespace and name halves).
    let replacements = read(d, "config/default/webhook_certs_replacements.yaml");
    assert_eq!(
        replacements
            .matches("name: cronjobs.batch.example.com")
            .count(),
        2,
        "{replacements}"
    );
    let crd = read(d, "config/crd/kustomization.yaml");
    assert!(
        crd.contains("patches:\n- path: patches/webhook_in_cronjobs.yaml\n"),
        "{crd}"
    );
    assert!(
        crd.contains(
            "- bases/batch.example.com_cronjobs.yaml\n# +rsbuilder:scaffold:crd-resources"
        )
    );
    let patch = read(d, "config/crd/patches/webhook_in_cronjobs.yaml");
    assert!(patch.contains("strategy: Webhook") && patch.contains("path: /convert"));
    let cargo = read(d, "Cargo.toml");
    assert!(
        cargo.contains("[[bench]]\nname = \"conversion\"\nharness = false"),
        "{cargo}"
    );
}

#[test]
fn conversion_scaffolds_the_hub_and_each_spoke() {
    let dir = project();
    let d = dir.path();
    let out = ok(&webhook(
        d,
        &["--version", "v1", "--conversion", "--spoke", "v1alpha1"],
    ));
    for file in [
        "src/api/batch/v1/cron_job_conversion.rs",
        "src/api/batch/v1alpha1/cron_job_conversion.rs",
        "benches/conversion.rs",
    ] {
        assert!(out.contains(&format!("create {file}")), "{file}:\n{out}");
    }
    let spoke = read(d, "src/api/batch/v1alpha1/cron_job_conversion.rs");
    for needle in [
        "impl Spoke for spoke::CronJob {\n    type Hub = hub::CronJob;",
        "pub fn to_hub(src: spoke::CronJob) -> hub::CronJob",
        "spec: cron_job_spec_to_hub(src.spec),",
        "status: src.status.map(cron_job_status_to_hub),",
        "fn v1alpha1_survives_a_round_trip_through_the_hub()",
    ] {
        assert!(spoke.contains(needle), "{needle}:\n{spoke}");
    }
    assert!(read(d, "src/api/batch/v1alpha1/mod.rs").contains("pub mod cron_job_conversion;"));

    // A hub file the user edited gains the new spoke through its markers.
    let hub_path = "src/api/batch/v1/cron_job_conversion.rs";
    let hub = read(d, hub_path).replace("pub fn convert(", "// mine\npub fn convert(");
    fs::write(d.join(hub_path), &hub).unwrap();
    ok(&webhook(
        d,
        &["--version", "v1", "--conversion", "--spoke", "v1beta1"],
    ));
    let hub = read(d, hub_path);
    assert!(hub.contains("// mine\npub fn convert("), "{hub}");
    for version in ["v1alpha1", "v1beta1"] {
        assert!(
            hub.contains(&format!("spoke::<group::{version}::cron_job::CronJob>(),")),
            "{hub}"
        );
        assert!(
            hub.contains(&format!(
                "to_json(&group::{version}::cron_job_conversion::sample()),"
            )),
            "{hub}"
        );
    }
    let project = read(d, "PROJECT");
    assert!(
        project.contains("conversion: true\n    spoke:\n    - v1alpha1\n    - v1beta1"),
        "{project}"
    );
    let bench = read(d, "benches/conversion.rs");
    assert!(bench.contains("\"CronJob v1beta1 to v1\""), "{bench}");
    assert!(
        bench.contains("use demo::api::batch::{v1, v1alpha1};"),
        "{bench}"
    );
}

#[test]
fn dry_run_prints_the_plan_and_writes_nothing() {
    let dir = project();
    let d = dir.path();
    let before = snapshot(d);
    let mut args = vec!["--dry-run"];
    args.extend(WEBHOOK);
    args.extend([
        "--version",
        "v1",
        "--defaulting",
        "--conversion",
        "--spoke",
        "v1alpha1",
    ]);
    let out = ok(&rsbuilder(d, &args));
    assert!(out.contains("would create src/webhooks/mod.rs"), "{out}");
    assert!(out.contains("would update Cargo.toml"), "{out}");
    assert_eq!(snapshot(d), before);
}

#[test]
fn generate_webhooks_rewrites_and_checks_the_manifests() {
    let dir = project();
    let d = dir.path();
    let out = ok(&rsbuilder(d, &["generate", "webhooks"]));
    assert!(out.contains("nothing to generate"), "{out}");
    ok(&webhook(d, &["--version", "v1", "--defaulting"]));
    let manifests = read(d, "config/webhook/manifests.yaml");
    ok(&rsbuilder(d, &["generate", "webhooks", "--check"]));
    fs::write(d.join("config/webhook/manifests.yaml"), "stale\n").unwrap();
    let err = fails(&rsbuilder(d, &["generate", "webhooks", "--check"]), 1);
    assert!(
        err.contains("run `rsbuilder generate webhooks`")
            && err.contains("config/webhook/manifests.yaml (differs)"),
        "{err}"
    );
    ok(&rsbuilder(d, &["generate", "webhooks"]));
    assert_eq!(read(d, "config/webhook/manifests.yaml"), manifests);
    let out = ok(&rsbuilder(d, &["generate", "webhooks"]));
    assert!(out.contains("nothing to do"), "{out}");
}

#[test]
fn force_scaffolds_the_kind_files_again() {
    let dir = project();
    let d = dir.path();
    ok(&webhook(
        d,
        &[
            "--version",
            "v1",
            "--defaulting",
            "--programmatic-validation",
        ],
    ));
    let file = "src/webhooks/batch_v1_cron_job.rs";
    let pristine = read(d, file);
    fs::write(d.join(file), "// broken\n").unwrap();
    ok(&webhook(d, &["--version", "v1", "--defaulting", "--force"]));
    assert_eq!(read(d, file), pristine);

    // A hub scaffolded again keeps every spoke the kind converts, not only the named one.
    let conversion = [
        "--version",
        "v1",
        "--conversion",
        "--spoke",
        "v1alpha1,v1beta1",
    ];
    ok(&webhook(d, &conversion));
    let hub = "src/api/batch/v1/cron_job_conversion.rs";
    let pristine = read(d, hub);
    fs::write(d.join(hub), "// broken\n").unwrap();
    ok(&webhook(
        d,
        &[
            "--version",
            "v1",
            "--conversion",
            "--spoke",
            "v1beta1",
            "--force",
        ],
    ));
    assert_eq!(read(d, hub), pristine);
}

/// The generated Rust is formatted as rustfmt formats it, also for long names (skipped
/// when rustfmt is not installed).
#[test]
fn generated_rust_is_rustfmt_clean() {
    let installed = Command::new("rustfmt").arg("--version").output().is_ok();
    if !installed {
        eprintln!("rustfmt is not installed; skipping");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let group = "very-long-group-name.with.dots";
    let kind = "ReplicatedDatabaseCluster";
    for args in [
        &[
            "init",
            "--domain",
            "example.com",
            "--project-name",
            "a-rather-long-project-name",
        ][..],
        &[
            "create",
            "api",
            "--group",
            group,
            "--version",
            "v1alpha1",
            "--kind",
            kind,
        ],
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
        &[
            "edit",
            "--storage-version",
            "v1",
            "--kind",
            kind,
            "--group",
            group,
        ],
    ] {
        ok(&rsbuilder(d, args));
    }
    let before = snapshot(d);
    ok(&rsbuilder(
        d,
        &[
            "create",
            "webhook",
            "--group",
            group,
            "--version",
            "v1",
            "--kind",
            kind,
            "--defaulting",
            "--programmatic-validation",
            "--conversion",
            "--spoke",
            "v1alpha1",
        ],
    ));
    // The files this command wrote or changed.
    let files: Vec<String> = snapshot(d)
        .into_iter()
        .filter(|(path, contents)| before.get(path) != Some(contents))
        .map(|(p, _)| p.to_string_lossy().into_owned())
        .filter(|p| p.ends_with(".rs"))
        .collect();
    let out = Command::new("rustfmt")
        .args([
            "--edition",
            "2024",
            "--check",
            "--config",
            "reorder_modules=false",
        ])
        .args(
            files
                .iter()
                .filter(|f| !f.ends_with("lib.rs") && !f.ends_with("mod.rs")),
        )
        .current_dir(d)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_network_policies_admit_the_webhooks_in_old_projects_too() {
    let policies = "config/network-policy/kustomization.yaml";
    let dir = project();
    // A project scaffolded before the list of policies had its marker: the entry joins the
    // list all the same (the list is edited as YAML, the marker only places new entries).
    let old = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n\
               resources:\n- allow-metrics-traffic.yaml\n";
    fs::write(dir.path().join(policies), old).unwrap();
    ok(&webhook(dir.path(), &["--version", "v1", "--defaulting"]));
    assert_eq!(
        read(dir.path(), policies),
        format!("{old}- allow-webhook-traffic.yaml\n")
    );
    assert!(
        dir.path()
            .join("config/network-policy/allow-webhook-traffic.yaml")
            .is_file()
    );

    // A project without network policies gets none.
    let dir = project();
    fs::remove_dir_all(dir.path().join("config/network-policy")).unwrap();
    ok(&webhook(dir.path(), &["--version", "v1", "--defaulting"]));
    assert!(!dir.path().join("config/network-policy").exists());
}
