//! `rsbuilder generate webhooks`: `config/webhook/manifests.yaml` from the webhooks the
//! PROJECT file records, and the files of its `webhookCerts` mode (`webhook::certs`).

use anyhow::Result;
use clap::Args;

use crate::context::Global;
use crate::project::Project;
use crate::scaffold::Generated;
use crate::scaffold::{DiskTree, Plan, Renderer};
use crate::webhook::{certs, manifests};

#[derive(Debug, Args)]
pub struct WebhooksArgs {
    /// Write nothing; fail when the manifests on disk are out of date (for CI)
    #[arg(long)]
    pub check: bool,
}

/// Plans `config/webhook/manifests.yaml`; `None` when the project has no admission
/// webhooks and never had the file.
pub fn plan(global: &Global) -> Result<Option<Generated>> {
    let project = Project::load(&global.dir)?;
    let file = manifests::FILE;
    if !manifests::any(&project) && !global.dir.join(file).exists() {
        return Ok(None);
    }
    let mut plan = Plan::new();
    plan.generate(file, manifests::render(&project)?);
    // Only where they were generated before: an older project keeps its certificate's
    // config under config/certmanager, its own files.
    if certs::any(&project) && global.dir.join(certs::DIR).is_dir() {
        certs::plan(
            &mut plan,
            &Renderer::new()?,
            &project,
            &DiskTree::new(&global.dir),
        )?;
    }
    Ok(Some(Generated {
        plan,
        stale: Vec::new(),
        output_dir: None,
    }))
}
