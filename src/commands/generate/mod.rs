//! `rsbuilder generate ...`: rewrite the files rsbuilder owns from the Rust source and
//! PROJECT. Each generator only plans; [`finish`] checks or writes, the same way for all.

pub mod crds;
pub mod helm;
pub mod rbac;
pub mod runtime;
pub mod webhooks;

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::{Args, Subcommand};

use crate::commands::write_plan_to;
use crate::context::Global;
use crate::project::{Project, RuntimeSource};
use crate::scaffold::{DiskTree, Generated, Plan};

#[derive(Debug, Subcommand)]
pub enum GenerateCommand {
    /// Write CustomResourceDefinitions from the `#[derive(CustomResource)]` types
    #[command(after_help = "Examples:\n  \
        rsbuilder generate crds                  # in a project: src/api -> config/crd/bases\n  \
        rsbuilder generate crds --check          # in CI: fail when a manifest is stale\n  \
        rsbuilder generate crds --paths src/types.rs --output-dir out")]
    Crds(crds::CrdsArgs),
    /// Write config/rbac/role.yaml from the `// +rsbuilder:rbac:...` markers of the code
    #[command(after_help = "Examples:\n  \
        rsbuilder generate rbac                  # in a project: src -> config/rbac/role.yaml\n  \
        rsbuilder generate rbac --check          # in CI: fail when the role is stale")]
    Rbac(rbac::RbacArgs),
    /// Write config/webhook/manifests.yaml from the webhooks recorded in PROJECT
    #[command(after_help = "Examples:\n  \
        rsbuilder generate webhooks              # PROJECT -> config/webhook/manifests.yaml\n  \
        rsbuilder generate webhooks --check      # in CI: fail when the manifests are stale")]
    Webhooks(webhooks::WebhooksArgs),
    /// Write rsbuilder-runtime/, the project's copy of the runtime crate, as this rsbuilder has it
    #[command(after_help = "Examples:\n  \
        rsbuilder generate runtime               # after upgrading rsbuilder\n  \
        rsbuilder generate runtime --check       # in CI: fail when the copy was edited or is older")]
    Runtime(runtime::RuntimeArgs),
    /// Write dist/chart, the operator's Helm chart, from what kustomize renders of config/default
    #[command(after_help = "Examples:\n  \
        rsbuilder generate helm                  # config/ -> dist/chart (after `rsbuilder edit --helm`)\n  \
        rsbuilder generate helm --check          # in CI: fail when the chart is stale")]
    Helm(helm::HelmArgs),
    /// CRDs, RBAC, webhook manifests, the runtime copy and the chart in one pass, written together or not at all
    #[command(after_help = "Examples:\n  \
        rsbuilder generate manifests             # what `make manifests` runs\n  \
        rsbuilder generate manifests --check     # in CI: fail when a committed manifest is stale")]
    Manifests(ManifestsArgs),
}

#[derive(Debug, Args)]
pub struct ManifestsArgs {
    /// Write nothing; fail when a file on disk differs from what would be written
    #[arg(long)]
    pub check: bool,
}

pub fn run(global: &Global, command: GenerateCommand) -> Result<()> {
    match command {
        GenerateCommand::Crds(args) => {
            let planned = crds::plan(global, &args)?;
            finish(global, planned, args.check, "generate crds")
        }
        GenerateCommand::Rbac(args) => {
            let planned = rbac::plan(global, &args)?;
            finish(global, planned, args.check, "generate rbac")
        }
        GenerateCommand::Webhooks(args) => match webhooks::plan(global)? {
            Some(planned) => finish(global, planned, args.check, "generate webhooks"),
            None => {
                global
                    .out
                    .say("no defaulting or validating webhooks in PROJECT; nothing to generate");
                Ok(())
            }
        },
        GenerateCommand::Runtime(args) => {
            let planned = runtime::plan(global)?;
            finish(global, planned, args.check, "generate runtime")
        }
        GenerateCommand::Helm(args) => {
            let planned = helm::plan(global, &Plan::new())?;
            finish(global, planned, args.check, "generate helm")
        }
        GenerateCommand::Manifests(args) => {
            // Only `generate crds` and `generate rbac` take paths outside a project.
            let project = Project::load(&global.dir)?;
            let mut planned = crds::plan(global, &crds::CrdsArgs::default())?;
            planned.extend(rbac::plan(global, &rbac::RbacArgs::default())?);
            if let Some(webhooks) = webhooks::plan(global)? {
                planned.extend(webhooks);
            }
            // A project from before the runtime crate has no copy to refresh.
            if project.runtime == RuntimeSource::Registry
                || global.dir.join(crate::runtime_crate::DIR).is_dir()
            {
                planned.extend(runtime::plan(global)?);
            }
            // The chart is made from config/ as this same pass leaves it.
            if project.helm {
                let chart = crate::helm::plan(&global.dir, &project, &planned.plan)?;
                planned.extend(chart);
            }
            finish(global, planned, args.check, "generate manifests")
        }
    }
}

/// Names the files nothing generates any more, for the user to delete (rsbuilder deletes
/// no files).
pub fn warn_stale(global: &Global, stale: &[PathBuf]) {
    for path in stale {
        global.out.say(&format!(
            "warning: {} is no longer generated; delete it",
            path.display()
        ));
    }
}

/// `--check`: fail listing every file that differs, is missing or is stale. Otherwise write
/// the plan and warn about stale files.
fn finish(global: &Global, generated: Generated, check: bool, command: &str) -> Result<()> {
    if !check {
        let tree = match &generated.output_dir {
            Some(dir) => DiskTree::new(&global.dir).writing_under(dir),
            None => DiskTree::new(&global.dir),
        };
        write_plan_to(global, tree, &generated.plan, false)?;
        warn_stale(global, &generated.stale);
        return Ok(());
    }
    let changes = generated.plan.resolve(&DiskTree::new(&global.dir), false)?;
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
        generated
            .stale
            .iter()
            .map(|p| format!("{} (no longer generated)", p.display())),
    );
    if problems.is_empty() {
        global.out.say("generated files are up to date");
        return Ok(());
    }
    bail!(
        "generated files are out of date; run `rsbuilder {command}`:\n  {}",
        problems.join("\n  ")
    )
}
