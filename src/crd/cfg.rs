//! Conditional compilation as rustc would see it: `#[cfg]` removes items, fields and
//! variants, `#[cfg_attr]` adds attributes. [`Pass`] rewrites a parsed file the way
//! rustc's cfg-stripping does, for the predicates the source decides: `all`, `any`,
//! `not`, `test` (false: `generate crds` mirrors a normal build, not `cargo test`) and
//! `feature = "..."` (the crate's features, from its Cargo.toml and `--features`).
//!
//! What the source does not decide (`debug_assertions` depends on the profile,
//! `target_os` on the target, a custom `--cfg` on the build) is left in place: after the
//! pass, a `#[cfg]` or `#[cfg_attr]` attribute still present is one that could go either
//! way, and whoever uses that item, field or variant refuses it through [`undecided`].

use std::collections::BTreeSet;

use proc_macro2::Span;
use syn::punctuated::Punctuated;
use syn::visit_mut::VisitMut;
use syn::{Attribute, Meta, Token};

use super::diagnostics::{Unsupported, span_of};

/// The configuration `#[cfg]` predicates are evaluated against.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CfgEnv {
    /// The enabled features, or `None` when no Cargo.toml says which they are.
    pub features: Option<BTreeSet<String>>,
}

/// The attributes whose presence can change a CRD: a `#[cfg_attr]` that could add one of
/// them is undecided; one that could only add others (`doc(cfg(..))`, `allow`, `derive(Debug)`
/// aside) is dropped.
const RELEVANT: &[&str] = &[
    "cfg",
    "cfg_attr",
    "derive",
    "serde",
    "schemars",
    "kube",
    "x_kube",
    "doc",
    "validate",
    "garde",
    "deprecated",
    "default",
    "path",
];

/// Traits whose derive changes what `generate crds` sees.
const RELEVANT_DERIVES: &[&str] = &[
    "CustomResource",
    "JsonSchema",
    "KubeSchema",
    "Default",
    "Deserialize",
];

impl CfgEnv {
    /// Evaluates a predicate: `Ok(bool)` when the source decides it, `Err` naming the part
    /// that it does not.
    pub fn eval(&self, pred: &Meta) -> Result<bool, Unsupported> {
        match pred {
            Meta::List(list) if list.path.is_ident("all") || list.path.is_ident("any") => {
                let preds = list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated);
                let preds = preds.map_err(|e| malformed(e.span()))?;
                let all = list.path.is_ident("all");
                // Like rustc, a decided operand settles `all`/`any` even when another is not.
                let mut undecided = None;
                for p in &preds {
                    match self.eval(p) {
                        Ok(v) if v != all => return Ok(v),
                        Ok(_) => {}
                        Err(u) => undecided = undecided.or(Some(u)),
                    }
                }
                undecided.map_or(Ok(all), Err)
            }
            Meta::List(list) if list.path.is_ident("not") => {
                let inner: Meta = list.parse_args().map_err(|e| malformed(e.span()))?;
                self.eval(&inner).map(|v| !v)
            }
            Meta::Path(p) if p.is_ident("test") => Ok(false),
            Meta::NameValue(nv) if nv.path.is_ident("feature") => {
                let name = super::literals::lit_str(&nv.value).map_err(|e| malformed(e.span()))?;
                match &self.features {
                    Some(features) => Ok(features.contains(&name)),
                    None => Err(Unsupported::new(
                        span_of(pred),
                        format!("`#[cfg(feature = \"{name}\")]`"),
                        "no Cargo.toml was found to say which features are enabled",
                    )),
                }
            }
            Meta::Path(p) if p.is_ident("debug_assertions") => Err(Unsupported::new(
                span_of(pred),
                "`#[cfg(debug_assertions)]`",
                "it depends on the build profile, which the source does not fix",
            )),
            other => {
                let shown = quote::ToTokens::to_token_stream(other).to_string();
                Err(Unsupported::new(
                    span_of(other),
                    format!("`#[cfg({shown})]`"),
                    "it depends on the target or the build, which the source does not fix",
                ))
            }
        }
    }

    /// Whether a list of attributes keeps its item: `Ok(true)` when every `#[cfg]` holds.
    fn keep(&self, attrs: &[Attribute]) -> Result<bool, Unsupported> {
        let mut undecided = None;
        for attr in attrs.iter().filter(|a| a.path().is_ident("cfg")) {
            let pred: Meta = attr.parse_args().map_err(|e| malformed(e.span()))?;
            match self.eval(&pred) {
                Ok(false) => return Ok(false),
                Ok(true) => {}
                Err(u) => undecided = undecided.or(Some(u)),
            }
        }
        undecided.map_or(Ok(true), Err)
    }

    /// Expands the `#[cfg_attr]`s the source decides and drops decided `#[cfg]`s; returns
    /// whether the item stays. Undecided attributes are kept for [`undecided`].
    fn strip(&self, attrs: &mut Vec<Attribute>) -> bool {
        if !attrs.iter().any(is_cfg) {
            return true;
        }
        let mut out = Vec::with_capacity(attrs.len());
        let mut queue: Vec<Attribute> = std::mem::take(attrs);
        queue.reverse();
        while let Some(attr) = queue.pop() {
            if !attr.path().is_ident("cfg_attr") {
                out.push(attr);
                continue;
            }
            let Ok((pred, inner)) = split_cfg_attr(&attr) else {
                out.push(attr);
                continue;
            };
            match self.eval(&pred) {
                Ok(true) => {
                    for meta in inner.into_iter().rev() {
                        queue.push(Attribute {
                            meta,
                            ..attr.clone()
                        });
                    }
                }
                Ok(false) => {}
                Err(_) if inner.iter().all(|m| !relevant(m)) => {}
                Err(_) => out.push(attr),
            }
        }
        *attrs = out;
        match self.keep(attrs) {
            Ok(false) => false,
            Ok(true) => {
                attrs.retain(|a| !a.path().is_ident("cfg"));
                true
            }
            Err(_) => true,
        }
    }
}

