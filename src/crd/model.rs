//! The crate as rsbuilder sees it: every module of the given sources with its items,
//! `use` imports and the facts the schema builder needs (derives, manual impls).
//! Built once per run by [`Index::build`]; read-only afterwards.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::{Attribute, Item, UseTree};

use super::cfg;
use super::diagnostics::{Diagnostic, Unsupported, span_of};
use super::krate::Crate;
use super::sources::ParsedFile;

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

/// A `const`/`static` item (or a `lazy_static!` entry): what validation attributes may name.
#[derive(Clone)]
pub struct ValueItem {
    pub ty: syn::Type,
    pub expr: syn::Expr,
}

/// One module: a file, or an inline `mod x { ... }` inside one.
#[derive(Default)]
pub struct Module<'a> {
    pub file: usize,
    pub types: BTreeMap<String, TypeItem<'a>>,
    /// Free functions by name, and associated functions of inherent `impl` blocks as
    /// `Type::name`: their bodies (what `default = ".."` and `schema_with` name).
    pub fns: BTreeMap<String, &'a syn::Block>,
    /// `const`, `static` and `lazy_static!` items: their type and initializer.
    pub values: BTreeMap<String, ValueItem>,
    /// `use a::b::C as D;` → `D` → `[a, b, C]`.
    pub uses: BTreeMap<String, Vec<String>>,
    /// `use a::b::*;` → `[a, b]`.
    pub globs: Vec<Vec<String>>,
    /// Types with a hand-written `impl JsonSchema for T`.
    pub manual_json_schema: BTreeSet<String>,
    /// Types with a hand-written `impl Default for T`.
    pub manual_default: BTreeSet<String>,
    /// The body of `fn default()` in those impls, by type name.
    pub default_fns: BTreeMap<String, &'a syn::Block>,
    /// Names whose item has a `#[cfg]` the source does not decide, with the reason.
    pub undecided: BTreeMap<String, Unsupported>,
    /// A glob import under such a `#[cfg]`: any name not found otherwise may come from it.
    pub undecided_glob: Option<Unsupported>,
}

pub struct Index<'a> {
    pub files: &'a [ParsedFile],
    pub modules: BTreeMap<Vec<String>, Module<'a>>,
    pub krate: &'a Crate,
    /// Modules that exist only under a `#[cfg]` the source does not decide: where the
    /// `#[cfg]` is (file, reason).
    pub undecided_modules: BTreeMap<Vec<String>, (PathBuf, Unsupported)>,
    /// Item-level macro invocations that could expand to a custom resource.
    pub warnings: Vec<Diagnostic>,
    /// Custom resources under a `#[cfg]` the source does not decide.
    pub refusals: Vec<Diagnostic>,
    /// A span inside each file (of its first item), to tell which file a span is in.
    probes: Vec<Option<Span>>,
    /// Where paths that lead outside the sources lead, by depth, module and path (the
    /// resolver's memo: see `resolve::Resolver::resolve_fresh`).
    pub outside: RefCell<BTreeMap<usize, PathsByModule>>,
}

/// Paths by the module they are written in, and where each leads.
pub type PathsByModule = BTreeMap<Vec<String>, BTreeMap<Vec<String>, String>>;

impl<'a> Index<'a> {
    /// Indexes cfg-stripped files (see `modules::place`); `undecided` are the modules
    /// whose declaring `mod` has an undecided `#[cfg]`.
    pub fn build(
        files: &'a [ParsedFile],
        krate: &'a Crate,
        undecided: BTreeMap<Vec<String>, (PathBuf, Unsupported)>,
    ) -> Self {
        let mut index = Self {
            files,
            modules: BTreeMap::new(),
            krate,
            undecided_modules: undecided,
            warnings: Vec::new(),
            refusals: Vec::new(),
            probes: files
                .iter()
                .map(|f| f.ast.items.first().map(span_of))
                .collect(),
            outside: RefCell::default(),
        };
        let macros = local_macros(files);
        for (i, f) in files.iter().enumerate() {
            index.add_module(f.module.clone(), i, &f.ast.items, &macros);
        }
        index
    }

    /// The reason `module` (or a module it is in) may not exist.
    pub fn undecided_module(&self, module: &[String]) -> Option<&(PathBuf, Unsupported)> {
        (0..=module.len())
            .rev()
            .find_map(|n| self.undecided_modules.get(&module[..n]))
    }

    /// The root module of the crate depended on by `path` that code calls `name`, when
    /// its sources are in the index.
    pub fn dependency(&self, name: &str) -> Option<Vec<String>> {
        let root = vec![super::deps::root(name)];
        self.modules.contains_key(&root).then_some(root)
    }

