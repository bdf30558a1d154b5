//! The crate as rsbuilder sees it: every module of the given sources with its items,
//! `use` imports and the facts the schema builder needs (derives, manual impls).
//! Built once per run by [`Index::build`]; read-only afterwards.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::{Attribute, Item, UseTree};

/// A parsed source file.
pub struct ParsedFile {
    pub path: PathBuf,
    pub ast: syn::File,
    /// The module path of the file inside its crate (`src/api/v1.rs` → `["api", "v1"]`).
    pub module: Vec<String>,
}

/// A struct or enum the schema builder can look into.
#[derive(Clone, Copy)]
pub enum TypeItem<'a> {
    Struct(&'a syn::ItemStruct),
    Enum(&'a syn::ItemEnum),
    Alias(&'a syn::ItemType),
}

impl<'a> TypeItem<'a> {
    pub fn attrs(&self) -> &'a [Attribute] {
        match self {
            Self::Struct(s) => &s.attrs,
            Self::Enum(e) => &e.attrs,
            Self::Alias(t) => &t.attrs,
        }
    }

    pub fn ident(&self) -> &'a syn::Ident {
        match self {
            Self::Struct(s) => &s.ident,
            Self::Enum(e) => &e.ident,
            Self::Alias(t) => &t.ident,
        }
    }

    pub fn generics(&self) -> &'a syn::Generics {
        match self {
            Self::Struct(s) => &s.generics,
            Self::Enum(e) => &e.generics,
            Self::Alias(t) => &t.generics,
        }
    }
}

/// One module: a file, or an inline `mod x { ... }` inside one.
#[derive(Default)]
pub struct Module<'a> {
    pub file: usize,
    pub types: BTreeMap<String, TypeItem<'a>>,
    pub fns: BTreeMap<String, &'a syn::ItemFn>,
    /// `use a::b::C as D;` → `D` → `[a, b, C]`.
    pub uses: BTreeMap<String, Vec<String>>,
    /// `use a::b::*;` → `[a, b]`.
    pub globs: Vec<Vec<String>>,
    /// Types with a hand-written `impl JsonSchema for T`.
    pub manual_json_schema: BTreeSet<String>,
    /// Types with a hand-written `impl Default for T`.
    pub manual_default: BTreeSet<String>,
}

/// A type item together with where it lives.
#[derive(Clone)]
pub struct ItemRef<'a> {
    pub module: Vec<String>,
    pub item: TypeItem<'a>,
    pub file: usize,
}

impl ItemRef<'_> {
    pub fn key(&self) -> String {
        let mut k = self.module.join("::");
        k.push_str("::");
        k.push_str(&self.item.ident().to_string());
        k
    }
}

pub struct Index<'a> {
    pub files: &'a [ParsedFile],
    pub modules: BTreeMap<Vec<String>, Module<'a>>,
}

impl<'a> Index<'a> {
    pub fn build(files: &'a [ParsedFile]) -> Self {
        let mut modules = BTreeMap::new();
        for (i, f) in files.iter().enumerate() {
            add_module(&mut modules, f.module.clone(), i, &f.ast.items);
        }
        Self { files, modules }
    }

    pub fn path_of(&self, file: usize) -> &'a Path {
        &self.files[file].path
    }

    pub fn module(&self, path: &[String]) -> Option<&Module<'a>> {
        self.modules.get(path)
    }
}

fn add_module<'a>(
    modules: &mut BTreeMap<Vec<String>, Module<'a>>,
    path: Vec<String>,
    file: usize,
    items: &'a [Item],
) {
    let mut m = Module {
        file,
        ..Module::default()
    };
    for item in items {
        match item {
            Item::Struct(s) => {
                m.types.insert(s.ident.to_string(), TypeItem::Struct(s));
            }
            Item::Enum(e) => {
                m.types.insert(e.ident.to_string(), TypeItem::Enum(e));
            }
            Item::Type(t) => {
                m.types.insert(t.ident.to_string(), TypeItem::Alias(t));
            }
            Item::Fn(f) => {
                m.fns.insert(f.sig.ident.to_string(), f);
            }
            Item::Use(u) => flatten_use(&u.tree, &mut Vec::new(), &mut m),
            Item::Impl(imp) => {
                if let (Some((_, trait_path, _)), syn::Type::Path(tp)) =
                    (&imp.trait_, &*imp.self_ty)
                {
                    let trait_name = trait_path.segments.last().map(|s| s.ident.to_string());
                    let self_name = tp.path.segments.last().map(|s| s.ident.to_string());
                    if let (Some(t), Some(s)) = (trait_name, self_name) {
                        match t.as_str() {
                            "JsonSchema" => {
                                m.manual_json_schema.insert(s);
                            }
                            "Default" => {
                                m.manual_default.insert(s);
                            }
                            _ => {}
                        }
                    }
                }
            }
            Item::Mod(md) => {
                if let Some((_, inner)) = &md.content {
                    let mut sub = path.clone();
                    sub.push(md.ident.to_string());
                    add_module(modules, sub, file, inner);
                }
            }
            _ => {}
        }
    }
    modules.insert(path, m);
}

