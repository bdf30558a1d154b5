//! The control-plane binaries of envtest tests, kube-apiserver and etcd: found where
//! controller-runtime looks for them, and obtained the way setup-envtest does (the
//! official archive), or built from source where only the Go module proxy is reachable.
//!
//! Lookup order, as controller-runtime's `bin_path_finder.go`: `TEST_ASSET_KUBE_APISERVER`
//! and `TEST_ASSET_ETCD`, then `KUBEBUILDER_ASSETS`, then the store ([`store`]).

pub mod download;
pub mod platform;
pub mod source;
pub mod store;
pub mod version;

use std::path::PathBuf;

use anyhow::{Context as _, Result, bail};

pub use platform::Platform;
use store::Store;
use version::{Selector, Version};

/// Where the binaries were found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Assets {
    /// `TEST_ASSET_KUBE_APISERVER` and `TEST_ASSET_ETCD`.
    Files {
        kube_apiserver: PathBuf,
        etcd: PathBuf,
    },
    /// `KUBEBUILDER_ASSETS`.
    Dir(PathBuf),
    /// A version in the store (installed now or before).
    Store(Version, PathBuf),
}

/// What the environment names, if anything: the first two places of the lookup order.
/// A variable that names something missing is an error, not a reason to look further,
/// since the user asked for exactly that.
pub fn from_environment() -> Result<Option<Assets>> {
    let var = |name| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let (Some(kube_apiserver), Some(etcd)) =
        (var("TEST_ASSET_KUBE_APISERVER"), var("TEST_ASSET_ETCD"))
    {
        for (name, path) in [
            ("TEST_ASSET_KUBE_APISERVER", &kube_apiserver),
            ("TEST_ASSET_ETCD", &etcd),
        ] {
            if !store::executable(path) {
                bail!("{name}={} is not an executable file", path.display());
            }
        }
        return Ok(Some(Assets::Files {
            kube_apiserver,
            etcd,
        }));
    }
    if let Some(dir) = var("KUBEBUILDER_ASSETS") {
        if !store::complete(&dir) {
            bail!(
                "KUBEBUILDER_ASSETS={} does not hold kube-apiserver and etcd; unset it, or fill it with `rsbuilder envtest use --bin-dir`",
                dir.display()
            );
        }
        return Ok(Some(Assets::Dir(dir)));
    }
    Ok(None)
}

/// How `obtain` may get a version the store lacks.
#[derive(Debug, Clone)]
pub struct Sources {
    /// The envtest release index; `None` skips the download.
    pub index: Option<String>,
    /// Build from source with Go when the download is skipped or fails.
    pub build: bool,
    /// Where the source builds keep their modules.
    pub work: PathBuf,
}

/// Installs the newest version `selector` accepts into `store`: the official archive,
/// else a build from source. Returns the version and its directory.
pub fn obtain(store: &Store, selector: &Selector, sources: &Sources) -> Result<(Version, PathBuf)> {
    let platform = Platform::current();
    let mut failures = Vec::new();
    if let Some(index) = &sources.index {
        match download::resolve(index, selector, &platform) {
            Ok((version, archive)) => {
                crate::errln!("downloading {}", archive.self_link);
                match store.install(&version, &platform, |into| download::fetch(&archive, into)) {
                    Ok(dir) => return Ok((version, dir)),
                    Err(e) => failures.push(format!("{e:#}")),
                }
            }
            Err(e) => failures.push(format!("{e:#}")),
        }
        if sources.build {
            crate::errln!("{}; building from source instead", failures.join("; "));
        }
    }
    if !sources.build {
        bail!(
            "{}; where the Go module proxy is reachable, --from-source builds the binaries with go",
            failures.join("; ")
        );
    }
    let version = source::resolve(selector)?;
    if let Some(found) = store.find(&Selector::from(version), &platform) {
        return Ok(found);
    }
    std::fs::create_dir_all(&sources.work)
        .with_context(|| format!("cannot create {}", sources.work.display()))?;
    let dir = store.install(&version, &platform, |into| {
        source::build(&version, &sources.work, into)
    })?;
    Ok((version, dir))
}

impl From<Version> for Selector {
    fn from(v: Version) -> Self {
        Self {
            major: v.major,
            minor: v.minor,
            patch: Some(v.patch),
        }
    }
}
