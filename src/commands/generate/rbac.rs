//! `rsbuilder generate rbac`: `config/rbac/role.yaml` from the `+rsbuilder:rbac` markers.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::Generated;
use crate::cli::Global;
use crate::crd::collect_sources_in;
use crate::project::{self, Project};
use crate::rbac;
use crate::scaffold::Plan;

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

impl Default for RbacArgs {
    /// What `generate manifests` uses: the whole crate, into the role kustomize deploys.
    fn default() -> Self {
        Self {
            paths: Vec::new(),
            output: PathBuf::from(rbac::ROLE_FILE),
            check: false,
        }
    }
}

/// Plans `config/rbac/role.yaml` (or `--output`) from the markers of the sources.
pub fn plan(global: &Global, args: &RbacArgs) -> Result<Generated> {
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
        args.paths.clone()
    };
    let sources = collect_sources_in(root, &paths)?;
    let mut plan = Plan::new();
    plan.generate(&args.output, rbac::role_yaml(&sources, namespaced)?);
    // A file the user named may lie anywhere, outside the project too.
    let named = args.output != std::path::Path::new(rbac::ROLE_FILE);
    Ok(Generated {
        plan,
        stale: Vec::new(),
        output_dir: named.then(|| args.output.parent().unwrap_or(&args.output).to_path_buf()),
    })
}
