//! The only place that touches the project on disk. Commands read through [`Tree`] and
//! write a whole resolved plan with [`Tree::apply`], which leaves the tree as it was
//! when any file fails.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::Change;

pub trait Tree {
    /// The file's text, or `None` when it does not exist.
    fn read(&self, path: &Path) -> Result<Option<String>>;
    /// Writes every change or, on any failure, none of them.
    fn apply(&mut self, changes: &[Change]) -> Result<()>;
}

/// A project directory on disk.
pub struct DiskTree {
    root: PathBuf,
    /// Test hook: fail as if the disk filled up after this many files were staged.
    fail_after: Option<usize>,
}

impl DiskTree {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            fail_after: None,
        }
    }

    /// Makes [`Tree::apply`] fail after staging `n` files, to prove the rollback.
    #[doc(hidden)]
    pub fn failing_after(mut self, n: usize) -> Self {
        self.fail_after = Some(n);
        self
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl Tree for DiskTree {
    fn read(&self, path: &Path) -> Result<Option<String>> {
        let full = self.root.join(path);
        match fs::read_to_string(&full) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", full.display())),
        }
    }

    fn apply(&mut self, changes: &[Change]) -> Result<()> {
        let mut txn = Transaction::default();
        let staged = self.stage(changes, &mut txn);
        let result = staged.and_then(|()| txn.commit(&self.root, changes));
        if result.is_err() {
            txn.roll_back(&self.root, changes);
        }
        result
    }
}

impl DiskTree {
    fn stage(&self, changes: &[Change], txn: &mut Transaction) -> Result<()> {
        for (i, change) in changes.iter().enumerate() {
            if self.fail_after == Some(i) {
                anyhow::bail!("simulated failure after writing {i} files");
            }
            let target = self.root.join(&change.path);
            let parent = target.parent().expect("a file path has a parent");
            txn.create_dirs(parent)?;
            let temp = temp_path(&target);
            fs::write(&temp, &change.new)
                .with_context(|| format!("cannot write {}", target.display()))?;
            txn.temps.push(temp);
        }
        Ok(())
    }
}

/// What has been done so far, so it can be undone.
#[derive(Default)]
struct Transaction {
    created_dirs: Vec<PathBuf>,
    temps: Vec<PathBuf>,
    renamed: usize,
}

impl Transaction {
    fn create_dirs(&mut self, dir: &Path) -> Result<()> {
        let missing: Vec<&Path> = dir.ancestors().take_while(|d| !d.exists()).collect();
        for d in missing.into_iter().rev() {
            fs::create_dir(d)
                .with_context(|| format!("cannot create directory {}", d.display()))?;
            self.created_dirs.push(d.to_path_buf());
        }
        Ok(())
    }

    fn commit(&mut self, root: &Path, changes: &[Change]) -> Result<()> {
        for (temp, change) in self.temps.iter().zip(changes) {
            let target = root.join(&change.path);
            fs::rename(temp, &target)
                .with_context(|| format!("cannot write {}", target.display()))?;
            self.renamed += 1;
        }
        Ok(())
    }

    /// Best effort: restores renamed files, removes temp files and new directories.
    fn roll_back(&self, root: &Path, changes: &[Change]) {
        for change in &changes[..self.renamed] {
            let target = root.join(&change.path);
            let _ = match &change.old {
                Some(old) => fs::write(&target, old),
                None => fs::remove_file(&target),
            };
        }
        for temp in &self.temps[self.renamed..] {
            let _ = fs::remove_file(temp);
        }
        for dir in self.created_dirs.iter().rev() {
            let _ = fs::remove_dir(dir);
        }
    }
}

fn temp_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .expect("a file path has a name")
        .to_string_lossy();
    target.with_file_name(format!(".{name}.rsbuilder-tmp"))
}

/// An in-memory tree for tests of planning and resolution.
#[derive(Debug, Default, Clone)]
pub struct MemTree {
    pub files: BTreeMap<PathBuf, String>,
}

impl MemTree {
    pub fn new(files: impl IntoIterator<Item = (PathBuf, String)>) -> Self {
        Self {
            files: files.into_iter().collect(),
        }
    }
}

impl Tree for MemTree {
    fn read(&self, path: &Path) -> Result<Option<String>> {
        Ok(self.files.get(path).cloned())
    }

    fn apply(&mut self, changes: &[Change]) -> Result<()> {
        for c in changes {
            self.files.insert(c.path.clone(), c.new.clone());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut out = BTreeMap::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let rel = path.strip_prefix(root).unwrap().to_path_buf();
                if path.is_dir() {
                    out.insert(rel, b"<dir>".to_vec());
                    stack.push(path);
                } else {
                    out.insert(rel, fs::read(&path).unwrap());
                }
            }
        }
        out
    }

    fn changes() -> Vec<Change> {
        vec![
            Change {
                path: "a.txt".into(),
                old: Some("old a".into()),
                new: "new a".into(),
            },
            Change {
                path: "deep/er/b.txt".into(),
                old: None,
                new: "b".into(),
            },
            Change {
                path: "c.txt".into(),
                old: None,
                new: "c".into(),
            },
        ]
    }

    #[test]
    fn applies_every_change() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.txt"), "old a").unwrap();
        DiskTree::new(dir.path()).apply(&changes()).unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("a.txt")).unwrap(),
            "new a"
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("deep/er/b.txt")).unwrap(),
            "b"
        );
        let names: Vec<_> = snapshot(dir.path()).into_keys().collect();
        assert!(
            !names
                .iter()
                .any(|p| p.to_string_lossy().contains("rsbuilder-tmp")),
            "{names:?}"
        );
    }

    #[test]
    fn an_interrupted_write_leaves_the_tree_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.txt"), "old a").unwrap();
        let before = snapshot(dir.path());
        for n in 0..3 {
            let err = DiskTree::new(dir.path())
                .failing_after(n)
                .apply(&changes())
                .unwrap_err();
            assert!(err.to_string().contains("simulated failure"), "{err}");
            assert_eq!(snapshot(dir.path()), before, "after failing at file {n}");
        }
    }
}
