//! One write of a resolved plan: all files or none, even when the disk fills up, an
//! operation fails, or the process is killed at any point.
//!
//! 1. **Stage.** A new directory `.rsbuilder-txn.<random>` in the base (created
//!    exclusively, mode 0700) receives each file's new contents as `<i>`, with the mode
//!    of the file it replaces, and a hard link (or a copy) of that file as `<i>.old`. A
//!    file the write removes gets only its `<i>.old`.
//! 2. **Journal.** `journal` lists the files and the directories to create. Until it
//!    exists nothing outside the staging directory has changed.
//! 3. **Commit.** Create the directories, rename each `<i>` over its target (remove the
//!    targets of removals), sync the directories, rename the journal to `done`: the write
//!    is done.
//! 4. **Clean.** Remove the staging directory.
//!
//! A failure before the journal is renamed undoes the write ([`undo`]): without a journal,
//! removing the staging directory is enough; with one, every renamed file gets its
//! `<i>.old` back (or goes, if it was new) and the created directories go. A killed run
//! leaves its staging directory; the next command undoes it the same way ([`recover`])
//! before it reads anything. Undoing is idempotent, so a kill during an undo is undone by
//! the next run too.
//!
//! Recovery acts only on what rsbuilder itself staged ([`trusted`]): anyone who can write
//! in the project (or a repository or archive that carries a `.rsbuilder-txn.*`) could
//! otherwise plant a journal that "undoes" `src/main.rs`. A staging directory is trusted
//! when it is a directory owned by this user that nobody else may write in, and its
//! journal names that directory and carries the run's random secret; each file is undone
//! only while it holds exactly what the run wrote (its hash keyed by the secret). Anything
//! else is left alone, with a warning naming it.
//!
//! Why one file: staging, the commit, undo and recovery read and write one journal;
//! together they keep its format, and the promises above, in one place.

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};
use serde::{Deserialize, Serialize};

use super::confine::{Target, Wall, relative};
use super::fsops::Ops;

const PREFIX: &str = ".rsbuilder-txn.";
const JOURNAL: &str = "journal";
const DONE: &str = "done";

/// One file to write, its path relative to the base.
pub(crate) struct NewFile<'a> {
    pub rel: PathBuf,
    /// What the plan read there (`None`: the file did not exist).
    pub old: Option<&'a str>,
    /// What it becomes (`None`: it is removed).
    pub new: Option<&'a str>,
}

#[derive(Serialize, Deserialize)]
struct Journal {
    /// The staging directory's own name: a journal moved to another directory is not its.
    staging: String,
    /// Random per run, hex: keys the hashes below.
    secret: String,
    /// In staging order: entry `i` is staged as `<i>`, its old file kept as `<i>.old`.
    files: Vec<JournalFile>,
    /// Directories the commit creates, parents first.
    dirs: Vec<PathBuf>,
}

#[derive(Serialize, Deserialize)]
struct JournalFile {
    path: PathBuf,
    replaces: bool,
    /// The write removes the file: the undo puts `<i>.old` back where nothing stands.
    #[serde(default)]
    removes: bool,
    /// SHA-256 of the secret, a NUL and the new contents: the undo touches the target only
    /// while it holds what this run wrote.
    written: String,
}

