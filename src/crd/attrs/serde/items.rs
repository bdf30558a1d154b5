//! The items of `#[serde(...)]` lists (and of the `#[schemars(...)]` ones that stand for
//! serde), handed to a reader one by one. kopium writes a serde list on nearly every field
//! (`#[serde(default, skip_serializing_if = "Option::is_none")]`), so a list of nothing but
//! `name` and `name = "text"` is read off its tokens; syn's nested-meta parser reads every
//! other list, and reads again any flat list a reader finds it cannot take as it stands,
//! so results and errors are always the parser's.

use proc_macro2::{Literal, Spacing, Span, TokenTree};
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Expr, LitStr};

use crate::crd::diagnostics::span_of;
use crate::crd::literals::value_str;
use crate::syntax::{is_plain_path, parse_lit_path, parse_path_str};

/// The serde keywords schemars_derive copies from `#[schemars]` to `#[serde]`.
pub const SCHEMARS_SERDE_KEYWORDS: &[&str] = &[
    "rename",
    "rename_all",
    "rename_all_fields",
    "deny_unknown_fields",
    "tag",
    "content",
    "untagged",
    "default",
    "skip",
    "skip_serializing",
    "skip_serializing_if",
    "skip_deserializing",
    "flatten",
    "remote",
    "transparent",
    "into",
    "from",
    "try_from",
    "bound",
];

/// The text of a string literal without escapes, and where the literal is.
pub(super) struct Text {
    text: String,
    span: Span,
}

/// One item of a list.
pub(super) enum Item<'m> {
    /// `name` or `name = "text"` in a flat list ([`flat_items`]); `span` is the name's.
    Flat { span: Span, value: Option<Text> },
    /// Anything else, as syn's nested-meta parser hands it over.
    Nested(ParseNestedMeta<'m>),
}

impl Item<'_> {
    /// The name's span.
    pub(super) fn span(&self) -> Span {
        match self {
            Self::Flat { span, .. } => *span,
            Self::Nested(m) => span_of(&m.path),
        }
    }

    pub(super) fn has_value(&self) -> bool {
        match self {
            Self::Flat { value, .. } => value.is_some(),
            Self::Nested(m) => m.input.peek(syn::Token![=]),
        }
    }

    fn flat_value(value: &Option<Text>, span: Span) -> syn::Result<&Text> {
        value.as_ref().ok_or_else(|| not_flat(span))
    }

    /// The string literal of `name = "..."`.
    pub(super) fn lit(&self) -> syn::Result<LitStr> {
        match self {
            Self::Flat { value, span } => {
                let Text { text, span } = Self::flat_value(value, *span)?;
                Ok(LitStr::new(text, *span))
            }
            Self::Nested(m) => m.value()?.parse(),
        }
    }

    /// The string of `name = "..."`, as [`value_str`] reads it.
    pub(super) fn string(&self) -> syn::Result<String> {
        match self {
            Self::Flat { value, span } => Ok(Self::flat_value(value, *span)?.text.clone()),
            Self::Nested(m) => value_str(m),
        }
    }

    /// The path written in the string of `name = "..."`, and the literal's span.
    pub(super) fn path(&self) -> syn::Result<(syn::Path, Span)> {
        match self {
            Self::Flat { value, span } => {
                let Text { text, span } = Self::flat_value(value, *span)?;
                Ok((parse_path_str(text, *span)?, *span))
            }
            Self::Nested(_) => {
                let lit = self.lit()?;
                Ok((parse_lit_path(&lit)?, lit.span()))
            }
        }
    }

    /// [`Self::path`] as its identifiers joined by `::`: a plain path as written, not built.
    pub(super) fn path_words(&self) -> syn::Result<(String, Span)> {
        if let Self::Flat { value, span } = self {
            let Text { text, span } = Self::flat_value(value, *span)?;
            if is_plain_path(text) {
                return Ok((text.clone(), *span));
            }
        }
        let (path, span) = self.path()?;
        let words: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        Ok((words.join("::"), span))
    }

    /// `true`, for a keyword that takes no value. A flat item with one goes to syn, whose
    /// parser refuses it.
    pub(super) fn flag(&self) -> syn::Result<bool> {
        match self {
            Self::Flat {
                value: Some(_),
                span,
            } => Err(not_flat(*span)),
            _ => Ok(true),
        }
    }

    pub(super) fn skip(&self) -> syn::Result<()> {
        match self {
            Self::Flat { .. } => Ok(()),
            Self::Nested(m) => skip_value(m),
        }
    }

    /// A reader's own error: the parser's for a nested item. A flat reading that fails is
    /// read again by the parser, which gives the error the user sees.
    pub(super) fn error(&self, msg: impl std::fmt::Display) -> syn::Error {
        match self {
            Self::Flat { span, .. } => not_flat(*span),
            Self::Nested(m) => m.error(msg),
        }
    }
}

