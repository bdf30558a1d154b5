//! The write engine (`DiskTree::apply`) under injected faults: every filesystem operation
//! of a real write made to fail, or the write stopped dead there as a kill would stop
//! it, and paths built to escape the project. The binary-level tests of the same
//! guarantees are in `write_guarantees.rs`.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use common::*;
use proptest::prelude::*;
use rsbuilder::scaffold::{Change, DiskTree, Faults, Tree};

#[track_caller]
fn assert_tree(root: &Path, expected: &BTreeMap<PathBuf, Entry>, what: &str) {
    assert_same_entries(&entries(root), expected, what);
}

fn failing(n: usize) -> Faults {
    Faults {
        fail: [n].into(),
        ..Faults::default()
    }
}

fn halting(n: usize) -> Faults {
    Faults {
        halt: Some(n),
        ..Faults::default()
    }
}

/// A real write: what `create api` of a new group changes in project-v1 (about 20 files,
/// new directories, rewritten registrations), with one rewritten file made private.
struct RealWrite {
    _sandbox: tempfile::TempDir,
    dir: PathBuf,
    seed: PathBuf,
    changes: Vec<Change>,
    old: BTreeMap<PathBuf, Entry>,
    new: BTreeMap<PathBuf, Entry>,
}

impl RealWrite {
    fn new() -> RealWrite {
        let sandbox = tempfile::tempdir().unwrap();
        let seed = sandbox.path().join("seed");
        runtime_copy::copy_golden("project-v1", &seed);
        fs::set_permissions(seed.join("PROJECT"), fs::Permissions::from_mode(0o600)).unwrap();
        let after = sandbox.path().join("after");
        copy_tree(&seed, &after);
        fs::set_permissions(after.join("PROJECT"), fs::Permissions::from_mode(0o600)).unwrap();
        ok(&rsbuilder(
            &after,
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
        ));
        let (old, new) = (entries(&seed), entries(&after));
        let changes: Vec<Change> = new
            .iter()
            .filter_map(|(path, entry)| {
                let Entry::File(bytes, _) = entry else {
                    return None;
                };
                let before = match old.get(path) {
                    Some(Entry::File(b, _)) if b == bytes => return None,
                    Some(Entry::File(b, _)) => Some(String::from_utf8(b.clone()).unwrap()),
                    _ => None,
                };
                Some(Change {
                    path: path.clone(),
                    old: before,
                    new: Some(String::from_utf8(bytes.clone()).unwrap()),
                })
            })
            .collect();
        assert!(changes.len() > 10 && changes.iter().any(|c| c.old.is_some()));
        let dir = sandbox.path().join("dir");
        copy_tree(&seed, &dir);
        fs::set_permissions(dir.join("PROJECT"), fs::Permissions::from_mode(0o600)).unwrap();
        assert_tree(&dir, &old, "the copy");
        RealWrite {
            _sandbox: sandbox,
            dir,
            seed,
            changes,
            old,
            new,
        }
    }

    fn reset(&self) {
        fs::remove_dir_all(&self.dir).unwrap();
        copy_tree(&self.seed, &self.dir);
        fs::set_permissions(self.dir.join("PROJECT"), fs::Permissions::from_mode(0o600)).unwrap();
    }

    fn apply(&self, faults: Faults) -> anyhow::Result<()> {
        DiskTree::new(&self.dir)
            .with_faults(faults)
            .apply(&self.changes)
    }

    /// How many filesystem operations the whole write makes: the first halt that leaves
    /// the new tree and nothing else lies past the end.
    fn operations(&self) -> usize {
        for n in 0.. {
            let done = self.apply(halting(n)).is_ok() && entries(&self.dir) == self.new;
            DiskTree::new(&self.dir).recover().unwrap();
            let now = entries(&self.dir);
            assert!(
                now == self.old || now == self.new,
                "halted at {n}: a mixed tree"
            );
            if now == self.new {
                self.reset();
            }
            if done {
                return n;
            }
        }
        unreachable!()
    }
}

/// Every operation of a real write, made to fail in turn (a full disk, an I/O error):
/// the tree is left byte for byte and mode for mode as it was, with no temp file, and
/// the error is one line. A failed hard link is no failure (the old file is copied), nor
/// is a failed clean-up once the files are written.
#[test]
fn a_failure_at_any_operation_leaves_the_tree_as_it_was() {
    let write = RealWrite::new();
    let total = write.operations();
    let mut kinds = BTreeSet::new();
    let mut absorbed = 0;
    for n in 0..total {
        match write.apply(failing(n)) {
            Ok(()) => {
                // A failed link is absorbed by a copy; a failed clean-up (after the write
                // is done) by the next run's recovery.
                absorbed += 1;
                DiskTree::new(&write.dir).recover().unwrap();
                assert_tree(&write.dir, &write.new, &format!("operation {n} absorbed"));
                write.reset();
            }
            Err(e) => {
                let message = e.to_string();
                assert!(message.contains("simulated failure"), "{message}");
                assert!(!message.contains('\n'), "one line: {message}");
                let kind = message.rsplit_once('(').unwrap().1;
                kinds.insert(kind.split(')').next().unwrap().to_string());
                assert_tree(&write.dir, &write.old, &format!("failing operation {n}"));
            }
        }
    }
    for kind in [
        "create staging directory",
        "create file",
        "write",
        "set mode",
        "sync file",
        "rename",
        "create directory",
        "sync directory",
    ] {
        assert!(
            kinds.contains(kind),
            "no failure injected at a {kind:?}: {kinds:?}"
        );
    }
    assert!(absorbed >= 2, "no failed link or clean-up: {kinds:?}");
    eprintln!(
        "{} changes, {total} operations: {} failures undone, {absorbed} absorbed",
        write.changes.len(),
        total - absorbed
    );
}

