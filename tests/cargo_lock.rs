//! Reproducible builds: `init` and `alpha generate` write Cargo.lock when crates.io is
//! reachable and say how to create it when not, `--fetch-deps=false` skips the step, and
//! the image (make docker-build, the image workflow) builds only from the committed one.
#![allow(clippy::disallowed_methods)] // reads rsbuilder's and the tools' own YAML output

mod common;

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use common::*;

/// rsbuilder with `args` exactly as given (no `--fetch-deps=false` added) and `env` set.
fn rsbuilder_with(dir: &Path, args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rsbuilder"));
    command.args(args).current_dir(dir).env("NO_COLOR", "1");
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("rsbuilder runs")
}

const INIT: &[&str] = &["init", "--domain", "example.com", "--project-name", "demo"];

/// cargo with no registry cache, told not to use the network: resolution fails at once,
/// as it does on a machine that cannot reach crates.io.
fn offline(home: &Path) -> [(&'static str, &std::ffi::OsStr); 2] {
    [
        ("CARGO_NET_OFFLINE", "true".as_ref()),
        ("CARGO_HOME", home.as_os_str()),
    ]
}

/// A cargo that cannot run, to prove a command does not call cargo at all.
const NO_CARGO: (&str, &str) = ("CARGO", "/nonexistent/cargo");

#[test]
#[ignore = "needs crates.io; run with `cargo test -- --include-ignored`"]
fn init_writes_cargo_lock_when_the_registry_is_reachable() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(&rsbuilder_with(dir.path(), INIT, &[]));
    assert!(out.contains("create Cargo.lock"), "{out}");
    let lock = fs::read_to_string(dir.path().join("Cargo.lock")).unwrap();
    assert!(lock.contains("name = \"kube\""), "{lock}");
    // The lock file covers the whole manifest: cargo would not change it.
    let check = Command::new("cargo")
        .args(["update", "--workspace", "--locked", "--offline"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}

#[test]
fn init_without_the_registry_succeeds_and_says_how_to_create_cargo_lock() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = rsbuilder_with(dir.path(), INIT, &offline(home.path()));
    let stdout = ok(&out);
    assert!(stdout.contains("create Cargo.toml"), "{stdout}");
    assert!(stdout.contains("rsbuilder create api"), "{stdout}");
    assert!(!dir.path().join("Cargo.lock").exists());
    let stderr = stderr(&out);
    assert_eq!(stderr.lines().count(), 1, "one line:\n{stderr}");
    assert!(
        stderr.starts_with("warning: Cargo.lock not created")
            && stderr.contains("run `cargo generate-lockfile`"),
        "{stderr}"
    );
}

#[test]
fn fetch_deps_false_runs_no_cargo_and_writes_no_cargo_lock() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = INIT.to_vec();
    args.push("--fetch-deps=false");
    let out = rsbuilder_with(dir.path(), &args, &[(NO_CARGO.0, NO_CARGO.1.as_ref())]);
    let stdout = ok(&out);
    assert!(!stdout.contains("Cargo.lock"), "{stdout}");
    assert_eq!(stderr(&out), "");
    assert!(dir.path().join("Cargo.toml").is_file());
    assert!(!dir.path().join("Cargo.lock").exists());
}

#[test]
fn dry_run_says_it_would_create_cargo_lock_and_runs_no_cargo() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["--dry-run"];
    args.extend(INIT);
    let out = rsbuilder_with(dir.path(), &args, &[(NO_CARGO.0, NO_CARGO.1.as_ref())]);
    assert!(ok(&out).contains("would create Cargo.lock"));
    assert_eq!(stderr(&out), "");
    assert!(snapshot(dir.path()).is_empty(), "--dry-run wrote files");
}

