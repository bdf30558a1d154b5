//! Golden projects hold no copy of rsbuilder-runtime: the copy is rsbuilder's, the same
//! in every project, and six copies of it in testdata/ would hide every real difference
//! in review. `testdata/rsbuilder-runtime.sum` records the copy's version and digest
//! instead, and a golden copied out to be built or edited gets its copy written by
//! `rsbuilder generate runtime`, as the project would have it.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{copy_tree, ok, repo_root, rsbuilder};

/// The copy's directory in a project.
pub const DIR: &str = "rsbuilder-runtime";

/// Where the blessed version and digest of the copy are kept.
pub fn sum_file() -> PathBuf {
    repo_root().join("testdata/rsbuilder-runtime.sum")
}

/// `snapshot` without the runtime copy.
pub fn without_copy(
    snapshot: BTreeMap<PathBuf, Option<Vec<u8>>>,
) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    snapshot
        .into_iter()
        .filter(|(path, _)| !path.starts_with(DIR))
        .collect()
}

/// The copy in `project` as one line: the crate's version and a SHA-256 over every file's
/// path and contents, in path order.
pub fn digest(project: &Path) -> String {
    let copy = project.join(DIR);
    let files = super::snapshot(&copy);
    assert!(
        !files.is_empty(),
        "{} has no runtime copy",
        project.display()
    );
    let mut hash = Sha256::new();
    for (path, contents) in &files {
        if let Some(bytes) = contents {
            hash.update(path.to_string_lossy().as_bytes());
            hash.update([0]);
            hash.update((bytes.len() as u64).to_le_bytes());
            hash.update(bytes);
        }
    }
    let version = version(&copy.join("Cargo.toml"));
    let hex: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    format!("{DIR} {version} sha256:{hex}\n")
}

/// Writes the runtime copy into a project that takes it vendored and has none.
pub fn write_copy(project: &Path) {
    let cargo = fs::read_to_string(project.join("Cargo.toml")).unwrap_or_default();
    let vendored = cargo.contains(&format!("{DIR} = {{ path = \"{DIR}\""));
    if vendored && !project.join(DIR).exists() {
        ok(&rsbuilder(project, &["generate", "runtime"]));
    }
}

/// Copies the golden project `name` to `to`, with the runtime copy it would have.
pub fn copy_golden(name: &str, to: &Path) {
    copy_tree(&repo_root().join("testdata").join(name), to);
    write_copy(to);
}

/// The package version a crate's manifest declares.
pub fn version(manifest: &Path) -> String {
    fs::read_to_string(manifest)
        .unwrap()
        .lines()
        .find_map(|line| line.strip_prefix("version = "))
        .expect("a version line")
        .trim_matches('"')
        .to_string()
}

/// Makes the project at `dir` one from before the runtime crate: its Cargo.toml loses
/// every dependency on it.
pub fn drop_dependency(dir: &Path) {
    let cargo: String = fs::read_to_string(dir.join("Cargo.toml"))
        .unwrap()
        .lines()
        .filter(|line| !line.starts_with(&format!("{DIR} =")))
        .map(|line| format!("{line}\n"))
        .collect();
    fs::write(dir.join("Cargo.toml"), cargo).unwrap();
}
