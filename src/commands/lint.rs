//! `rsbuilder lint`: review the operator's API offline (see `crate::lint`).

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::{Args, ValueEnum};

use crate::context::Global;
use crate::lint::{self, Severity, Sources, registry, report};

#[derive(Debug, Args)]
pub struct LintArgs {
    /// How to print the findings
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Fail on warnings too (`--deny warnings`)
    #[arg(long, value_enum, value_name = "LEVEL")]
    pub deny: Option<Deny>,
    /// Print what a rule checks, and exit
    #[arg(long, value_name = "RULE")]
    pub explain: Option<String>,
    /// The CRDs to check [default: config/crd/bases]
    #[arg(long, value_name = "DIR")]
    pub crds: Option<PathBuf>,
    /// The samples to check against them [default: config/samples]
    #[arg(long, value_name = "DIR")]
    pub samples: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Deny {
    Warnings,
}

pub fn run(global: &Global, args: LintArgs) -> Result<()> {
    if let Some(id) = &args.explain {
        return explain(id);
    }
    let sources = Sources {
        crds: args.crds,
        samples: args.samples,
    };
    let findings = lint::lint(&global.dir, &sources)?;
    match args.format {
        Format::Json => crate::out!("{}", report::json(&findings)),
        Format::Human if findings.is_empty() && global.out.quiet => {}
        Format::Human => crate::out!("{}", report::human(&findings, global.out.colour)),
    }
    let counts = report::count(&findings);
    let failing = counts.errors
        + if args.deny == Some(Deny::Warnings) {
            counts.warnings
        } else {
            0
        };
    if failing > 0 {
        bail!(
            "lint failed: {}",
            &report::summary(counts)["lint: ".len()..]
        );
    }
    Ok(())
}

fn explain(id: &str) -> Result<()> {
    match registry::find(id) {
        Some(rule) => {
            let level = match rule.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            crate::outln!("{} ({level}): {}", rule.id, rule.summary);
            Ok(())
        }
        None => {
            let ids: Vec<&str> = registry::all().map(|r| r.id).collect();
            bail!("no lint rule {id:?}; the rules are {}", ids.join(", "))
        }
    }
}