fn regenerate(work: &Path, extra: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Output {
    let mut args = vec![
        "alpha",
        "generate",
        "--input-dir",
        "old",
        "--output-dir",
        "new",
    ];
    args.extend(extra);
    rsbuilder_with(work, &args, env)
}

#[test]
fn alpha_generate_keeps_the_users_cargo_lock() {
    let work = tempfile::tempdir().unwrap();
    runtime_copy::copy_golden("project-init", &work.path().join("old"));
    let pinned = "# the versions the user tested\nversion = 4\n";
    fs::write(work.path().join("old/Cargo.lock"), pinned).unwrap();

    let out = regenerate(
        work.path(),
        &["--fetch-deps=false"],
        &[(NO_CARGO.0, NO_CARGO.1.as_ref())],
    );
    ok(&out);
    assert_eq!(stderr(&out), "");
    assert_eq!(
        fs::read_to_string(work.path().join("new/Cargo.lock")).unwrap(),
        pinned
    );

    // Offline, updating it fails: the user's file survives, and one line says what to run.
    fs::remove_dir_all(work.path().join("new")).unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = regenerate(work.path(), &[], &offline(home.path()));
    ok(&out);
    let stderr = stderr(&out);
    assert_eq!(stderr.lines().count(), 1, "one line:\n{stderr}");
    assert!(
        stderr.contains("run `cargo update --workspace`"),
        "{stderr}"
    );
    assert_eq!(
        fs::read_to_string(work.path().join("new/Cargo.lock")).unwrap(),
        pinned
    );
}

#[test]
#[ignore = "needs crates.io; run with `cargo test -- --include-ignored`"]
fn alpha_generate_locks_the_dependencies_of_the_whole_replayed_project() {
    let work = tempfile::tempdir().unwrap();
    runtime_copy::copy_golden("project-v1", &work.path().join("old"));
    let out = ok(&regenerate(work.path(), &[], &[]));
    assert!(out.contains("create Cargo.lock"), "{out}");
    // criterion comes with `create webhook --conversion`, replayed after init.
    let lock = fs::read_to_string(work.path().join("new/Cargo.lock")).unwrap();
    assert!(lock.contains("name = \"criterion\""), "{lock}");
}

#[test]
#[ignore = "needs crates.io; run with `cargo test -- --include-ignored`"]
fn alpha_generate_keeps_the_pinned_versions_and_locks_what_the_new_tree_adds() {
    let work = tempfile::tempdir().unwrap();
    let old = work.path().join("old");
    runtime_copy::copy_golden("project-v1", &old);
    // An older project: its Cargo.lock predates criterion (which the replayed
    // `create webhook --conversion` adds) and pins anyhow below the newest.
    let manifest = fs::read_to_string(old.join("Cargo.toml")).unwrap();
    let without_criterion: String = manifest
        .lines()
        .filter(|l| !l.starts_with("criterion ="))
        .map(|l| format!("{l}\n"))
        .collect();
    fs::write(old.join("Cargo.toml"), without_criterion).unwrap();
    let cargo = |dir: &Path, args: &[&str]| {
        let out = Command::new("cargo")
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "cargo {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    cargo(&old, &["generate-lockfile", "--quiet"]);
    cargo(
        &old,
        &["update", "--quiet", "-p", "anyhow", "--precise", "1.0.100"],
    );
    let pinned = "name = \"anyhow\"\nversion = \"1.0.100\"\n";
    assert!(
        !fs::read_to_string(old.join("Cargo.lock"))
            .unwrap()
            .contains("criterion")
    );

    let out = ok(&regenerate(work.path(), &[], &[]));
    assert!(out.contains("update Cargo.lock"), "{out}");
    let new = work.path().join("new");
    let lock = fs::read_to_string(new.join("Cargo.lock")).unwrap();
    assert!(lock.contains(pinned), "{lock}");
    assert!(lock.contains("name = \"criterion\""), "{lock}");
    // Complete for the new manifest: cargo would not change it.
    cargo(
        &new,
        &["update", "--workspace", "--locked", "--offline", "--quiet"],
    );
}

/// Every golden project with its committed files, without Cargo.lock.
fn golden_copies() -> Vec<(String, tempfile::TempDir)> {
    golden_projects()
        .into_iter()
        .map(|name| {
            let dir = tempfile::tempdir().unwrap();
            runtime_copy::copy_golden(&name, dir.path());
            (name, dir)
        })
        .collect()
}

#[test]
fn the_image_workflow_builds_only_from_the_committed_cargo_lock() {
    for (name, dir) in golden_copies() {
        let text = fs::read_to_string(dir.path().join(".github/workflows/image.yml")).unwrap();
        let workflow: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
        let steps = workflow["jobs"]["image"]["steps"].as_sequence().unwrap();
        let build = steps
            .iter()
            .position(|s| {
                s["uses"]
                    .as_str()
                    .is_some_and(|u| u.starts_with("docker/build-push-action@"))
            })
            .unwrap_or_else(|| panic!("{name}: image.yml builds no image"));
        let scripts: Vec<&str> = steps[..build]
            .iter()
            .filter_map(|s| s["run"].as_str())
            .collect();
        let run_all = || {
            scripts.iter().all(|script| {
                Command::new("bash")
                    .args(["-e", "-c", script])
                    .current_dir(dir.path())
                    .output()
                    .unwrap()
                    .status
                    .success()
            })
        };
        assert!(
            !run_all(),
            "{name}: the image job goes on to build without a committed Cargo.lock"
        );
        assert!(
            !dir.path().join("Cargo.lock").exists(),
            "{name}: the image job created a Cargo.lock instead of using the committed one"
        );
        fs::write(dir.path().join("Cargo.lock"), "version = 4\n").unwrap();
        assert!(
            run_all(),
            "{name}: the image job stops before the build although Cargo.lock is committed"
        );
    }
}

#[test]
fn make_docker_build_refuses_to_build_without_cargo_lock() {
    for (name, dir) in golden_copies() {
        // `true` stands in for docker: what matters is whether make gets that far.
        let make = || {
            Command::new("make")
                .args(["docker-build", "CONTAINER_TOOL=true"])
                .current_dir(dir.path())
                .output()
                .unwrap()
        };
        let out = make();
        assert!(
            !out.status.success(),
            "{name}: make docker-build went on without Cargo.lock"
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("cargo generate-lockfile"),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !dir.path().join("Cargo.lock").exists(),
            "{name}: make docker-build created a Cargo.lock instead of using the committed one"
        );
        fs::write(dir.path().join("Cargo.lock"), "version = 4\n").unwrap();
        let out = make();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// `packages: write` is granted to the job that pushes, on tags, and nowhere else: a pull
/// request's workflow never holds a token that can publish.
#[test]
fn only_the_job_that_pushes_on_tags_may_write_packages() {
    for (name, dir) in golden_copies() {
        let text = fs::read_to_string(dir.path().join(".github/workflows/image.yml")).unwrap();
        let workflow: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
        assert_eq!(
            workflow["permissions"]["packages"],
            serde_yaml::Value::Null,
            "{name}: packages granted workflow-wide"
        );
        let jobs = workflow["jobs"].as_mapping().unwrap();
        for (job, spec) in jobs {
            let writes = spec["permissions"]["packages"] == "write";
            let pushes = spec["steps"]
                .as_sequence()
                .unwrap()
                .iter()
                .any(|s| s["with"]["push"] == true);
            let on_tags = spec["if"]
                .as_str()
                .is_some_and(|c| c == "startsWith(github.ref, 'refs/tags/v')");
            assert_eq!(writes, pushes, "{name}: job {job:?}");
            assert!(
                !writes || on_tags,
                "{name}: job {job:?} writes packages off tags"
            );
        }
    }
}

/// The test helpers of rsbuilder-runtime (`tls::testing`, with hyper's HTTP client) serve
/// only the tests: the manager's binary is built without them.
#[test]
fn the_runtimes_test_helpers_are_a_dev_dependency_only() {
    for name in golden_projects() {
        let path = repo_root().join("testdata").join(&name).join("Cargo.toml");
        let manifest: toml_edit::DocumentMut = fs::read_to_string(&path).unwrap().parse().unwrap();
        let features = |table: &str, krate: &str| -> Vec<String> {
            manifest[table]
                .get(krate)
                .and_then(|dep| dep.get("features"))
                .and_then(|features| features.as_array())
                .into_iter()
                .flatten()
                .filter_map(|f| f.as_str().map(str::to_string))
                .collect()
        };
        assert!(
            !features("dependencies", "rsbuilder-runtime").contains(&"testing".to_string()),
            "{name}: the runtime's test helpers are a dependency of the manager"
        );
        assert!(
            !features("dependencies", "hyper").contains(&"client".to_string()),
            "{name}: hyper's client is a dependency of the manager"
        );
        assert!(
            features("dev-dependencies", "rsbuilder-runtime").contains(&"testing".to_string()),
            "{name}: the tests lack the runtime's test helpers"
        );
    }
}
