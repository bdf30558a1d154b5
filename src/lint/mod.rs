//! `rsbuilder lint`: an offline review of an operator's API, before any cluster sees it.
//!
//! [`input`] reads every file once (YAML with positions, see [`yaml`]); each module of
//! [`rules`] checks one thing, offers itself as a [`check::Check`] and reports
//! [`Finding`]s; [`registry`] lists the rules in the order they run, the way schemars lists
//! its transforms; [`report`] prints them, sorted, as compiler diagnostics or JSON. Nothing
//! here writes a file or runs user code.

pub mod check;
pub mod finding;
pub mod input;
pub mod registry;
pub mod report;
pub mod rules;
pub mod schema;
pub mod yaml;

use std::path::Path;

use anyhow::Result;

pub use finding::{Finding, RuleId, Severity};
pub use input::{Inputs, Sources};

/// Every finding of every rule for the project at `root`, sorted by file, position and rule.
pub fn lint(root: &Path, sources: &Sources) -> Result<Vec<Finding>> {
    let inputs = Inputs::load(root, sources)?;
    Ok(check(&inputs))
}

/// Runs every rule over inputs already read.
pub fn check(inputs: &Inputs) -> Vec<Finding> {
    let mut findings = inputs.syntax.clone();
    for check in registry::CHECKS {
        (check.run)(inputs, &mut findings);
    }
    findings.sort();
    findings.dedup();
    findings
}