fn flatten_use(tree: &UseTree, prefix: &mut Vec<String>, m: &mut Module<'_>) {
    match tree {
        UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten_use(&p.tree, prefix, m);
            prefix.pop();
        }
        UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                if let Some(last) = prefix.last() {
                    m.uses.insert(last.clone(), prefix.clone());
                }
            } else {
                let mut full = prefix.clone();
                full.push(name.clone());
                m.uses.insert(name, full);
            }
        }
        UseTree::Rename(r) => {
            let mut full = prefix.clone();
            if r.ident != "self" {
                full.push(r.ident.to_string());
            }
            m.uses.insert(r.rename.to_string(), full);
        }
        UseTree::Glob(_) => m.globs.push(prefix.clone()),
        UseTree::Group(g) => {
            for t in &g.items {
                flatten_use(t, prefix, m);
            }
        }
    }
}

/// The module path of a source file: the components after the last `src/` (or after
/// `base`, the common directory of all sources, when there is no `src/`), without `.rs`
/// and without a trailing `mod`/`lib`/`main`.
pub fn module_path_for(path: &Path, base: &Path) -> Vec<String> {
    let comps: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .collect();
    let mut rel: Vec<String> = match comps.iter().rposition(|c| c == "src") {
        Some(i) => comps[i + 1..].to_vec(),
        None => path
            .strip_prefix(base)
            .unwrap_or(path)
            .components()
            .map(|c| c.as_os_str().to_string_lossy().to_string())
            .collect(),
    };
    if let Some(last) = rel.last_mut()
        && let Some(stem) = last.strip_suffix(".rs")
    {
        *last = stem.to_string();
    }
    if rel
        .last()
        .is_some_and(|l| l == "mod" || ((l == "lib" || l == "main") && rel.len() == 1))
    {
        rel.pop();
    }
    rel
}

/// Whether an item's `#[derive(...)]` lists `name` (by last path segment).
pub fn derives(attrs: &[Attribute], name: &str) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .any(|a| {
            let mut found = false;
            let _ = a.parse_nested_meta(|m| {
                found |= m.path.segments.last().is_some_and(|s| s.ident == name);
                Ok(())
            });
            found
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_paths() {
        let base = Path::new("/x");
        assert_eq!(
            module_path_for(Path::new("/p/src/api/v1/foo.rs"), base),
            ["api", "v1", "foo"]
        );
        assert_eq!(
            module_path_for(Path::new("/p/src/api/mod.rs"), base),
            ["api"]
        );
        assert_eq!(
            module_path_for(Path::new("/p/src/lib.rs"), base),
            Vec::<String>::new()
        );
        assert_eq!(module_path_for(Path::new("/x/a/b.rs"), base), ["a", "b"]);
    }

    #[test]
    fn flattens_use_trees() {
        let f: syn::File = syn::parse_quote! {
            use a::{b::C, d::E as F, g::*, self as h};
            struct S;
        };
        let files = vec![ParsedFile {
            path: "x.rs".into(),
            ast: f,
            module: vec![],
        }];
        let index = Index::build(&files);
        let m = index.module(&[]).unwrap();
        assert_eq!(m.uses["C"], ["a", "b", "C"]);
        assert_eq!(m.uses["F"], ["a", "d", "E"]);
        assert_eq!(m.uses["h"], ["a"]);
        assert_eq!(m.globs, [vec!["a".to_string(), "g".to_string()]]);
        assert!(m.types.contains_key("S"));
    }
}
