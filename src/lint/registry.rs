//! The rules, in the order they run; each module of `rules/` owns its ids.

use super::check::Check;
use super::finding::{Finding, RuleId};
use super::input::{self, Inputs};
use super::rules;

fn no_check(_: &Inputs, _: &mut Vec<Finding>) {}

/// Every check, in order. Findings are sorted afterwards, so the order only groups the
/// work.
pub static CHECKS: &[&Check] = &[
    &INPUT,
    &rules::samples::CHECK,
    &rules::cel::CHECK,
    &rules::columns::CHECK,
    &rules::versions::CHECK,
    &rules::size::CHECK,
    &rules::names::CHECK,
    &rules::rbac::CHECK,
    &rules::manifests::CHECK,
];

/// Files that do not parse are reported while reading them.
static INPUT: Check = Check {
    name: "input",
    rules: &[&input::YAML_SYNTAX],
    run: no_check,
};

/// Every rule id, in registry order.
pub fn all() -> impl Iterator<Item = &'static RuleId> {
    CHECKS.iter().flat_map(|c| c.rules.iter().copied())
}

/// The rule called `id`.
pub fn find(id: &str) -> Option<&'static RuleId> {
    all().find(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_ids_are_unique_kebab_case_with_a_summary() {
        let mut seen = std::collections::BTreeSet::new();
        for rule in all() {
            assert!(seen.insert(rule.id), "{} twice", rule.id);
            assert!(
                rule.id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{}",
                rule.id
            );
            assert!(!rule.summary.is_empty() && !rule.summary.contains('\n'));
        }
    }
}
