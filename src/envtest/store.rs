//! setup-envtest's store: `<root>/k8s/<version>-<os>-<arch>/{kube-apiserver,etcd,kubectl}`,
//! with `<root>` = `--bin-dir`, else `$XDG_DATA_HOME/kubebuilder-envtest`, else
//! `~/.local/share/kubebuilder-envtest`. Sharing setup-envtest's layout means assets either
//! tool fetched serve the other.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};

use super::platform::Platform;
use super::version::{Selector, Version};

/// The binaries a control plane needs; `kubectl` is kept when an archive brings it.
pub const REQUIRED: [&str; 2] = ["kube-apiserver", "etcd"];

pub struct Store {
    root: PathBuf,
}

impl Store {
    /// The store at `bin_dir`, or setup-envtest's default one.
    pub fn open(bin_dir: Option<&Path>) -> Result<Self> {
        let root = match bin_dir {
            Some(dir) => dir.to_path_buf(),
            None => default_root()?,
        };
        Ok(Self { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory of `version`'s binaries for `platform`, whether installed or not.
    pub fn dir(&self, version: &Version, platform: &Platform) -> PathBuf {
        self.root.join("k8s").join(format!("{version}-{platform}"))
    }

    /// Every complete installation for `platform`, newest first.
    pub fn installed(&self, platform: &Platform) -> Vec<(Version, PathBuf)> {
        let suffix = format!("-{platform}");
        let Ok(entries) = std::fs::read_dir(self.root.join("k8s")) else {
            return Vec::new();
        };
        let mut found: Vec<(Version, PathBuf)> = entries
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                let version = Version::parse(name.strip_suffix(&suffix)?)?;
                let dir = entry.path();
                complete(&dir).then_some((version, dir))
            })
            .collect();
        found.sort_by_key(|(version, _)| std::cmp::Reverse(*version));
        found
    }

    /// The newest installed version `selector` accepts.
    pub fn find(&self, selector: &Selector, platform: &Platform) -> Option<(Version, PathBuf)> {
        self.installed(platform)
            .into_iter()
            .find(|(version, _)| selector.matches(version))
    }

    /// Installs `version` by letting `fill` write the binaries into a fresh staging
    /// directory beside their final place, which then takes that place in one rename: a
    /// failed or killed install leaves no half-filled version directory behind. Holds the
    /// store's lock meanwhile, so two installs at once do the work once.
    pub fn install(
        &self,
        version: &Version,
        platform: &Platform,
        fill: impl FnOnce(&Path) -> Result<()>,
    ) -> Result<PathBuf> {
        let k8s = self.root.join("k8s");
        std::fs::create_dir_all(&k8s)
            .with_context(|| format!("cannot create the envtest store {}", k8s.display()))?;
        let _lock = lock(&k8s)?;
        let dir = self.dir(version, platform);
        if complete(&dir) {
            return Ok(dir);
        }
        let staging = tempfile::Builder::new()
            .prefix(".staging-")
            .tempdir_in(&k8s)
            .with_context(|| format!("cannot create a staging directory in {}", k8s.display()))?;
        fill(staging.path())?;
        if !complete(staging.path()) {
            bail!(
                "internal error: the install of Kubernetes {version} did not produce {}",
                REQUIRED.join(" and ")
            );
        }
        // A directory left incomplete by hand (a binary deleted) is replaced whole.
        if dir.exists() {
            std::fs::remove_dir_all(&dir)
                .with_context(|| format!("cannot replace the incomplete {}", dir.display()))?;
        }
        let staged = staging.keep();
        std::fs::rename(&staged, &dir)
            .with_context(|| format!("cannot move {} to {}", staged.display(), dir.display()))?;
        Ok(dir)
    }
}

/// Whether `dir` holds every required binary, executable.
pub fn complete(dir: &Path) -> bool {
    REQUIRED.iter().all(|name| executable(&dir.join(name)))
}

pub fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn default_root() -> Result<PathBuf> {
    let data = match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        Some(data) => PathBuf::from(data),
        None => {
            let home = std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .context("neither XDG_DATA_HOME nor HOME is set: name the store with --bin-dir")?;
            PathBuf::from(home).join(".local/share")
        }
    };
    Ok(data.join("kubebuilder-envtest"))
}

/// An exclusive `flock` on the store, waited for as long as the other install takes.
fn lock(k8s: &Path) -> Result<File> {
    let file = File::open(k8s).with_context(|| format!("cannot open {}", k8s.display()))?;
    if file.try_lock().is_err() {
        crate::errln!(
            "waiting for another rsbuilder to finish installing into {}...",
            k8s.display()
        );
        file.lock()
            .with_context(|| format!("cannot lock {}", k8s.display()))?;
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_binaries(dir: &Path) {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::create_dir_all(dir).unwrap();
        for name in REQUIRED {
            let path = dir.join(name);
            std::fs::write(&path, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }

    #[test]
    fn only_complete_installations_of_the_platform_count() {
        let root = tempfile::tempdir().unwrap();
        let store = Store::open(Some(root.path())).unwrap();
        let linux = Platform::new("linux", "amd64");
        let v = |t| Version::parse(t).unwrap();
        fake_binaries(&store.dir(&v("1.37.1"), &linux));
        fake_binaries(&store.dir(&v("1.37.2"), &Platform::new("darwin", "arm64")));
        fake_binaries(&store.dir(&v("1.36.3"), &linux));
        let partial = store.dir(&v("1.37.5"), &linux);
        fake_binaries(&partial);
        std::fs::remove_file(partial.join("etcd")).unwrap();
        let found: Vec<Version> = store
            .installed(&linux)
            .into_iter()
            .map(|(v, _)| v)
            .collect();
        assert_eq!(found, [v("1.37.1"), v("1.36.3")]);
        let selector: Selector = "1.37".parse().unwrap();
        assert_eq!(store.find(&selector, &linux).unwrap().0, v("1.37.1"));
    }

    #[test]
    fn a_failed_install_leaves_nothing_behind() {
        let root = tempfile::tempdir().unwrap();
        let store = Store::open(Some(root.path())).unwrap();
        let linux = Platform::new("linux", "amd64");
        let version = Version::parse("1.37.2").unwrap();
        let failed = store.install(&version, &linux, |staging| {
            std::fs::write(staging.join("etcd"), "half")?;
            bail!("the network went away")
        });
        assert!(failed.is_err());
        let left: Vec<_> = std::fs::read_dir(root.path().join("k8s"))
            .unwrap()
            .collect();
        assert!(left.is_empty(), "{left:?}");
        let dir = store
            .install(&version, &linux, |staging| {
                fake_binaries(staging);
                Ok(())
            })
            .unwrap();
        assert_eq!(dir, store.dir(&version, &linux));
        assert!(complete(&dir));
    }
}
