//! Resolving a field's `syn::Type` to a [`Shape`]: a standard type, a Kubernetes type from
//! the k8s-openapi table, or a struct/enum found in the given sources — following `use`
//! items (including globs and re-exports), `crate::`/`self::`/`super::` paths and child
//! modules, the way rustc would for these simple cases.
//!
//! Why one file: resolution is one recursive walk (`resolve_depth`) whose cases (`use`
//! items, globs, re-exports, relative paths, child modules) hand paths to one another over
//! one shared index of the sources.

use std::cell::RefCell;
use std::collections::BTreeSet;

use syn::ext::IdentExt;
use syn::{Expr, GenericArgument, GenericParam, PathArguments, Type};

use super::deps;
use super::diagnostics::{Unsupported, span_of};
use super::k8s_types::{self, K8sType};
use super::model::{Index, TypeItem};
use super::std_types::{self, ExtType, Params};
use super::typeops::{Prim, Wrapper};

/// A resolved type.
#[derive(Clone)]
pub enum Shape<'a> {
    Prim(Prim),
    K8s(&'static K8sType),
    User(ItemRef<'a>),
    /// `Option`, lists, pointers, and maps keyed by `String`.
    Wrap(Wrapper, Box<Shape<'a>>),
    /// A `BTreeMap`/`HashMap` with any other key type: `(map, key, value)`. schemars reads
    /// the key's schema (enum keys become properties, integer keys a pattern).
    Map(Wrapper, Box<Shape<'a>>, Box<Shape<'a>>),
    /// A std or feature-crate type from `std_types`, with its type parameters.
    Ext(&'static ExtType, Vec<Shape<'a>>),
    /// `[T; N]`.
    Array(usize, Box<Shape<'a>>),
    /// The value of a const generic argument (`Bounded<5>`): only ever bound to a const
    /// parameter, never the type of a field.
    Const(serde_json::Value),
}

impl Shape<'_> {
    /// The type as a path, for keys and messages.
    pub fn describe(&self) -> String {
        let list = |args: &[Shape<'_>]| {
            let args: Vec<String> = args.iter().map(Shape::describe).collect();
            args.join(", ")
        };
        match self {
            Shape::Prim(p) => format!("{p:?}"),
            Shape::K8s(k) => k.path.trim_end_matches("::").to_string(),
            Shape::User(item) => item.key(),
            Shape::Wrap(w, inner) => format!("{w:?}<{}>", inner.describe()),
            Shape::Map(w, key, value) => {
                format!("{w:?}<{}, {}>", key.describe(), value.describe())
            }
            Shape::Ext(t, args) if args.is_empty() => t.path.to_string(),
            Shape::Ext(t, args) => format!("{}<{}>", t.path, list(args)),
            Shape::Array(n, inner) => format!("[{}; {n}]", inner.describe()),
            Shape::Const(v) => v.to_string(),
        }
    }
}

/// A type item together with where it lives, and for a generic item the types its
/// parameters are instantiated with.
#[derive(Clone)]
pub struct ItemRef<'a> {
    pub module: Vec<String>,
    pub item: TypeItem<'a>,
    pub file: usize,
    pub args: Vec<Shape<'a>>,
}

impl ItemRef<'_> {
    /// Names the instantiated type: `api::Named<String>`.
    pub fn key(&self) -> String {
        let mut k = self.module.join("::");
        k.push_str("::");
        k.push_str(&self.item.ident().to_string());
        if !self.args.is_empty() {
            let args: Vec<String> = self.args.iter().map(|a| a.describe()).collect();
            k.push_str(&format!("<{}>", args.join(", ")));
        }
        k
    }
}

/// The type parameters of `item` bound to its arguments.
pub fn bindings_of<'a>(item: &ItemRef<'a>) -> Vec<(String, Shape<'a>)> {
    item.item
        .generics()
        .params
        .iter()
        .filter_map(param_name)
        .zip(item.args.iter().cloned())
        .collect()
}

