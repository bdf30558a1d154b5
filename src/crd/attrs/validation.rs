//! Validation keywords as schemars_derive 1.2 reads them from `#[schemars(...)]`,
//! `#[validate(...)]` (validator) and `#[garde(...)]`, in that order: the first attribute
//! to set a keyword wins, keys schemars does not know in validator/garde attributes
//! (`message`, `code`, `custom`, `rule`, ...) are ignored, as schemars ignores them.
//!
//! Values stay expressions here (`min = MAX_LEN`, `regex(path = *RE)`): what they are is
//! decided against the crate's items when the schema is built (`super::super::consts`).

use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, Lit, Meta, Token};

use crate::crd::diagnostics::{Unsupported, span_of};
use crate::syntax::parse_lit;

/// Which attribute a keyword came from: schemars applies different rules to each.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Schemars,
    Validate,
    Garde,
}

/// `min`/`max` of `length(...)` or `range(...)` (`equal` sets both), as written.
#[derive(Debug, Clone, Default)]
pub struct Bounds {
    pub min: Option<Expr>,
    pub max: Option<Expr>,
}

/// Validation keywords (schemars' `ValidationAttrs`).
#[derive(Debug, Clone, Default)]
pub struct Validation {
    pub length: Option<Bounds>,
    pub range: Option<Bounds>,
    /// `regex(...)`, or else `pattern(...)`: an expression whose `.to_string()` is the pattern.
    pub pattern: Option<Expr>,
    pub contains: Option<Expr>,
    pub required: bool,
    pub format: Option<&'static str>,
    pub inner: Option<Box<Validation>>,
}

impl Validation {
    pub fn is_default(&self) -> bool {
        self.length.is_none()
            && self.range.is_none()
            && self.pattern.is_none()
            && self.contains.is_none()
            && !self.required
            && self.format.is_none()
            && self.inner.is_none()
    }
}

/// The `format` schemars gives each format keyword.
fn format(name: &str) -> Option<&'static str> {
    Some(match name {
        "email" => "email",
        "url" => "uri",
        "ip" => "ip",
        "ipv4" => "ipv4",
        "ipv6" => "ipv6",
        _ => return None,
    })
}

/// Whether `name` is a validation keyword of a `#[schemars]` attribute.
pub fn is_keyword(name: &str) -> bool {
    format(name).is_some()
        || matches!(
            name,
            "length" | "range" | "required" | "pattern" | "regex" | "contains" | "inner"
        )
}

/// Reads the `#[validate]` and `#[garde]` attributes into `v` (after `#[schemars]`).
/// An attribute schemars cannot parse as a list of metas it skips whole, and so do we.
pub fn read_foreign(attrs: &[Attribute], v: &mut Validation) -> Result<(), Unsupported> {
    for (name, source) in [("validate", Source::Validate), ("garde", Source::Garde)] {
        for attr in attrs.iter().filter(|a| a.path().is_ident(name)) {
            let Ok(list) = attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
            else {
                continue;
            };
            for meta in &list {
                keyword(v, meta, source)?;
            }
        }
    }
    Ok(())
}

