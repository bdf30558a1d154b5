//! `rsbuilder generate webhooks`: `config/webhook/manifests.yaml` from the webhooks the
//! PROJECT file records.

use anyhow::{Result, bail};
use clap::Args;

use crate::cli::Global;
use crate::commands::write_plan;
use crate::project::Project;
use crate::scaffold::{DiskTree, Plan};
use crate::webhook::manifests;

#[derive(Debug, Args)]
pub struct WebhooksArgs {
    /// Write nothing; fail when the manifests on disk are out of date (for CI)
    #[arg(long)]
    pub check: bool,
}

pub fn run(global: &Global, args: WebhooksArgs) -> Result<()> {
    let project = Project::load(&global.dir)?;
    let file = manifests::FILE;
    if !manifests::any(&project) && !global.dir.join(file).exists() {
        global
            .out
            .say("no defaulting or validating webhooks in PROJECT; nothing to generate");
        return Ok(());
    }
    let mut plan = Plan::new();
    plan.generate(file, manifests::render(&project)?);
    if args.check {
        let changes = plan.resolve(&DiskTree::new(&global.dir), false)?;
        if !changes.is_empty() {
            bail!("{file} is out of date with PROJECT; run `rsbuilder generate webhooks`");
        }
        global.out.say(&format!("{file} is up to date"));
        return Ok(());
    }
    write_plan(global, &plan, false)
}