/// The name of a type or const parameter (lifetimes take no part in a schema).
fn param_name(p: &GenericParam) -> Option<String> {
    match p {
        GenericParam::Type(t) => Some(t.ident.unraw().to_string()),
        GenericParam::Const(c) => Some(c.ident.unraw().to_string()),
        GenericParam::Lifetime(_) => None,
    }
}

/// The type being resolved, as a refusal names it. Its span and its text are worked out
/// only when a refusal is made: nearly every type resolves, and printing a type costs more
/// than resolving it.
#[derive(Clone, Copy)]
struct Named<'t>(&'t Type);

impl Named<'_> {
    fn refuse(self, why: impl Into<String>) -> Unsupported {
        self.refuse_as("type", why)
    }

    fn refuse_as(self, what: &str, why: impl Into<String>) -> Unsupported {
        let shown = quote::ToTokens::to_token_stream(self.0)
            .to_string()
            .replace(' ', "");
        Unsupported::new(span_of(self.0), format!("{what} `{shown}`"), why)
    }
}

/// Where a path leads.
enum Target<'a> {
    Local(ItemRef<'a>),
    /// A path outside the sources, fully qualified as far as `use` items tell.
    External(String),
    /// A `crate::`/`super::` path into the sources that names nothing there.
    Missing(String),
    /// An item or module under a `#[cfg]` the source does not decide: why, and where.
    Undecided(String),
}

const MAX_DEPTH: usize = 24;

/// How deep the types of the sources may nest (a field of a struct in a field of a
/// struct ...) for the walks that follow them: the schema builder, the conversion
/// generator. Real API types stay within a dozen; the limit keeps a hostile chain of
/// thousands of structs from exhausting the stack or the clock.
pub const MAX_TYPE_NESTING: usize = 64;

pub struct Resolver<'i, 'a> {
    pub index: &'i Index<'a>,
    /// The type parameters in scope (those of the generic item whose fields are read).
    bindings: Vec<(String, Shape<'a>)>,
    /// Paths already tried while resolving one path, by module: globs and
    /// re-exports can form cycles, and trying each glob again at every level would take
    /// exponential time.
    seen: RefCell<BTreeSet<(Vec<String>, Vec<String>)>>,
}

impl<'i, 'a> Resolver<'i, 'a> {
    pub fn new(index: &'i Index<'a>) -> Self {
        Self::with_bindings(index, Vec::new())
    }

    /// A resolver inside a generic item: its type parameters name `bindings`.
    pub fn with_bindings(index: &'i Index<'a>, bindings: Vec<(String, Shape<'a>)>) -> Self {
        Self {
            index,
            bindings,
            seen: RefCell::default(),
        }
    }

    /// Resolves `ty` as written in `module`.
    pub fn resolve(&self, module: &[String], ty: &Type) -> Result<Shape<'a>, Unsupported> {
        self.resolve_depth(module, ty, 0)
    }

