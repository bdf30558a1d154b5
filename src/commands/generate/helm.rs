//! `rsbuilder generate helm`: `dist/chart/` from what kustomize renders of `config/default`
//! (see `crate::helm`).

use anyhow::{Result, bail};
use clap::Args;

use crate::context::Global;
use crate::project::Project;
use crate::scaffold::Generated;
use crate::scaffold::Plan;

#[derive(Debug, Args)]
pub struct HelmArgs {
    /// Write nothing; fail when the chart on disk is out of date (for CI)
    #[arg(long)]
    pub check: bool,
}

/// Plans the chart as `pending` leaves `config/`.
pub fn plan(global: &Global, pending: &Plan) -> Result<Generated> {
    let project = Project::load(&global.dir)?;
    if !project.helm {
        bail!("this project has no Helm chart; `rsbuilder edit --helm` adds one (dist/chart)");
    }
    crate::helm::plan(&global.dir, &project, pending)
}