/// One item of a validation attribute (`ValidationAttrs::process_meta`). Items that are
/// not validation keywords are left to the caller (schemars) or ignored (validator, garde).
/// A form schemars rejects with a compile error is an `Err`.
pub fn keyword(v: &mut Validation, meta: &Meta, source: Source) -> Result<(), Unsupported> {
    let name = meta
        .path()
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default();
    let reject = |why: &str| {
        Unsupported::new(
            span_of(meta),
            format!("this `{name}` validation attribute"),
            format!("schemars rejects it ({why}), so kube-derive does not compile"),
        )
    };
    let any_text = v.pattern.is_some() || v.contains.is_some();
    if let Some(f) = format(&name) {
        // validator allows `email(message = "..")`; schemars and garde only the bare word.
        if source != Source::Validate && !matches!(meta, Meta::Path(_)) {
            return Err(reject("a format keyword takes no value"));
        }
        if v.format.is_none() {
            v.format = Some(f);
        }
        return Ok(());
    }
    match name.as_str() {
        "length" | "range" => {
            let b = bounds(meta, source).map_err(|e| reject(&e))?;
            let slot = if name == "length" {
                &mut v.length
            } else {
                &mut v.range
            };
            if slot.is_none() {
                *slot = Some(b);
            }
        }
        "required" => {
            if !matches!(meta, Meta::Path(_)) {
                return Err(reject("`required` takes no value"));
            }
            v.required = true;
        }
        "pattern" if source != Source::Validate => {
            let expr: Expr = list(meta)
                .and_then(|l| l.parse_args().map_err(|e| e.to_string()))
                .map_err(|e| reject(&e))?;
            if !any_text {
                v.pattern = Some(expr);
            }
        }
        "regex" if source != Source::Garde => {
            let key = if source == Source::Validate {
                "path"
            } else {
                "pattern"
            };
            let expr = nested_value(meta, key, source)
                .map_err(|e| reject(&e))?
                .ok_or_else(|| reject(&format!("`regex(...)` needs `{key} = ...`")))?;
            if !any_text {
                v.pattern = Some(expr);
            }
        }
        "contains" => {
            let expr = contains(meta, source).map_err(|e| reject(&e))?;
            if !any_text {
                v.contains = Some(expr);
            }
        }
        "inner" if source != Source::Validate => {
            let items = nested(meta).map_err(|e| reject(&e))?;
            let inner = v.inner.get_or_insert_with(Box::default);
            for item in &items {
                keyword(inner, item, source)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn list(meta: &Meta) -> Result<&syn::MetaList, String> {
    meta.require_list().map_err(|e| e.to_string())
}

fn nested(meta: &Meta) -> Result<Punctuated<Meta, Token![,]>, String> {
    list(meta)?
        .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
        .map_err(|e| e.to_string())
}

/// A `key = value` value; a string literal is parsed as the expression it holds
/// (`parse_name_value_expr_handle_lit_str`).
fn value_expr(meta: &Meta) -> Result<Expr, String> {
    let nv = meta.require_name_value().map_err(|e| e.to_string())?;
    match &nv.value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => parse_lit::<Expr>(s).map_err(|e| e.to_string()),
        other => Ok(other.clone()),
    }
}

/// `length(min = 1, max = 5)`, `range(equal = 3)`: the first of each key wins, `equal`
/// conflicts with `min`/`max`; other keys are an error in `#[schemars]`, ignored elsewhere.
fn bounds(meta: &Meta, source: Source) -> Result<Bounds, String> {
    let (mut min, mut max, mut equal) = (None, None, None);
    for item in nested(meta)? {
        let key = item.path().get_ident().map(ToString::to_string);
        let slot = match key.as_deref() {
            Some("min") if equal.is_none() => &mut min,
            Some("max") if equal.is_none() => &mut max,
            Some("equal") if min.is_none() && max.is_none() => &mut equal,
            Some("min" | "max" | "equal") => continue,
            _ if source == Source::Schemars => {
                return Err("unknown item in `length`/`range`".into());
            }
            _ => continue,
        };
        if slot.is_none() {
            *slot = Some(value_expr(&item)?);
        }
    }
    Ok(Bounds {
        min: min.or_else(|| equal.clone()),
        max: max.or(equal),
    })
}

/// The value of `key = ...` inside `meta(...)`; other keys are an error in `#[schemars]`,
/// ignored in `#[validate]`.
fn nested_value(meta: &Meta, key: &str, source: Source) -> Result<Option<Expr>, String> {
    let mut out = None;
    for item in nested(meta)? {
        if item.path().is_ident(key) {
            if out.is_none() {
                out = Some(if source == Source::Validate {
                    value_expr(&item)?
                } else {
                    item.require_name_value()
                        .map_err(|e| e.to_string())?
                        .value
                        .clone()
                });
            }
        } else if source == Source::Schemars {
            return Err(format!("unknown item in `{}`", path_name(meta)));
        }
    }
    Ok(out)
}

fn path_name(meta: &Meta) -> String {
    meta.path()
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default()
}

/// `contains(pattern = x)` (validator), `contains(x)` (garde), either in `#[schemars]`
/// (told apart as schemars does: a `=` or `,` after the first token means metas).
fn contains(meta: &Meta, source: Source) -> Result<Expr, String> {
    let l = list(meta)?;
    let metas = match source {
        Source::Validate => true,
        Source::Garde => false,
        Source::Schemars => {
            let tokens: Vec<proc_macro2::TokenTree> = l.tokens.clone().into_iter().collect();
            matches!(tokens.get(1), Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == '=' || p.as_char() == ',')
        }
    };
    if !metas {
        return l.parse_args().map_err(|e| e.to_string());
    }
    let mut out = None;
    for item in nested(meta)? {
        if item.path().is_ident("pattern") {
            if out.is_none() {
                out = Some(
                    item.require_name_value()
                        .map_err(|e| e.to_string())?
                        .value
                        .clone(),
                );
            }
        } else if source == Source::Schemars {
            return Err("unknown item in `contains`".into());
        }
    }
    out.ok_or_else(|| "`contains(...)` needs `pattern = ...`".into())
}