    fn resolve_depth(
        &self,
        module: &[String],
        ty: &Type,
        depth: usize,
    ) -> Result<Shape<'a>, Unsupported> {
        let named = Named(ty);
        if depth > MAX_DEPTH {
            return Err(named.refuse("its type aliases nest too deeply"));
        }
        let path = match ty {
            Type::Paren(p) => return self.resolve_depth(module, &p.elem, depth),
            Type::Group(g) => return self.resolve_depth(module, &g.elem, depth),
            Type::Tuple(t) if t.elems.is_empty() => return Ok(Shape::Prim(Prim::Unit)),
            Type::Tuple(_) => {
                return Err(named.refuse_as(
                    "tuple type",
                    "tuple schemas (`prefixItems`) are not structural, so the API server rejects them",
                ));
            }
            Type::Array(a) => {
                let len = self
                    .const_value(module, &a.len)
                    .ok()
                    .and_then(|v| v.as_u64())
                    .and_then(|n| usize::try_from(n).ok());
                let Some(len) = len.filter(|n| std_types::array(*n).is_some()) else {
                    return Err(named.refuse(
                        "schemars implements `JsonSchema` for arrays of a known length up to 32",
                    ));
                };
                if len == 0 {
                    return Err(named.refuse(
                        "schemars writes an empty array without `items`, and the API server \
                         rejects an array schema without them; drop the field",
                    ));
                }
                let inner = self.resolve_depth(module, &a.elem, depth + 1)?;
                return Ok(Shape::Array(len, Box::new(inner)));
            }
            Type::Path(p) if p.qself.is_none() => &p.path,
            _ => {
                return Err(named.refuse(
                    "only named types (structs, enums, std and k8s-openapi types) are supported",
                ));
            }
        };
        let segs: Vec<String> = path
            .segments
            .iter()
            .map(|s| s.ident.unraw().to_string())
            .collect();
        // Type and const arguments in order; lifetimes take no part in a schema.
        let generic_args: Vec<&GenericArgument> = match path.segments.last().map(|s| &s.arguments) {
            Some(PathArguments::AngleBracketed(a)) => a
                .args
                .iter()
                .filter(|g| matches!(g, GenericArgument::Type(_) | GenericArgument::Const(_)))
                .collect(),
            _ => Vec::new(),
        };
        let args: Vec<&Type> = generic_args
            .iter()
            .filter_map(|g| match g {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect();
        let mid_args = path
            .segments
            .iter()
            .rev()
            .skip(1)
            .any(|s| !s.arguments.is_empty());
        if mid_args {
            return Err(named.refuse("generic arguments inside a path are not supported"));
        }
        if segs.len() == 1
            && args.is_empty()
            && let Some((_, bound)) = self.bindings.iter().find(|(n, _)| *n == segs[0])
        {
            if let Shape::Const(_) = bound {
                return Err(named.refuse("it names a const parameter"));
            }
            return Ok(bound.clone());
        }
        if segs.len() == 1
            && args.is_empty()
            && !self.shadowed(module, &segs[0])
            && let Some(p) = Prim::from_primitive(&segs[0])
        {
            return Ok(Shape::Prim(p));
        }
        match self.resolve_fresh(module, &segs, depth) {
            Target::Local(item) => self.instantiate(module, item, &generic_args, named, depth),
            Target::Missing(p) => {
                Err(named.refuse(format!("`{p}` was not found in the given sources")))
            }
            Target::Undecided(why) => Err(named.refuse(why)),
            Target::External(full) => self.external(module, &full, &args, named, depth),
        }
    }

    fn external(
        &self,
        module: &[String],
        full: &str,
        args: &[&Type],
        named: Named<'_>,
        depth: usize,
    ) -> Result<Shape<'a>, Unsupported> {
        if let Some(w) = Wrapper::from_path(full) {
            let inner = match (w.is_map(), args) {
                (false, [t]) => *t,
                (true, [k, v]) => {
                    let key = self.resolve_depth(module, k, depth + 1)?;
                    if !matches!(key, Shape::Prim(Prim::String)) {
                        let value = self.resolve_depth(module, v, depth + 1)?;
                        return Ok(Shape::Map(w, Box::new(key), Box::new(value)));
                    }
                    *v
                }
                _ => {
                    return Err(named.refuse("unexpected generic arguments"));
                }
            };
            let inner = self.resolve_depth(module, inner, depth + 1)?;
            return Ok(Shape::Wrap(w, Box::new(inner)));
        }
        if let Some(shape) = self.ext(module, full, args, named, depth)? {
            return Ok(shape);
        }
        if args.is_empty()
            && let Some(p) = Prim::from_path(full)
        {
            return Ok(Shape::Prim(p));
        }
        if args.is_empty()
            && let Some(k) = k8s_types::lookup(full)
        {
            return Ok(Shape::K8s(k));
        }
        let why = if Prim::from_path(full).is_some() || k8s_types::lookup(full).is_some() {
            "unexpected generic arguments".to_string()
        } else if k8s_types::is_k8s_path(full) {
            format!("`{full}` is not in rsbuilder's table of k8s-openapi types")
        } else {
            format!(
                "`{full}` comes from outside the given sources and is not a known std or k8s-openapi type"
            )
        };
        Err(named.refuse(why))
    }