/// Whether `attr` is a `#[cfg]` or a `#[cfg_attr]`, which [`CfgEnv::strip`] decides.
fn is_cfg(attr: &Attribute) -> bool {
    let path = attr.path();
    path.is_ident("cfg") || path.is_ident("cfg_attr")
}

/// `cfg_attr(pred, a, b)` → `(pred, [a, b])`.
fn split_cfg_attr(attr: &Attribute) -> syn::Result<(Meta, Vec<Meta>)> {
    attr.parse_args_with(|input: syn::parse::ParseStream<'_>| {
        let pred: Meta = input.parse()?;
        input.parse::<Token![,]>()?;
        let rest = Punctuated::<Meta, Token![,]>::parse_terminated(input)?;
        Ok((pred, rest.into_iter().collect()))
    })
}

fn relevant(meta: &Meta) -> bool {
    let Some(name) = meta.path().get_ident().map(|i| i.to_string()) else {
        return true;
    };
    if name == "derive" {
        let mut any = false;
        let _ = meta.require_list().map(|l| {
            l.parse_nested_meta(|m| {
                any |= m
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| RELEVANT_DERIVES.contains(&s.ident.to_string().as_str()));
                Ok(())
            })
        });
        return any;
    }
    RELEVANT.contains(&name.as_str())
}

fn malformed(span: Span) -> Unsupported {
    Unsupported::new(
        span,
        "this `#[cfg]` predicate",
        "it is not a predicate rustc accepts",
    )
}

/// The reason an item, field or variant that survived [`Pass`] may still not exist (or
/// may carry attributes that are not known): its leftover `#[cfg]`/`#[cfg_attr]`.
pub fn undecided(env: &CfgEnv, attrs: &[Attribute]) -> Option<Unsupported> {
    for attr in attrs {
        if attr.path().is_ident("cfg") {
            let pred: Meta = match attr.parse_args() {
                Ok(p) => p,
                Err(e) => return Some(malformed(e.span())),
            };
            if let Err(u) = env.eval(&pred) {
                return Some(u);
            }
        } else if attr.path().is_ident("cfg_attr") {
            return Some(match split_cfg_attr(attr) {
                Ok((pred, _)) => env
                    .eval(&pred)
                    .err()
                    .unwrap_or_else(|| malformed(span_of(attr))),
                Err(e) => malformed(e.span()),
            });
        }
    }
    None
}

