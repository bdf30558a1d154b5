//! Standard output or error that cannot be written (issue 21 item 10): `>/dev/full`,
//! `2>/dev/full`. rsbuilder exits 1, never panics (101), and changes nothing beyond what
//! the command had completed.

mod common;

use std::fs::File;
use std::path::Path;
use std::process::{Output, Stdio};

use common::*;

fn full() -> Stdio {
    File::options()
        .write(true)
        .open("/dev/full")
        .unwrap()
        .into()
}

/// Runs `args` in `dir` with stdout (`out_full`) or stderr going to /dev/full.
fn run(dir: &Path, args: &[&str], out_full: bool) -> Output {
    let mut command = rsbuilder_command(dir, args);
    if out_full {
        command.stdout(full()).stderr(Stdio::piped());
    } else {
        command.stdout(Stdio::piped()).stderr(full());
    }
    command.output().unwrap()
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    runtime_copy::copy_golden("project-v1", dir.path());
    dir
}

#[test]
fn a_full_stdout_after_a_successful_create_api_is_exit_1_with_the_files_written() {
    let dir = project();
    let out = run(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "fleet",
            "--version",
            "v1",
            "--kind",
            "Ship",
        ],
        true,
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains("stdout") || err.contains("standard output"),
        "{err}"
    );
    // The command completed: its files are there, whole.
    assert!(dir.path().join("src/api/fleet/v1/ship.rs").is_file());
    ok(&rsbuilder(
        dir.path(),
        &["generate", "manifests", "--check"],
    ));
}

#[test]
fn a_full_stderr_on_an_error_is_exit_1_and_changes_nothing() {
    let dir = project();
    let before = snapshot(dir.path());
    let out = run(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "fleet",
            "--version",
            "v1",
            "--kind",
            "bad kind",
        ],
        false,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn every_printing_command_exits_1_on_a_full_stdout() {
    let dir = project();
    for args in [
        &["version"][..],
        &["completion", "bash"],
        &["lint"],
        &["lint", "--explain", "yaml-syntax"],
        &[
            "--dry-run",
            "create",
            "api",
            "--group",
            "fleet",
            "--version",
            "v1",
            "--kind",
            "Ship",
        ],
        &["generate", "manifests", "--check"],
    ] {
        let out = run(dir.path(), args, true);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
