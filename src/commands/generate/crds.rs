//! `rsbuilder generate crds`: CRD manifests from the `#[derive(CustomResource)]` types.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use clap::Args;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use crate::commands::version;
use crate::context::Global;
use crate::crd::{self, emit};
use crate::project;
use crate::scaffold::Generated;
use crate::scaffold::Plan;

#[derive(Debug, Default, Args)]
pub struct CrdsArgs {
    /// Rust files or directories to read (default in a project: src/api)
    #[arg(long, num_args = 1.., value_name = "FILE|DIR")]
    pub paths: Vec<PathBuf>,
    /// Where the `<group>_<plural>.yaml` files go (default in a project: config/crd/bases)
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// Write nothing; fail when a file on disk differs from what would be written
    #[arg(long)]
    pub check: bool,
    /// Build and run the project's `crdgen` binary (kube-derive at runtime) instead of
    /// reading the source statically
    #[arg(long)]
    pub exact: bool,
    /// Features to enable on top of the crate's default ones, for `#[cfg(feature = "...")]`
    /// (comma- or space-separated, as cargo takes them)
    #[arg(long, value_name = "FEATURES", num_args = 1..)]
    pub features: Vec<String>,
}

const DEFAULT_PATHS: &str = "src/api";
const DEFAULT_OUTPUT: &str = "config/crd/bases";

/// Plans `<group>_<plural>.yaml` for every CRD of the sources.
pub fn plan(global: &Global, args: &CrdsArgs) -> Result<Generated> {
    let in_project = global.dir.join(project::FILE).is_file();
    let (paths, output_dir) = match (args.paths.is_empty(), &args.output_dir) {
        (false, Some(out)) => (args.paths.clone(), out.clone()),
        (paths_missing, out) if in_project => (
            if paths_missing {
                vec![PathBuf::from(DEFAULT_PATHS)]
            } else {
                args.paths.clone()
            },
            out.clone().unwrap_or_else(|| PathBuf::from(DEFAULT_OUTPUT)),
        ),
        _ => bail!("outside an rsbuilder project, pass both --paths and --output-dir"),
    };
    if global.dir.join(&output_dir).is_file() {
        bail!(
            "--output-dir {} is a file; name a directory",
            output_dir.display()
        );
    }
    let files = if args.exact {
        exact_crds(global, !(args.check || global.dry_run))?
    } else {
        warn_on_version_skew(global);
        static_crds(global, &paths, &args.features)?
    };

    let mut plan = Plan::new();
    for (name, yaml) in &files {
        plan.generate(output_dir.join(name), yaml.clone());
    }
    let stale = stale_files(&global.dir.join(&output_dir), &files)?;
    Ok(Generated {
        plan,
        stale: stale
            .into_iter()
            .map(|name| output_dir.join(name))
            .collect(),
        output_dir: args.output_dir.clone(),
    })
}

/// Reads the sources below `global.dir`, as part of the crate whose manifest is above
/// them; diagnostics name them relative to the directory.
fn static_crds(
    global: &Global,
    paths: &[PathBuf],
    features: &[String],
) -> Result<BTreeMap<String, String>> {
    let krate = crd::Crate::of_sources(&global.dir, paths, features)?;
    let sources = crd::collect_sources_in(&global.dir, paths)?;
    let generated = crd::generate_in(&krate, &sources).map_err(|diagnostics| {
        anyhow::anyhow!("cannot generate CRDs statically:\n{diagnostics}")
    })?;
    for w in &generated.warnings {
        global.out.say(&w.to_string());
    }
    Ok(generated.output)
}

/// The CRDs of a project's types under `src/api` (as `sources` has them), for a command
/// that scaffolded or edited `kind`.
pub fn project_crds(
    root: &Path,
    sources: &[crd::SourceFile],
    kind: &str,
) -> Result<Vec<CustomResourceDefinition>> {
    let krate = crd::Crate::of_project(root)?;
    crd::crds_in(&krate, sources)
        .map(|g| g.output)
        .map_err(|d| {
            anyhow::anyhow!(
                "cannot generate the CRD of {kind} from the Rust types under src/api:\n{d}"
            )
        })
}