/// `mod x;` declarations the pass removed, by name: their files are not part of the crate.
pub type Removed = Vec<String>;

/// The cfg-stripping pass over one file. Items, fields, variants, impl items and match
/// arms whose `#[cfg]` is false disappear; `#[cfg_attr]`s that hold are expanded in place.
pub struct Pass<'e> {
    pub env: &'e CfgEnv,
    /// `mod x;` (without a body) removed by a false `#[cfg]`, with the inline module path
    /// they were declared in, so the files they name are left out too.
    pub removed_mods: Vec<(Vec<String>, String)>,
    inline: Vec<String>,
}

impl<'e> Pass<'e> {
    pub fn new(env: &'e CfgEnv) -> Self {
        Self {
            env,
            removed_mods: Vec::new(),
            inline: Vec::new(),
        }
    }

    /// Runs the pass on a file; `false` when the file's own `#![cfg]` removes it.
    pub fn file(&mut self, file: &mut syn::File) -> bool {
        if !self.env.strip(&mut file.attrs) {
            return false;
        }
        self.visit_file_mut(file);
        true
    }

    fn items(&mut self, items: &mut Vec<syn::Item>) {
        items.retain_mut(|item| {
            let keep = match item_attrs(item) {
                Some(attrs) => self.env.strip(attrs),
                None => true,
            };
            if !keep
                && let syn::Item::Mod(m) = item
                && m.content.is_none()
            {
                self.removed_mods
                    .push((self.inline.clone(), m.ident.to_string()));
            }
            keep
        });
    }
}

impl VisitMut for Pass<'_> {
    fn visit_file_mut(&mut self, file: &mut syn::File) {
        self.items(&mut file.items);
        for item in &mut file.items {
            self.visit_item_mut(item);
        }
    }

    fn visit_item_mod_mut(&mut self, m: &mut syn::ItemMod) {
        if let Some((_, items)) = &mut m.content {
            self.inline.push(m.ident.to_string());
            self.items(items);
            for item in items.iter_mut() {
                self.visit_item_mut(item);
            }
            self.inline.pop();
        }
    }

    fn visit_fields_named_mut(&mut self, fields: &mut syn::FieldsNamed) {
        retain(&mut fields.named, self.env, |f| &mut f.attrs);
    }

    fn visit_fields_unnamed_mut(&mut self, fields: &mut syn::FieldsUnnamed) {
        retain(&mut fields.unnamed, self.env, |f| &mut f.attrs);
    }

    fn visit_item_enum_mut(&mut self, e: &mut syn::ItemEnum) {
        retain(&mut e.variants, self.env, |v| &mut v.attrs);
        for v in &mut e.variants {
            self.visit_fields_mut(&mut v.fields);
        }
    }

    fn visit_item_impl_mut(&mut self, imp: &mut syn::ItemImpl) {
        imp.items.retain_mut(|item| match item {
            syn::ImplItem::Fn(f) => self.env.strip(&mut f.attrs),
            syn::ImplItem::Const(c) => self.env.strip(&mut c.attrs),
            syn::ImplItem::Type(t) => self.env.strip(&mut t.attrs),
            _ => true,
        });
    }

    // Function bodies only matter for `default = "..."` functions, which must be a single
    // expression; a `#[cfg]` inside one makes it computed anyway.
    fn visit_block_mut(&mut self, _: &mut syn::Block) {}
}

/// Keeps the fields or variants whose `#[cfg]` holds (or is undecided).
fn retain<T, P: Default>(
    list: &mut Punctuated<T, P>,
    env: &CfgEnv,
    attrs: impl Fn(&mut T) -> &mut Vec<Attribute>,
) {
    // Most lists have no `#[cfg]` at all: leave them as they are rather than rebuild them.
    if !list.iter_mut().any(|t| attrs(t).iter().any(is_cfg)) {
        return;
    }
    *list = std::mem::take(list)
        .into_pairs()
        .filter_map(|p| {
            let mut value = p.into_value();
            env.strip(attrs(&mut value)).then_some(value)
        })
        .collect();
}