/// A real write stopped dead before each of its operations, as a kill would stop it:
/// the next command's recovery restores the old tree exactly, says so, and the write
/// then succeeds.
#[test]
fn a_write_stopped_at_any_operation_is_undone_by_the_next_run() {
    let write = RealWrite::new();
    let total = write.operations();
    let mut said = 0;
    for n in 0..total {
        // Stopped after the write is done (while cleaning up), it is done.
        let done = write.apply(halting(n)).is_ok();
        let half = DiskTree::new(&write.dir).refuse_half_written();
        if let Err(e) = &half {
            assert!(e.to_string().contains("half written"), "{e}");
        }
        let messages = DiskTree::new(&write.dir).recover().unwrap();
        if n > 0 {
            assert_eq!(messages.len(), 1, "at {n}: {messages:?}");
            assert!(messages[0].contains("interrupted"), "{messages:?}");
            said += 1;
        }
        if done {
            assert_tree(&write.dir, &write.new, &format!("halted at {n}, recovered"));
            write.reset();
        } else {
            assert_tree(&write.dir, &write.old, &format!("halted at {n}, recovered"));
        }
    }
    write.apply(Faults::default()).unwrap();
    assert_tree(&write.dir, &write.new, "written after all the halts");
    eprintln!("{total} stops, {said} recoveries reported");
}

/// Three changes (a rewrite, a new file in new directories, a new file): fail one
/// operation, then each later one too, so that the undo itself fails or is stopped at
/// every step. The error says what is left; the next run's recovery (itself stopped once
/// more, then run again) brings back the old tree.
#[test]
fn a_failing_undo_is_reported_and_finished_by_the_next_run() {
    let sandbox = tempfile::tempdir().unwrap();
    let root = sandbox.path();
    fs::write(root.join("a.txt"), "old a").unwrap();
    fs::set_permissions(root.join("a.txt"), fs::Permissions::from_mode(0o640)).unwrap();
    let before = entries(root);
    let changes = vec![
        Change {
            path: "a.txt".into(),
            old: Some("old a".into()),
            new: Some("new a".into()),
        },
        Change {
            path: "deep/er/b.txt".into(),
            old: None,
            new: Some("b".into()),
        },
        Change {
            path: "c.txt".into(),
            old: None,
            new: Some("c".into()),
        },
    ];
    let reset = || {
        DiskTree::new(root).recover().unwrap();
        if root.join("c.txt").exists() {
            fs::remove_dir_all(root.join("deep")).unwrap();
            fs::remove_file(root.join("c.txt")).unwrap();
            fs::write(root.join("a.txt"), "old a").unwrap();
        }
        assert_tree(root, &before, "reset");
    };
    let total = (0..)
        .find(|&n| {
            let result = DiskTree::new(root).with_faults(halting(n)).apply(&changes);
            let clean = result.is_ok()
                && !entries(root)
                    .keys()
                    .any(|p| p.starts_with(".rsbuilder-txn"));
            reset();
            clean
        })
        .unwrap();

    let (mut reported, mut trials) = (0, 0);
    for first in 0..total {
        for second in first + 1..total + 12 {
            for stop_recovery_at in [None, Some(0), Some(2)] {
                trials += 1;
                let faults = Faults {
                    fail: [first, second].into(),
                    ..Faults::default()
                };
                match DiskTree::new(root).with_faults(faults).apply(&changes) {
                    Ok(()) => {
                        // A failed link is absorbed by a copy, a failed clean-up by the
                        // next run: the write itself is whole.
                        assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "new a");
                        reset();
                        continue;
                    }
                    Err(e) if e.to_string().contains("undoing the write failed too") => {
                        reported += 1;
                        assert!(e.to_string().contains("remain:"), "{e}");
                    }
                    Err(_) => {
                        assert_tree(root, &before, &format!("failing {first} and {second}"));
                        continue;
                    }
                }
                if let Some(stop) = stop_recovery_at {
                    let _ = DiskTree::new(root).with_faults(halting(stop)).recover();
                }
                let messages = DiskTree::new(root).recover().unwrap();
                assert!(
                    messages.iter().all(|m| m.contains("interrupted")),
                    "{messages:?}"
                );
                assert_tree(
                    root,
                    &before,
                    &format!("failing {first} and {second}, recovered"),
                );
            }
        }
    }
    assert!(reported > 10, "only {reported} failed undos");
    eprintln!("{trials} double faults: {reported} failed undos reported and finished later");
}

