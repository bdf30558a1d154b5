//! Every change a write makes to the disk goes through [`Ops`], which numbers them, so
//! that tests can make any one fail (as a full disk or an I/O error would) or stop dead
//! at it (as a kill would), and show that the tree survives either.

use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::path::Path;

/// Faults to inject into one write, by the number of the operation (from 0).
#[doc(hidden)]
#[derive(Debug, Clone, Default)]
pub struct Faults {
    /// Operations that fail with an I/O error; the write then undoes what it did.
    pub fail: BTreeSet<usize>,
    /// The operation before which the write stops dead: nothing more runs, not even the
    /// undo, and the disk is left as a kill at that moment would leave it.
    pub halt: Option<usize>,
    /// The operation before which the process aborts: `RSBUILDER_TEST_KILL_AT`, for tests
    /// of the binary.
    pub abort: Option<usize>,
}

impl Faults {
    pub fn from_env() -> Self {
        Faults {
            abort: std::env::var("RSBUILDER_TEST_KILL_AT")
                .ok()
                .and_then(|n| n.parse().ok()),
            ..Faults::default()
        }
    }
}

/// The filesystem operations of one write, counted.
pub(crate) struct Ops {
    faults: Faults,
    count: usize,
    halted: bool,
}

impl Ops {
    pub fn new(faults: Faults) -> Self {
        Ops {
            faults,
            count: 0,
            halted: false,
        }
    }

    /// Whether a [`Faults::halt`] stopped the write: the caller must then touch nothing.
    pub fn halted(&self) -> bool {
        self.halted
    }

    fn step(&mut self, what: &str) -> io::Result<()> {
        if self.halted {
            return Err(io::Error::other("halted"));
        }
        let n = self.count;
        self.count += 1;
        if self.faults.abort == Some(n) {
            std::process::abort();
        }
        if self.faults.halt == Some(n) {
            self.halted = true;
            return Err(io::Error::other(format!(
                "halted before operation {n} ({what})"
            )));
        }
        if self.faults.fail.contains(&n) {
            return Err(io::Error::other(format!(
                "simulated failure of operation {n} ({what})"
            )));
        }
        Ok(())
    }

    pub fn create_dir(&mut self, path: &Path) -> io::Result<()> {
        self.step("create directory")?;
        fs::create_dir(path)
    }

    /// A new directory with a unique, unpredictable name, readable only by its owner.
    pub fn create_unique_dir(
        &mut self,
        parent: &Path,
        prefix: &str,
    ) -> io::Result<std::path::PathBuf> {
        self.step("create staging directory")?;
        let mut builder = tempfile::Builder::new();
        builder.prefix(prefix).rand_bytes(10);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(Permissions::from_mode(0o700));
        }
        Ok(builder.tempdir_in(parent)?.keep())
    }

    /// Creates `path`, failing if anything (a file, a dangling link) is there already:
    /// `O_CREAT|O_EXCL`, which never follows a link.
    pub fn create_new(&mut self, path: &Path) -> io::Result<File> {
        self.step("create file")?;
        OpenOptions::new().write(true).create_new(true).open(path)
    }

    pub fn write(&mut self, file: &mut File, bytes: &[u8]) -> io::Result<()> {
        self.step("write")?;
        file.write_all(bytes)
    }

    pub fn set_permissions(&mut self, file: &File, permissions: Permissions) -> io::Result<()> {
        self.step("set mode")?;
        file.set_permissions(permissions)
    }

    pub fn sync(&mut self, file: &File) -> io::Result<()> {
        self.step("sync file")?;
        file.sync_all()
    }

    /// Syncs `files` concurrently: the filesystem then commits them together, where one
    /// after the other each waits for its own journal commit (several times faster on a
    /// busy disk).
    pub fn sync_files(&mut self, files: &[File]) -> io::Result<()> {
        for _ in files {
            self.step("sync file")?;
        }
        in_parallel(files, File::sync_all)
    }

    /// Makes the entries of `dir` (files created, renamed or removed in it) durable.
    pub fn sync_dir(&mut self, dir: &Path) -> io::Result<()> {
        self.sync_dirs(std::slice::from_ref(&dir))
    }

    /// [`Ops::sync_dir`] for each of `dirs`, concurrently.
    pub fn sync_dirs(&mut self, dirs: &[&Path]) -> io::Result<()> {
        for _ in dirs {
            self.step("sync directory")?;
        }
        if cfg!(unix) {
            in_parallel(dirs, |dir| File::open(dir)?.sync_all())
        } else {
            Ok(())
        }
    }

    pub fn hard_link(&mut self, original: &Path, link: &Path) -> io::Result<()> {
        self.step("link")?;
        fs::hard_link(original, link)
    }

    pub fn rename(&mut self, from: &Path, to: &Path) -> io::Result<()> {
        self.step("rename")?;
        fs::rename(from, to)
    }

    pub fn remove_file(&mut self, path: &Path) -> io::Result<()> {
        self.step("remove file")?;
        fs::remove_file(path)
    }

    pub fn remove_dir(&mut self, path: &Path) -> io::Result<()> {
        self.step("remove directory")?;
        fs::remove_dir(path)
    }

    /// Removes a directory and its contents; links inside are removed, never followed.
    pub fn remove_dir_all(&mut self, path: &Path) -> io::Result<()> {
        self.step("remove staging directory")?;
        fs::remove_dir_all(path)
    }
}

/// Runs `f` on every item, spread over a few threads; the first error wins.
fn in_parallel<T: Sync>(items: &[T], f: impl Fn(&T) -> io::Result<()> + Sync) -> io::Result<()> {
    const THREADS: usize = 16;
    if items.len() < 2 {
        return items.iter().try_for_each(&f);
    }
    let f = &f;
    std::thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks(items.len().div_ceil(THREADS))
            .map(|chunk| scope.spawn(move || chunk.iter().try_for_each(f)))
            .collect();
        workers.into_iter().try_for_each(|worker| {
            worker
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("a sync thread panicked")))
        })
    })
}
