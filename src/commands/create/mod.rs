//! `rsbuilder create ...`: grow a project by an API (kind, version, controller).

pub mod api;
pub mod builtin;
mod group_names;
pub mod source;
pub mod webhook;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Result;

use super::generate::warn_stale;
use super::write_plan;
use crate::context::Global;
use crate::crd::SourceFile;
use crate::project::Project;
use crate::scaffold::{Change, Plan, Tree};

pub(crate) const API_MOD: &str = "src/api/mod.rs";
pub(crate) const CONTROLLERS_MOD: &str = "src/controllers/mod.rs";
/// The envtest test binary (a real API server) that `init` scaffolds.
pub(crate) const ENVTEST_MAIN: &str = "tests/envtest/main.rs";

/// Whether the project has the envtest test binary: projects scaffolded before rsbuilder
/// wrote one get no envtest tests added.
pub(crate) fn envtest_scaffolded(tree: &dyn Tree) -> Result<bool> {
    Ok(tree.read(Path::new(ENVTEST_MAIN))?.is_some())
}

/// A plan and what to tell the user once it is written.
pub struct Planned {
    pub plan: Plan,
    pub next: String,
}

impl Planned {
    /// Writes the plan, with the project's chart kept in step (`helm::follow`), then names
    /// what is stale and what to do next.
    pub fn write(self, global: &Global, project: &Project, force: bool) -> Result<()> {
        let mut plan = self.plan;
        let stale = crate::helm::follow(&global.dir, project, &mut plan)?;
        write_plan(global, &plan, force)?;
        warn_stale(global, &stale);
        if !global.dry_run {
            global.out.say(&self.next);
        }
        Ok(())
    }
}

/// Every `.rs` file under `root/dir`, with paths relative to `root`, sorted; then `changes`
/// (a resolved plan) laid over them, so generators see the tree as it will be.
pub fn sources_with(root: &Path, dir: &str, changes: &[Change]) -> Result<Vec<SourceFile>> {
    let mut files = BTreeMap::new();
    if root.join(dir).is_dir() {
        for source in crate::crd::collect_sources_in(root, &[PathBuf::from(dir)])? {
            files.insert(source.path, source.text);
        }
    }
    for change in changes {
        if change.path.starts_with(dir) && change.path.extension().is_some_and(|e| e == "rs") {
            match &change.new {
                Some(text) => files.insert(change.path.clone(), text.clone()),
                None => files.remove(&change.path),
            };
        }
    }
    Ok(files
        .into_iter()
        .map(|(path, text): (PathBuf, String)| SourceFile { path, text })
        .collect())
}
