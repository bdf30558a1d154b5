//! `generate crds --exact` runs cargo (issue 21 item 11): under `--check` or `--dry-run` it
//! writes nothing in the project (no `Cargo.lock`, no `target/`), and its cargo child dies
//! with rsbuilder. cargo is replaced by a script (`$CARGO`) that writes what cargo writes.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::*;

/// A stand-in for cargo: like cargo it writes `Cargo.lock` (unless `--locked`) and its
/// build into `$CARGO_TARGET_DIR` or `target/`, records its pid, sleeps `sleep` seconds,
/// and prints no CRD.
fn fake_cargo(dir: &Path, sleep: u32) -> PathBuf {
    let script = dir.join("fake-cargo");
    let pids = dir.join("pids");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\n\
             echo $$ >> {pids}\n\
             case \" $* \" in *' --locked '*) ;; *) echo lock > Cargo.lock ;; esac\n\
             mkdir -p \"${{CARGO_TARGET_DIR:-target}}/debug\" && echo bin > \"${{CARGO_TARGET_DIR:-target}}/debug/crdgen\"\n\
             sleep {sleep}\n",
            pids = pids.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    script
}

fn project() -> (tempfile::TempDir, PathBuf) {
    let sandbox = tempfile::tempdir().unwrap();
    let dir = sandbox.path().join("p");
    runtime_copy::copy_golden("project-v1", &dir);
    (sandbox, dir)
}

#[test]
fn check_and_dry_run_with_exact_write_nothing_in_the_project() {
    for args in [
        &["generate", "crds", "--exact", "--check"][..],
        &["--dry-run", "generate", "crds", "--exact"],
        &["--dry-run", "generate", "crds", "--exact", "--check"],
    ] {
        let (sandbox, dir) = project();
        let cargo = fake_cargo(sandbox.path(), 0);
        let before = snapshot(&dir);
        let out = rsbuilder_command(&dir, args)
            .env("CARGO", &cargo)
            .env_remove("CARGO_TARGET_DIR")
            .output()
            .unwrap();
        assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
        let after = snapshot(&dir);
        let changed: Vec<_> = after
            .keys()
            .chain(before.keys())
            .filter(|k| after.get(*k) != before.get(*k))
            .collect();
        assert!(
            changed.is_empty(),
            "{args:?} wrote into the project: {changed:?}"
        );
    }
}

fn alive(pid: u32) -> bool {
    // A zombie has exited; only its parent's wait is missing.
    fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|s| !s.trim_start().starts_with('Z'))
    })
}

#[test]
fn the_cargo_child_dies_with_rsbuilder() {
    let (sandbox, dir) = project();
    let cargo = fake_cargo(sandbox.path(), 60);
    let mut rsbuilder = rsbuilder_command(&dir, &["generate", "crds", "--exact"])
        .env("CARGO", &cargo)
        .spawn()
        .unwrap();
    let pids = sandbox.path().join("pids");
    let start = Instant::now();
    let pid: u32 = loop {
        if let Some(pid) = fs::read_to_string(&pids)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            break pid;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "cargo never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    rsbuilder.kill().unwrap(); // SIGKILL: no handler of rsbuilder's runs
    rsbuilder.wait().unwrap();
    let start = Instant::now();
    while alive(pid) {
        if start.elapsed() > Duration::from_secs(5) {
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            panic!("cargo (pid {pid}) outlived rsbuilder");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