// ---------------------------------------------------------------- the wall

/// A sandbox: `root` is the project; beside it `outside/` (a directory) and `victim` (a
/// file) must never change. In the project, links lead out and in.
fn walled() -> (tempfile::TempDir, PathBuf) {
    let sandbox = tempfile::tempdir().unwrap();
    let root = sandbox.path().join("root");
    fs::create_dir_all(root.join("real/sub")).unwrap();
    fs::create_dir(sandbox.path().join("outside")).unwrap();
    fs::write(sandbox.path().join("victim"), "precious").unwrap();
    fs::write(root.join("real/existing.txt"), "mine").unwrap();
    symlink(sandbox.path().join("outside"), root.join("out_link")).unwrap();
    symlink("real", root.join("in_link")).unwrap();
    symlink(sandbox.path().join("victim"), root.join("file_link")).unwrap();
    symlink("real/existing.txt", root.join("inner_file_link")).unwrap();
    (sandbox, root)
}

fn outside_root(sandbox: &Path) -> BTreeMap<PathBuf, Entry> {
    entries(sandbox)
        .into_iter()
        .filter(|(p, _)| !p.starts_with("root"))
        .collect()
}

fn path_piece() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "a",
        "b",
        "..",
        ".",
        "real",
        "sub",
        "out_link",
        "in_link",
        "file_link",
        "inner_file_link",
        "existing.txt",
        "x.yaml",
    ])
    .prop_map(String::from)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Paths of names, `..`, `.`, absolute prefixes and links in and out of the project:
    /// a write either lands inside the project (links followed only where they stay
    /// inside, the file itself never a link) or is refused with nothing changed.
    #[test]
    fn no_path_writes_outside_the_project(
        pieces in prop::collection::vec(path_piece(), 1..6),
        absolute in prop::sample::select(vec![None, Some("root"), Some("outside"), Some("/")]),
    ) {
        let (sandbox, root) = walled();
        let mut path = match absolute {
            None => PathBuf::new(),
            Some("/") => PathBuf::from("/"),
            Some(dir) => sandbox.path().join(dir),
        };
        path.extend(&pieces);
        let before_outside = outside_root(sandbox.path());
        let before = entries(&root);
        let mut disk = DiskTree::new(&root);
        let old = disk.read(&path).ok().flatten();
        let change = Change { path: path.clone(), old, new: Some("written".into()) };
        match disk.apply(std::slice::from_ref(&change)) {
            Ok(()) => {
                let written: PathBuf = path.components().filter(|c| *c != std::path::Component::CurDir).collect();
                let real = root.join(&written).canonicalize().unwrap();
                prop_assert!(real.starts_with(root.canonicalize().unwrap()), "{path:?} -> {real:?}");
                prop_assert!(!fs::symlink_metadata(root.join(&written)).unwrap().file_type().is_symlink());
                prop_assert_eq!(fs::read_to_string(&real).unwrap(), "written");
            }
            Err(e) => {
                prop_assert!(!e.to_string().contains('\n'), "{}", e);
                prop_assert_eq!(entries(&root), before, "refused {:?} but changed the project", path);
            }
        }
        prop_assert_eq!(outside_root(sandbox.path()), before_outside, "{:?} changed the outside", path);
    }
}

/// With an output directory the user named (outside the project here), writes go below
/// it and nowhere else, not even elsewhere in the project.
#[test]
fn an_output_directory_confines_the_names_below_it() {
    let (sandbox, root) = walled();
    let out = sandbox.path().join("outside/crds");
    let change = |path: PathBuf| Change {
        path,
        old: None,
        new: Some("crd".into()),
    };
    let before = entries(sandbox.path());
    for escaping in [
        out.join("../evil.yaml"),
        PathBuf::from("/evil.yaml"),
        root.join("x.yaml"),
        PathBuf::from("x.yaml"),
    ] {
        let err = DiskTree::new(&root)
            .writing_under(&out)
            .apply(&[change(escaping.clone())])
            .unwrap_err();
        assert!(
            err.to_string().contains("refusing to write"),
            "{escaping:?}: {err}"
        );
        assert_tree(sandbox.path(), &before, &format!("{escaping:?}"));
    }
    DiskTree::new(&root)
        .writing_under(&out)
        .apply(&[change(out.join("g_widgets.yaml"))])
        .unwrap();
    assert_eq!(
        fs::read_to_string(out.join("g_widgets.yaml")).unwrap(),
        "crd"
    );
}
