//! `rsbuilder generate ...`: rewrite the generated files from the Rust source.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde::Deserialize;

use crate::cli::Global;
use crate::commands::{version, write_plan};
use crate::crd::{self, emit};
use crate::project;
use crate::scaffold::{DiskTree, Plan};

#[derive(Debug, Subcommand)]
pub enum GenerateCommand {
    /// Write CustomResourceDefinitions from the `#[derive(CustomResource)]` types
    #[command(after_help = "Examples:\n  \
        rsbuilder generate crds                  # in a project: src/api -> config/crd/bases\n  \
        rsbuilder generate crds --check          # in CI: fail when a manifest is stale\n  \
        rsbuilder generate crds --paths src/types.rs --output-dir out")]
    Crds(CrdsArgs),
    /// Write config/rbac/role.yaml from the `// +rsbuilder:rbac:...` markers of the code
    #[command(after_help = "Examples:\n  \
        rsbuilder generate rbac                  # in a project: src -> config/rbac/role.yaml\n  \
        rsbuilder generate rbac --check          # in CI: fail when the role is stale")]
    Rbac(crate::commands::generate_rbac::RbacArgs),
    /// Write config/webhook/manifests.yaml from the webhooks recorded in PROJECT
    #[command(after_help = "Examples:\n  \
        rsbuilder generate webhooks              # PROJECT -> config/webhook/manifests.yaml\n  \
        rsbuilder generate webhooks --check      # in CI: fail when the manifests are stale")]
    Webhooks(crate::commands::generate_webhooks::WebhooksArgs),
}

#[derive(Debug, Args)]
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
}

pub fn run(global: &Global, command: GenerateCommand) -> Result<()> {
    match command {
        GenerateCommand::Crds(args) => crds(global, args),
        GenerateCommand::Rbac(args) => crate::commands::generate_rbac::run(global, args),
        GenerateCommand::Webhooks(args) => crate::commands::generate_webhooks::run(global, args),
    }
}

const DEFAULT_PATHS: &str = "src/api";
const DEFAULT_OUTPUT: &str = "config/crd/bases";

fn crds(global: &Global, args: CrdsArgs) -> Result<()> {
    let in_project = global.dir.join(project::FILE).is_file();
    let (paths, output_dir) = match (args.paths.is_empty(), args.output_dir) {
        (false, Some(out)) => (args.paths, out),
        (paths_missing, out) if in_project => (
            if paths_missing {
                vec![PathBuf::from(DEFAULT_PATHS)]
            } else {
                args.paths
            },
            out.unwrap_or_else(|| PathBuf::from(DEFAULT_OUTPUT)),
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
        exact_crds(global)?
    } else {
        warn_on_version_skew(global);
        static_crds(&paths)?
    };

    let mut plan = Plan::new();
    for (name, yaml) in &files {
        plan.generate(output_dir.join(name), yaml.clone());
    }
    let stale = stale_files(&global.dir.join(&output_dir), &files)?;
    if args.check {
        return check(global, &plan, &output_dir, &stale);
    }
    write_plan(global, &plan, false)?;
    for name in stale {
        global.out.say(&format!(
            "warning: {} is no longer generated from any type; delete it",
            output_dir.join(name).display()
        ));
    }
    Ok(())
}

fn static_crds(paths: &[PathBuf]) -> Result<BTreeMap<String, String>> {
    let sources = crd::collect_sources(paths)?;
    crd::generate(&sources)
        .map_err(|diagnostics| anyhow::anyhow!("cannot generate CRDs statically:\n{diagnostics}"))
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
fn exact_crds(global: &Global) -> Result<BTreeMap<String, String>> {
    if !global.dir.join("Cargo.toml").is_file() {
        bail!(
            "--exact runs the project's crdgen binary, but {} has no Cargo.toml",
            global.dir.display()
        );
    }
    let mut child = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["run", "--quiet", "--bin", "crdgen"])
        .current_dir(&global.dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
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
        bail!("`cargo run --bin crdgen` failed (its errors are above)");
    }
    let mut crds = Vec::new();
    for document in serde_yaml::Deserializer::from_str(&stdout) {
        let value =
            serde_yaml::Value::deserialize(document).context("crdgen printed invalid YAML")?;
        if !value.is_null() {
            crds.push(
                serde_yaml::from_value::<CustomResourceDefinition>(value)
                    .context("crdgen printed something that is not a CustomResourceDefinition")?,
            );
        }
    }
    emit::render(&crds)
}

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

fn check(global: &Global, plan: &Plan, output_dir: &Path, stale: &[String]) -> Result<()> {
    let changes = plan.resolve(&DiskTree::new(&global.dir), false)?;
    let mut problems: Vec<String> = changes
        .iter()
        .map(|c| {
            let what = if c.old.is_some() {
                "differs"
            } else {
                "missing"
            };
            format!("{} ({what})", c.path.display())
        })
        .collect();
    problems.extend(
        stale
            .iter()
            .map(|name| format!("{} (no longer generated)", output_dir.join(name).display())),
    );
    if problems.is_empty() {
        global.out.say("CRD manifests are up to date");
        return Ok(());
    }
    bail!(
        "CRD manifests are out of date; run `rsbuilder generate crds`:\n  {}",
        problems.join("\n  ")
    )
}
