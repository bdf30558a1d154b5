//! The names of the project's CRDs against each other and against Kubernetes' built-in
//! short names, by the rule `create api` and `generate crds` follow (`crate::names::clash`):
//! a name another CRD of the group claims means the API server never serves one of the two
//! (an error); a short name of a built-in resource is served but `kubectl get <short name>`
//! reaches the built-in one (a warning).

use crate::lint::check::Check;
use crate::lint::finding::{Finding, RuleId, Severity};
use crate::lint::input::{Crd, Inputs, str_at};
use crate::lint::yaml::Node;
use crate::names::clash::{self, KindNames, Role};

pub static CRD_NAME_CLASH: RuleId = RuleId {
    id: "crd-name-clash",
    severity: Severity::Error,
    summary: "no name of a CRD (plural, singular, short names, kind, list kind) is claimed by another CRD of its group; the API server would not serve it (NamesAccepted=False)",
};

pub static SHORT_NAME_BUILT_IN: RuleId = RuleId {
    id: "short-name-built-in",
    severity: Severity::Warning,
    summary: "no short name of a CRD is one of a built-in resource, which kubectl resolves first",
};

pub static CHECK: Check = Check {
    name: "names",
    rules: &[&CRD_NAME_CLASH, &SHORT_NAME_BUILT_IN],
    run,
};

/// `spec.names` of a CRD as the clash rule reads it (defaults applied as the API server
/// applies them).
fn names_of(crd: &Crd<'_>) -> KindNames {
    let names = crd.doc.at(&["spec", "names"]);
    let text = |key: &str| names.map(|n| str_at(n, &[key])).unwrap_or_default();
    let short_names = short_name_nodes(crd)
        .map(|n| n.as_str().unwrap_or_default().to_string())
        .collect();
    let mut out = KindNames::new(text("kind"), text("plural"), short_names);
    if !text("singular").is_empty() {
        out.singular = text("singular").to_string();
    }
    if !text("listKind").is_empty() {
        out.list_kind = text("listKind").to_string();
    }
    out
}

fn short_name_nodes<'a>(crd: &Crd<'a>) -> impl Iterator<Item = &'a Node> {
    crd.doc
        .at(&["spec", "names", "shortNames"])
        .map(Node::as_seq)
        .unwrap_or_default()
        .iter()
}

/// Where the finding about `role` `name` of `crd` points: the name in `spec.names`.
fn node_of<'a>(crd: &Crd<'a>, role: Role, name: &str) -> &'a Node {
    let key = match role {
        Role::Plural => "plural",
        Role::Singular => "singular",
        Role::Kind => "kind",
        Role::ListKind => "listKind",
        Role::ShortName => {
            return short_name_nodes(crd)
                .find(|n| n.as_str() == Some(name))
                .unwrap_or(crd.doc);
        }
    };
    // Singular and list kind default from the kind when the CRD leaves them out.
    let names = ["spec", "names"];
    crd.doc
        .at(&[names[0], names[1], key])
        .or_else(|| crd.doc.at(&[names[0], names[1], "kind"]))
        .unwrap_or(crd.doc)
}

fn run(inputs: &Inputs, out: &mut Vec<Finding>) {
    let crds = inputs.crds();
    let mut groups: Vec<&str> = crds.iter().map(|c| c.group.as_str()).collect();
    groups.sort();
    groups.dedup();
    for group in groups {
        // In file order: the later file's CRD gets the finding, naming the earlier one.
        let in_group: Vec<&Crd<'_>> = crds.iter().filter(|c| c.group == group).collect();
        let names: Vec<KindNames> = in_group.iter().map(|c| names_of(c)).collect();
        for c in clash::in_group(&names) {
            let (later, earlier) = (in_group[c.later], in_group[c.earlier]);
            let node = node_of(later, c.clash.role, &c.clash.name);
            out.push(
                CRD_NAME_CLASH
                    .at(
                        &later.file.path,
                        node.pos,
                        format!(
                            "{} ({}); the API server would not serve one of them (NamesAccepted=False)",
                            c.clash.describe(&names[c.later].kind, &names[c.earlier].kind),
                            earlier.file.path.display()
                        ),
                    )
                    .hint("rename one kind, or set another `plural`/`shortname` in its #[kube(...)], and run `make manifests`"),
            );
        }
    }
    for crd in &crds {
        for node in short_name_nodes(crd) {
            let Some(resource) = node.as_str().and_then(clash::built_in_short_name) else {
                continue;
            };
            out.push(
                SHORT_NAME_BUILT_IN
                    .at(
                        &crd.file.path,
                        node.pos,
                        format!(
                            "short name {:?} of {} is the short name of Kubernetes' {resource}, which `kubectl get {}` reaches instead",
                            node.as_str().unwrap_or_default(),
                            crd.kind,
                            node.as_str().unwrap_or_default()
                        ),
                    )
                    .hint("choose another `shortname` in its #[kube(...)] and run `make manifests`"),
            );
        }
    }
}