/// The error a flat reading stops with where syn's parser must read the lists (and give
/// the error the user sees): [`read`] then reads them again.
fn not_flat(span: Span) -> syn::Error {
    syn::Error::new(span, "not a flat list")
}

/// The items of `attr` when it is a list of `name` and `name = "text"` only, where "text"
/// is a string literal without escapes or suffix; `None` for anything else.
pub(super) fn flat_items(attr: &Attribute) -> Option<Vec<(proc_macro2::Ident, Option<Text>)>> {
    let syn::Meta::List(list) = &attr.meta else {
        return None;
    };
    let is = |token: &Option<TokenTree>, c: char| matches!(token, Some(TokenTree::Punct(p)) if p.as_char() == c && p.spacing() == Spacing::Alone);
    let mut tokens = list.tokens.clone().into_iter();
    let mut items = Vec::new();
    while let Some(token) = tokens.next() {
        let TokenTree::Ident(name) = token else {
            return None;
        };
        let mut next = tokens.next();
        let mut value = None;
        if is(&next, '=') {
            let Some(TokenTree::Literal(lit)) = tokens.next() else {
                return None;
            };
            value = Some(Text {
                text: plain_string(&lit)?,
                span: lit.span(),
            });
            next = tokens.next();
        }
        items.push((name, value));
        if next.is_some() && !is(&next, ',') {
            return None;
        }
    }
    Some(items)
}

/// The text of a string literal that is the text between its quotes: no escape, no carriage
/// return (which the parser turns into a newline when one follows), no suffix.
fn plain_string(lit: &Literal) -> Option<String> {
    let repr = lit.to_string();
    let text = repr.strip_prefix('"')?.strip_suffix('"')?;
    (!text.contains(['\\', '\r'])).then(|| text.to_string())
}

/// What a reader makes of `attrs`: `apply` takes each item in turn. Flat lists are read
/// off their tokens first; where that reading fails, syn's parser reads all the lists again,
/// so the result and any error are the parser's.
pub(super) fn read<T: Default>(
    attrs: &[Attribute],
    apply: fn(&mut T, &str, &Item<'_>) -> syn::Result<()>,
) -> syn::Result<T> {
    read_as(attrs, true, apply).or_else(|_| read_as(attrs, false, apply))
}

pub(super) fn read_as<T: Default>(
    attrs: &[Attribute],
    flat: bool,
    apply: fn(&mut T, &str, &Item<'_>) -> syn::Result<()>,
) -> syn::Result<T> {
    let mut out = T::default();
    for_each_item(attrs, flat, |name, m| apply(&mut out, name, m))?;
    Ok(out)
}

/// Calls `f` for every serde item, serde's own first, skipping those that a `#[schemars]`
/// attribute overrides, then the overriding `#[schemars]` ones (schemars_derive's
/// `process_serde_attrs`). With `flat`, serde's flat lists are read off their tokens.
fn for_each_item(
    attrs: &[Attribute],
    flat: bool,
    mut f: impl FnMut(&str, &Item<'_>) -> syn::Result<()>,
) -> syn::Result<()> {
    let name_of = |m: &ParseNestedMeta<'_>| {
        m.path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default()
    };
    let schemars = || attrs.iter().filter(|a| a.path().is_ident("schemars"));
    let mut in_schemars = Vec::new();
    for attr in schemars() {
        attr.parse_nested_meta(|m| {
            let name = name_of(&m);
            if SCHEMARS_SERDE_KEYWORDS.contains(&name.as_str()) {
                in_schemars.push(name);
            }
            skip_value(&m)
        })?;
    }
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        if let Some(items) = flat.then(|| flat_items(attr)).flatten() {
            for (name, value) in items {
                let item = Item::Flat {
                    span: name.span(),
                    value,
                };
                let name = name.to_string();
                if !in_schemars.contains(&name) {
                    f(&name, &item)?;
                }
            }
            continue;
        }
        attr.parse_nested_meta(|m| {
            let name = name_of(&m);
            if in_schemars.contains(&name) {
                return skip_value(&m);
            }
            f(&name, &Item::Nested(m))
        })?;
    }
    for attr in schemars() {
        attr.parse_nested_meta(|m| {
            let name = name_of(&m);
            if SCHEMARS_SERDE_KEYWORDS.contains(&name.as_str()) {
                f(&name, &Item::Nested(m))
            } else {
                skip_value(&m)
            }
        })?;
    }
    Ok(())
}

/// Consumes whatever follows a nested meta's path (`= expr` or `(...)`).
pub fn skip_value(m: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if m.input.peek(syn::Token![=]) {
        let _: Expr = m.value()?.parse()?;
    } else if m.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in m.input);
        let _: proc_macro2::TokenStream = content.parse()?;
    }
    Ok(())
}
