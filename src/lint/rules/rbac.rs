//! RBAC against the code: every API type a controller uses (`Api<K>`, `Api::<K>`,
//! `Controller<K>`, `.owns::<K>()`, `.watches::<K>()`), found with syn in src/controllers,
//! has a `+rsbuilder:rbac` marker somewhere in src granting its group and resource;
//! otherwise the API server answers the controller's first request with 403.
//!
//! A type is resolved through the file's `use` items: the project's own kinds by the
//! CRDs, Kubernetes' through k8s-openapi's module table. Generic parameters and types it
//! cannot resolve are left alone.

use std::collections::{BTreeMap, BTreeSet};

use syn::visit::Visit;

use crate::builtin_kinds;
use crate::lint::check::Check;
use crate::lint::finding::{Finding, RuleId, Severity};
use crate::lint::input::Inputs;
use crate::lint::yaml::Pos;
use crate::rbac;

pub static RBAC_MISSING: RuleId = RuleId {
    id: "rbac-missing",
    severity: Severity::Error,
    summary: "every API type a controller uses has a +rsbuilder:rbac marker for its resource",
};

pub static CHECK: Check = Check {
    name: "rbac",
    rules: &[&RBAC_MISSING],
    run,
};

fn run(inputs: &Inputs, out: &mut Vec<Finding>) {
    let controllers: Vec<_> = inputs
        .sources
        .iter()
        .filter(|s| s.path.starts_with("src/controllers"))
        .collect();
    if controllers.is_empty() {
        return;
    }
    // Malformed markers make `generate rbac` fail with their positions; here they grant nothing.
    let markers = rbac::collect(&inputs.sources).unwrap_or_default();
    let crds = inputs.crds();
    let own: BTreeMap<&str, (&str, &str)> = crds
        .iter()
        .map(|c| (c.kind.as_str(), (c.group.as_str(), c.plural.as_str())))
        .collect();
    for source in controllers {
        let Ok(file) = crate::syntax::parse_file(&source.text) else {
            continue; // not Rust: the build says so
        };
        let mut uses = Uses::default();
        uses.visit_file(&file);
        for (ty, pos) in &uses.found {
            if ty.len() == 1 && uses.generics.contains(&ty[0]) {
                continue;
            }
            let Some((group, plural)) = resolve(ty, &uses.imports, &own) else {
                continue;
            };
            let granted = markers.iter().any(|m| {
                (m.groups.iter().any(|g| g == &group || g == "*"))
                    && m.resources.iter().any(|r| r == &plural || r == "*")
            });
            if !granted {
                let shown_group = if group.is_empty() { "\"\"" } else { &group };
                out.push(
                    RBAC_MISSING
                        .at(
                            &source.path,
                            *pos,
                            format!(
                                "the controller uses {} ({}/{plural}), but no +rsbuilder:rbac marker grants {plural}",
                                ty.last().map_or("", String::as_str),
                                builtin_kinds::display_group(&group),
                            ),
                        )
                        .hint(format!(
                            "add `// +rsbuilder:rbac:groups={shown_group},resources={plural},verbs=get;list;watch` \
                             (with the verbs it needs) and run `make manifests`"
                        )),
                );
            }
        }
    }
}

/// The group and plural of the type written `ty` (path segments).
fn resolve(
    ty: &[String],
    imports: &BTreeMap<String, Vec<String>>,
    own: &BTreeMap<&str, (&str, &str)>,
) -> Option<(String, String)> {
    let full: Vec<String> = match ty {
        [single] => imports.get(single).cloned().unwrap_or_else(|| ty.to_vec()),
        _ => ty.to_vec(),
    };
    let (kind, module) = full.split_last()?;
    if module.first().is_some_and(|m| m == "k8s_openapi") {
        let b = builtin_kinds::by_module(&module.join("::"), kind)?;
        return Some((b.group.to_string(), b.plural.to_string()));
    }
    let own_module =
        module.is_empty() || module.first().is_some_and(|m| m == "crate" || m == "super");
    own_module
        .then(|| own.get(kind.as_str()))
        .flatten()
        .map(|(g, p)| (g.to_string(), p.to_string()))
}

