//! Golden projects built the way their own CI builds them, in a working copy.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{repo_root, samples_target, snapshot};

/// Runs `program` in the generated project `dir` the way its own CI would, with the
/// shared target directory ([`samples_target`]); its output, or a failure naming it.
#[track_caller]
pub fn run(dir: &Path, program: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> String {
    let target = samples_target();
    let program = program.as_ref();
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        // Five projects' debug builds in one target directory filled a CI machine's disk
        // (17 GiB, most of it debug info and incremental state, neither of which a test
        // run needs; line tables keep backtraces readable).
        .env("CARGO_PROFILE_DEV_DEBUG", "line-tables-only")
        .env("CARGO_INCREMENTAL", "0")
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

/// A copy of the golden project `name` at `dir`, a stable path, so that cargo's state and
/// the Cargo.lock resolved there survive between runs.
pub fn working_copy(name: &str, dir: &Path) -> PathBuf {
    let dir = dir.to_path_buf();
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
    super::runtime_copy::write_copy(&dir);
    dir
}
