//! `rsbuilder generate rbac`: `config/rbac/role.yaml` from the `+rsbuilder:rbac` markers.

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::Args;

use crate::cli::Global;
use crate::commands::write_plan;
use crate::crd::{SourceFile, collect_sources};
use crate::project::{self, Project};
use crate::rbac;
use crate::scaffold::{DiskTree, Plan};

#[derive(Debug, Args)]
pub struct RbacArgs {
    /// Rust files or directories to read the markers from [default: src]
    #[arg(long, num_args = 1.., value_name = "FILE|DIR")]
    pub paths: Vec<PathBuf>,
    /// Where to write the role
    #[arg(long, value_name = "FILE", default_value = rbac::ROLE_FILE)]
    pub output: PathBuf,
    /// Write nothing; fail when the role on disk is out of date (for CI)
    #[arg(long)]
    pub check: bool,
}

pub fn run(global: &Global, args: RbacArgs) -> Result<()> {
    let root = &global.dir;
    // A Role instead of a ClusterRole for `--namespaced` projects.
    let namespaced = if root.join(project::FILE).exists() {
        Project::load(root)?.namespaced
    } else {
        false
    };
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("src")]
    } else {
        args.paths
    };
    let sources: Vec<SourceFile> =
        collect_sources(&paths.iter().map(|p| root.join(p)).collect::<Vec<_>>())?
            .into_iter()
            .map(|s| SourceFile {
                path: s
                    .path
                    .strip_prefix(root)
                    .map(PathBuf::from)
                    .unwrap_or(s.path),
                text: s.text,
            })
            .collect();
    let mut plan = Plan::new();
    plan.generate(&args.output, rbac::role_yaml(&sources, namespaced)?);
    if args.check {
        let changes = plan.resolve(&DiskTree::new(root), false)?;
        if !changes.is_empty() {
            bail!(
                "{} is out of date with the RBAC markers; run `rsbuilder generate rbac`",
                args.output.display()
            );
        }
        global
            .out
            .say(&format!("{} is up to date", args.output.display()));
        return Ok(());
    }
    write_plan(global, &plan, false)
}
