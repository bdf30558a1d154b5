//! Whether a kind's name compiles in the Rust that a plan writes for it.
//!
//! A kind becomes a Rust type in every file that works with it: the `CustomResource`
//! derive defines it in its API file, and controllers, webhooks and tests import it. A
//! file that also binds that name for something else (`use kube::runtime::events::Event`
//! beside a kind `Event`, or the controller's own `enum Error`) does not compile. Rather
//! than keep a list of names that drifts from the templates, the check reads the planned
//! files themselves, so any template that imports a new name is covered at once.

use std::path::Path;

use anyhow::{Result, bail};
use syn::{Item, UseTree};

use super::Change;
use crate::diagnostic::Diagnostic;

/// The kind whose name is checked: as written, its module, and the crate it lives in.
pub struct Kind<'a> {
    pub name: &'a str,
    pub module: &'a str,
    pub crate_name: &'a str,
}

impl Kind<'_> {
    /// Whether `path` leads to the kind itself: through the project's API modules to the
    /// kind's module (`crate::api::g::v1::event::Event`, or `super::event::Event` beside
    /// it), not to another module that happens to share its name
    /// (`kube::runtime::controller::Controller`, `crate::shutdown::Shutdown`).
    fn is_at(&self, path: &[String]) -> bool {
        let [first, second, .., module, last] = path else {
            return false;
        };
        let through_api = [self.crate_name, "crate"].contains(&first.as_str()) && second == "api";
        let beside = ["super", "self"].contains(&first.as_str());
        (through_api || beside) && module == self.module && last == self.name
    }
}

/// Fails with one line naming the first clash between the kind and a name that a planned
/// Rust file binds in the same module.
pub fn check(changes: &[Change], kind: &Kind) -> Result<()> {
    for change in changes {
        let Some(new) = change
            .new
            .as_deref()
            .filter(|_| change.path.extension().is_some_and(|e| e == "rs"))
        else {
            continue;
        };
        // Every planned Rust file is either rsbuilder's own or one it registered code in,
        // which had to parse for that: one that does not is refused, not skipped, so that
        // what it would hide (a clash, or nesting that would overflow the stack) is named.
        let file = crate::syntax::parse_file(new).map_err(|e| {
            Diagnostic::at(&change.path, e.span(), format!("cannot parse Rust: {e}"))
        })?;
        if let Some((name, how)) = clash_in(&file.items, kind) {
            let kind = kind.name;
            bail!(
                "kind {kind:?} clashes with `{name}`, which {} {how}; choose another kind name, \
                 e.g. \"{kind}Resource\"",
                change.path.display()
            );
        }
    }
    Ok(())
}

/// One module's items (inline modules are modules of their own): the name that clashes
/// with the kind there, and whether the file imports or defines it.
fn clash_in(items: &[Item], kind: &Kind) -> Option<(String, &'static str)> {
    let mut has_kind = false;
    let mut other = None;
    for item in items {
        match item {
            Item::Use(item) => {
                let mut prefix = Vec::new();
                for (path, bound) in bindings(&item.tree, &mut prefix) {
                    if bound != kind.name {
                        continue;
                    }
                    if kind.is_at(&path) {
                        has_kind = true;
                    } else {
                        other.get_or_insert((path.join("::"), "imports"));
                    }
                }
            }
            Item::Struct(s) if defines_kind(s, kind.name) => has_kind = true,
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content
                    && let Some(clash) = clash_in(inner, kind)
                {
                    return Some(clash);
                }
            }
            _ => {
                if let Some(ident) = type_name(item)
                    && ident == kind.name
                {
                    other.get_or_insert((kind.name.to_string(), "defines"));
                }
            }
        }
    }
    if has_kind { other } else { None }
}

/// The names a `use` tree binds, each with the path it binds to (`self` binds the prefix).
fn bindings(tree: &UseTree, prefix: &mut Vec<String>) -> Vec<(Vec<String>, String)> {
    match tree {
        UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            let found = bindings(&p.tree, prefix);
            prefix.pop();
            found
        }
        UseTree::Name(n) => vec![leaf(prefix, &n.ident.to_string(), None)],
        UseTree::Rename(r) => vec![leaf(prefix, &r.ident.to_string(), Some(&r.rename))],
        UseTree::Group(g) => g.items.iter().flat_map(|t| bindings(t, prefix)).collect(),
        UseTree::Glob(_) => Vec::new(),
    }
}

fn leaf(prefix: &[String], name: &str, rename: Option<&syn::Ident>) -> (Vec<String>, String) {
    let path = if name == "self" {
        prefix.to_vec()
    } else {
        prefix.iter().cloned().chain([name.to_string()]).collect()
    };
    let bound = match rename {
        Some(alias) => alias.to_string(),
        None => path.last().cloned().unwrap_or_default(),
    };
    (path, bound)
}

/// The `<Kind>Spec` struct whose `CustomResource` derive defines the kind in this module.
fn defines_kind(s: &syn::ItemStruct, kind: &str) -> bool {
    s.ident == format!("{kind}Spec")
        && s.attrs.iter().any(|a| {
            a.path().is_ident("derive")
                && a.parse_args_with(
                    syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
                )
                .is_ok_and(|paths| {
                    paths.iter().any(|p| {
                        p.segments
                            .last()
                            .is_some_and(|s| s.ident == "CustomResource")
                    })
                })
        })
}

