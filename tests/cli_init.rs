//! `rsbuilder init`: what a user sees, and that bad input writes nothing.

mod common;

use std::fs;

use common::*;

const INIT: &[&str] = &["init", "--domain", "example.com", "--project-name", "demo"];

#[test]
fn init_scaffolds_a_project_and_names_the_next_step() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(&rsbuilder(dir.path(), INIT));
    assert!(out.contains("create Cargo.toml"), "{out}");
    assert!(out.contains("rsbuilder create api"), "{out}");
    let project = fs::read_to_string(dir.path().join("PROJECT")).unwrap();
    assert!(
        project.contains("projectName: demo") && project.contains("domain: example.com"),
        "{project}"
    );
}

#[test]
fn project_name_defaults_to_the_directory_name() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("guestbook");
    fs::create_dir(&dir).unwrap();
    ok(&rsbuilder(&dir, &["init", "--domain", "example.com"]));
    let cargo = fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    assert!(cargo.contains("name = \"guestbook\""), "{cargo}");
}

#[test]
fn quiet_prints_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(&rsbuilder(
        dir.path(),
        &[
            "-q",
            "init",
            "--domain",
            "example.com",
            "--project-name",
            "demo",
        ],
    ));
    assert_eq!(out, "");
}

#[test]
fn license_none_without_owner_writes_no_header() {
    let dir = tempfile::tempdir().unwrap();
    ok(&rsbuilder(
        dir.path(),
        &[
            "init",
            "--domain",
            "example.com",
            "--project-name",
            "demo",
            "--license",
            "none",
        ],
    ));
    let main = fs::read_to_string(dir.path().join("src/main.rs")).unwrap();
    assert!(main.starts_with("//! The manager"), "{main}");
    let mit = tempfile::tempdir().unwrap();
    ok(&rsbuilder(
        mit.path(),
        &[
            "init",
            "--domain",
            "example.com",
            "--project-name",
            "demo",
            "--license",
            "mit",
            "--owner",
            "Jane Doe",
        ],
    ));
    let main = fs::read_to_string(mit.path().join("src/main.rs")).unwrap();
    assert!(
        main.starts_with("// Copyright Jane Doe\n// SPDX-License-Identifier: MIT\n"),
        "{main}"
    );
}

/// Runs rsbuilder in a directory prepared by `setup` and asserts that it fails with
/// `code`, says `message`, and leaves the directory byte-identical.
#[track_caller]
fn refused(setup: impl Fn(&std::path::Path), args: &[&str], code: i32, message: &str) {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let before = snapshot(dir.path());
    let err = fails(&rsbuilder(dir.path(), args), code);
    assert!(err.contains(message), "expected {message:?} in:\n{err}");
    assert_eq!(err.lines().count(), 1, "one clear error line, got:\n{err}");
    assert_eq!(snapshot(dir.path()), before, "the tree changed");
}

fn empty(_: &std::path::Path) {}

#[test]
fn a_second_init_is_refused() {
    refused(
        |d| {
            ok(&rsbuilder(d, INIT));
        },
        INIT,
        1,
        "already contains PROJECT",
    );
}

#[test]
fn init_refuses_an_existing_cargo_project() {
    refused(
        |d| fs::write(d.join("Cargo.toml"), "[package]\n").unwrap(),
        INIT,
        1,
        "already contains Cargo.toml",
    );
    refused(
        |d| fs::create_dir(d.join("src")).unwrap(),
        INIT,
        1,
        "already contains src",
    );
}

#[test]
fn invalid_names_are_refused() {
    for domain in ["Example.com", "example..com", "-x.com", "a/b", ""] {
        let flag = format!("--domain={domain}");
        refused(
            empty,
            &["init", &flag, "--project-name", "demo"],
            1,
            "invalid domain",
        );
    }
    for name in ["My_Project", "../escape", "a/b", "-demo", "demo-", "UPPER"] {
        let flag = format!("--project-name={name}");
        refused(
            empty,
            &["init", "--domain", "example.com", &flag],
            1,
            "invalid project name",
        );
    }
}

#[test]
fn an_invalid_directory_name_suggests_project_name() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("My_Operator");
    fs::create_dir(&dir).unwrap();
    let err = fails(&rsbuilder(&dir, &["init", "--domain", "example.com"]), 1);
    assert!(err.contains("--project-name"), "{err}");
    assert!(fs::read_dir(&dir).unwrap().next().is_none());
}

#[test]
fn usage_errors_exit_with_2() {
    let dir = tempfile::tempdir().unwrap();
    let err = fails(
        &rsbuilder(
            dir.path(),
            &["init", "--domain", "example.com", "--license", "gpl"],
        ),
        2,
    );
    assert!(err.contains("gpl"), "{err}");
    fails(
        &rsbuilder(
            dir.path(),
            &["init", "--domain", "example.com", "--frobnicate"],
        ),
        2,
    );
    fails(&rsbuilder(dir.path(), &["init"]), 2);
    fails(&rsbuilder(dir.path(), &["no-such-command"]), 2);
    assert!(fs::read_dir(dir.path()).unwrap().next().is_none());
}

#[test]
fn a_missing_dash_c_directory_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = fails(
        &rsbuilder(
            dir.path(),
            &["-C", "nope", "init", "--domain", "example.com"],
        ),
        1,
    );
    assert!(
        err.contains("nope") && err.contains("no such directory"),
        "{err}"
    );
}

#[test]
fn dash_c_runs_in_another_directory() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("op")).unwrap();
    ok(&rsbuilder(
        dir.path(),
        &["-C", "op", "init", "--domain", "example.com"],
    ));
    assert!(dir.path().join("op/PROJECT").is_file());
    assert!(!dir.path().join("PROJECT").exists());
}

#[test]
fn an_unwritable_directory_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("ro");
    fs::create_dir(&target).unwrap();
    let mut perms = fs::metadata(&target).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o555);
    fs::set_permissions(&target, perms).unwrap();
    // root ignores permission bits; /proc refuses new files even to root.
    let probe = target.join("probe");
    let target = if fs::write(&probe, "").is_ok() {
        fs::remove_file(&probe).unwrap();
        std::path::PathBuf::from("/proc")
    } else {
        target
    };
    let inside_tempdir = target.starts_with(dir.path());
    let err = fails(
        &rsbuilder(
            &target,
            &["init", "--domain", "example.com", "--project-name", "demo"],
        ),
        1,
    );
    assert!(err.contains("cannot"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    if inside_tempdir {
        assert!(
            fs::read_dir(&target).unwrap().next().is_none(),
            "files were written"
        );
    }
}

#[test]
fn version_names_the_generated_crates() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(&rsbuilder(dir.path(), &["version"]));
    assert!(
        out.contains("kube 5.0") && out.contains("k8s-openapi 0.29") && out.contains("schemars 1"),
        "{out}"
    );
}

#[test]
fn completion_scripts_are_printed() {
    let dir = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = ok(&rsbuilder(dir.path(), &["completion", shell]));
        assert!(out.contains("init"), "{shell}: {out}");
    }
}
