//! `rsbuilder generate runtime`: the project's `rsbuilder-runtime` brought to this
//! rsbuilder's: the copy as this rsbuilder embeds it (files of the copy that this version
//! no longer has are stale), or the registry version it pins.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;

use crate::context::Global;
use crate::project::{Project, RuntimeSource};
use crate::runtime_crate;
use crate::scaffold::Generated;
use crate::scaffold::Plan;

#[derive(Debug, Args)]
pub struct RuntimeArgs {
    /// Write nothing; fail when the copy was edited or is older than this rsbuilder, or the
    /// registry version is not this rsbuilder's (for CI)
    #[arg(long)]
    pub check: bool,
}

/// Plans the whole copy and the dependency on it, or the pinned registry version.
pub fn plan(global: &Global) -> Result<Generated> {
    let project = Project::load(&global.dir)?;
    let mut plan = Plan::new();
    runtime_crate::plan(&mut plan, project.runtime);
    let mut stale = Vec::new();
    if project.runtime == RuntimeSource::Vendored {
        let written: BTreeSet<PathBuf> = runtime_crate::files()
            .into_iter()
            .map(|(path, _)| path.into())
            .collect();
        collect_stale(
            &global.dir,
            Path::new(runtime_crate::DIR),
            &written,
            &mut stale,
        );
        stale.sort();
    }
    Ok(Generated {
        plan,
        stale,
        output_dir: None,
    })
}

/// The files under `dir` (relative to `root`) that the copy no longer holds. Symbolic
/// links are not followed: they are reported, not read.
fn collect_stale(root: &Path, dir: &Path, written: &BTreeSet<PathBuf>, stale: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return;
    };
    for entry in entries.flatten() {
        let path = dir.join(entry.file_name());
        let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
        if is_dir {
            collect_stale(root, &path, written, stale);
        } else if !written.contains(&path) {
            stale.push(path);
        }
    }
}