    /// A local item with its type and const arguments (resolved here, in `module`), or the
    /// type its alias stands for. Missing arguments take the parameters' defaults
    /// (`struct Page<T = String>`), as rustc does; lifetimes are ignored.
    fn instantiate(
        &self,
        module: &[String],
        mut item: ItemRef<'a>,
        args: &[&GenericArgument],
        named: Named<'_>,
        depth: usize,
    ) -> Result<Shape<'a>, Unsupported> {
        let generics = item.item.generics();
        let refuse = |why: &str| named.refuse(why);
        let params: Vec<&GenericParam> = generics
            .params
            .iter()
            .filter(|p| !matches!(p, GenericParam::Lifetime(_)))
            .collect();
        if args.len() > params.len() {
            return Err(refuse(
                "it has more generic arguments than its type has parameters",
            ));
        }
        let mut bound = Vec::new();
        for (i, param) in params.iter().enumerate() {
            // A default is written in the item's module, in terms of the earlier parameters.
            let in_item = Resolver::with_bindings(self.index, bound.clone());
            let shape = match (param, args.get(i)) {
                (GenericParam::Type(_), Some(GenericArgument::Type(arg))) => {
                    self.resolve_depth(module, arg, depth + 1)?
                }
                (GenericParam::Type(p), None) => match &p.default {
                    Some(default) => in_item.resolve_depth(&item.module, default, depth + 1)?,
                    None => return Err(refuse("a type parameter has no argument")),
                },
                // `Buf<N>` parses as a type argument even where `N` is a const.
                (GenericParam::Const(_), Some(GenericArgument::Type(Type::Path(p))))
                    if p.qself.is_none() =>
                {
                    let path = Expr::Path(syn::ExprPath {
                        attrs: Vec::new(),
                        qself: None,
                        path: p.path.clone(),
                    });
                    Shape::Const(
                        self.const_value(module, &path)
                            .map_err(|why| refuse(&why))?,
                    )
                }
                (GenericParam::Const(_), Some(GenericArgument::Const(e))) => {
                    Shape::Const(self.const_value(module, e).map_err(|why| refuse(&why))?)
                }
                (GenericParam::Const(p), None) => match &p.default {
                    Some(default) => Shape::Const(
                        in_item
                            .const_value(&item.module, default)
                            .map_err(|why| refuse(&why))?,
                    ),
                    None => return Err(refuse("a const parameter has no argument")),
                },
                _ => return Err(refuse("a generic argument does not fit its parameter")),
            };
            let Some(name) = param_name(param) else {
                continue;
            };
            bound.push((name, shape));
        }
        match item.item {
            TypeItem::Alias(alias) => {
                let inner = Resolver::with_bindings(self.index, bound);
                inner.resolve_depth(&item.module, &alias.ty, depth + 1)
            }
            _ => {
                item.args = bound.into_iter().map(|(_, s)| s).collect();
                Ok(Shape::User(item))
            }
        }
    }

