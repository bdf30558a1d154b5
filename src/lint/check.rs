//! What a module of rules gives the registry. It lives apart from `registry` so that the
//! rules, which the registry lists, need not import the registry back.

use super::finding::{Finding, RuleId};
use super::input::Inputs;

/// One module of rules: its ids and its entry point.
pub struct Check {
    pub name: &'static str,
    pub rules: &'static [&'static RuleId],
    pub run: fn(&Inputs, &mut Vec<Finding>),
}
