//! The write guarantees of ARCHITECTURE.md, as a user (or a hostile tree) meets them:
//! rsbuilder never writes outside the project or through a symbolic link, keeps file
//! modes, serialises concurrent commands, and leaves the old tree or the whole new one
//! when it is killed or the disk fills up.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::*;

/// A copy of the golden project-v1 in `dir`.
fn project_v1(dir: &Path) {
    runtime_copy::copy_golden("project-v1", dir);
}

const QUOTA: &[&str] = &[
    "create",
    "api",
    "--group",
    "infra",
    "--version",
    "v1",
    "--kind",
    "Quota",
];
const SHIP: &[&str] = &[
    "create",
    "api",
    "--group",
    "fleet",
    "--version",
    "v1",
    "--kind",
    "Ship",
];

/// Leftovers of a write: the staging directory of a transaction, or a temp file of old.
fn leftovers(root: &Path) -> Vec<PathBuf> {
    entries(root)
        .into_keys()
        .filter(|p| {
            let name = p.to_string_lossy();
            name.contains(".rsbuilder-txn") || name.contains("rsbuilder-tmp")
        })
        .collect()
}

// ---------------------------------------------------------------- names and symlinks

const WIDGET: &str = r#"
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "GROUP", version = "v1", kind = "Widget", namespaced)]
pub struct WidgetSpec {
    pub size: i32,
}
"#;

/// Whichever wall stops it (the name checks of the sources or the tree writer), a group
/// that is a path never makes `generate crds` write outside the directory it was given.
#[test]
fn names_from_the_source_never_write_outside_the_output_directory() {
    let sandbox = tempfile::tempdir().unwrap();
    let abs = sandbox.path().join("abs");
    for group in [
        "../escaped".to_string(),
        "../../escaped".to_string(),
        format!("{}/evil", abs.display()),
        "a/../../b".to_string(),
    ] {
        let work = sandbox.path().join("work");
        let _ = fs::remove_dir_all(&work);
        fs::create_dir_all(work.join("out")).unwrap();
        fs::write(work.join("types.rs"), WIDGET.replace("GROUP", &group)).unwrap();
        let before = entries(sandbox.path());
        let out = rsbuilder(
            &work,
            &[
                "generate",
                "crds",
                "--paths",
                "types.rs",
                "--output-dir",
                "out",
            ],
        );
        assert_eq!(
            out.status.code(),
            Some(1),
            "group {group:?}: {}",
            stdout(&out)
        );
        assert_same_entries(
            &entries(sandbox.path()),
            &before,
            &format!("group {group:?}"),
        );
        // The name checks of the sources may report `file:line` diagnostics under their
        // first line; the wall's own refusal is one line (write_engine.rs).
        let err = stderr(&out);
        assert!(err.starts_with("error: "), "{err}");
    }
}

/// A link planted at the name rsbuilder once used for its temp files leads nowhere now:
/// temp files are created exclusively under unpredictable names.
#[test]
fn a_link_at_the_old_temp_name_redirects_nothing() {
    let sandbox = tempfile::tempdir().unwrap();
    let victim = sandbox.path().join("victim.txt");
    fs::write(&victim, "precious").unwrap();
    let dir = sandbox.path().join("p");
    project_v1(&dir);
    let role = dir.join("config/rbac/role.yaml");
    let generated = fs::read_to_string(&role).unwrap();
    fs::write(&role, format!("{generated}# stale\n")).unwrap();
    symlink(&victim, dir.join("config/rbac/.role.yaml.rsbuilder-tmp")).unwrap();

    ok(&rsbuilder(&dir, &["generate", "manifests"]));
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    let meta = fs::symlink_metadata(&role).unwrap();
    assert!(meta.is_file(), "role.yaml became {:?}", meta.file_type());
    assert_eq!(fs::read_to_string(&role).unwrap(), generated);
}

