//! `#[schemars(...)]` attributes that change a schema (title, description, examples,
//! extensions, validation keywords, `with`), plus doc comments and `#[deprecated]`,
//! read the way schemars_derive 1.2 reads them.

use serde_json::Value;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Expr, ExprLit, ExprReference, Lit, LitStr};

use super::serde::{SCHEMARS_SERDE_KEYWORDS, skip_value};
pub use super::validation::Validation;
use super::validation::{self, Source};
use super::{doc_string, tokens_to_json};
use crate::crd::diagnostics::{Unsupported, span_of};
use crate::crd::literals::{lit_number, value_str};
use crate::syntax::{parse_lit, parse_lit_path};

/// Metadata shared by containers, variants and fields (schemars' `CommonAttrs`).
#[derive(Debug, Clone, Default)]
pub struct Common {
    pub doc: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub deprecated: bool,
    pub examples: Vec<Value>,
    pub extensions: Vec<(String, Value)>,
}

impl Common {
    /// schemars' `is_default`: whether a unit variant may be folded into the plain `enum` list.
    pub fn is_default(&self) -> bool {
        self.doc.is_none()
            && self.title.is_none()
            && self.description.is_none()
            && !self.deprecated
            && self.examples.is_empty()
            && self.extensions.is_empty()
    }
}

/// Everything schemars reads from a field's or variant's attributes.
#[derive(Debug, Clone, Default)]
pub struct SchemarsAttrs {
    pub common: Common,
    pub validation: Validation,
    /// `#[schemars(with = "Type")]`
    pub with: Option<syn::Type>,
    /// `#[schemars(schema_with = "path")]`: the function, and where the attribute is.
    pub schema_with: Option<(syn::Path, proc_macro2::Span)>,
    pub unsupported: Vec<Unsupported>,
}

pub fn read(attrs: &[Attribute]) -> syn::Result<SchemarsAttrs> {
    let mut out = SchemarsAttrs::default();
    match doc_string(attrs) {
        Ok(doc) => out.common.doc = doc,
        Err(u) => out.unsupported.push(u),
    }
    out.common.deprecated = attrs.iter().any(|a| a.path().is_ident("deprecated"));
    for attr in attrs {
        if attr.path().is_ident("schemars") {
            attr.parse_nested_meta(|m| item(&mut out, &m))?;
        }
    }
    if let Err(u) = validation::read_foreign(attrs, &mut out.validation) {
        out.unsupported.push(u);
    }
    extensions(attrs, &mut out);
    Ok(out)
}

fn item(out: &mut SchemarsAttrs, m: &ParseNestedMeta<'_>) -> syn::Result<()> {
    let name = m
        .path
        .get_ident()
        .map(|i| i.to_string())
        .unwrap_or_default();
    let span = span_of(&m.path);
    match name.as_str() {
        "title" => out.common.title = Some(value_str(m)?),
        "description" => out.common.description = Some(value_str(m)?),
        "example" => {
            let expr: Expr = m.value()?.parse()?;
            match example_value(&expr) {
                Some(v) => out.common.examples.push(v),
                None => out.unsupported.push(Unsupported::new(
                    span_of(&expr),
                    "`#[schemars(example = ...)]` with a computed value",
                    "only literal examples are known without running the code",
                )),
            }
        }
        // Keys are string literals, which nested-meta parsing rejects: see `extensions`.
        "extend" => skip_value(m)?,
        n if validation::is_keyword(n) => {
            let meta = rest_meta(m)?;
            if let Err(u) = validation::keyword(&mut out.validation, &meta, Source::Schemars) {
                out.unsupported.push(u);
            }
        }
        "with" => {
            let lit: LitStr = m.value()?.parse()?;
            out.with = Some(parse_lit(&lit)?);
        }
        "schema_with" => {
            let lit: LitStr = m.value()?.parse()?;
            out.schema_with = Some((parse_lit_path(&lit)?, span));
        }
        "transform" | "_unstable_ref_variants" => {
            out.unsupported.push(Unsupported::new(
                span,
                format!("`#[schemars({name} = ...)]`"),
                "the schema is produced by user code",
            ));
            skip_value(m)?;
        }
        // Serde's keywords are read with serde's attributes; these two change no schema.
        n if SCHEMARS_SERDE_KEYWORDS.contains(&n) || matches!(n, "crate" | "inline") => {
            skip_value(m)?
        }
        other => {
            out.unsupported.push(Unsupported::new(
                span,
                format!("`#[schemars({other})]`"),
                "this schemars attribute is not mirrored by rsbuilder",
            ));
            skip_value(m)?;
        }
    }
    Ok(())
}

