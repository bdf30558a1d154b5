//! Builds and checks every golden project under `testdata/` the way its own CI would:
//! fmt, clippy, tests, manifests up to date, and the real validators for its kustomize
//! output, Dockerfile, workflows and Makefile.
//!
//! Slow (it compiles kube), so ignored by a plain `cargo test`; the full test command
//! `cargo test -- --include-ignored` runs it. All projects share one target directory,
//! `RSBUILDER_SAMPLES_TARGET` (default: `target/sample-projects/target`).

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

#[track_caller]
fn run(dir: &Path, program: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> String {
    let target = samples_target();
    let program = program.as_ref();
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS");
    // What cargo set for this test (CARGO_MANIFEST_DIR, CARGO_PKG_NAME, OUT_DIR ...) is no
    // business of the sample project, and build scripts that watch those variables (ring's,
    // through cc) would rebuild in the shared target for every checkout that runs this.
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        let set_by_cargo = [
            "CARGO_PKG_",
            "CARGO_MANIFEST_",
            "CARGO_CRATE_",
            "CARGO_BIN_",
        ]
        .iter()
        .any(|prefix| name.starts_with(prefix));
        if set_by_cargo
            || ["OUT_DIR", "CARGO_PRIMARY_PACKAGE", "CARGO_TARGET_TMPDIR"].contains(&&*name)
        {
            command.env_remove(&*name);
        }
    }
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program:?}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "{program:?} {args:?} failed in {}:\n{text}",
        dir.display()
    );
    text
}

/// A copy of the golden project at a stable path, so that cargo's incremental state
/// survives between runs.
fn working_copy(name: &str) -> PathBuf {
    let dir = repo_root().join("target/sample-projects").join(name);
    let lock = fs::read(dir.join("Cargo.lock")).ok();
    if dir.exists() {
        fs::remove_dir_all(&dir).unwrap();
    }
    let golden = repo_root().join("testdata").join(name);
    for (rel, contents) in snapshot(&golden) {
        let target = dir.join(rel);
        match contents {
            None => fs::create_dir_all(&target).unwrap(),
            Some(bytes) => {
                fs::create_dir_all(target.parent().unwrap()).unwrap();
                fs::write(&target, bytes).unwrap();
            }
        }
    }
    if let Some(lock) = lock {
        fs::write(dir.join("Cargo.lock"), lock).unwrap();
    }
    dir
}

fn check_project(name: &str) {
    let dir = working_copy(name);
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
    if project.contains("conversion: true") {
        // The CRD converts through the webhook, with the CA cert-manager injects.
        for needle in [
            "strategy: Webhook",
            "path: /convert",
            "cert-manager.io/inject-ca-from:",
        ] {
            assert!(
                rendered.contains(needle),
                "{name}: no {needle}:\n{rendered}"
            );
        }
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
}

#[test]
#[ignore = "slow: builds every golden project; run with `cargo test -- --include-ignored`"]
fn golden_projects_build_test_and_validate() {
    for name in golden_projects() {
        check_project(&name);
    }
}
