//! The names a new kind takes in its group, checked before anything is rendered against
//! every other kind of the group (`names::clash`, the API server's naming rule) and its
//! derived short name also against Kubernetes' built-in ones (which kubectl resolves first).
//! A clash of the kind, list kind, plural or singular is refused: the second CRD would get
//! `NamesAccepted=False` and never be served. A derived short name that clashes is only a
//! convenience rsbuilder chose, so it is dropped with a note.

use std::path::Path;

use anyhow::{Result, bail};

use super::sources_with;
use crate::names::clash::{self, KindNames, Role};
use crate::project::Project;

/// The other kinds of `api_group`, read from the project's types as they are (short names
/// and singulars live there); where those cannot be generated statically, from PROJECT
/// (kind and plural), and the later CRD generation reports what it cannot read.
pub fn others_in_group(
    root: &Path,
    project: &Project,
    group: &str,
    api_group: &str,
    kind: &str,
) -> Result<Vec<KindNames>> {
    let recorded: Vec<KindNames> = project
        .resources
        .iter()
        .filter(|r| r.is_own() && r.group == group && r.domain == project.domain && r.kind != kind)
        .map(|r| KindNames::new(&r.kind, &r.plural, Vec::new()))
        .collect();
    let sources = sources_with(root, "src/api", &[])?;
    let krate = crate::crd::Crate::of_project(root)?;
    let mut names = match crate::crd::crds_in(&krate, &sources) {
        Ok(generated) => generated
            .output
            .iter()
            .filter(|c| c.spec.group == api_group && c.spec.names.kind != kind)
            .map(|c| KindNames::of_crd(&c.spec.names))
            .collect(),
        Err(_) => Vec::new(),
    };
    for r in recorded {
        if !names.iter().any(|n: &KindNames| n.kind == r.kind) {
            names.push(r);
        }
    }
    Ok(names)
}

/// Refuses a name of the new kind that another kind of the group claims; returns the short
/// name to scaffold (the derived one, or none) and a note when it was dropped.
pub fn check(
    others: &[KindNames],
    new: &KindNames,
    api_group: &str,
    derived_short_name: &str,
) -> Result<(String, Option<String>)> {
    for other in others {
        if let Some(c) = clash::between(other, new).first() {
            let theirs = format!("the {} of {} ({api_group})", c.theirs.as_str(), other.kind);
            let kind = &new.kind;
            match c.role {
                Role::Plural => bail!(
                    "invalid plural {:?}: it is {theirs}; pass --plural with another name",
                    c.name
                ),
                Role::Kind => {
                    bail!("invalid kind {kind:?}: it is {theirs}; choose another kind name")
                }
                // Singular and list kind follow from the kind (short names are added below).
                role => bail!(
                    "invalid kind {kind:?}: its {} {:?} is {theirs}; choose another kind name",
                    role.as_str(),
                    c.name
                ),
            }
        }
    }
    if derived_short_name.is_empty() {
        return Ok((String::new(), None));
    }
    let with_short = KindNames {
        short_names: vec![derived_short_name.to_string()],
        ..new.clone()
    };
    let taken = others.iter().find_map(|o| {
        clash::between(o, &with_short)
            .into_iter()
            .find(|c| c.role == Role::ShortName)
            .map(|c| format!("the {} of {} ({api_group})", c.theirs.as_str(), o.kind))
    });
    let taken = taken.or_else(|| {
        clash::built_in_short_name(derived_short_name)
            .map(|resource| format!("the short name of Kubernetes' {resource}"))
    });
    Ok(match taken {
        Some(why) => (
            String::new(),
            Some(format!(
                "note: {} gets no short name: {derived_short_name:?} is {why}; add `shortname = \"...\"` to its #[kube(...)] to choose one",
                new.kind
            )),
        ),
        None => (derived_short_name.to_string(), None),
    })
}