/// The static generator reproduces exactly the crate versions rsbuilder links; a project
/// locked to others may get different output from kube-derive, so say so.
fn warn_on_version_skew(global: &Global) {
    let Ok(lock) = std::fs::read_to_string(global.dir.join("Cargo.lock")) else {
        return;
    };
    for (krate, expected) in version::locked_versions_differing(&lock) {
        global.out.say(&format!(
            "warning: Cargo.lock pins {krate} {expected}; rsbuilder generates CRDs statically for {krate} {}; \
             use --exact if the output differs",
            version::modelled(krate).unwrap_or("?"),
        ));
    }
}

/// Builds and runs `crdgen`; cargo's progress goes to the terminal as it builds.
///
/// Unless `writes`, nothing in the project may change (`--check`, `--dry-run`): cargo runs
/// with `--locked`, so it fails rather than write `Cargo.lock`, and builds into a temporary
/// target directory, removed afterwards (or into `CARGO_TARGET_DIR` when the user set one:
/// a cache they chose). The build is then a cold one; that is the price of a check that
/// leaves the tree as it found it.
fn exact_crds(global: &Global, writes: bool) -> Result<BTreeMap<String, String>> {
    if !global.dir.join("Cargo.toml").is_file() {
        bail!(
            "--exact runs the project's crdgen binary, but {} has no Cargo.toml",
            global.dir.display()
        );
    }
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command
        .args(["run", "--quiet", "--bin", "crdgen"])
        .current_dir(&global.dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    // Kept until cargo is done; dropping it removes the build.
    let mut _scratch = None;
    if !writes {
        command.arg("--locked");
        if std::env::var_os("CARGO_TARGET_DIR").is_none() {
            let dir = tempfile::Builder::new()
                .prefix("rsbuilder-crdgen-")
                .tempdir()
                .context("cannot create a temporary target directory for cargo")?;
            command.env("CARGO_TARGET_DIR", dir.path());
            _scratch = Some(dir);
        }
    }
    die_with_rsbuilder(&mut command);
    let mut child = command
        .spawn()
        .context("cannot run cargo; is it installed?")?;
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .context("crdgen's output is not readable")?
        .read_to_string(&mut stdout)
        .context("crdgen printed invalid UTF-8")?;
    if !child.wait()?.success() {
        if !writes {
            bail!(
                "`cargo run --locked --bin crdgen` failed (its errors are above); under --check \
                 and --dry-run cargo may not write Cargo.lock, so it must exist and be up to date"
            );
        }
        bail!("`cargo run --bin crdgen` failed (its errors are above)");
    }
    let mut crds = Vec::new();
    let documents = crate::yaml::read::documents(&stdout).context("crdgen printed invalid YAML")?;
    for value in documents {
        if !value.is_null() {
            crds.push(
                serde_yaml::from_value::<CustomResourceDefinition>(value)
                    .context("crdgen printed something that is not a CustomResourceDefinition")?,
            );
        }
    }
    emit::render(&crds)
}

/// Makes the child die with rsbuilder, even under SIGKILL, where no handler of ours runs:
/// the kernel sends it SIGKILL when the thread that spawned it ends (Linux).
#[cfg(target_os = "linux")]
fn die_with_rsbuilder(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: between fork and exec only async-signal-safe calls (prctl, getppid), and no
    // allocation.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // rsbuilder died before prctl took effect: the signal will never come.
            if libc::getppid() != parent {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_rsbuilder(_command: &mut Command) {}

/// Files in the output directory that carry rsbuilder's header but that no type produces
/// any more. They are never deleted automatically: the user may still want them.
fn stale_files(dir: &Path, files: &BTreeMap<String, String>) -> Result<Vec<String>> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut stale = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let path = entry?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if files.contains_key(&name) || !name.ends_with(".yaml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if text.starts_with(emit::HEADER) {
            stale.push(name);
        }
    }
    stale.sort();
    Ok(stale)
}
