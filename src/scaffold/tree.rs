//! The only place that touches the project on disk. Commands read through [`Tree`] and
//! write a whole resolved plan, its [`Change`]s, with [`Tree::apply`], which leaves the
//! tree as it was when any file fails, and as it was or complete when the process is
//! killed (`txn.rs`); never writes outside its directory or through a link
//! (`confine.rs`); and holds the directory against other rsbuilder processes while it
//! writes (`lock.rs`).

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::confine::{Wall, relative};
use super::fsops::{Faults, Ops};
use super::txn::{self, NewFile};
use crate::lock::{self, Access};

/// A resolved change: the file's current contents (if any) and what it becomes (`None`:
/// it is removed).
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub path: PathBuf,
    pub old: Option<String>,
    pub new: Option<String>,
}

pub trait Tree {
    /// The file's text, or `None` when it does not exist.
    fn read(&self, path: &Path) -> Result<Option<String>>;
    /// Writes every change or, on any failure, none of them.
    fn apply(&mut self, changes: &[Change]) -> Result<()>;
}

/// A project directory on disk.
pub struct DiskTree {
    root: PathBuf,
    /// The directory the user named for the output (relative to `root`, or absolute),
    /// when writes go there instead of into the project.
    output_dir: Option<PathBuf>,
    faults: Faults,
}

impl DiskTree {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            output_dir: None,
            faults: Faults::from_env(),
        }
    }

    /// Writes go into `dir`, a directory the user named (it may lie outside the project
    /// and need not exist yet), and every path of the plan must lie below it.
    pub fn writing_under(mut self, dir: impl Into<PathBuf>) -> Self {
        self.output_dir = Some(dir.into());
        self
    }

    /// Injects faults into [`Tree::apply`] and [`DiskTree::recover`], to prove the undo.
    #[doc(hidden)]
    pub fn with_faults(mut self, faults: Faults) -> Self {
        self.faults = faults;
        self
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory writes may not leave.
    fn base(&self) -> PathBuf {
        match &self.output_dir {
            Some(dir) => self.root.join(dir),
            None => self.root.clone(),
        }
    }

    /// Undoes whatever interrupted runs left (see `txn.rs`) and returns one message for
    /// each. Call it holding the directory ([`crate::lock`]), before reading anything.
    pub fn recover(&self) -> Result<Vec<String>> {
        let base = self.base();
        if !base.is_dir() {
            return Ok(Vec::new());
        }
        txn::recover(&Wall::new(&base)?, &mut Ops::new(self.faults.clone()))
    }

    /// Refuses to read a tree that an interrupted run left half written: what a command
    /// that must not write (`--dry-run`, `--check`) does instead of [`DiskTree::recover`].
    pub fn refuse_half_written(&self) -> Result<()> {
        if let Some(staging) = txn::half_written(&self.base())? {
            bail!(
                "an interrupted rsbuilder run left {} half written ({} holds the undo); run a command without --dry-run or --check to undo it",
                self.base().display(),
                staging.display()
            );
        }
        Ok(())
    }

    /// `path` (relative to the root, as the plan has it) relative to the base.
    fn below_base(&self, path: &Path) -> Result<PathBuf> {
        let inside = match &self.output_dir {
            Some(dir) => path.strip_prefix(dir).map_err(|_| {
                anyhow::anyhow!(
                    "refusing to write {}: the path leads outside {}",
                    path.display(),
                    dir.display()
                )
            })?,
            None => path,
        };
        let shown_base = self.output_dir.as_deref().unwrap_or(&self.root);
        relative(inside, path, shown_base)
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
        if changes.is_empty() {
            return Ok(());
        }
        let files = changes
            .iter()
            .map(|c| {
                Ok(NewFile {
                    rel: self.below_base(&c.path)?,
                    old: c.old.as_deref(),
                    new: c.new.as_deref(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let base = self.base();
        let mut ops = Ops::new(self.faults.clone());
        let created = create_output_dir(&base, &mut ops)?;
        let written = (|| {
            let _held = lock::acquire(&base, Access::Write, false)?;
            let wall = Wall::new(&base)?;
            for message in txn::recover(&wall, &mut ops)? {
                crate::errln!("{message}");
            }
            txn::write(&wall, &files, &mut ops)
        })();
        if written.is_err() && !ops.halted() {
            for dir in created.iter().rev() {
                let _ = fs::remove_dir(dir);
            }
        }
        written
    }
}

/// Creates the output directory the user named, if missing; returns what it created.
fn create_output_dir(base: &Path, ops: &mut Ops) -> Result<Vec<PathBuf>> {
    let missing: Vec<&Path> = base
        .ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
        .collect();
    let mut created = Vec::new();
    for dir in missing.into_iter().rev() {
        if let Err(e) = ops.create_dir(dir) {
            if !ops.halted() {
                for dir in created.iter().rev() {
                    let _ = fs::remove_dir(dir);
                }
            }
            bail!("cannot create directory {}: {e}", dir.display());
        }
        created.push(dir.to_path_buf());
    }
    Ok(created)
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
            match &c.new {
                Some(new) => self.files.insert(c.path.clone(), new.clone()),
                None => self.files.remove(&c.path),
            };
        }
        Ok(())
    }
}
