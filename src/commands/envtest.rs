//! `rsbuilder envtest use|list`: the kube-apiserver and etcd that envtest tests run, as
//! setup-envtest provides them to Go projects (same store, same lookup order).

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use clap::{Args, Subcommand, ValueEnum};

use crate::envtest::download::DEFAULT_INDEX;
use crate::envtest::store::Store;
use crate::envtest::version::Selector;
use crate::envtest::{self, Assets, Platform, Sources};

/// The Kubernetes release generated projects are built for (k8s-openapi's `v1_37`).
pub const DEFAULT_VERSION: &str = "1.37";

#[derive(Debug, Subcommand)]
pub enum EnvtestCommand {
    /// Find kube-apiserver and etcd, or install them, and print where they are
    #[command(
        after_help = "Examples:\n  rsbuilder envtest use                      # 1.37, downloaded or built\n  export KUBEBUILDER_ASSETS=\"$(rsbuilder envtest use 1.37 -p path)\"\n  rsbuilder envtest use --from-source        # offline: build with go from the module proxy"
    )]
    Use(UseArgs),
    /// List the versions installed in the store
    List(StoreArgs),
}

#[derive(Debug, Args)]
pub struct StoreArgs {
    /// The store: versions live in DIR/k8s/<version>-<os>-<arch> [default:
    /// $XDG_DATA_HOME/kubebuilder-envtest, setup-envtest's]
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct UseArgs {
    /// A minor release (its newest patch) or a patch release
    #[arg(default_value = DEFAULT_VERSION, value_name = "K8S_VERSION")]
    pub version: Selector,
    #[command(flatten)]
    pub store: StoreArgs,
    /// How to print the result: a summary, the directory, or a shell `export`
    #[arg(short = 'p', long = "print", value_enum, default_value_t = Print::Summary)]
    pub print: Print,
    /// Use only what is installed; never download or build
    #[arg(short = 'i', long)]
    pub installed_only: bool,
    /// Build from source with go (needs the Go module proxy) instead of downloading
    #[arg(long, conflicts_with = "installed_only")]
    pub from_source: bool,
    /// The envtest release index (controller-tools' envtest-releases.yaml)
    #[arg(long, value_name = "URL", default_value = DEFAULT_INDEX)]
    pub index: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Print {
    Summary,
    Path,
    Env,
}

pub fn run(command: EnvtestCommand) -> Result<()> {
    match command {
        EnvtestCommand::Use(args) => use_version(args),
        EnvtestCommand::List(args) => list(&args),
    }
}

fn use_version(args: UseArgs) -> Result<()> {
    let assets = match envtest::from_environment()? {
        Some(assets) => assets,
        None => {
            let store = Store::open(args.store.bin_dir.as_deref())?;
            match store.find(&args.version, &Platform::current()) {
                Some((version, dir)) => Assets::Store(version, dir),
                None if args.installed_only => bail!(
                    "Kubernetes {} is not installed in {}; run `rsbuilder envtest use {}` without --installed-only",
                    args.version,
                    store.root().display(),
                    args.version
                ),
                None => {
                    let sources = Sources {
                        index: (!args.from_source).then(|| args.index.clone()),
                        build: true,
                        work: cache_dir()?.join("envtest-src"),
                    };
                    let (version, dir) = envtest::obtain(&store, &args.version, &sources)?;
                    Assets::Store(version, dir)
                }
            }
        }
    };
    crate::outln!("{}", render(&assets, args.print)?);
    Ok(())
}

/// What `-p` prints for `assets`.
fn render(assets: &Assets, print: Print) -> Result<String> {
    let quoted = |path: &Path| format!("'{}'", path.display().to_string().replace('\'', r"'\''"));
    Ok(match (assets, print) {
        (
            Assets::Files {
                kube_apiserver,
                etcd,
            },
            Print::Env,
        ) => format!(
            "export TEST_ASSET_KUBE_APISERVER={}\nexport TEST_ASSET_ETCD={}",
            quoted(kube_apiserver),
            quoted(etcd)
        ),
        (Assets::Files { kube_apiserver, .. }, Print::Path) => match shared_dir(assets) {
            Some(dir) => dir.display().to_string(),
            None => bail!(
                "TEST_ASSET_KUBE_APISERVER ({}) and TEST_ASSET_ETCD are in different directories: print them with -p env",
                kube_apiserver.display()
            ),
        },
        (
            Assets::Files {
                kube_apiserver,
                etcd,
            },
            Print::Summary,
        ) => format!(
            "Version: (from TEST_ASSET_KUBE_APISERVER)\nkube-apiserver: {}\netcd: {}",
            kube_apiserver.display(),
            etcd.display()
        ),
        (Assets::Dir(dir) | Assets::Store(_, dir), Print::Path) => dir.display().to_string(),
        (Assets::Dir(dir) | Assets::Store(_, dir), Print::Env) => {
            format!("export KUBEBUILDER_ASSETS={}", quoted(dir))
        }
        (Assets::Dir(dir), Print::Summary) => {
            format!(
                "Version: (from KUBEBUILDER_ASSETS)\nPath: {}",
                dir.display()
            )
        }
        (Assets::Store(version, dir), Print::Summary) => {
            let platform = Platform::current();
            format!(
                "Version: {version}\nOS/Arch: {}/{}\nPath: {}",
                platform.os,
                platform.arch,
                dir.display()
            )
        }
    })
}

fn shared_dir(assets: &Assets) -> Option<PathBuf> {
    let Assets::Files {
        kube_apiserver,
        etcd,
    } = assets
    else {
        return None;
    };
    let dir = kube_apiserver.parent()?;
    (etcd.parent() == Some(dir)
        && kube_apiserver.file_name()? == "kube-apiserver"
        && etcd.file_name()? == "etcd")
        .then(|| dir.to_path_buf())
}

fn list(args: &StoreArgs) -> Result<()> {
    let store = Store::open(args.bin_dir.as_deref())?;
    let platform = Platform::current();
    let installed = store.installed(&platform);
    if installed.is_empty() {
        crate::outln!(
            "no version installed in {}; `rsbuilder envtest use` installs {DEFAULT_VERSION}",
            store.root().display()
        );
    }
    for (version, dir) in installed {
        crate::outln!("(installed)  v{version}  {platform}  {}", dir.display());
    }
    Ok(())
}

/// `$XDG_CACHE_HOME/rsbuilder`, else `~/.cache/rsbuilder`: where source builds keep their
/// Go modules.
fn cache_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(dir).join("rsbuilder"));
    }
    match std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        Some(home) => Ok(PathBuf::from(home).join(".cache/rsbuilder")),
        None => bail!("neither XDG_CACHE_HOME nor HOME is set: cannot place the source build"),
    }
}
