//! Upgrades reach a project as a version bump of its runtime: `generate runtime` replaces
//! the project's copy of rsbuilder-runtime (or the registry version it pins) with this
//! rsbuilder's, and the user's own files stay byte for byte as they were.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::golden_copy::run;
use common::*;

/// The project's directory: a stable path under target/, so that cargo's state and the
/// Cargo.lock it resolved survive between runs.
fn fresh_project(name: &str) -> PathBuf {
    let dir = repo_root().join("target/runtime-upgrade").join(name);
    let lock = fs::read(dir.join("Cargo.lock")).ok();
    if dir.exists() {
        fs::remove_dir_all(&dir).unwrap();
    }
    fs::create_dir_all(&dir).unwrap();
    ok(&rsbuilder(
        &dir,
        &["init", "--domain", "example.com", "--fetch-deps=false"],
    ));
    ok(&rsbuilder(
        &dir,
        &[
            "create",
            "api",
            "--group",
            "fleet",
            "--version",
            "v1",
            "--kind",
            "Frigate",
            "--resource",
            "--controller",
        ],
    ));
    if let Some(lock) = lock {
        fs::write(dir.join("Cargo.lock"), lock).unwrap();
    }
    dir
}

/// The user's edits: their own logic in the controller, with a test of it.
fn edit_the_controller(dir: &Path) {
    let path = dir.join("src/controllers/frigate.rs");
    let mut text = fs::read_to_string(&path).unwrap();
    text.push_str(
        "\n/// How many crew a frigate of `guns` guns needs: the user's own rule.\n\
         pub fn crew(guns: u32) -> u32 {\n    guns * 3 + 12\n}\n\n\
         #[cfg(test)]\nmod crew_tests {\n    #[test]\n    fn a_frigate_of_forty_guns_needs_132_crew() {\n        \
         assert_eq!(super::crew(40), 132);\n    }\n}\n",
    );
    fs::write(&path, text).unwrap();
}

/// The project's copy as an older rsbuilder wrote it: another version, a module since
/// retired, and a constant that has changed since.
fn age_the_copy(dir: &Path) {
    let copy = dir.join("rsbuilder-runtime");
    let manifest = fs::read_to_string(copy.join("Cargo.toml")).unwrap();
    let version = manifest
        .lines()
        .find(|line| line.starts_with("version = "))
        .unwrap();
    fs::write(
        copy.join("Cargo.toml"),
        manifest.replace(version, "version = \"0.0.9\""),
    )
    .unwrap();
    let lib = fs::read_to_string(copy.join("src/lib.rs")).unwrap();
    fs::write(
        copy.join("src/lib.rs"),
        format!("{lib}\n/// Retired since.\npub mod retired;\n"),
    )
    .unwrap();
    fs::write(
        copy.join("src/retired.rs"),
        "//! Gone from newer runtimes.\n\n/// Nothing.\npub fn retired() {}\n",
    )
    .unwrap();
    let leader = fs::read_to_string(copy.join("src/leader.rs")).unwrap();
    assert!(leader.contains("from_secs(15)"), "the lease duration moved");
    fs::write(
        copy.join("src/leader.rs"),
        leader.replace("from_secs(15)", "from_secs(20)"),
    )
    .unwrap();
}

/// Every file of the project outside its runtime copy and cargo's own output.
fn users_files(dir: &Path) -> std::collections::BTreeMap<PathBuf, Option<Vec<u8>>> {
    snapshot(dir)
        .into_iter()
        .filter(|(path, _)| {
            !path.starts_with("rsbuilder-runtime") && !path.starts_with("Cargo.lock")
        })
        .collect()
}