/// The name an item binds in the type namespace, where the kind lives.
fn type_name(item: &Item) -> Option<&syn::Ident> {
    match item {
        Item::Struct(i) => Some(&i.ident),
        Item::Enum(i) => Some(&i.ident),
        Item::Type(i) => Some(&i.ident),
        Item::Trait(i) => Some(&i.ident),
        Item::Union(i) => Some(&i.ident),
        _ => None,
    }
}

/// The modules beside the kinds' own in `src/controllers` (`src/webhooks` has none: the
/// runtime serves the webhooks, and a kind's webhook module is named with its group and
/// version): a kind whose module would take one of these names would overwrite a helper
/// every controller needed. `backoff`, `children` and `per_object` live in the runtime
/// now, but projects scaffolded before it still hold them.
pub const HELPER_MODULES: &[&str] = &["backoff", "children", "per_object"];

/// Fails when the kind's controller module would take the name of a helper module.
pub fn check_module(kind: &str, kind_snake: &str, controller: &Path) -> Result<()> {
    if HELPER_MODULES.contains(&kind_snake) {
        bail!(
            "kind {kind:?} would put its controller in {}, which holds a helper every controller \
             uses; choose another kind name, e.g. \"{kind}Resource\"",
            controller.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(path: &str, text: &str) -> Change {
        Change {
            path: path.into(),
            old: None,
            new: Some(text.into()),
        }
    }

    fn clash(text: &str, kind: &str) -> Option<String> {
        let module = heck::ToSnakeCase::to_snake_case(kind);
        let kind = Kind {
            name: kind,
            module: &module,
            crate_name: "ops",
        };
        check(&[change("src/x.rs", text)], &kind)
            .err()
            .map(|e| e.to_string())
    }

    #[test]
    fn an_import_of_the_kind_beside_another_of_its_name_clashes() {
        let text = "use kube::runtime::events::{Event, EventType};\n\
                    use crate::api::g::v1::event::Event;\n";
        let err = clash(text, "Event").expect("a clash");
        assert!(
            err.contains("`kube::runtime::events::Event`, which src/x.rs imports"),
            "{err}"
        );
    }

    #[test]
    fn a_library_module_named_like_the_kind_is_not_the_kind() {
        let text = "use kube::runtime::controller::{self, Controller};\n\
                    use ops::api::g::v1::controller::Controller;\n";
        assert!(clash(text, "Controller").is_some());
        let own = "use super::controller::{self as hub, Controller};\n";
        assert_eq!(clash(own, "Controller"), None);
        let helper = "use crate::shutdown::Shutdown;\nuse crate::api::g::v1::shutdown::Shutdown;\n";
        assert!(clash(helper, "Shutdown").is_some());
    }

    #[test]
    fn renames_and_self_imports_bind_their_alias() {
        let with = "use crate::api::g::v1::error::Error;\nuse std::fmt::{self as Error};\n";
        assert!(clash(with, "Error").is_some());
        let renamed = "use crate::api::g::v1::error::Error;\nuse std::io::{Error as IoError};\n";
        assert_eq!(clash(renamed, "Error"), None);
    }

    #[test]
    fn an_item_of_the_kind_s_name_clashes_in_its_module_only() {
        let text = "use crate::api::g::v1::error::Error;\npub enum Error { A }\n";
        assert!(
            clash(text, "Error")
                .unwrap()
                .contains("which src/x.rs defines")
        );
        let apart = "use crate::api::g::v1::error::Error;\nmod other { pub enum Error { A } }\n";
        assert_eq!(clash(apart, "Error"), None);
    }

    #[test]
    fn the_api_file_defines_the_kind_through_its_derive() {
        let text = "use serde::{Deserialize, Serialize};\n\
                    #[derive(CustomResource, Serialize)]\npub struct SerializeSpec {}\n";
        assert!(clash(text, "Serialize").is_some());
        assert_eq!(clash(text, "CronJob"), None);
    }

    #[test]
    fn a_file_without_the_kind_binds_what_it_likes() {
        assert_eq!(clash("use kube::runtime::events::Event;\n", "Event"), None);
    }

    #[test]
    fn every_helper_module_of_the_templates_is_listed() {
        let renderer = super::super::Renderer::new().unwrap();
        for name in renderer.template_names() {
            let Some(stem) = ["/src/controllers/", "/src/webhooks/"]
                .iter()
                .find_map(|dir| name.split_once(dir))
                .and_then(|(_, file)| file.strip_suffix(".rs.hbs"))
            else {
                continue;
            };
            if !["kind", "builtin", "mod"].contains(&stem) {
                assert!(
                    HELPER_MODULES.contains(&stem),
                    "{name} is not in HELPER_MODULES"
                );
            }
        }
    }

    #[test]
    fn helper_modules_are_refused() {
        let path = Path::new("src/controllers/backoff.rs");
        assert!(check_module("Backoff", "backoff", path).is_err());
        assert!(check_module("CronJob", "cron_job", path).is_ok());
    }
}
