//! Builds and checks every golden project under `testdata/` the way its own CI would:
//! fmt, clippy, tests, manifests up to date, and the real validators for its kustomize
//! output, Dockerfile, workflows and Makefile.
//!
//! Slow (it compiles kube), so ignored by a plain `cargo test`; the full test command
//! `cargo test -- --include-ignored` runs it. All projects share one target directory,
//! `RSBUILDER_SAMPLES_TARGET` (default: `target/sample-projects/target`).
#![allow(clippy::disallowed_methods)] // reads rsbuilder's and the tools' own YAML output

mod common;

use std::fs;
use std::path::Path;
use std::process::Command;

use serde::Deserialize as _;

use common::golden_copy::{run, working_copy};
use common::*;

fn check_project(name: &str) {
    let dir = working_copy(name, &repo_root().join("target/sample-projects").join(name));
    run(&dir, "cargo", &["fmt", "--check"]);
    run(
        &dir,
        "cargo",
        &["clippy", "--all-targets", "--", "-D", "warnings"],
    );
    let tests = run(&dir, "cargo", &["test"]);
    assert!(tests.contains("test result: ok"), "{tests}");
    run(
        &dir,
        env!("CARGO_BIN_EXE_rsbuilder"),
        &["generate", "crds", "--check"],
    );
    // What `make lint` runs after clippy: golden projects review clean.
    run(
        &dir,
        env!("CARGO_BIN_EXE_rsbuilder"),
        &["lint", "--deny", "warnings"],
    );

    let rendered = run(&dir, "kubectl", &["kustomize", "config/default"]);
    assert!(rendered.contains("kind: Deployment"), "{rendered}");
    let project = fs::read_to_string(dir.join("PROJECT")).unwrap();
    let self_issued = project.contains("webhookCerts: self");
    if project.contains("conversion: true") {
        // The CRD converts through the webhook, with the CA cert-manager injects, or that
        // the manager injects itself into the CRDs it is told.
        let injection = if self_issued {
            "name: CONVERSION_CRDS"
        } else {
            "cert-manager.io/inject-ca-from:"
        };
        for needle in ["strategy: Webhook", "path: /convert", injection] {
            assert!(
                rendered.contains(needle),
                "{name}: no {needle}:\n{rendered}"
            );
        }
    }
    if self_issued {
        assert!(
            !rendered.contains("cert-manager"),
            "{name}: self-issued certificates need no cert-manager:\n{rendered}"
        );
    }
    let manifests = dir.join("target-rendered.yaml");
    fs::write(&manifests, &rendered).unwrap();
    run(
        &dir,
        tool("kubernetes-validate"),
        &[
            "--strict",
            "--quiet",
            "-k",
            "1.37.0",
            "target-rendered.yaml",
        ],
    );
    fs::remove_file(&manifests).unwrap();

    run(&dir, tool("hadolint"), &["Dockerfile"]);
    let workflows: Vec<String> = fs::read_dir(dir.join(".github/workflows"))
        .unwrap()
        .map(|e| {
            format!(
                ".github/workflows/{}",
                e.unwrap().file_name().to_string_lossy()
            )
        })
        .collect();
    let mut args: Vec<&str> = workflows.iter().map(String::as_str).collect();
    args.sort();
    run(&dir, tool("actionlint"), &args);

    let help = run(&dir, "make", &["help"]);
    let targets: Vec<&str> = help
        .lines()
        .filter(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(
        targets.len() >= 15,
        "make help lists too few targets:\n{help}"
    );
    for target in targets {
        run(&dir, "make", &["-n", target]);
    }
    round_trip_external_kinds(&dir);
    if name == "project-init" {
        a_killed_envtest_run_leaves_nothing_behind(&dir);
    }
    if name == "project-v1" {
        the_scale_benchmark_runs_and_counts_the_writes(&dir);
    }
}

/// `make bench-scale` on a few objects, built for tests rather than release so that it
/// reuses this test's builds: the benchmark runs end to end on the envtest control plane,
/// with its manager as a process, and what the API server counted is what the operator
/// is meant to write. A kind with a finalizer writes it and the status (2 per object), one
/// without the status alone (1); a restarted manager that reconciles every unchanged
/// object writes nothing.
fn the_scale_benchmark_runs_and_counts_the_writes(dir: &Path) {
    for (kind, expected) in [
        ("CronJob", "finalizer=yes ready_over_floor="),
        ("Tenant", "finalizer=no ready_over_floor="),
    ] {
        let args = [
            "test",
            "--bench",
            "scale",
            "--",
            "--objects",
            "40",
            "--kind",
            kind,
        ];
        let out = run(dir, "cargo", &args);
        let summary = out
            .lines()
            .find(|line| line.starts_with("scale: n=40 "))
            .unwrap_or_else(|| panic!("no summary line:\n{out}"));
        let writes = if kind == "CronJob" { "2.00" } else { "1.00" };
        for needle in [
            expected.to_string(),
            format!(" writes_per_object={writes} "),
            " resync_writes=0 ".to_string(),
        ] {
            assert!(
                summary.contains(&needle),
                "{kind}: no {needle:?} in {summary}"
            );
        }
        assert!(
            out.contains("| conversion reviews") == (kind == "CronJob"),
            "{out}"
        );
    }
}

/// The processes of a control plane whose directory is `dir`: their command lines name it.
fn processes_using(dir: &Path) -> Vec<String> {
    let needle = dir.display().to_string();
    fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter_map(|entry| fs::read(entry.path().join("cmdline")).ok())
        .map(|cmdline| String::from_utf8_lossy(&cmdline).replace('\0', " "))
        .filter(|cmdline| cmdline.contains(&needle))
        .collect()
}

/// Waits up to 60 s for `done`.
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let started = std::time::Instant::now();
    while !done() {
        assert!(started.elapsed().as_secs() < 60, "not within 60 s: {what}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// A test binary killed with SIGKILL while its control plane runs takes etcd and
/// kube-apiserver with it (PR_SET_PDEATHSIG), and the next run removes the directory it
/// left; a run that ends normally leaves nothing. The control plane is the runtime's
/// (`rsbuilder_runtime::testing::control_plane`), as a project's test binary starts it.
fn a_killed_envtest_run_leaves_nothing_behind(dir: &Path) {
    let built = run(dir, "cargo", &["test", "--test", "envtest", "--no-run"]);
    let binary = built
        .lines()
        .find_map(|line| {
            line.trim()
                .strip_prefix("Executable tests/envtest/main.rs (")
        })
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("no envtest binary in:\n{built}"));
    let start = |filter: &str| {
        Command::new(binary)
            .arg(filter)
            .current_dir(dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the envtest binary starts")
    };
    // The project's own test that starts the control plane (`tests/envtest/main.rs`).
    let test = "the_control_plane_starts_with_the_projects_environment";
    let mut killed = start(test);
    let control_plane = std::env::temp_dir().join(format!("rsbuilder-envtest-{}", killed.id()));
    wait_for("a running kube-apiserver", || {
        processes_using(&control_plane)
            .iter()
            .any(|p| p.contains("kube-apiserver"))
    });
    killed.kill().unwrap();
    killed.wait().unwrap();
    wait_for("etcd and kube-apiserver gone with the test binary", || {
        processes_using(&control_plane).is_empty()
    });
    assert!(control_plane.exists(), "nothing was left to clean up");

    let mut next = start(test);
    let next_dir = std::env::temp_dir().join(format!("rsbuilder-envtest-{}", next.id()));
    assert!(next.wait().unwrap().success(), "the next run failed");
    assert!(
        !control_plane.exists(),
        "the next run left the killed run's directory"
    );
    assert!(!next_dir.exists(), "a run that ended left its directory");
    assert!(processes_using(&next_dir).is_empty());
}

/// The generated types of every external kind of the project (`create api --from-crd`)
/// read objects of the kind and write them back as the same JSON: the hand-written samples
/// of `testdata/external-crds/samples` and objects that fill every field of the CRD's
/// schema (`common::exemplar`). The test is written into the working copy, not the golden
/// project: it checks the generator, it is not part of what users get.
fn round_trip_external_kinds(dir: &Path) {
    let project: serde_yaml::Value =
        serde_yaml::from_str(&fs::read_to_string(dir.join("PROJECT")).unwrap()).unwrap();
    let crate_name = project["projectName"].as_str().unwrap().replace('-', "_");
    let externals: Vec<&serde_yaml::Value> = project["resources"]
        .as_sequence()
        .into_iter()
        .flatten()
        .filter(|r| r["external"].as_bool() == Some(true))
        .collect();
    if externals.is_empty() {
        return;
    }
    let samples_dir = repo_root().join("testdata/external-crds/samples");
    let mut hand_written = Vec::new();
    for entry in fs::read_dir(&samples_dir).unwrap() {
        let text = fs::read_to_string(entry.unwrap().path()).unwrap();
        for document in serde_yaml::Deserializer::from_str(&text) {
            let value = serde_json::Value::deserialize(document).unwrap();
            hand_written.push(value);
        }
    }
    fs::create_dir_all(dir.join("tests/round_trip")).unwrap();
    let mut tests = String::from(
        "//! Written by rsbuilder's tests/sample_projects.rs: the types of the external kinds\n\
         //! read objects and write them back as the same JSON.\n\n\
         use serde::Serialize;\nuse serde::de::DeserializeOwned;\nuse serde_json::Value;\n\n\
         /// JSON does not tell `2` from `2.0` (RFC 8259, section 6), serde_json does.\n\
         fn normalized(value: Value) -> Value {\n    match value {\n        \
         Value::Number(n) => serde_json::json!(n.as_f64()),\n        \
         Value::Array(items) => Value::Array(items.into_iter().map(normalized).collect()),\n        \
         Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, normalized(v))).collect()),\n        \
         other => other,\n    }\n}\n\n\
         fn round_trip<K: Serialize + DeserializeOwned>(samples: &str) {\n    \
         let samples: Vec<Value> = serde_json::from_str(samples).unwrap();\n    \
         assert!(samples.len() >= 4, \"too few samples\");\n    \
         for sample in samples {\n        \
         let typed: K = serde_json::from_value(sample.clone())\n            \
         .unwrap_or_else(|e| panic!(\"{e}: {sample:#}\"));\n        \
         let back = serde_json::to_value(&typed).unwrap();\n        \
         assert_eq!(normalized(back), normalized(sample));\n    }\n}\n",
    );
    for r in &externals {
        let kind = r["kind"].as_str().unwrap();
        let version = r["version"].as_str().unwrap();
        let api_version = format!("{}/{version}", r["group"].as_str().unwrap());
        let crd: serde_json::Value = serde_yaml::from_str(
            &fs::read_to_string(dir.join(r["crd"].as_str().unwrap())).unwrap(),
        )
        .unwrap();
        let schema = crd["spec"]["versions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == version)
            .map(|v| v["schema"]["openAPIV3Schema"].clone())
            .unwrap();
        let mut samples: Vec<serde_json::Value> = (0..4)
            .map(|n| common::exemplar::object(&api_version, kind, &schema, n))
            .collect();
        let own: Vec<serde_json::Value> = hand_written
            .iter()
            .filter(|s| s["apiVersion"] == api_version.as_str() && s["kind"] == kind)
            .cloned()
            .collect();
        assert!(
            !own.is_empty(),
            "no sample of {kind} in {}",
            samples_dir.display()
        );
        samples.extend(own);
        fs::write(
            dir.join(format!("tests/round_trip/{kind}.json")),
            serde_json::to_string_pretty(&samples).unwrap(),
        )
        .unwrap();
        let module = r["path"]
            .as_str()
            .unwrap()
            .trim_start_matches("src/")
            .trim_end_matches(".rs")
            .replace('/', "::");
        tests.push_str(&format!(
            "\n#[test]\nfn {}() {{\n    round_trip::<{crate_name}::{module}::{kind}>(include_str!(\"round_trip/{kind}.json\"));\n}}\n",
            kind.to_lowercase()
        ));
    }
    fs::write(dir.join("tests/external_round_trip.rs"), tests).unwrap();
    let out = run(dir, "cargo", &["test", "--test", "external_round_trip"]);
    let expected = format!("test result: ok. {} passed", externals.len());
    assert!(out.contains(&expected), "{out}");
}

#[test]
#[ignore = "slow: builds every golden project; run with `cargo test -- --include-ignored`"]
fn golden_projects_build_test_and_validate() {
    // RSBUILDER_SAMPLE=<name> checks that one project alone, for a quicker loop.
    let only = std::env::var("RSBUILDER_SAMPLE").ok();
    for name in golden_projects() {
        if only.as_ref().is_none_or(|only| *only == name) {
            check_project(&name);
        }
    }
}