/// A file rsbuilder would rewrite that is a symbolic link is refused with one line, and
/// nothing is written anywhere.
#[test]
fn a_symlinked_file_is_never_written_through() {
    let sandbox = tempfile::tempdir().unwrap();
    let victim = sandbox.path().join("victim.yaml");
    fs::write(&victim, "precious").unwrap();
    let dir = sandbox.path().join("p");
    project_v1(&dir);
    let role = dir.join("config/rbac/role.yaml");
    fs::remove_file(&role).unwrap();
    symlink(&victim, &role).unwrap();
    let before = entries(sandbox.path());

    let err = fails(&rsbuilder(&dir, &["generate", "rbac"]), 1);
    assert!(
        err.contains("config/rbac/role.yaml") && err.contains("symbolic link"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_same_entries(&entries(sandbox.path()), &before, "after the refusal");
}

/// A directory of the project that is a link leading outside it is never written into;
/// one leading to another directory of the project is fine.
#[test]
fn a_symlinked_directory_outside_the_project_is_never_written_into() {
    let sandbox = tempfile::tempdir().unwrap();
    let dir = sandbox.path().join("p");
    project_v1(&dir);
    let bases = dir.join("config/crd/bases");
    let outside = sandbox.path().join("outside-bases");
    fs::rename(&bases, &outside).unwrap();
    let stale = fs::read_dir(&outside)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    fs::remove_file(&stale).unwrap();
    symlink(&outside, &bases).unwrap();
    let before = entries(sandbox.path());

    let err = fails(&rsbuilder(&dir, &["generate", "crds"]), 1);
    assert!(err.contains("outside"), "{err}");
    assert_same_entries(&entries(sandbox.path()), &before, "after the refusal");

    // The same link to a directory inside the project is followed.
    let inside = dir.join("crd-bases");
    fs::remove_file(&bases).unwrap();
    fs::rename(&outside, &inside).unwrap();
    symlink("../../crd-bases", &bases).unwrap();
    ok(&rsbuilder(&dir, &["generate", "crds"]));
    assert!(inside.join(stale.file_name().unwrap()).is_file());
    assert!(
        fs::symlink_metadata(&bases)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

/// A rewritten file keeps its mode: a private file stays private.
#[test]
fn rewritten_files_keep_their_mode() {
    let sandbox = tempfile::tempdir().unwrap();
    let dir = sandbox.path().join("p");
    project_v1(&dir);
    let role = dir.join("config/rbac/role.yaml");
    let generated = fs::read_to_string(&role).unwrap();
    fs::write(&role, format!("{generated}# stale\n")).unwrap();
    fs::set_permissions(&role, fs::Permissions::from_mode(0o600)).unwrap();
    let project = dir.join("PROJECT");
    fs::set_permissions(&project, fs::Permissions::from_mode(0o640)).unwrap();

    ok(&rsbuilder(&dir, &["generate", "rbac"]));
    assert_eq!(fs::read_to_string(&role).unwrap(), generated);
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode(&role), 0o600, "role.yaml");
    ok(&rsbuilder(&dir, QUOTA));
    assert!(fs::read_to_string(&project).unwrap().contains("Quota"));
    assert_eq!(mode(&project), 0o640, "PROJECT");
}

// ---------------------------------------------------------------- concurrency

fn run_pair(dir: &Path, a: &[&str], b: &[&str]) -> (Output, Output) {
    let spawn = |args: &[&str]| {
        rsbuilder_command(dir, args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (first, second) = (spawn(a), spawn(b));
    (
        first.wait_with_output().unwrap(),
        second.wait_with_output().unwrap(),
    )
}

fn after(seed: &Path, scratch: &Path, commands: &[&[&str]]) -> BTreeMap<PathBuf, Entry> {
    let _ = fs::remove_dir_all(scratch);
    copy_tree(seed, scratch);
    for args in commands {
        ok(&rsbuilder(scratch, args));
    }
    entries(scratch)
}

/// 20 pairs of `create api` started together in one project: both kinds end up fully
/// registered (the tree equals running them one after the other, in some order), or one
/// fails with one line and the tree equals the other's single run.
#[test]
fn concurrent_create_api_never_loses_a_registration() {
    let sandbox = tempfile::tempdir().unwrap();
    let seed = sandbox.path().join("seed");
    project_v1(&seed);
    let scratch = sandbox.path().join("scratch");
    let quota_then_ship = after(&seed, &scratch, &[QUOTA, SHIP]);
    let ship_then_quota = after(&seed, &scratch, &[SHIP, QUOTA]);
    let (mut both, mut one) = (0, 0);
    for trial in 0..20 {
        let dir = sandbox.path().join(format!("trial{trial}"));
        copy_tree(&seed, &dir);
        let (a, b) = run_pair(&dir, QUOTA, SHIP);
        let now = entries(&dir);
        match (a.status.success(), b.status.success()) {
            (true, true) => {
                both += 1;
                assert!(
                    now == quota_then_ship || now == ship_then_quota,
                    "trial {trial}: both succeeded but the tree is neither order: {:?}",
                    differing(&now, &quota_then_ship)
                );
            }
            (true, false) | (false, true) => {
                one += 1;
                let (failed, alone) = if a.status.success() {
                    (&b, QUOTA)
                } else {
                    (&a, SHIP)
                };
                assert_eq!(
                    stderr(failed)
                        .trim()
                        .lines()
                        .last()
                        .map(|l| l.starts_with("error: ")),
                    Some(true)
                );
                let single = after(&seed, &scratch, &[alone]);
                assert_same_entries(&now, &single, &format!("trial {trial}: one failed"));
            }
            (false, false) => panic!(
                "trial {trial}: both failed:\n{}\n{}",
                stderr(&a),
                stderr(&b)
            ),
        }
        fs::remove_dir_all(&dir).unwrap();
    }
    eprintln!("20 concurrent pairs: {both} both written, {one} one refused");
}

/// Two `init` racing in one empty directory: one project, the other refused cleanly.
#[test]
fn concurrent_init_makes_one_project() {
    let sandbox = tempfile::tempdir().unwrap();
    let init: &[&str] = &["init", "--domain", "example.com", "--project-name", "race"];
    let single = {
        let dir = sandbox.path().join("single");
        fs::create_dir(&dir).unwrap();
        ok(&rsbuilder(&dir, init));
        entries(&dir)
    };
    for trial in 0..5 {
        let dir = sandbox.path().join(format!("trial{trial}"));
        fs::create_dir(&dir).unwrap();
        let (a, b) = run_pair(&dir, init, init);
        let succeeded = [&a, &b].iter().filter(|o| o.status.success()).count();
        assert_eq!(
            succeeded,
            1,
            "trial {trial}:\n{}\n{}",
            stderr(&a),
            stderr(&b)
        );
        let refused = if a.status.success() { &b } else { &a };
        assert!(
            stderr(refused).contains("already contains"),
            "{}",
            stderr(refused)
        );
        assert_same_entries(&entries(&dir), &single, &format!("trial {trial}"));
    }
}

/// While another process holds the project, a writing command (and a dry run, which
/// must read a consistent tree) waits a bounded time, says so, then fails with one line
/// and changes nothing.
#[test]
fn a_held_project_makes_commands_wait_then_fail_cleanly() {
    let sandbox = tempfile::tempdir().unwrap();
    let dir = sandbox.path().join("p");
    project_v1(&dir);
    let before = entries(&dir);
    let holder = fs::File::open(&dir).unwrap();
    holder.lock().unwrap();
    for args in [QUOTA.to_vec(), [QUOTA, &["--dry-run"]].concat()] {
        let started = Instant::now();
        let out = rsbuilder_command(&dir, &args)
            .env("RSBUILDER_LOCK_TIMEOUT", "1")
            .output()
            .unwrap();
        assert!(
            started.elapsed() >= Duration::from_secs(1),
            "{args:?} did not wait"
        );
        let err = fails(&out, 1);
        assert!(err.contains("waiting for"), "{err}");
        let last = err.trim().lines().last().unwrap_or_default().to_string();
        assert!(
            last.starts_with("error: ") && last.contains("another rsbuilder command"),
            "{err}"
        );
        assert_same_entries(&entries(&dir), &before, &format!("{args:?} while held"));
    }
    holder.unlock().unwrap();
    ok(&rsbuilder(&dir, QUOTA));
}

// ---------------------------------------------------------------- kills

/// What a killed run left, once recovered: the old tree or the new one, never a mix.
#[derive(Debug, PartialEq)]
enum Outcome {
    Old,
    New,
}

/// Recovers a copy of `dir` through the library (as the next command would) and says
/// which tree it is; then reruns the command in `dir` itself, which recovers through the
/// binary, and checks it ends with the new tree.
fn check_killed_run(
    dir: &Path,
    scratch: &Path,
    old: &BTreeMap<PathBuf, Entry>,
    new: &BTreeMap<PathBuf, Entry>,
    what: &str,
) -> Outcome {
    let _ = fs::remove_dir_all(scratch);
    copy_tree(dir, scratch);
    rsbuilder::scaffold::DiskTree::new(scratch)
        .recover()
        .unwrap_or_else(|e| panic!("{what}: recovery failed: {e:#}"));
    let recovered = entries(scratch);
    let outcome = if recovered == *old {
        Outcome::Old
    } else if recovered == *new {
        Outcome::New
    } else {
        panic!(
            "{what}: a mixed tree: differs from the old in {:?} and from the new in {:?}",
            differing(&recovered, old),
            differing(&recovered, new)
        );
    };
    let had_leftovers = !leftovers(dir).is_empty();
    let rerun = rsbuilder(dir, QUOTA);
    match outcome {
        Outcome::Old => {
            ok(&rerun);
        }
        Outcome::New => {
            let err = fails(&rerun, 1);
            assert!(err.contains("already"), "{what}: {err}");
        }
    }
    if had_leftovers {
        assert!(
            stderr(&rerun).contains("interrupted"),
            "{what}: {}",
            stderr(&rerun)
        );
    }
    assert_same_entries(&entries(dir), new, &format!("{what}: after the rerun"));
    outcome
}

/// `create api` aborted (no destructors run, as under SIGKILL) before every 13th
/// filesystem operation of its write: the next run undoes the leftovers and succeeds.
/// The in-process test in `write_engine.rs` stops at every single operation.
#[test]
fn a_run_aborted_at_any_operation_is_undone_by_the_next() {
    let sandbox = tempfile::tempdir().unwrap();
    let seed = sandbox.path().join("seed");
    project_v1(&seed);
    let scratch = sandbox.path().join("scratch");
    let old = entries(&seed);
    let new = after(&seed, &scratch, &[QUOTA]);
    let (mut aborted, mut n) = (0, 0);
    loop {
        let dir = sandbox.path().join("dir");
        let _ = fs::remove_dir_all(&dir);
        copy_tree(&seed, &dir);
        let out = rsbuilder_command(&dir, QUOTA)
            .env("RSBUILDER_TEST_KILL_AT", n.to_string())
            .output()
            .unwrap();
        if out.status.success() {
            assert_same_entries(&entries(&dir), &new, "past the last operation");
            break;
        }
        assert_eq!(
            out.status.signal(),
            Some(6),
            "operation {n}: {}",
            stderr(&out)
        );
        aborted += 1;
        check_killed_run(&dir, &scratch, &old, &new, &format!("aborted at {n}"));
        n += 13;
        assert!(n < 2000, "the write never finished");
    }
    assert!(aborted >= 6, "only {aborted} aborts");
    eprintln!("{aborted} aborted runs, every one undone");
}

/// Real SIGKILLs at spread-out moments of `create api`.
#[test]
fn a_run_killed_at_random_moments_leaves_the_old_or_the_new_tree() {
    let sandbox = tempfile::tempdir().unwrap();
    let seed = sandbox.path().join("seed");
    project_v1(&seed);
    let scratch = sandbox.path().join("scratch");
    let old = entries(&seed);
    let new = after(&seed, &scratch, &[QUOTA]);
    let _ = fs::remove_dir_all(&scratch);
    copy_tree(&seed, &scratch);
    let started = Instant::now();
    ok(&rsbuilder(&scratch, QUOTA));
    let duration = started.elapsed();
    // A fixed xorshift sequence: the same moments on every run, spread over 0.4x..1.2x of
    // a whole run (the write comes last, after the planning).
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let (mut killed, mut finished) = (0, 0);
    let mut outcomes = BTreeMap::new();
    for trial in 0..10 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let delay = duration.mul_f64((400 + state % 800) as f64 / 1000.0);
        let dir = sandbox.path().join("dir");
        let _ = fs::remove_dir_all(&dir);
        copy_tree(&seed, &dir);
        let mut child = rsbuilder_command(&dir, QUOTA)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill();
        let status = child.wait().unwrap();
        if status.success() {
            finished += 1;
            assert_same_entries(&entries(&dir), &new, &format!("trial {trial} finished"));
            continue;
        }
        killed += 1;
        let outcome = check_killed_run(&dir, &scratch, &old, &new, &format!("trial {trial}"));
        *outcomes.entry(format!("{outcome:?}")).or_insert(0) += 1;
    }
    eprintln!("10 trials: {finished} finished before the kill, {killed} killed: {outcomes:?}");
}

// ---------------------------------------------------------------- a full disk

/// A tmpfs mounted for one test, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path, options: &str) -> Result<Tmpfs, String> {
        fs::create_dir_all(at).unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(at)
            .output()
            .map_err(|e| e.to_string())?;
        if out.status.success() {
            Ok(Tmpfs(at.to_path_buf()))
        } else {
            Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
        }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// `init` on filesystems too small for it, out of space at every stage of the write (in
/// bytes or in inodes): it succeeds completely or fails leaving the directory empty.
/// Skips, saying so on stderr, where a tmpfs cannot be mounted (not root).
#[test]
fn init_on_a_full_filesystem_leaves_nothing_behind() {
    let sandbox = tempfile::tempdir().unwrap();
    let init: &[&str] = &["init", "--domain", "example.com", "--project-name", "full"];
    let complete = {
        let dir = sandbox.path().join("complete");
        fs::create_dir(&dir).unwrap();
        ok(&rsbuilder(&dir, init));
        entries(&dir)
    };
    // Sizes and inode counts from a few to more than the project needs, measured on the
    // complete tree (a tmpfs gives each file whole 4 KiB pages), so the range follows the
    // templates as they grow.
    let need_kib: usize = complete
        .values()
        .map(|e| match e {
            Entry::File(bytes, _) => bytes.len().div_ceil(4096) * 4,
            _ => 4,
        })
        .sum();
    let need_inodes = complete.len();
    let mut options: Vec<String> = (1..=10)
        .map(|i| format!("size={}k", 4 + need_kib * i / 8))
        .collect();
    options.extend((0..6).map(|i| {
        format!(
            "size={}k,nr_inodes={}",
            4 * need_kib,
            3 + i * (need_inodes + 10) / 5
        )
    }));
    let (mut failed, mut written) = (0, 0);
    for (i, option) in options.iter().enumerate() {
        let mount = match Tmpfs::mount(&sandbox.path().join(format!("mnt{i}")), option) {
            Ok(m) => m,
            Err(why) => {
                eprintln!(
                    "SKIPPED init_on_a_full_filesystem_leaves_nothing_behind: cannot mount a tmpfs ({why})"
                );
                return;
            }
        };
        let dir = mount.0.join("p");
        if fs::create_dir(&dir).is_err() {
            continue;
        }
        let out = rsbuilder(&dir, init);
        if out.status.success() {
            written += 1;
            assert_same_entries(&entries(&dir), &complete, option);
        } else {
            failed += 1;
            let err = stderr(&out);
            assert!(
                entries(&dir).is_empty(),
                "{option}: left {:?}\n{err}",
                entries(&dir).keys()
            );
            assert!(!err.contains("panicked"), "{option}: {err}");
        }
    }
    assert!(
        failed >= 8 && written >= 1,
        "{failed} failed, {written} written"
    );
    eprintln!(
        "{} tmpfs sizes: {failed} ran out of space and left nothing, {written} wrote the project",
        options.len()
    );
}

/// `create api` in a project whose filesystem has only a little room left.
#[test]
fn create_api_on_a_nearly_full_filesystem_changes_nothing_or_everything() {
    let sandbox = tempfile::tempdir().unwrap();
    let seed = sandbox.path().join("seed");
    project_v1(&seed);
    let scratch = sandbox.path().join("scratch");
    let new = after(&seed, &scratch, &[QUOTA]);
    let old = entries(&seed);
    let (mut failed, mut written) = (0, 0);
    for (i, spare_pages) in [0, 2, 5, 9, 14, 20, 40, 200].into_iter().enumerate() {
        // The project takes about 130 pages (one per file) on a tmpfs.
        let mount = match Tmpfs::mount(&sandbox.path().join(format!("mnt{i}")), "size=2m") {
            Ok(m) => m,
            Err(why) => {
                eprintln!(
                    "SKIPPED create_api_on_a_nearly_full_filesystem_changes_nothing_or_everything: cannot mount a tmpfs ({why})"
                );
                return;
            }
        };
        let dir = mount.0.join("p");
        copy_tree(&seed, &dir);
        fill_leaving(&mount.0, spare_pages);
        let out = rsbuilder(&dir, QUOTA);
        if out.status.success() {
            written += 1;
            assert_same_entries(&entries(&dir), &new, &format!("{spare_pages} pages spare"));
        } else {
            failed += 1;
            assert_same_entries(
                &entries(&dir),
                &old,
                &format!("{spare_pages} pages spare: {}", stderr(&out)),
            );
        }
    }
    assert!(
        failed >= 2 && written >= 1,
        "{failed} failed, {written} written"
    );
}

/// Fills the filesystem at `mount` until only `pages` pages of 4 KiB are free.
fn fill_leaving(mount: &Path, pages: u64) {
    use std::io::Write;
    let mut filler = fs::File::create(mount.join("filler")).unwrap();
    let page = vec![0u8; 4096];
    while filler.write_all(&page).is_ok() {}
    drop(filler);
    let size = fs::metadata(mount.join("filler")).unwrap().len();
    let keep = size.saturating_sub(pages * 4096);
    fs::OpenOptions::new()
        .write(true)
        .open(mount.join("filler"))
        .unwrap()
        .set_len(keep)
        .unwrap();
}

// ---------------------------------------------------------------- issue 21, items 8 and 9

/// A staging directory planted by someone else (or checked out of a repository) is not
/// trusted: its journal undoes nothing, whatever it names.
#[test]
fn a_planted_journal_undoes_nothing() {
    for (journal, old) in [
        (
            r#"{"files":[{"path":"src/main.rs","replaces":false}],"dirs":[]}"#,
            None,
        ),
        (
            r#"{"files":[{"path":"src/main.rs","replaces":true}],"dirs":[]}"#,
            Some("fn main() { evil() }\n"),
        ),
        (r#"{"files":[],"dirs":["src"]}"#, None),
    ] {
        let sandbox = tempfile::tempdir().unwrap();
        let dir = sandbox.path().join("p");
        project_v1(&dir);
        let planted = dir.join(".rsbuilder-txn.evil");
        fs::create_dir(&planted).unwrap();
        fs::write(planted.join("journal"), journal).unwrap();
        if let Some(old) = old {
            fs::write(planted.join("0.old"), old).unwrap();
        }
        let main = read(&dir, "src/main.rs");
        let out = rsbuilder(&dir, &["generate", "manifests"]);
        let err = stderr(&out);
        assert!(!err.contains("undone"), "{journal}: {err}");
        assert_eq!(read(&dir, "src/main.rs"), main, "{journal}: {err}");
        assert!(dir.join("src").is_dir());
        // Left for the user to look at, and said so.
        assert!(planted.join("journal").exists(), "{journal}");
        assert!(err.contains(".rsbuilder-txn.evil"), "{journal}: {err}");
    }
}

/// A directory the write must create lies in a read-only bind mount (same filesystem, so
/// the wall lets it through and `mkdir` fails with EROFS): the write fails, and the tree
/// (staging directory included) is byte for byte as it was. Skips, saying so, where a bind
/// mount is impossible (not root).
#[test]
fn a_read_only_directory_leaves_the_tree_as_it_was() {
    let sandbox = tempfile::tempdir().unwrap();
    let dir = sandbox.path().join("p");
    project_v1(&dir);
    let api = dir.join("src/api");
    let mount = |args: &[&str]| {
        Command::new("mount")
            .args(args)
            .arg(&api)
            .arg(&api)
            .output()
            .map_err(|e| e.to_string())
            .and_then(|out| {
                out.status
                    .success()
                    .then_some(())
                    .ok_or_else(|| String::from_utf8_lossy(&out.stderr).into_owned())
            })
    };
    if let Err(why) = mount(&["--bind"]) {
        eprintln!("SKIPPED a_read_only_directory_leaves_the_tree_as_it_was: {why}");
        return;
    }
    let _unmount = Tmpfs(api.clone());
    mount(&["-o", "remount,ro,bind"]).unwrap();
    let before = entries(&dir);
    let err = fails(&rsbuilder(&dir, SHIP), 1);
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("Read-only"), "{err}");
    assert!(leftovers(&dir).is_empty(), "{:?}\n{err}", leftovers(&dir));
    assert_same_entries(&entries(&dir), &before, "after the failed write");
}