#[derive(Default)]
struct Uses {
    /// Types used as the kind of an Api/Controller, with where.
    found: Vec<(Vec<String>, Pos)>,
    generics: BTreeSet<String>,
    /// `use` items: the name in scope → its full path.
    imports: BTreeMap<String, Vec<String>>,
}

fn path_of(ty: &syn::Type) -> Option<(Vec<String>, Pos)> {
    let syn::Type::Path(p) = ty else { return None };
    let segments: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let start = p.path.segments.first().map(|s| s.ident.span().start())?;
    Some((
        segments,
        Pos {
            line: start.line,
            column: start.column + 1,
        },
    ))
}

impl Uses {
    fn generic_args(&mut self, args: &syn::AngleBracketedGenericArguments) {
        if let Some(syn::GenericArgument::Type(ty)) = args.args.first()
            && let Some(found) = path_of(ty)
        {
            self.found.push(found);
        }
    }

    fn import(&mut self, tree: &syn::UseTree, prefix: &mut Vec<String>) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.import(&p.tree, prefix);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut full = prefix.clone();
                full.push(n.ident.to_string());
                self.imports.insert(n.ident.to_string(), full);
            }
            syn::UseTree::Rename(r) => {
                let mut full = prefix.clone();
                full.push(r.ident.to_string());
                self.imports.insert(r.rename.to_string(), full);
            }
            syn::UseTree::Group(g) => {
                for item in &g.items {
                    self.import(item, prefix);
                }
            }
            syn::UseTree::Glob(_) => {}
        }
    }
}

impl<'ast> Visit<'ast> for Uses {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.import(&item.tree, &mut Vec::new());
    }

    fn visit_type_param(&mut self, param: &'ast syn::TypeParam) {
        self.generics.insert(param.ident.to_string());
        syn::visit::visit_type_param(self, param);
    }

    fn visit_path_segment(&mut self, segment: &'ast syn::PathSegment) {
        if matches!(segment.ident.to_string().as_str(), "Api" | "Controller")
            && let syn::PathArguments::AngleBracketed(args) = &segment.arguments
        {
            self.generic_args(args);
        }
        syn::visit::visit_path_segment(self, segment);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        if matches!(call.method.to_string().as_str(), "owns" | "watches")
            && let Some(turbofish) = &call.turbofish
        {
            self.generic_args(turbofish);
        }
        syn::visit::visit_expr_method_call(self, call);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(code: &str) -> Vec<String> {
        let file = crate::syntax::parse_file(code).unwrap();
        let mut uses = Uses::default();
        uses.visit_file(&file);
        let own = BTreeMap::from([("CronJob", ("batch.example.com", "cronjobs"))]);
        uses.found
            .iter()
            .filter(|(ty, _)| !(ty.len() == 1 && uses.generics.contains(&ty[0])))
            .filter_map(|(ty, _)| resolve(ty, &uses.imports, &own))
            .map(|(g, p)| format!("{g}/{p}"))
            .collect()
    }

    #[test]
    fn api_types_resolve_through_use_items() {
        let code = r#"
            use k8s_openapi::api::core::v1::{ConfigMap, Pod as P};
            use crate::api::batch::cron_job::CronJob;
            fn a<K>(c: Client) -> Api<K> { let x: Api<CronJob> = Api::all(c); Api::<P>::all(c); todo!() }
            fn b(c: Controller<CronJob>) { c.owns::<ConfigMap>(x, y); let d: Api<k8s_openapi::api::apps::v1::Deployment>; }
            fn c() { let s: Api<Unknown>; }
        "#;
        assert_eq!(
            found(code),
            [
                "batch.example.com/cronjobs",
                "/pods",
                "batch.example.com/cronjobs",
                "/configmaps",
                "apps/deployments"
            ]
        );
    }
}
