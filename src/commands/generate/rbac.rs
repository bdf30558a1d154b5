//! `rsbuilder generate rbac`: `config/rbac/role.yaml` from the `+rsbuilder:rbac` markers.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use clap::Args;

use crate::context::Global;
use crate::crd::collect_sources_in;
use crate::project::{self, Project};
use crate::rbac;
use crate::scaffold::Generated;
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
    /// Let --output replace an existing file that is not a role rsbuilder generated
    #[arg(long)]
    pub force: bool,
}

impl Default for RbacArgs {
    /// What `generate manifests` uses: the whole crate, into the role kustomize deploys.
    fn default() -> Self {
        Self {
            paths: Vec::new(),
            output: PathBuf::from(rbac::ROLE_FILE),
            check: false,
            force: false,
        }
    }
}

/// `--output` may name any file, the user's `src/main.rs` or `PROJECT` too: the role is a
/// generated file, so it replaces only a role rsbuilder generated (or, for the default
/// output, whatever `config/rbac/role.yaml` holds, which rsbuilder owns). Anything else is
/// the user's, as scaffolded files are, and needs `--force`.
fn refuse_to_overwrite_a_users_file(full: &Path, output: &Path) -> Result<()> {
    if output == Path::new(rbac::ROLE_FILE) {
        return Ok(());
    }
    let text = match std::fs::read(full) {
        Ok(bytes) => String::from_utf8(bytes).unwrap_or_default(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        // A directory or an unreadable file: the write reports it.
        Err(_) => return Ok(()),
    };
    if rbac::is_generated_role(&text) {
        return Ok(());
    }
    bail!(
        "--output {} already exists and is not a role rsbuilder generated; rsbuilder does not \
         overwrite your files (use --force to replace it)",
        output.display()
    )
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
    if !args.check && !args.force {
        refuse_to_overwrite_a_users_file(&root.join(&args.output), &args.output)?;
    }
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