    /// A std or feature-crate type of `std_types`, when `full` names one.
    fn ext(
        &self,
        module: &[String],
        full: &str,
        args: &[&Type],
        named: Named<'_>,
        depth: usize,
    ) -> Result<Option<Shape<'a>>, Unsupported> {
        let (first, rest) = full.split_once("::").unwrap_or((full, ""));
        let canonical = format!("{}::{rest}", self.index.krate.package_of(first));
        let unexpected = || named.refuse("unexpected generic arguments");
        if std_types::is_non_zero(&canonical) {
            let [arg] = args else {
                return Err(unexpected());
            };
            let prim = quote::ToTokens::to_token_stream(*arg).to_string();
            return std_types::non_zero(&prim)
                .map(|t| Some(Shape::Ext(t, Vec::new())))
                .ok_or_else(unexpected);
        }
        let Some(t) = std_types::lookup(&canonical) else {
            return Ok(None);
        };
        if let Some(feature) = t.feature
            && !self.feature_on(feature)
        {
            let feature = if feature == "smol_str" {
                "smol_str03"
            } else {
                feature
            };
            let why = if self.index.krate.cfg.features.is_some() {
                format!(
                    "its `JsonSchema` impl is schemars' `{feature}` feature, which the crate's Cargo.toml and Cargo.lock do not turn on (add it to the `features` of the schemars dependency)"
                )
            } else {
                format!(
                    "its `JsonSchema` impl is schemars' `{feature}` feature, and no Cargo.toml was found to say it is on"
                )
            };
            return Err(named.refuse(why));
        }
        let resolve = |ty: &Type| self.resolve_depth(module, ty, depth + 1);
        let shapes = match (t.params, args) {
            (Params::None, []) | (Params::Ignored, _) => Vec::new(),
            (Params::One, [a]) => vec![resolve(a)?],
            (Params::OneArray, [Type::Array(a)]) => vec![resolve(&a.elem)?],
            (Params::Two, [a, b]) => vec![resolve(a)?, resolve(b)?],
            (Params::StringKeyed, [k, v]) => {
                let key = resolve(k)?;
                if !matches!(key, Shape::Prim(Prim::String)) {
                    // schemars' impl for these maps forwards to `BTreeMap<K, V>`.
                    let value = Box::new(resolve(v)?);
                    return Ok(Some(Shape::Map(Wrapper::BTreeMap, Box::new(key), value)));
                }
                vec![resolve(v)?]
            }
            _ => return Err(unexpected()),
        };
        Ok(Some(Shape::Ext(t, shapes)))
    }

    /// Whether schemars' optional `feature` is on for the crate.
    fn feature_on(&self, feature: &str) -> bool {
        let on = &self.index.krate.schemars_features;
        match feature {
            // One feature per major version; both forward to `String`'s schema.
            "smol_str" => on.contains("smol_str02") || on.contains("smol_str03"),
            f => on.contains(f),
        }
    }

    /// Whether `name` in `module` refers to a local type or import (so a primitive name
    /// would not be the primitive).
    fn shadowed(&self, module: &[String], name: &str) -> bool {
        self.index
            .module(module)
            .is_some_and(|m| m.types.contains_key(name) || m.uses.contains_key(name))
    }

    /// [`Self::resolve_path`] from a fresh start, remembering where paths outside the
    /// sources lead: those are the paths tried every way into the sources first, and
    /// kopium-style sources name `Option`, `Vec` and `String` in nearly every field. From a
    /// fresh start, where a path leads depends only on the module, the path and the depth.
    fn resolve_fresh(&self, module: &[String], segs: &[String], depth: usize) -> Target<'a> {
        let known = self
            .index
            .outside
            .borrow()
            .get(&depth)
            .and_then(|by_module| by_module.get(module)?.get(segs).cloned());
        if let Some(full) = known {
            return Target::External(full);
        }
        self.seen.borrow_mut().clear();
        let target = self.resolve_path(module, segs, depth);
        if let Target::External(full) = &target {
            let mut outside = self.index.outside.borrow_mut();
            let by_module = outside.entry(depth).or_default();
            let paths = by_module.entry(module.to_vec()).or_default();
            paths.insert(segs.to_vec(), full.clone());
        }
        target
    }

    fn resolve_path(&self, module: &[String], segs: &[String], depth: usize) -> Target<'a> {
        if depth > MAX_DEPTH || segs.is_empty() {
            return Target::External(segs.join("::"));
        }
        if !self
            .seen
            .borrow_mut()
            .insert((module.to_vec(), segs.to_vec()))
        {
            // Tried before in this resolution: a cycle, or a glob already explored.
            return Target::External(segs.join("::"));
        }
        let first = segs[0].as_str();
        match first {
            "crate" => return self.walk(deps::crate_root(module), &segs[1..], depth),
            "self" => return self.walk(module.to_vec(), &segs[1..], depth),
            "super" => {
                let mut base = module.to_vec();
                let mut rest = segs;
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop();
                    rest = &rest[1..];
                }
                return self.walk(base, rest, depth);
            }
            _ => {}
        }
        let Some(m) = self.index.module(module) else {
            return Target::External(segs.join("::"));
        };
        if let Some(u) = m.undecided.get(first) {
            return self.undecided(m.file, u);
        }
        if segs.len() == 1
            && let Some(item) = m.types.get(first)
        {
            return Target::Local(self.item_ref(module, *item));
        }
        if let Some(target) = m.uses.get(first) {
            let full = [&target[..], &segs[1..]].concat();
            return self.resolve_path(module, &full, depth + 1);
        }
        let child = [module, &segs[..1]].concat();
        if self.index.module(&child).is_some() || self.index.undecided_module(&child).is_some() {
            return self.walk(module.to_vec(), segs, depth);
        }
        for glob in &m.globs {
            // A glob over a module of the sources is a lookup in that module (keyed by it,
            // so chains of `use super::*` stay linear); over anything else, a path outside.
            let found = match self.module_of(module, glob) {
                Some(target) => self.walk(target, segs, depth + 1),
                None => Target::External([&glob[..], segs].concat().join("::")),
            };
            match found {
                t @ (Target::Local(_) | Target::Undecided(_)) => return t,
                Target::External(p) if self.known_external(&p) => return Target::External(p),
                _ => {}
            }
        }
        if let Some(u) = &m.undecided_glob {
            return self.undecided(m.file, u);
        }
        // A crate the crate depends on by `path`: its sources are in the index.
        if let Some(root) = self.index.dependency(first) {
            return self.walk(root, &segs[1..], depth);
        }
        Target::External(segs.join("::"))
    }

    /// The module of the sources a `use` path names (`super`, `self::a`, `crate::b::c`,
    /// a child module), if it names one.
    fn module_of(&self, module: &[String], path: &[String]) -> Option<Vec<String>> {
        let dependency = path.first().and_then(|first| self.index.dependency(first));
        let (mut current, rest) = match path.first().map(String::as_str) {
            Some("crate") => (deps::crate_root(module), &path[1..]),
            _ if let Some(root) = dependency => (root, &path[1..]),
            Some("self") => (module.to_vec(), &path[1..]),
            Some("super") => {
                let mut base = module.to_vec();
                let mut rest = path;
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
                (base, rest)
            }
            _ => (module.to_vec(), path),
        };
        for seg in rest {
            current.push(seg.clone());
            self.index.module(&current)?;
        }
        Some(current)
    }

    /// The refusal for a name defined under an undecided `#[cfg]` in `file`.
    fn undecided(&self, file: usize, u: &Unsupported) -> Target<'a> {
        let at = self.index.path_of(file).display();
        Target::Undecided(format!(
            "it is defined under {} ({at}:{}), and {}",
            u.what,
            u.span.start().line,
            u.why
        ))
    }

    fn known_external(&self, path: &str) -> bool {
        Prim::from_path(path).is_some()
            || Wrapper::from_path(path).is_some()
            || k8s_types::lookup(path).is_some()
            || std_types::lookup(path).is_some()
            || std_types::is_non_zero(path)
    }

    /// `rest` looked up from module `base` downwards (`crate::a::b::T` from the root,
    /// `super::x::T` from the parent): through child modules, and through `use` items
    /// and globs of the modules on the way (`pub use k8s_openapi::api::core::v1 as core;`
    /// makes `crate::core::PodSpec` a k8s-openapi path).
    fn walk(&self, base: Vec<String>, rest: &[String], depth: usize) -> Target<'a> {
        let Some((name, mods)) = rest.split_last() else {
            return Target::Missing(String::from("crate"));
        };
        let wanted = [&base[..], mods].concat();
        let mut current = base;
        for (i, seg) in mods.iter().enumerate() {
            let child = [&current[..], std::slice::from_ref(seg)].concat();
            if let Some((at, u)) = self.index.undecided_module(&child) {
                return Target::Undecided(format!(
                    "its module exists only under {} ({}:{}), and {}",
                    u.what,
                    at.display(),
                    u.span.start().line,
                    u.why
                ));
            }
            if self.index.module(&child).is_some() {
                current = child;
                continue;
            }
            if let Some(m) = self.index.module(&current)
                && (m.uses.contains_key(seg) || !m.globs.is_empty())
            {
                return self.resolve_path(&current, &rest[i..], depth + 1);
            }
            // A sub-tree of the crate (`--paths src/api`): `crate::api::x` may be the
            // module rsbuilder knows as `api::x` or `x`.
            return match self.suffix_module(&wanted) {
                Some(module) => self.item_in(&module, name, rest, depth),
                None => Target::Missing(rest.join("::")),
            };
        }
        self.item_in(&current, name, rest, depth)
    }

    /// `name` in `module`: an item, or a re-export or glob import of one.
    fn item_in(&self, module: &[String], name: &str, whole: &[String], depth: usize) -> Target<'a> {
        let Some(m) = self.index.module(module) else {
            return Target::Missing(whole.join("::"));
        };
        if let Some(u) = m.undecided.get(name) {
            return self.undecided(m.file, u);
        }
        if let Some(item) = m.types.get(name) {
            return Target::Local(self.item_ref(module, *item));
        }
        if m.uses.contains_key(name) || !m.globs.is_empty() {
            return self.resolve_path(module, &[name.to_string()], depth + 1);
        }
        Target::Missing(whole.join("::"))
    }

    /// When the sources are a sub-tree of the crate (`--paths src/api`), `crate::api::x`
    /// names the module rsbuilder knows as `api::x` or `x`: accept the unique longest
    /// module whose path is a suffix of the requested one.
    fn suffix_module(&self, mods: &[String]) -> Option<Vec<String>> {
        let mut found: Option<&Vec<String>> = None;
        let mut tie = false;
        for key in self.index.modules.keys() {
            if key.is_empty() || !mods.ends_with(key) {
                continue;
            }
            match found {
                Some(f) if f.len() == key.len() => tie = true,
                Some(f) if f.len() > key.len() => {}
                _ => {
                    found = Some(key);
                    tie = false;
                }
            }
        }
        if tie { None } else { found.cloned() }
    }

    /// The value of a const expression written in `module`: a const parameter bound here,
    /// a literal, or a `const` item with a literal value.
    pub fn const_value(&self, module: &[String], expr: &Expr) -> Result<serde_json::Value, String> {
        let expr = match expr {
            Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                syn::Stmt::Expr(e, None) => e,
                _ => expr,
            },
            _ => expr,
        };
        if let Expr::Path(p) = expr
            && let Some(ident) = p.path.get_ident()
            && let Some((_, Shape::Const(v))) =
                self.bindings.iter().find(|(n, _)| *ident == n.as_str())
        {
            return Ok(v.clone());
        }
        super::consts::number(self.index, module, expr)
    }

    fn item_ref(&self, module: &[String], item: TypeItem<'a>) -> ItemRef<'a> {
        let file = self.index.module(module).map_or(0, |m| m.file);
        ItemRef {
            module: module.to_vec(),
            item,
            file,
            args: Vec::new(),
        }
    }
}
