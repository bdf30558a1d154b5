//! One module per command. Each turns its input into a valid request, builds a plan, and
//! hands it to [`write_plan`]; [`hold`] keeps other rsbuilder processes out meanwhile.

pub mod alpha;
pub mod create;
pub mod edit;
pub mod envtest;
pub mod generate;
pub mod init;
pub mod lint;
pub mod version;

use std::path::Path;

use anyhow::Result;

use crate::context::Global;
use crate::lock::{self, Access, Guard};
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

/// Holds `dir` for a command's whole run, from its first read to its last write (`cli`
/// says which directory each command reads and writes, and how). A command that writes
/// holds it exclusively and first undoes what an interrupted run left; one that only reads
/// (`--dry-run`, `--check`, the input of `alpha generate`) holds it shared and refuses a
/// half-written tree.
pub fn hold(dir: &Path, access: Access, global: &Global) -> Result<Guard> {
    let guard = lock::acquire(dir, access, global.out.quiet)?;
    let tree = DiskTree::new(dir);
    match access {
        Access::Write => {
            for message in tree.recover()? {
                crate::errln!("{message}");
            }
        }
        Access::Read => tree.refuse_half_written()?,
    }
    Ok(guard)
}
