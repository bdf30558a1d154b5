//! YAML a hostile or unlucky user gives rsbuilder (issue 21, items 3 and 4): alias bombs
//! and deeply nested flow collections, in every file a command reads as YAML. Each is one
//! error naming the file, quickly, with the tree as it was. The property tests over the
//! same inputs are in `robustness/yaml.rs`.

mod common;

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use common::*;

/// A copy of the golden project `project-v1`, the `P` of the issue.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    runtime_copy::copy_golden("project-v1", dir.path());
    dir
}

/// Runs `args` in `dir`, killed after `limit`: a test must not spend the 36 s and 8 GB an
/// unbounded expansion takes.
#[track_caller]
fn run_within(dir: &Path, args: &[&str], limit: Duration) -> Output {
    let mut child = rsbuilder_command(dir, args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("`rsbuilder {}` took longer than {limit:?}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Eight levels of aliases, each nine of the one below: 9^9 nodes from about 500 bytes.
fn alias_bomb() -> String {
    let mut text = String::from("\nbomb0: &a0 [x, x, x, x, x, x, x, x, x]\n");
    for level in 1..=8 {
        let below = format!("*a{}", level - 1);
        let items = [below.as_str(); 9].join(", ");
        text.push_str(&format!("bomb{level}: &a{level} [{items}]\n"));
    }
    text
}

/// A flow sequence nested `depth` levels deep, as a top-level key.
fn deep_flow(depth: usize) -> String {
    format!("\ndeep: {}{}\n", "[".repeat(depth), "]".repeat(depth))
}

fn append(dir: &Path, path: &str, text: &str) {
    let file = dir.join(path);
    let old = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, old + text).unwrap();
}

/// Runs `args` in `dir` (within a few seconds) and expects exit 1, `path` and `words` in
/// the one error, and the tree as it was.
#[track_caller]
fn refused_naming(dir: &Path, args: &[&str], path: &str, words: &str) -> String {
    let before = snapshot(dir);
    let out = run_within(dir, args, Duration::from_secs(5));
    let err = fails(&out, 1);
    assert!(err.contains(path), "{path} not named in:\n{err}");
    assert!(err.contains(words), "{words:?} not in:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(
        snapshot(dir),
        before,
        "`rsbuilder {}` changed the tree",
        args.join(" ")
    );
    err
}

const CREATE_API: &[&str] = &[
    "create",
    "api",
    "--group",
    "batch",
    "--version",
    "v2",
    "--kind",
    "Zed",
];

// ---- item 3: aliases ------------------------------------------------------------------

#[test]
fn lint_refuses_an_alias_bomb_quickly_naming_the_file() {
    let dir = project();
    append(dir.path(), "config/rbac/role.yaml", &alias_bomb());
    let out = run_within(dir.path(), &["lint"], Duration::from_secs(5));
    let report = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        report.contains("config/rbac/role.yaml") && report.contains("alias"),
        "{report}"
    );
    assert!(!report.contains("panicked"), "{report}");
    assert_eq!(out.status.code(), Some(1), "{report}");
}

#[test]
fn every_yaml_reader_refuses_an_alias_bomb_naming_the_file() {
    for (path, args) in [
        ("PROJECT", CREATE_API),
        ("config/crd/kustomization.yaml", CREATE_API),
        ("config/rbac/kustomization.yaml", CREATE_API),
    ] {
        let dir = project();
        append(dir.path(), path, &alias_bomb());
        refused_naming(dir.path(), args, path, "alias");
    }
    let dir = project();
    std::fs::write(dir.path().join("bomb.yaml"), alias_bomb()).unwrap();
    refused_naming(
        dir.path(),
        &["create", "api", "--from-crd", "bomb.yaml"],
        "bomb.yaml",
        "alias",
    );
}

// ---- item 4: depth --------------------------------------------------------------------

#[test]
fn deep_flow_yaml_in_project_is_refused_quickly_naming_the_file() {
    let dir = project();
    append(dir.path(), "PROJECT", &deep_flow(100_000));
    refused_naming(dir.path(), CREATE_API, "PROJECT", "deep");
}

#[test]
fn every_yaml_reader_refuses_deep_nesting_quickly_naming_the_file() {
    for (path, args) in [
        ("config/crd/kustomization.yaml", CREATE_API),
        ("config/rbac/kustomization.yaml", CREATE_API),
        ("config/default/kustomization.yaml", CREATE_API),
    ] {
        let dir = project();
        append(dir.path(), path, &deep_flow(100_000));
        refused_naming(dir.path(), args, path, "deep");
    }
    let dir = project();
    std::fs::write(dir.path().join("deep.yaml"), deep_flow(100_000)).unwrap();
    refused_naming(
        dir.path(),
        &["create", "api", "--from-crd", "deep.yaml"],
        "deep.yaml",
        "deep",
    );
    let dir = project();
    append(dir.path(), "config/rbac/role.yaml", &deep_flow(100_000));
    let out = run_within(dir.path(), &["lint"], Duration::from_secs(5));
    let report = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        report.contains("config/rbac/role.yaml") && report.contains("deep"),
        "{report}"
    );
    assert_eq!(out.status.code(), Some(1), "{report}");
}
