//! One rsbuilder at a time in a project. A command that writes holds the project
//! directory exclusively from its first read to its last write, so two commands never
//! plan against the same tree and overwrite each other's registrations; a command that
//! only reads (`--dry-run`, `--check`) holds it shared, so it never reads a half-written
//! tree.
//!
//! The lock is an advisory lock (`flock(2)`, through std's `File::lock`) on the directory
//! itself: no lock file to pollute the project or `git status`, nothing to clean up, and
//! the kernel releases it when the process dies, however it dies.

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// How long a command waits for another one before giving up.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Directories held, and by which thread: taking one again on the same thread (a write
/// inside a command that already holds its project) is a no-op, where a second `flock`
/// would wait for itself.
static HELD: Mutex<Vec<(PathBuf, ThreadId)>> = Mutex::new(Vec::new());

/// Held until dropped.
#[must_use]
pub struct Guard {
    held: Option<(PathBuf, File)>,
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some((key, _file)) = &self.held {
            let me = std::thread::current().id();
            held().retain(|(k, thread)| (k, *thread) != (key, me));
        }
    }
}

/// Locks `dir`, waiting up to `RSBUILDER_LOCK_TIMEOUT` seconds (60 by default) while
/// another process holds it. A directory that cannot be opened is not locked: the
/// command reports that itself. A filesystem without locks (some network mounts) gets a
/// warning and no lock.
pub fn acquire(dir: &Path, access: Access, quiet: bool) -> Result<Guard> {
    let unlocked = Guard { held: None };
    let Ok(key) = dir.canonicalize() else {
        return Ok(unlocked);
    };
    let me = std::thread::current().id();
    if held().iter().any(|(k, thread)| (k, *thread) == (&key, me)) {
        return Ok(unlocked);
    }
    let Ok(file) = File::open(&key) else {
        return Ok(unlocked);
    };
    let timeout = timeout();
    let started = Instant::now();
    let mut said = false;
    loop {
        let attempt = match access {
            Access::Read => file.try_lock_shared(),
            Access::Write => file.try_lock(),
        };
        match attempt {
            Ok(()) => break,
            Err(TryLockError::WouldBlock) => {
                if !said && !quiet {
                    crate::errln!(
                        "waiting for another rsbuilder command in {} to finish...",
                        dir.display()
                    );
                    said = true;
                }
                let waited = started.elapsed();
                if waited >= timeout {
                    bail!(
                        "another rsbuilder command is still working in {} after {}s; run this one again when it has finished (RSBUILDER_LOCK_TIMEOUT sets how long to wait)",
                        dir.display(),
                        timeout.as_secs()
                    );
                }
                std::thread::sleep((timeout - waited).min(Duration::from_millis(20)));
            }
            Err(TryLockError::Error(e)) => {
                if !quiet {
                    crate::errln!(
                        "warning: cannot lock {} ({e}); an rsbuilder command running at the same time could overwrite this one's changes",
                        dir.display()
                    );
                }
                return Ok(unlocked);
            }
        }
    }
    held().push((key.clone(), me));
    Ok(Guard {
        held: Some((key, file)),
    })
}

fn held() -> std::sync::MutexGuard<'static, Vec<(PathBuf, ThreadId)>> {
    HELD.lock().unwrap_or_else(|e| e.into_inner())
}

fn timeout() -> Duration {
    std::env::var("RSBUILDER_LOCK_TIMEOUT")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .map_or(DEFAULT_TIMEOUT, Duration::from_secs)
}