/// Reads `extend("k" = v, ...)` items of every `#[schemars]` attribute; kept apart from
/// [`item`] because the keys are string literals, which syn's nested-meta parser rejects.
fn extensions(attrs: &[Attribute], out: &mut SchemarsAttrs) {
    for attr in attrs.iter().filter(|a| a.path().is_ident("schemars")) {
        let Ok(list) = attr.meta.require_list() else {
            continue;
        };
        let parsed = list.parse_args_with(
            syn::punctuated::Punctuated::<ExtendItem, syn::Token![,]>::parse_terminated,
        );
        let Ok(items) = parsed else { continue };
        for ext in items.into_iter().flat_map(|i| i.0) {
            match tokens_to_json(&ext.1) {
                Some(v) => out.common.extensions.push((ext.0, v)),
                None => out.unsupported.push(Unsupported::new(
                    ext.2,
                    "`#[schemars(extend(...))]` with a computed value",
                    "only JSON literals are known without running the code",
                )),
            }
        }
    }
}

/// One item of a `#[schemars(...)]` list: `extend("k" = v, ...)` yields its entries,
/// anything else is skipped.
struct ExtendItem(Vec<(String, proc_macro2::TokenStream, proc_macro2::Span)>);

impl syn::parse::Parse for ExtendItem {
    fn parse(input: syn::parse::ParseStream<'_>) -> syn::Result<Self> {
        let path: syn::Path = input.parse()?;
        let mut entries = Vec::new();
        if path.is_ident("extend") && input.peek(syn::token::Paren) {
            let content;
            syn::parenthesized!(content in input);
            while !content.is_empty() {
                let key: LitStr = content.parse()?;
                content.parse::<syn::Token![=]>()?;
                let mut value = proc_macro2::TokenStream::new();
                while !content.is_empty() && !content.peek(syn::Token![,]) {
                    let tt: proc_macro2::TokenTree = content.parse()?;
                    value.extend([tt]);
                }
                if content.peek(syn::Token![,]) {
                    content.parse::<syn::Token![,]>()?;
                }
                entries.push((key.value(), value, key.span()));
            }
        } else if input.peek(syn::Token![=]) {
            input.parse::<syn::Token![=]>()?;
            let _: Expr = input.parse()?;
        } else if input.peek(syn::token::Paren) {
            let content;
            syn::parenthesized!(content in input);
            let _: proc_macro2::TokenStream = content.parse()?;
        }
        Ok(Self(entries))
    }
}

/// The item `m` stands at, as a `syn::Meta` (what schemars' own parser sees).
fn rest_meta(m: &ParseNestedMeta<'_>) -> syn::Result<syn::Meta> {
    let path = m.path.clone();
    if m.input.peek(syn::token::Paren) {
        let content;
        let paren = syn::parenthesized!(content in m.input);
        let tokens: proc_macro2::TokenStream = content.parse()?;
        Ok(syn::Meta::List(syn::MetaList {
            path,
            delimiter: syn::MacroDelimiter::Paren(paren),
            tokens,
        }))
    } else if m.input.peek(syn::Token![=]) {
        let eq_token = m.input.parse()?;
        let value = m.input.parse()?;
        Ok(syn::Meta::NameValue(syn::MetaNameValue {
            path,
            eq_token,
            value,
        }))
    } else {
        Ok(syn::Meta::Path(path))
    }
}

/// `serde_json::to_value(expr)` for literal expressions.
fn example_value(expr: &Expr) -> Option<Value> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => {
            // schemars rejects string literals that parse as paths; others are values.
            if parse_lit_path(s).is_ok() {
                None
            } else {
                Some(Value::from(s.value()))
            }
        }
        Expr::Lit(ExprLit {
            lit: Lit::Bool(b), ..
        }) => Some(Value::from(b.value)),
        Expr::Reference(ExprReference { expr, .. }) => match &**expr {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => Some(Value::from(s.value())),
            other => example_value(other),
        },
        other => lit_number(other),
    }
}