fn item_attrs(item: &mut syn::Item) -> Option<&mut Vec<Attribute>> {
    use syn::Item::*;
    Some(match item {
        Const(i) => &mut i.attrs,
        Enum(i) => &mut i.attrs,
        ExternCrate(i) => &mut i.attrs,
        Fn(i) => &mut i.attrs,
        ForeignMod(i) => &mut i.attrs,
        Impl(i) => &mut i.attrs,
        Macro(i) => &mut i.attrs,
        Mod(i) => &mut i.attrs,
        Static(i) => &mut i.attrs,
        Struct(i) => &mut i.attrs,
        Trait(i) => &mut i.attrs,
        TraitAlias(i) => &mut i.attrs,
        Type(i) => &mut i.attrs,
        Union(i) => &mut i.attrs,
        Use(i) => &mut i.attrs,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(features: &[&str]) -> CfgEnv {
        CfgEnv {
            features: Some(features.iter().map(|f| f.to_string()).collect()),
        }
    }

    fn eval(env: &CfgEnv, pred: &str) -> Result<bool, String> {
        let meta: Meta = crate::syntax::parse_str(pred).unwrap();
        env.eval(&meta)
            .map_err(|u| format!("{}: {}", u.what, u.why))
    }

    #[test]
    fn predicates_the_source_decides() {
        let e = env(&["metrics"]);
        assert_eq!(eval(&e, "all()"), Ok(true));
        assert_eq!(eval(&e, "any()"), Ok(false));
        assert_eq!(eval(&e, "not(test)"), Ok(true));
        assert_eq!(eval(&e, "feature = \"metrics\""), Ok(true));
        assert_eq!(eval(&e, "feature = \"tracing\""), Ok(false));
        assert_eq!(
            eval(&e, "all(test, unix)"),
            Ok(false),
            "false settles all()"
        );
        assert_eq!(
            eval(&e, "any(not(test), unix)"),
            Ok(true),
            "true settles any()"
        );
    }

    #[test]
    fn predicates_the_source_does_not_decide() {
        let e = env(&[]);
        assert!(
            eval(&e, "debug_assertions")
                .unwrap_err()
                .contains("profile")
        );
        assert!(
            eval(&e, "target_os = \"linux\"")
                .unwrap_err()
                .contains("target")
        );
        assert!(eval(&e, "all(unix, not(test))").is_err());
        let none = CfgEnv::default();
        assert!(
            eval(&none, "feature = \"x\"")
                .unwrap_err()
                .contains("Cargo.toml")
        );
    }

    #[test]
    fn pass_strips_like_rustc() {
        let mut file: syn::File = syn::parse_quote! {
            #[cfg(test)]
            mod tests;
            #[cfg(any())]
            struct Gone;
            struct S {
                a: u8,
                #[cfg(feature = "x")]
                b: u8,
                #[cfg_attr(all(), serde(rename = "c2"))]
                c: u8,
                #[cfg(unix)]
                d: u8,
                #[cfg_attr(unix, allow(dead_code))]
                e: u8,
            }
        };
        let e = env(&[]);
        let mut pass = Pass::new(&e);
        assert!(pass.file(&mut file));
        assert_eq!(pass.removed_mods, [(vec![], "tests".to_string())]);
        assert_eq!(file.items.len(), 1);
        let syn::Item::Struct(s) = &file.items[0] else {
            panic!()
        };
        let names: Vec<String> = s
            .fields
            .iter()
            .map(|f| f.ident.as_ref().unwrap().to_string())
            .collect();
        assert_eq!(names, ["a", "c", "d", "e"]);
        let c = &s.fields.iter().nth(1).unwrap().attrs;
        assert!(c[0].path().is_ident("serde"));
        let d = &s.fields.iter().nth(2).unwrap().attrs;
        assert!(undecided(&e, d).is_some(), "cfg(unix) stays undecided");
        let e_attrs = &s.fields.iter().nth(3).unwrap().attrs;
        assert!(
            e_attrs.is_empty(),
            "an undecided cfg_attr(.., allow) is dropped"
        );
    }
}
