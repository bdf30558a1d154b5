//! One module per command. Each validates its input, builds a plan, and hands it to
//! [`write_plan`].

pub mod alpha;
pub mod create;
pub mod edit;
pub mod generate;
pub mod init;
pub mod version;

use anyhow::Result;

use crate::cli::Global;
use crate::scaffold::{DiskTree, Plan, Tree, print_changes};

/// Resolves the plan against the project on disk, then prints it (`--dry-run`) or writes it.
pub fn write_plan(global: &Global, plan: &Plan, force: bool) -> Result<()> {
    write_plan_to(global, DiskTree::new(&global.dir), plan, force)
}

/// [`write_plan`] into a tree of the caller's choosing (an output directory the user named).
pub fn write_plan_to(global: &Global, mut tree: DiskTree, plan: &Plan, force: bool) -> Result<()> {
    let changes = plan.resolve(&tree, force)?;
    if !global.dry_run {
        tree.apply(&changes)?;
    }
    print_changes(&global.out, &changes, global.dry_run);
    Ok(())
}
