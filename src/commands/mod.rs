//! One module per command. Each validates its input, builds a plan, and hands it to
//! [`write_plan`]; [`hold`] keeps other rsbuilder processes out meanwhile.

pub mod alpha;
pub mod create;
pub mod edit;
pub mod envtest;
pub mod generate;
pub mod init;
pub mod lint;
pub mod version;

use std::path::PathBuf;

use anyhow::Result;

use crate::cli::{Command, Global};
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

/// Holds the directory `command` reads and writes for its whole run, from its first read
/// to its last write. A command that writes holds it exclusively and first undoes what an
/// interrupted run left; one that only reads (`--dry-run`, `--check`, the input of
/// `alpha generate`) holds it shared and refuses a half-written tree.
pub fn hold(command: &Command, global: &Global) -> Result<Option<Guard>> {
    let Some((dir, access)) = access(command, global) else {
        return Ok(None);
    };
    let guard = lock::acquire(&dir, access, global.out.quiet)?;
    let tree = DiskTree::new(&dir);
    match access {
        Access::Write => {
            for message in tree.recover()? {
                crate::errln!("{message}");
            }
        }
        Access::Read => tree.refuse_half_written()?,
    }
    Ok(Some(guard))
}

fn access(command: &Command, global: &Global) -> Option<(PathBuf, Access)> {
    use generate::GenerateCommand as G;
    let writes = |check: bool| {
        if check || global.dry_run {
            Access::Read
        } else {
            Access::Write
        }
    };
    let access = match command {
        Command::Init(_) | Command::Create(_) | Command::Edit(_) => writes(false),
        Command::Generate(G::Crds(args)) => writes(args.check),
        Command::Generate(G::Rbac(args)) => writes(args.check),
        Command::Generate(G::Webhooks(args)) => writes(args.check),
        Command::Generate(G::Runtime(args)) => writes(args.check),
        Command::Generate(G::Helm(args)) => writes(args.check),
        Command::Generate(G::Manifests(args)) => writes(args.check),
        // It writes only into a new directory of its own; the project is its input.
        Command::Alpha(alpha::AlphaCommand::Generate(args)) => {
            let input = args.input_dir.clone().unwrap_or_else(|| ".".into());
            return Some((global.dir.join(input), Access::Read));
        }
        // It only reads; `--explain` reads nothing.
        Command::Lint(args) if args.explain.is_some() => return None,
        Command::Lint(_) => Access::Read,
        // It works in its own store, never in the project.
        Command::Envtest(_) | Command::Completion { .. } | Command::Version => return None,
    };
    Some((global.dir.clone(), access))
}
