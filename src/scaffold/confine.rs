//! The wall around a write. Names that become paths come from the sources and from
//! PROJECT, which the user (or whoever wrote the repository) controls; whatever they say,
//! rsbuilder writes only below the directory it writes into — the project, or the output
//! directory the user named — and never through a symbolic link.

use std::collections::BTreeSet;
use std::fs::{self, Metadata};
use std::io;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};

/// The directory a write may not leave.
pub(crate) struct Wall {
    base: PathBuf,
    /// `base` with every link resolved, to compare where links lead.
    real: PathBuf,
    /// The filesystem of `base` (Unix device number), where every target must be.
    device: Option<u64>,
}

/// A file to write, checked.
pub(crate) struct Target {
    pub full: PathBuf,
    /// The file there now (never a link), or `None`.
    pub existing: Option<Metadata>,
}

impl Wall {
    pub fn new(base: &Path) -> Result<Wall> {
        let real = base
            .canonicalize()
            .with_context(|| format!("cannot resolve {}", base.display()))?;
        #[cfg(unix)]
        let device = {
            use std::os::unix::fs::MetadataExt;
            fs::metadata(&real).ok().map(|m| m.dev())
        };
        #[cfg(not(unix))]
        let device = None;
        Ok(Wall {
            base: base.to_path_buf(),
            real,
            device,
        })
    }

    pub fn base(&self) -> &Path {
        &self.base
    }

    /// Checks that `rel` (already [`relative`]) stays inside the wall once the links of its
    /// directories are followed, and that the file is a regular file or missing. The
    /// directories it needs that do not exist yet are added to `missing`, parents first.
    pub fn target(&self, rel: &Path, missing: &mut BTreeSet<PathBuf>) -> Result<Target> {
        let shown = self.base.join(rel);
        let shown = shown.display();
        let components: Vec<&Path> = rel.iter().map(Path::new).collect();
        let Some((_, dirs)) = components.split_last() else {
            bail!("refusing to write {shown}: it names no file");
        };
        let mut dir = self.base.clone();
        let mut rel_dir = PathBuf::new();
        let mut exists = true;
        for name in dirs {
            dir.push(name);
            rel_dir.push(name);
            if !exists {
                missing.insert(rel_dir.clone());
                continue;
            }
            match fs::symlink_metadata(&dir) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    exists = false;
                    missing.insert(rel_dir.clone());
                }
                Err(e) => bail!("cannot write {shown}: cannot read {}: {e}", dir.display()),
                Ok(m) if m.is_dir() => {}
                Ok(m) if m.file_type().is_symlink() => {
                    let real = dir.canonicalize().map_err(|e| {
                        anyhow!(
                            "cannot write {shown}: {} is a symbolic link that leads nowhere ({e})",
                            dir.display()
                        )
                    })?;
                    if !real.starts_with(&self.real) {
                        bail!(
                            "refusing to write {shown}: {} is a symbolic link to {}, outside {}",
                            dir.display(),
                            real.display(),
                            self.base.display()
                        );
                    }
                    if !real.is_dir() {
                        bail!("cannot write {shown}: {} is not a directory", dir.display());
                    }
                }
                Ok(_) => bail!(
                    "cannot write {shown}: {} is a file, not a directory",
                    dir.display()
                ),
            }
        }
        let full = self.base.join(rel);
        let existing = if exists {
            match fs::symlink_metadata(&full) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => None,
                Err(e) => bail!("cannot write {shown}: {e}"),
                Ok(m) if m.file_type().is_symlink() => {
                    let to = fs::read_link(&full).unwrap_or_default();
                    bail!(
                        "refusing to write {shown}: it is a symbolic link (to {}); rsbuilder does not write through links, replace it with the file itself",
                        to.display()
                    );
                }
                Ok(m) if m.is_dir() => bail!("cannot write {shown}: it is a directory"),
                Ok(m) if !m.is_file() => bail!("cannot write {shown}: it is not a regular file"),
                Ok(m) => Some(m),
            }
        } else {
            None
        };
        self.same_filesystem(&full, &dir, exists, &shown.to_string())?;
        Ok(Target { full, existing })
    }

    /// Files are replaced by renaming a staged copy over them, which works within one
    /// filesystem only: refuse, before anything is written, a target on another one.
    #[cfg(unix)]
    fn same_filesystem(&self, full: &Path, dir: &Path, exists: bool, shown: &str) -> Result<()> {
        use std::os::unix::fs::MetadataExt;
        let mut nearest = if exists {
            full.parent().unwrap_or(dir).to_path_buf()
        } else {
            dir.to_path_buf()
        };
        while !nearest.exists() {
            if !nearest.pop() {
                return Ok(());
            }
        }
        let (Ok(here), Some(device)) = (fs::metadata(&nearest), self.device) else {
            return Ok(());
        };
        if here.dev() != device {
            bail!(
                "cannot write {shown}: {} is on another filesystem than {}; rsbuilder replaces files by renaming within one filesystem",
                nearest.display(),
                self.base.display()
            );
        }
        Ok(())
    }

    #[cfg(not(unix))]
    fn same_filesystem(&self, _: &Path, _: &Path, _: bool, _: &str) -> Result<()> {
        Ok(())
    }
}

/// `path` as a relative path of plain names: `.` dropped; absolute paths, `..` and drive
/// prefixes refused, whatever they would normalise to.
pub(crate) fn relative(path: &Path, shown: &Path, base: &Path) -> Result<PathBuf> {
    let mut rel = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Normal(name) => rel.push(name),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => bail!(
                "refusing to write {}: the path leads outside {}",
                shown.display(),
                base.display()
            ),
        }
    }
    if rel.as_os_str().is_empty() {
        bail!("refusing to write {}: it names no file", shown.display());
    }
    Ok(rel)
}
