//! Kinds of one group whose names clash (`crate::names::clash`): kube-derive writes each
//! CRD as asked, but the API server would not serve the second one (`NamesAccepted=False`),
//! and two kinds with one plural would even share one output file. Refused at the later
//! kind, in source order, naming the earlier one.

use std::collections::BTreeMap;

use super::assemble::Built;
use super::diagnostics::Diagnostic;
use crate::names::clash::{self, KindNames, Role};

/// A refusal per clash among the kinds of each group. All versions of a kind count once,
/// with the names of its first version in source order (their names must agree anyway,
/// which `merge` checks).
pub fn refusals(built: &[Built]) -> Vec<Diagnostic> {
    let mut kinds: BTreeMap<&str, Vec<&Built>> = BTreeMap::new();
    let mut ordered: Vec<&Built> = built.iter().collect();
    ordered.sort_by_key(|b| (b.path.clone(), b.span.start().line, b.span.start().column));
    for b in ordered {
        let group = kinds.entry(b.crd.spec.group.as_str()).or_default();
        if !group
            .iter()
            .any(|k| k.crd.spec.names.kind == b.crd.spec.names.kind)
        {
            group.push(b);
        }
    }
    let mut out = Vec::new();
    for (group, kinds) in kinds {
        let names: Vec<KindNames> = kinds
            .iter()
            .map(|k| KindNames::of_crd(&k.crd.spec.names))
            .collect();
        for c in clash::in_group(&names) {
            let (later, earlier) = (kinds[c.later], kinds[c.earlier]);
            let kind = &names[c.later].kind;
            let consequence = if c.clash.role == Role::Plural && c.clash.theirs == Role::Plural {
                format!(
                    "both would be the one CRD {}.{group} (and one file), so one kind would vanish",
                    c.clash.name
                )
            } else {
                format!("the API server would not serve {kind} (NamesAccepted=False)")
            };
            out.push(Diagnostic::at(
                &later.path,
                later.span,
                format!(
                    "{} (in {group}, {}:{}); {consequence}: choose another name",
                    c.clash.describe(kind, &names[c.earlier].kind),
                    earlier.path.display(),
                    earlier.span.start().line,
                ),
            ));
        }
    }
    out
}