#[test]
#[ignore = "slow: builds and tests a generated project twice; run with `cargo test -- --include-ignored`"]
fn an_upgrade_rewrites_only_the_runtime_and_the_project_still_builds_and_passes() {
    let dir = fresh_project("vendored");
    edit_the_controller(&dir);
    // The project as an older rsbuilder left it: its own copy of an older runtime builds
    // and passes too.
    age_the_copy(&dir);
    let tests = run(&dir, "cargo", &["test"]);
    assert!(
        tests.contains("a_frigate_of_forty_guns_needs_132_crew ... ok"),
        "{tests}"
    );
    let before = users_files(&dir);

    let check = fails(&rsbuilder(&dir, &["generate", "runtime", "--check"]), 1);
    for stale in [
        "Cargo.toml (differs)",
        "lib.rs (differs)",
        "leader.rs (differs)",
    ] {
        assert!(check.contains(stale), "{stale} not reported:\n{check}");
    }
    let out = ok(&rsbuilder(&dir, &["generate", "runtime"]));
    assert!(out.contains("rsbuilder-runtime/src/retired.rs"), "{out}");
    assert_eq!(
        users_files(&dir),
        before,
        "the upgrade touched the user's files"
    );
    let upgraded = read(&dir, "rsbuilder-runtime/src/leader.rs");
    assert!(upgraded.contains("from_secs(15)"), "{upgraded}");
    // rsbuilder deletes no file: the retired module stays, out of the build, reported
    // until the user removes it.
    let check = fails(&rsbuilder(&dir, &["generate", "runtime", "--check"]), 1);
    assert!(
        check.contains("retired.rs (no longer generated)"),
        "{check}"
    );
    fs::remove_file(dir.join("rsbuilder-runtime/src/retired.rs")).unwrap();
    ok(&rsbuilder(&dir, &["generate", "runtime", "--check"]));
    run(
        &dir,
        "cargo",
        &["clippy", "--all-targets", "--", "-D", "warnings"],
    );
    let tests = run(&dir, "cargo", &["test"]);
    assert!(
        tests.contains("a_frigate_of_forty_guns_needs_132_crew ... ok"),
        "{tests}"
    );
    assert!(!tests.contains("FAILED"), "{tests}");
}

#[test]
#[ignore = "slow: packages the runtime and builds a generated project against it; run with `cargo test -- --include-ignored`"]
fn a_registry_project_builds_against_the_packaged_runtime() {
    let dir = fresh_project("registry");
    edit_the_controller(&dir);
    ok(&rsbuilder(&dir, &["edit", "--runtime", "registry"]));
    fs::remove_dir_all(dir.join("rsbuilder-runtime")).unwrap();

    // The crate as `cargo publish` would upload it, standing in for crates.io: the
    // project's pinned version resolves to it through a [patch] of crates-io.
    let packaged = repo_root().join("target/runtime-upgrade/package");
    run(
        &repo_root(),
        "cargo",
        &[
            "package",
            "-p",
            "rsbuilder-runtime",
            "--no-verify",
            "--allow-dirty",
            "--target-dir",
            &packaged.to_string_lossy(),
        ],
    );
    let cargo = read(&dir, "Cargo.toml");
    let pin = cargo
        .lines()
        .find_map(|line| line.strip_prefix("rsbuilder-runtime = { version = \"="))
        .and_then(|rest| rest.split('"').next())
        .expect("the pinned version")
        .to_string();
    let archive = packaged.join(format!("package/rsbuilder-runtime-{pin}.crate"));
    let unpacked = packaged.join("unpacked");
    if unpacked.exists() {
        fs::remove_dir_all(&unpacked).unwrap();
    }
    fs::create_dir_all(&unpacked).unwrap();
    run(
        &unpacked,
        "tar",
        &["xzf", &archive.to_string_lossy(), "--strip-components=1"],
    );
    let patch = format!(
        "patch.crates-io.rsbuilder-runtime.path={:?}",
        unpacked.to_string_lossy()
    );
    let tests = run(&dir, "cargo", &["--config", &patch, "test"]);
    assert!(
        tests.contains("a_frigate_of_forty_guns_needs_132_crew ... ok"),
        "{tests}"
    );
    assert!(!tests.contains("FAILED"), "{tests}");
}