    pub fn path_of(&self, file: usize) -> &'a Path {
        &self.files[file].path
    }

    /// The path of the file `span` is in, for a diagnostic at `span` found while reading
    /// `file`: a default function, a const, a `schema_with` function or a type of a path
    /// dependency may be written in another file than the field that names it. `file`'s
    /// path when the span is in none of them (a span rsbuilder made).
    pub fn path_at(&self, file: usize, span: Span) -> &'a Path {
        // Outside a proc macro, proc_macro2 joins two spans only when they are in the same
        // source text, and each file is parsed from its own text once.
        let within = |probe: &Option<Span>| probe.is_some_and(|p| p.join(span).is_some());
        let found = if within(&self.probes[file]) {
            Some(file)
        } else {
            self.probes.iter().position(within)
        };
        self.path_of(found.unwrap_or(file))
    }

    pub fn module(&self, path: &[String]) -> Option<&Module<'a>> {
        self.modules.get(path)
    }
}

impl<'a> Index<'a> {
    fn add_module(
        &mut self,
        path: Vec<String>,
        file: usize,
        items: &'a [Item],
        macros: &BTreeSet<String>,
    ) {
        let mut m = Module {
            file,
            ..Module::default()
        };
        for item in items {
            if let Some(attrs) = item_attrs(item)
                && let Some(u) = cfg::undecided(&self.krate.cfg, attrs)
            {
                self.add_undecided(&mut m, &path, file, item, u);
                continue;
            }
            match item {
                Item::Struct(s) => {
                    m.types
                        .insert(s.ident.unraw().to_string(), TypeItem::Struct(s));
                }
                Item::Enum(e) => {
                    m.types
                        .insert(e.ident.unraw().to_string(), TypeItem::Enum(e));
                }
                Item::Type(t) => {
                    m.types
                        .insert(t.ident.unraw().to_string(), TypeItem::Alias(t));
                }
                Item::Fn(f) => {
                    m.fns.insert(f.sig.ident.unraw().to_string(), &f.block);
                }
                Item::Const(c) => {
                    let v = ValueItem {
                        ty: (*c.ty).clone(),
                        expr: (*c.expr).clone(),
                    };
                    m.values.insert(c.ident.unraw().to_string(), v);
                }
                Item::Static(st) => {
                    let v = ValueItem {
                        ty: (*st.ty).clone(),
                        expr: (*st.expr).clone(),
                    };
                    m.values.insert(st.ident.unraw().to_string(), v);
                }
                Item::Use(u) => flatten_use(&u.tree, &mut Vec::new(), &mut m),
                Item::Impl(imp) => {
                    // `impl<M> Spec<M>` too: a value path names the type without arguments
                    // (`Spec::<M>::f` reads as `Spec::f`).
                    if imp.trait_.is_none()
                        && let syn::Type::Path(tp) = &*imp.self_ty
                        && tp.qself.is_none()
                        && tp.path.segments.len() == 1
                        && let Some(ty) = tp.path.segments.last().map(|s| &s.ident)
                    {
                        for f in &imp.items {
                            match f {
                                syn::ImplItem::Fn(f) if f.sig.receiver().is_none() => {
                                    m.fns.insert(format!("{ty}::{}", f.sig.ident), &f.block);
                                }
                                // Associated consts: `Type::NAME` (and `Self::NAME` inside).
                                syn::ImplItem::Const(c) => {
                                    let v = ValueItem {
                                        ty: c.ty.clone(),
                                        expr: c.expr.clone(),
                                    };
                                    m.values.insert(format!("{ty}::{}", c.ident.unraw()), v);
                                }
                                _ => {}
                            }
                        }
                    }
                    if let (Some((_, trait_path, _)), syn::Type::Path(tp)) =
                        (&imp.trait_, &*imp.self_ty)
                    {
                        let trait_name = trait_path
                            .segments
                            .last()
                            .map(|s| s.ident.unraw().to_string());
                        let self_name =
                            tp.path.segments.last().map(|s| s.ident.unraw().to_string());
                        if let (Some(t), Some(s)) = (trait_name, self_name) {
                            match t.as_str() {
                                "JsonSchema" => {
                                    m.manual_json_schema.insert(s);
                                }
                                "Default" => {
                                    let body = imp.items.iter().find_map(|i| match i {
                                        syn::ImplItem::Fn(f) if f.sig.ident == "default" => {
                                            Some(&f.block)
                                        }
                                        _ => None,
                                    });
                                    if let Some(body) = body {
                                        m.default_fns.insert(s.clone(), body);
                                    }
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
                        sub.push(md.ident.unraw().to_string());
                        self.add_module(sub, file, inner, macros);
                    }
                }
                Item::Macro(mac)
                    if mac
                        .mac
                        .path
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == "lazy_static") =>
                {
                    // Statics it defines are values, not types: no warning.
                    for (name, v) in lazy_statics(&mac.mac) {
                        m.values.insert(name, v);
                    }
                }
                // A dependency's macros cannot define this crate's kinds.
                Item::Macro(mac) if !super::deps::is_dependency(&path) => {
                    self.warn_macro(file, mac, macros)
                }
                _ => {}
            }
        }
        self.modules.insert(path, m);
    }

    /// An item under an undecided `#[cfg]`: its names (or module) refuse every use.
    fn add_undecided(
        &mut self,
        m: &mut Module<'a>,
        path: &[String],
        file: usize,
        item: &Item,
        u: Unsupported,
    ) {
        self.refuse_resources(file, std::slice::from_ref(item), &u);
        let mut names = Vec::new();
        match item {
            Item::Struct(s) => names.push(s.ident.unraw().to_string()),
            Item::Enum(e) => names.push(e.ident.unraw().to_string()),
            Item::Type(t) => names.push(t.ident.unraw().to_string()),
            Item::Fn(f) => names.push(f.sig.ident.unraw().to_string()),
            Item::Use(us) => {
                let mut tmp = Module::default();
                flatten_use(&us.tree, &mut Vec::new(), &mut tmp);
                names.extend(tmp.uses.into_keys());
                if !tmp.globs.is_empty() {
                    m.undecided_glob = Some(u.clone());
                }
            }
            Item::Mod(md) => {
                let sub = [path, std::slice::from_ref(&md.ident.unraw().to_string())].concat();
                let at = self.files[file].path.clone();
                self.undecided_modules.insert(sub, (at, u));
                return;
            }
            _ => return,
        }
        for n in names {
            m.undecided.insert(n, u.clone());
        }
    }

    /// Every `#[derive(CustomResource)]` in `items` (and their inline modules) exists only
    /// under the undecided `#[cfg]` `u`.
    fn refuse_resources(&mut self, file: usize, items: &[Item], u: &Unsupported) {
        for item in items {
            match item {
                Item::Struct(s) if derives(&s.attrs, "CustomResource") => {
                    let path = self.files[file].path.clone();
                    self.refusals.push(Diagnostic::not_static(
                        &path,
                        s.ident.span(),
                        format!("custom resource `{}`", s.ident),
                        format!("it is defined under {}, and {}", u.what, u.why),
                    ));
                }
                Item::Mod(md) => {
                    if let Some((_, inner)) = &md.content {
                        self.refuse_resources(file, inner, u);
                    }
                }
                _ => {}
            }
        }
    }

    /// Item-level macros are expanded by rustc, not read here: say so when one from
    /// elsewhere could produce a custom resource. A local `macro_rules!` that could is
    /// refused where it is defined, and `include!` is looked into (both in `hidden`).
    fn warn_macro(&mut self, file: usize, mac: &syn::ItemMacro, macros: &BTreeSet<String>) {
        if mac.ident.is_some() {
            return; // a `macro_rules!` definition
        }
        let name = mac
            .mac
            .path
            .segments
            .last()
            .map(|s| s.ident.unraw().to_string())
            .unwrap_or_default();
        if name == "include" || NO_TYPES.contains(&name.as_str()) || macros.contains(&name) {
            return;
        }
        let message = format!(
            "warning: macro `{name}!` is not expanded by `generate crds`: a custom resource it defines is missed (use --exact)"
        );
        let path = self.files[file].path.clone();
        self.warnings
            .push(Diagnostic::at(&path, span_of(&mac.mac.path), message));
    }
}

/// Item macros from std and common crates that never define types.
const NO_TYPES: &[&str] = &[
    "thread_local",
    "lazy_static",
    "assert_impl_all",
    "assert_not_impl_any",
    "const_assert",
    "const_assert_eq",
    "assert_eq_size",
    "compile_error",
    "global_asm",
];

/// The names of the `macro_rules!` defined in the sources.
fn local_macros(files: &[ParsedFile]) -> BTreeSet<String> {
    fn walk(items: &[Item], out: &mut BTreeSet<String>) {
        for item in items {
            match item {
                Item::Macro(m) if m.mac.path.is_ident("macro_rules") => {
                    if let Some(ident) = &m.ident {
                        out.insert(ident.to_string());
                    }
                }
                Item::Mod(md) => {
                    if let Some((_, inner)) = &md.content {
                        walk(inner, out);
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = BTreeSet::new();
    for f in files {
        walk(&f.ast.items, &mut out);
    }
    out
}

fn item_attrs(item: &Item) -> Option<&[Attribute]> {
    Some(match item {
        Item::Struct(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Const(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        _ => return None,
    })
}

/// The `static ref NAME: Type = expr;` entries of a `lazy_static!` invocation (none if
/// its body is not in that form).
fn lazy_statics(mac: &syn::Macro) -> Vec<(String, ValueItem)> {
    use syn::parse::{ParseStream, Parser};
    let parser = |input: ParseStream<'_>| {
        let mut out = Vec::new();
        while !input.is_empty() {
            input.call(Attribute::parse_outer)?;
            input.parse::<syn::Visibility>()?;
            input.parse::<syn::Token![static]>()?;
            input.parse::<syn::Token![ref]>()?;
            let name: syn::Ident = input.parse()?;
            input.parse::<syn::Token![:]>()?;
            let ty: syn::Type = input.parse()?;
            input.parse::<syn::Token![=]>()?;
            let expr: syn::Expr = input.parse()?;
            input.parse::<syn::Token![;]>()?;
            out.push((name.to_string(), ValueItem { ty, expr }));
        }
        Ok(out)
    };
    parser.parse2(mac.tokens.clone()).unwrap_or_default()
}

fn flatten_use(tree: &UseTree, prefix: &mut Vec<String>, m: &mut Module<'_>) {
    match tree {
        UseTree::Path(p) => {
            prefix.push(p.ident.unraw().to_string());
            flatten_use(&p.tree, prefix, m);
            prefix.pop();
        }
        UseTree::Name(n) => {
            let name = n.ident.unraw().to_string();
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
                full.push(r.ident.unraw().to_string());
            }
            m.uses.insert(r.rename.unraw().to_string(), full);
        }
        UseTree::Glob(_) => m.globs.push(prefix.clone()),
        UseTree::Group(g) => {
            for t in &g.items {
                flatten_use(t, prefix, m);
            }
        }
    }
}

/// Whether an item's `#[derive(...)]` lists `name` (by last path segment).
pub fn derives(attrs: &[Attribute], name: &str) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .any(|a| {
            let syn::Meta::List(list) = &a.meta else {
                return false;
            };
            // The last segment of a path of the list is an identifier before a `,` or the
            // end; read off the tokens, as parsing the list as nested meta costs ten times.
            let mut tokens = list.tokens.clone().into_iter().peekable();
            while let Some(token) = tokens.next() {
                let last = match tokens.peek() {
                    None => true,
                    Some(proc_macro2::TokenTree::Punct(p)) => p.as_char() == ',',
                    Some(_) => false,
                };
                if last && matches!(&token, proc_macro2::TokenTree::Ident(i) if i == name) {
                    return true;
                }
            }
            false
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derives_reads_the_last_segment_of_each_path() {
        let attrs = |s: syn::ItemStruct| s.attrs;
        let yes = [
            attrs(syn::parse_quote! { #[derive(Clone, schemars::JsonSchema)] struct S; }),
            attrs(syn::parse_quote! { #[derive(Debug)] #[derive(JsonSchema,)] struct S; }),
            attrs(syn::parse_quote! { #[derive(::schemars::JsonSchema, Debug)] struct S; }),
        ];
        let no = [
            attrs(syn::parse_quote! { #[derive(JsonSchemaX, XJsonSchema)] struct S; }),
            attrs(syn::parse_quote! { #[derive(JsonSchema::Other)] struct S; }),
            attrs(syn::parse_quote! { #[derive] #[serde(JsonSchema)] struct S; }),
            attrs(syn::parse_quote! { #[derive(r#JsonSchema)] struct S; }),
        ];
        for a in &yes {
            assert!(derives(a, "JsonSchema"), "{}", quote::quote!(#(#a)*));
        }
        for a in &no {
            assert!(!derives(a, "JsonSchema"), "{}", quote::quote!(#(#a)*));
        }
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
        let krate = Crate::default();
        let index = Index::build(&files, &krate, BTreeMap::new());
        let m = index.module(&[]).unwrap();
        assert_eq!(m.uses["C"], ["a", "b", "C"]);
        assert_eq!(m.uses["F"], ["a", "d", "E"]);
        assert_eq!(m.uses["h"], ["a"]);
        assert_eq!(m.globs, [vec!["a".to_string(), "g".to_string()]]);
        assert!(m.types.contains_key("S"));
    }
}