/// 128 random bits, hex.
fn new_secret() -> Result<String> {
    let mut bytes = [0u8; 16];
    File::open("/dev/urandom")
        .and_then(|mut f| io::Read::read_exact(&mut f, &mut bytes))
        .map_err(|e| anyhow!("cannot read random bytes from /dev/urandom: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn keyed_hash(secret: &str, contents: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    hasher.update(secret.as_bytes());
    hasher.update([0]);
    hasher.update(contents);
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn staged(staging: &Path, i: usize) -> PathBuf {
    staging.join(i.to_string())
}

fn backup(staging: &Path, i: usize) -> PathBuf {
    staging.join(format!("{i}.old"))
}

/// Writes `files` below `wall`, all or none.
pub(crate) fn write(wall: &Wall, files: &[NewFile<'_>], ops: &mut Ops) -> Result<()> {
    let mut missing = BTreeSet::new();
    let mut targets = Vec::with_capacity(files.len());
    for file in files {
        let target = wall.target(&file.rel, &mut missing)?;
        if target.existing.is_some() != file.old.is_some() {
            bail!(changed(&target.full));
        }
        targets.push(target);
    }
    let base = wall.base();
    let secret = new_secret()?;
    let staging = ops
        .create_unique_dir(base, PREFIX)
        .map_err(|e| anyhow!("cannot write in {}: {e}", base.display()))?;
    let journal = Journal {
        staging: file_name(&staging),
        files: files
            .iter()
            .map(|f| JournalFile {
                path: f.rel.clone(),
                replaces: f.old.is_some(),
                removes: f.new.is_none(),
                written: keyed_hash(&secret, f.new.unwrap_or_default().as_bytes()),
            })
            .collect(),
        secret,
        dirs: missing.into_iter().collect(),
    };
    let done = stage(&staging, files, &targets, ops)
        .and_then(|unsynced| write_journal(&staging, &journal, unsynced, ops))
        .and_then(|()| commit(wall, &staging, &journal, &targets, ops));
    if let Err(error) = done {
        if ops.halted() {
            return Err(error);
        }
        return Err(match undo(wall, &staging, ops) {
            Ok(_) => error,
            Err(left) => anyhow!(
                "{error}; undoing the write failed too, and {} remain: {}. {} keeps what the next rsbuilder command in {} needs to finish the undo",
                left.len(),
                left.join("; "),
                staging.display(),
                base.display()
            ),
        });
    }
    if let Err(e) = ops.remove_dir_all(&staging) {
        crate::errln!(
            "warning: cannot remove {} ({e}); the next rsbuilder command removes it",
            staging.display()
        );
    }
    Ok(())
}

fn changed(path: &Path) -> String {
    format!(
        "{} changed on disk while rsbuilder was working; nothing was written, run the command again",
        path.display()
    )
}

/// Files staged before they are synced together (well below the usual limit of 1024 open
/// files).
const SYNC_BATCH: usize = 256;

/// Step 1: new contents and backups into the staging directory. Returns the files not
/// synced yet, to sync with the journal.
fn stage(
    staging: &Path,
    files: &[NewFile<'_>],
    targets: &[Target],
    ops: &mut Ops,
) -> Result<Vec<File>> {
    let cannot_sync = |e: io::Error| anyhow!("cannot write in {}: {e}", staging.display());
    let mut unsynced = Vec::new();
    for (i, (file, target)) in files.iter().zip(targets).enumerate() {
        let shown = target.full.display();
        let cannot = |e: io::Error| anyhow!("cannot write {shown}: {e}");
        if let (Some(old), Some(existing)) = (file.old, &target.existing) {
            let current =
                fs::read(&target.full).map_err(|e| anyhow!("cannot read {shown}: {e}"))?;
            if current != old.as_bytes() {
                bail!(changed(&target.full));
            }
            keep_old(&target.full, &backup(staging, i), &current, existing, ops).map_err(cannot)?;
        }
        let Some(contents) = file.new else {
            if file.old.is_none() {
                bail!("{shown}: nothing to remove");
            }
            continue;
        };
        let mut new = ops.create_new(&staged(staging, i)).map_err(cannot)?;
        ops.write(&mut new, contents.as_bytes()).map_err(cannot)?;
        if let Some(existing) = &target.existing {
            keep_owner_and_mode(&new, existing, ops).map_err(cannot)?;
        }
        unsynced.push(new);
        if unsynced.len() == SYNC_BATCH {
            ops.sync_files(&unsynced).map_err(cannot_sync)?;
            unsynced.clear();
        }
    }
    Ok(unsynced)
}

/// The old file, to put back: a hard link costs nothing and keeps it exactly; where links
/// are impossible (some filesystems, `protected_hardlinks`), a synced copy.
fn keep_old(
    target: &Path,
    backup: &Path,
    contents: &[u8],
    existing: &fs::Metadata,
    ops: &mut Ops,
) -> io::Result<()> {
    if ops.hard_link(target, backup).is_ok() {
        return Ok(());
    }
    let mut copy = ops.create_new(backup)?;
    ops.write(&mut copy, contents)?;
    keep_owner_and_mode(&copy, existing, ops)?;
    ops.sync(&copy)
}

/// A rewritten file keeps the mode of the one it replaces (a private file stays private)
/// and, where the process may, its owner.
fn keep_owner_and_mode(file: &File, existing: &fs::Metadata, ops: &mut Ops) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let mine = file.metadata()?;
        if (mine.uid(), mine.gid()) != (existing.uid(), existing.gid()) {
            // Best effort: only root may give a file away; a user's own files match anyway.
            let _ = std::os::unix::fs::fchown(file, Some(existing.uid()), Some(existing.gid()));
        }
    }
    ops.set_permissions(file, existing.permissions())
}

/// Step 2: the journal appears whole or not at all (written aside, synced together with
/// the last staged files, renamed).
fn write_journal(
    staging: &Path,
    journal: &Journal,
    mut unsynced: Vec<File>,
    ops: &mut Ops,
) -> Result<()> {
    let cannot = |e: io::Error| anyhow!("cannot write in {}: {e}", staging.display());
    let text = serde_json::to_vec(journal)?;
    let aside = staging.join("journal.new");
    let mut file = ops.create_new(&aside).map_err(cannot)?;
    ops.write(&mut file, &text).map_err(cannot)?;
    unsynced.push(file);
    ops.sync_files(&unsynced).map_err(cannot)?;
    ops.rename(&aside, &staging.join(JOURNAL)).map_err(cannot)?;
    ops.sync_dir(staging).map_err(cannot)
}

/// Step 3: directories, renames, syncs; renaming the journal marks the write done.
fn commit(
    wall: &Wall,
    staging: &Path,
    journal: &Journal,
    targets: &[Target],
    ops: &mut Ops,
) -> Result<()> {
    let mut touched = BTreeSet::new();
    for dir in &journal.dirs {
        let full = wall.base().join(dir);
        match ops.create_dir(&full) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && full.is_dir() => {}
            Err(e) => bail!("cannot create directory {}: {e}", full.display()),
        }
        touched.insert(parent(&full));
    }
    for (i, (target, file)) in targets.iter().zip(&journal.files).enumerate() {
        if file.removes {
            ops.remove_file(&target.full)
                .map_err(|e| anyhow!("cannot remove {}: {e}", target.full.display()))?;
        } else {
            ops.rename(&staged(staging, i), &target.full)
                .map_err(|e| anyhow!("cannot write {}: {e}", target.full.display()))?;
        }
        touched.insert(parent(&target.full));
    }
    let touched: Vec<&Path> = touched.iter().map(PathBuf::as_path).collect();
    ops.sync_dirs(&touched)
        .map_err(|e| anyhow!("cannot sync the directories written: {e}"))?;
    let journal = staging.join(JOURNAL);
    ops.rename(&journal, &staging.join(DONE))
        .map_err(|e| anyhow!("cannot rename {}: {e}", journal.display()))?;
    if let Err(e) = ops.sync_dir(staging) {
        crate::errln!(
            "warning: the files are written, but syncing {} failed ({e}); they may not survive a crash",
            staging.display()
        );
    }
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn parent(path: &Path) -> PathBuf {
    path.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// What [`undo`] did.
pub(crate) enum Undone {
    /// No journal: nothing outside the staging directory had changed.
    Unstarted,
    /// The write had finished; only its staging directory was left.
    Finished,
    /// Files put back as they were, and files removed that the write had created.
    Reverted {
        restored: Vec<PathBuf>,
        removed: Vec<PathBuf>,
    },
}

/// Undoes the write staged in `staging`, then removes it. On failure, returns what is
/// left as it should not be, and keeps the staging directory so that a later run can
/// finish.
fn undo(wall: &Wall, staging: &Path, ops: &mut Ops) -> Result<Undone, Vec<String>> {
    let journal_path = staging.join(JOURNAL);
    let journal = match fs::symlink_metadata(&journal_path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let finished = exists(&staging.join(DONE));
            return match ops.remove_dir_all(staging) {
                Ok(()) if finished => Ok(Undone::Finished),
                Ok(()) => Ok(Undone::Unstarted),
                Err(e) => Err(vec![format!("{} ({e})", staging.display())]),
            };
        }
        Ok(m) if m.is_file() => read_journal(&journal_path).map_err(|e| vec![e])?,
        _ => return Err(vec![format!("{}: not a journal", journal_path.display())]),
    };
    let base = wall.base();
    let (mut restored, mut removed, mut left) = (Vec::new(), Vec::new(), Vec::new());
    let mut touched = BTreeSet::new();
    for (i, file) in journal.files.iter().enumerate().rev() {
        if file.removes {
            match undo_removal(wall, staging, i, file, ops) {
                Ok(Some(path)) => {
                    touched.insert(parent(&base.join(&path)));
                    restored.push(path);
                }
                Ok(None) => {}
                Err(e) => left.push(e),
            }
            continue;
        }
        if exists(&staged(staging, i)) {
            continue; // never renamed: the target is as it was
        }
        let target = match relative(&file.path, &file.path, base)
            .and_then(|rel| wall.target(&rel, &mut BTreeSet::new()))
        {
            Ok(target) => target,
            Err(e) => {
                left.push(format!("{e:#}"));
                continue;
            }
        };
        let shown = target.full.display().to_string();
        // Not what this run wrote (never renamed there, or changed since): not the undo's.
        if target.existing.is_none()
            || !fs::read(&target.full)
                .is_ok_and(|now| keyed_hash(&journal.secret, &now) == file.written)
        {
            continue;
        }
        if file.replaces {
            let old = backup(staging, i);
            if !fs::symlink_metadata(&old).is_ok_and(|m| m.is_file()) {
                continue; // restored by an earlier undo
            }
            match ops.rename(&old, &target.full) {
                Ok(()) => restored.push(file.path.clone()),
                Err(e) => left.push(format!(
                    "{shown} not restored ({e}; its old contents are in {})",
                    old.display()
                )),
            }
        } else {
            match ops.remove_file(&target.full) {
                Ok(()) => removed.push(file.path.clone()),
                Err(e) => left.push(format!("{shown} not removed ({e})")),
            }
        }
        touched.insert(parent(&target.full));
    }
    for dir in journal.dirs.iter().rev() {
        let Ok(rel) = relative(dir, dir, base) else {
            left.push(format!(
                "{}: not a directory of {}",
                dir.display(),
                base.display()
            ));
            continue;
        };
        let full = base.join(rel);
        // A directory the commit never created is not there to remove. Look before asking
        // rmdir: on a read-only mount rmdir fails with EROFS even for a missing name,
        // which would count as an undo failure and keep the staging directory.
        if !exists(&full) {
            continue;
        }
        match ops.remove_dir(&full) {
            Ok(()) => {
                touched.insert(parent(&full));
            }
            // Not there, or holding files rsbuilder did not write: not the undo's to remove.
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::DirectoryNotEmpty
                ) => {}
            Err(e) => left.push(format!("{} not removed ({e})", full.display())),
        }
    }
    // Directories the undo removed are gone; their parents are in `touched` too.
    let touched: Vec<&Path> = touched
        .iter()
        .filter(|d| d.exists())
        .map(PathBuf::as_path)
        .collect();
    if let Err(e) = ops.sync_dirs(&touched) {
        left.push(format!("the directories restored, not synced ({e})"));
    }
    if left.is_empty()
        && let Err(e) = ops.remove_file(&journal_path)
    {
        left.push(format!("{} ({e})", journal_path.display()));
    }
    if left.is_empty()
        && let Err(e) = ops.remove_dir_all(staging)
    {
        left.push(format!("{} ({e})", staging.display()));
    }
    if !left.is_empty() {
        return Err(left);
    }
    Ok(Undone::Reverted { restored, removed })
}

/// Puts back a file the write removed, from its `<i>.old`, where nothing stands now (a
/// file there is someone's since: not the undo's to replace). The path it restored.
fn undo_removal(
    wall: &Wall,
    staging: &Path,
    i: usize,
    file: &JournalFile,
    ops: &mut Ops,
) -> Result<Option<PathBuf>, String> {
    let old = backup(staging, i);
    if !fs::symlink_metadata(&old).is_ok_and(|m| m.is_file()) {
        return Ok(None); // never kept, or restored by an earlier undo
    }
    let target = relative(&file.path, &file.path, wall.base())
        .and_then(|rel| wall.target(&rel, &mut BTreeSet::new()))
        .map_err(|e| format!("{e:#}"))?;
    if target.existing.is_some() {
        return Ok(None); // never removed
    }
    ops.rename(&old, &target.full)
        .map(|()| Some(file.path.clone()))
        .map_err(|e| {
            format!(
                "{} not restored ({e}; its old contents are in {})",
                target.full.display(),
                old.display()
            )
        })
}

fn read_journal(path: &Path) -> Result<Journal, String> {
    let text = fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Why `staging` is not a staging directory of rsbuilder's that recovery may act on, or
/// `None` when it is: a directory (not a link) owned by this user that nobody else may
/// write in, whose journal, if it has one, names it and carries a secret.
fn untrusted(staging: &Path) -> Option<String> {
    let meta = match fs::symlink_metadata(staging) {
        Ok(meta) => meta,
        Err(e) => return Some(format!("cannot read it ({e})")),
    };
    if !meta.is_dir() {
        return Some("not a directory".into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        if meta.uid() != me {
            return Some(format!(
                "owned by user {}, not by this user ({me})",
                meta.uid()
            ));
        }
        if meta.mode() & 0o022 != 0 {
            return Some(format!(
                "others may write in it (mode {:o})",
                meta.mode() & 0o777
            ));
        }
    }
    let journal = staging.join(JOURNAL);
    if !exists(&journal) {
        return None;
    }
    match read_journal(&journal) {
        Err(e) => Some(format!("its journal is not one rsbuilder wrote ({e})")),
        Ok(j) if j.staging != file_name(staging) => {
            Some(format!("its journal belongs to {}", j.staging))
        }
        Ok(j) if j.secret.len() != 32 => Some("its journal has no run secret".into()),
        Ok(_) => None,
    }
}

fn exists(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok()
}

/// The staging directories interrupted runs left in `base`.
fn leftovers(base: &Path) -> Result<Vec<PathBuf>> {
    let entries = match fs::read_dir(base) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => bail!("cannot read {}: {e}", base.display()),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| anyhow!("cannot read {}: {e}", base.display()))?;
        if entry.file_name().to_string_lossy().starts_with(PREFIX) {
            found.push(entry.path());
        }
    }
    found.sort();
    Ok(found)
}

/// Undoes whatever interrupted runs left in the wall's base, and says what it did, one
/// message per run; a directory that only looks like a staging directory is left alone,
/// with a warning.
pub(crate) fn recover(wall: &Wall, ops: &mut Ops) -> Result<Vec<String>> {
    let base = wall.base();
    let mut messages = Vec::new();
    for staging in leftovers(base)? {
        if let Some(why) = untrusted(&staging) {
            messages.push(format!(
                "warning: {} is named like an rsbuilder staging directory, but rsbuilder did not \
                 stage it: {why}; left alone (remove it if nothing in it is yours)",
                staging.display()
            ));
            continue;
        }
        let list = |paths: &[PathBuf]| {
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match undo(wall, &staging, ops) {
            Ok(Undone::Reverted { restored, removed })
                if !restored.is_empty() || !removed.is_empty() =>
            {
                let mut what = Vec::new();
                if !restored.is_empty() {
                    what.push(format!("restored {}", list(&restored)));
                }
                if !removed.is_empty() {
                    what.push(format!("removed {}", list(&removed)));
                }
                messages.push(format!(
                    "note: an interrupted rsbuilder run had written part of its changes in {}; undone: {}",
                    base.display(),
                    what.join("; ")
                ));
            }
            Ok(Undone::Finished) => messages.push(format!(
                "note: an interrupted rsbuilder run had finished writing in {}; removed what it left",
                base.display()
            )),
            Ok(_) => messages.push(format!(
                "note: an interrupted rsbuilder run had staged changes in {} but written none; removed them",
                base.display()
            )),
            Err(_) if ops.halted() => bail!("halted"),
            Err(left) => bail!(
                "an interrupted rsbuilder run left changes half written in {}, and undoing them failed: {}",
                base.display(),
                left.join("; ")
            ),
        }
    }
    Ok(messages)
}

/// A staging directory with a journal: a write that an interrupted run may have left
/// half done, which only a writing command can undo.
pub(crate) fn half_written(base: &Path) -> Result<Option<PathBuf>> {
    Ok(leftovers(base)?
        .into_iter()
        .find(|staging| exists(&staging.join(JOURNAL)) && untrusted(staging).is_none()))
}
