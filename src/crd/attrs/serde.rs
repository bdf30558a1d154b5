//! `#[serde(...)]` attributes, as schemars reads them: serde keywords written inside
//! `#[schemars(...)]` replace the same keyword in `#[serde(...)]` (schemars_derive's
//! `process_serde_attrs`). Only the deserialize side matters: kube-derive generates
//! schemas with schemars' default `Contract::Deserialize`. Also what they decide for a
//! struct's fields (each one's name, the field a transparent struct stands for), which
//! the schema, its defaults and `locate` all read the same way.

use proc_macro2::Span;
use syn::{Attribute, Ident};

use crate::crd::diagnostics::Unsupported;
use crate::crd::literals::value_str;
use crate::syntax::parse_lit;

mod items;
use items::{Item, read};
pub use items::{SCHEMARS_SERDE_KEYWORDS, skip_value};

/// serde's `rename_all` rules, applied exactly as serde_derive_internals does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "lowercase" => Self::Lower,
            "UPPERCASE" => Self::Upper,
            "PascalCase" => Self::Pascal,
            "camelCase" => Self::Camel,
            "snake_case" => Self::Snake,
            "SCREAMING_SNAKE_CASE" => Self::ScreamingSnake,
            "kebab-case" => Self::Kebab,
            "SCREAMING-KEBAB-CASE" => Self::ScreamingKebab,
            _ => return None,
        })
    }

    /// For enum variants, which are written in PascalCase.
    pub fn apply_to_variant(self, variant: &str) -> String {
        match self {
            Self::Pascal => variant.to_owned(),
            Self::Lower => variant.to_ascii_lowercase(),
            Self::Upper => variant.to_ascii_uppercase(),
            Self::Camel => {
                let mut chars = variant.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => String::new(),
                }
            }
            Self::Snake => {
                let mut snake = String::new();
                for (i, ch) in variant.char_indices() {
                    if i > 0 && ch.is_uppercase() {
                        snake.push('_');
                    }
                    snake.push(ch.to_ascii_lowercase());
                }
                snake
            }
            Self::ScreamingSnake => Self::Snake.apply_to_variant(variant).to_ascii_uppercase(),
            Self::Kebab => Self::Snake.apply_to_variant(variant).replace('_', "-"),
            Self::ScreamingKebab => Self::ScreamingSnake
                .apply_to_variant(variant)
                .replace('_', "-"),
        }
    }

    /// For struct fields, which are written in snake_case.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            Self::Lower | Self::Snake => field.to_owned(),
            Self::Upper | Self::ScreamingSnake => field.to_ascii_uppercase(),
            Self::Pascal => {
                let mut pascal = String::new();
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            Self::Camel => {
                let pascal = Self::Pascal.apply_to_field(field);
                let mut chars = pascal.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => String::new(),
                }
            }
            Self::Kebab => field.replace('_', "-"),
            Self::ScreamingKebab => Self::ScreamingSnake.apply_to_field(field).replace('_', "-"),
        }
    }
}

/// `#[serde(default)]` / `#[serde(default = "path")]`.
#[derive(Debug, Clone, Default)]
pub enum DefaultAttr {
    #[default]
    None,
    Default(Span),
    Path(syn::Path, Span),
}

impl DefaultAttr {
    pub fn is_none(&self) -> bool {
        matches!(self, Self::None)
    }
}

/// Container attributes of a struct or enum.
#[derive(Debug, Clone, Default)]
pub struct SerdeContainer {
    pub rename_all: Option<RenameRule>,
    pub rename_all_fields: Option<RenameRule>,
    pub deny_unknown_fields: bool,
    pub tag: Option<String>,
    pub content: Option<String>,
    pub untagged: bool,
    pub default: DefaultAttr,
    pub transparent: bool,
    /// `from`/`try_from`: the type serde deserializes through (the derive's schema under
    /// the deserialize contract kube-derive uses). `into` only matters when serializing.
    pub from: Option<syn::Type>,
    /// `into`: serde writes the value through another type's `From` impl.
    pub into: bool,
    pub unsupported: Vec<Unsupported>,
}

/// Field attributes.
#[derive(Debug, Clone, Default)]
pub struct SerdeField {
    pub rename: Option<String>,
    pub skip_serializing: bool,
    pub skip_deserializing: bool,
    pub skip_serializing_if: Option<SkipIf>,
    pub default: DefaultAttr,
    pub flatten: bool,
    pub serialize_with: bool,
    /// `with = "..."`, which schemars reads as the type whose schema the field takes.
    pub with: Option<(syn::Type, Span)>,
    pub unsupported: Vec<Unsupported>,
}

/// `skip_serializing_if = "..."`: the predicate's path as its identifiers joined by `::`
/// (`Option::is_none`, what is read of it), and where its string is. kopium writes one on
/// nearly every field; its path is only looked at for a field with a default.
#[derive(Debug, Clone)]
pub struct SkipIf {
    pub path: String,
    pub span: Span,
}

/// Variant attributes.
#[derive(Debug, Clone, Default)]
pub struct SerdeVariant {
    pub rename: Option<String>,
    pub rename_all: Option<RenameRule>,
    pub skip_serializing: bool,
    pub skip_deserializing: bool,
    pub untagged: bool,
    /// `with = "..."`, read by schemars as for fields.
    pub with: Option<(syn::Type, Span)>,
    /// `with`/`serialize_with`: serde writes the variant with user code.
    pub serialize_with: bool,
}

/// `rename = "x"` or `rename(deserialize = "x", serialize = "y")`: the deserialize name.
fn rename_value(m: &Item<'_>) -> syn::Result<Option<String>> {
    match m {
        Item::Nested(nested) if !m.has_value() => {
            let mut de = None;
            nested.parse_nested_meta(|inner| {
                let v = value_str(&inner)?;
                if inner.path.is_ident("deserialize") {
                    de = Some(v);
                }
                Ok(())
            })?;
            Ok(de)
        }
        _ => m.string().map(Some),
    }
}

fn rename_rule(m: &Item<'_>) -> syn::Result<Option<RenameRule>> {
    let raw = rename_value(m)?;
    match raw {
        None => Ok(None),
        Some(r) => RenameRule::parse(&r)
            .map(Some)
            .ok_or_else(|| m.error(format!("unknown rename rule `{r}`"))),
    }
}

fn default_value(m: &Item<'_>) -> syn::Result<DefaultAttr> {
    if m.has_value() {
        let (path, span) = m.path()?;
        Ok(DefaultAttr::Path(path, span))
    } else {
        Ok(DefaultAttr::Default(m.span()))
    }
}

/// A `= "Type"` value, as schemars parses `with`/`from`: a type path in a string.
fn type_value(m: &Item<'_>) -> syn::Result<(syn::Type, Span)> {
    let lit = m.lit()?;
    Ok((parse_lit(&lit)?, lit.span()))
}

pub fn container(attrs: &[Attribute]) -> syn::Result<SerdeContainer> {
    read(attrs, container_item)
}

fn container_item(c: &mut SerdeContainer, name: &str, m: &Item<'_>) -> syn::Result<()> {
    match name {
        "rename_all" => c.rename_all = rename_rule(m)?,
        "rename_all_fields" => c.rename_all_fields = rename_rule(m)?,
        "deny_unknown_fields" => c.deny_unknown_fields = m.flag()?,
        "tag" => c.tag = Some(m.string()?),
        "content" => c.content = Some(m.string()?),
        "untagged" => c.untagged = m.flag()?,
        "default" => c.default = default_value(m)?,
        "transparent" => c.transparent = m.flag()?,
        "from" | "try_from" => c.from = Some(type_value(m)?.0),
        "into" => {
            c.into = true;
            m.skip()?;
        }
        _ => m.skip()?,
    }
    Ok(())
}

pub fn field(attrs: &[Attribute]) -> syn::Result<SerdeField> {
    read(attrs, field_item)
}

fn field_item(f: &mut SerdeField, name: &str, m: &Item<'_>) -> syn::Result<()> {
    match name {
        "rename" => f.rename = rename_value(m)?.or(f.rename.take()),
        "skip" => {
            let skip = m.flag()?;
            f.skip_serializing = skip;
            f.skip_deserializing = skip;
        }
        "skip_serializing" => f.skip_serializing = m.flag()?,
        "skip_deserializing" => f.skip_deserializing = m.flag()?,
        "skip_serializing_if" => {
            let (path, span) = m.path_words()?;
            f.skip_serializing_if = Some(SkipIf { path, span });
        }
        "default" => f.default = default_value(m)?,
        "flatten" => f.flatten = m.flag()?,
        "serialize_with" => {
            f.serialize_with = true;
            m.skip()?;
        }
        "with" => {
            // Serializing the default goes through `<with>::serialize`.
            f.serialize_with = true;
            f.with = Some(type_value(m)?);
        }
        _ => m.skip()?,
    }
    Ok(())
}

pub fn variant(attrs: &[Attribute]) -> syn::Result<SerdeVariant> {
    read(attrs, variant_item)
}

fn variant_item(v: &mut SerdeVariant, name: &str, m: &Item<'_>) -> syn::Result<()> {
    match name {
        "rename" => v.rename = rename_value(m)?.or(v.rename.take()),
        "rename_all" => v.rename_all = rename_rule(m)?,
        "skip" => {
            let skip = m.flag()?;
            v.skip_serializing = skip;
            v.skip_deserializing = skip;
        }
        "skip_serializing" => v.skip_serializing = m.flag()?,
        "skip_deserializing" => v.skip_deserializing = m.flag()?,
        "untagged" => v.untagged = m.flag()?,
        // schemars ignores `serialize_with`/`deserialize_with` on variants.
        "with" => {
            v.serialize_with = true;
            v.with = Some(type_value(m)?);
        }
        "serialize_with" => {
            v.serialize_with = true;
            m.skip()?;
        }
        _ => m.skip()?,
    }
    Ok(())
}

/// The field a `#[serde(transparent)]` struct stands for, as serde picks it for
/// `Deserialize` (serde_derive_internals' `allow_transparent`): the one that is no
/// `PhantomData`, not skipped when deserializing and without a default.
pub fn transparent_field(s: &syn::ItemStruct) -> Option<&syn::Field> {
    let mut candidates = s.fields.iter().filter(|f| {
        let phantom = matches!(&f.ty, syn::Type::Path(p)
            if p.path.segments.last().is_some_and(|seg| seg.ident == "PhantomData"));
        let sf = field(&f.attrs).unwrap_or_default();
        !phantom && !sf.skip_deserializing && sf.default.is_none()
    });
    let field = candidates.next()?;
    candidates.next().is_none().then_some(field)
}

pub fn unraw(ident: &Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_string).unwrap_or(s)
}

/// The deserialize name of a field.
pub fn field_name(
    ident: Option<&Ident>,
    sf: &SerdeField,
    rename_all: Option<RenameRule>,
) -> String {
    if let Some(r) = &sf.rename {
        return r.clone();
    }
    let raw = ident.map(unraw).unwrap_or_default();
    match rename_all {
        Some(rule) => rule.apply_to_field(&raw),
        None => raw,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::items::{flat_items, read_as};
    use super::*;

    #[test]
    fn rename_rules_match_serde() {
        assert_eq!(
            RenameRule::Camel.apply_to_field("size_in_bytes"),
            "sizeInBytes"
        );
        assert_eq!(
            RenameRule::Pascal.apply_to_field("size_in_bytes"),
            "SizeInBytes"
        );
        assert_eq!(RenameRule::ScreamingKebab.apply_to_field("a_b"), "A-B");
        assert_eq!(RenameRule::Snake.apply_to_variant("HttpGet"), "http_get");
        assert_eq!(RenameRule::Kebab.apply_to_variant("HttpGet"), "http-get");
        assert_eq!(RenameRule::Camel.apply_to_variant("HttpGet"), "httpGet");
        assert_eq!(RenameRule::Lower.apply_to_variant("HttpGet"), "httpget");
    }

    #[test]
    fn a_rename_is_read_as_serde_reads_it() {
        let renamed = |f: syn::Field| field(&f.attrs).map(|a| a.rename);
        let cases: [(syn::Field, Option<&str>); 4] = [
            (
                syn::parse_quote! { #[serde(rename = "a\"b", default)] x: u8 },
                Some("a\"b"),
            ),
            (
                syn::parse_quote! { #[serde(rename = r"raw")] x: u8 },
                Some("raw"),
            ),
            (
                syn::parse_quote! { #[serde(rename(serialize = "s", deserialize = "d"))] x: u8 },
                Some("d"),
            ),
            (
                syn::parse_quote! { #[serde(rename = ("grouped"))] x: u8 },
                None,
            ),
        ];
        for (f, want) in cases {
            match want {
                Some(want) => assert_eq!(renamed(f).unwrap().as_deref(), Some(want)),
                None => assert!(renamed(f).is_err()),
            }
        }
        let not_a_literal: syn::Field = syn::parse_quote! { #[serde(rename = "a" + "b")] x: u8 };
        let e = field(&not_a_literal.attrs).unwrap_err();
        assert_eq!(e.to_string(), "expected a string literal");
    }

    #[test]
    fn schemars_overrides_serde_keyword() {
        let f: syn::Field = syn::parse_quote! {
            #[serde(rename = "a", default)]
            #[schemars(rename = "b")]
            x: u8
        };
        let attrs = field(&f.attrs).unwrap();
        assert_eq!(attrs.rename.as_deref(), Some("b"));
        assert!(!attrs.default.is_none());
    }

    /// What `read` makes of `attrs`, against what syn's parser alone makes of them: the
    /// value, or the error with where it points.
    fn agree<T: Default + std::fmt::Debug>(
        attrs: &[Attribute],
        apply: fn(&mut T, &str, &Item<'_>) -> syn::Result<()>,
    ) {
        let seen = |r: syn::Result<T>| {
            r.map(|t| format!("{t:?}"))
                .map_err(|e| (e.to_string(), e.span().start(), e.span().end()))
        };
        assert_eq!(seen(read(attrs, apply)), seen(read_as(attrs, false, apply)));
    }

    fn check(lists: &str) {
        let text = format!("{lists} struct S {{ {lists} x: u8 }} {lists} enum E {{ {lists} A }}");
        let file = crate::syntax::parse_file(&text).unwrap();
        let [syn::Item::Struct(s), syn::Item::Enum(e)] = &file.items[..] else {
            panic!("{text}");
        };
        agree(&s.attrs, container_item);
        agree(&s.fields.iter().next().unwrap().attrs, field_item);
        agree(&e.attrs, container_item);
        agree(&e.variants[0].attrs, variant_item);
    }

    const NAMES: &[&str] = &[
        "rename",
        "rename_all",
        "default",
        "skip",
        "skip_serializing",
        "skip_deserializing",
        "skip_serializing_if",
        "flatten",
        "with",
        "serialize_with",
        "tag",
        "untagged",
        "transparent",
        "deny_unknown_fields",
        "from",
        "into",
        "unknown",
        "r#rename",
        "crate",
    ];

    const VALUES: &[&str] = &[
        "",
        "",
        " = \"Option::is_none\"",
        " = \"x\"",
        " = \"camelCase\"",
        " = \"a\\\"b\"",
        " = \"Vec<u8>\"",
        " = \"\"",
        " = \"not a path\"",
        " = \"x\"suffix",
        " = r\"raw\"",
        " = 5",
        " = true",
        "(deserialize = \"d\")",
        " == \"x\"",
    ];

    fn list() -> impl Strategy<Value = String> {
        let item =
            (0..NAMES.len(), 0..VALUES.len()).prop_map(|(n, v)| NAMES[n].to_string() + VALUES[v]);
        let sep = prop_oneof![8 => Just(", "), 1 => Just(" "), 1 => Just(",, ")];
        (
            prop_oneof![4 => Just("serde"), 1 => Just("schemars")],
            prop::collection::vec((item, sep), 0..4),
            any::<bool>(),
        )
            .prop_map(|(path, items, trailing)| {
                let mut inner: String = items.iter().map(|(i, s)| format!("{i}{s}")).collect();
                if !trailing {
                    inner.truncate(inner.trim_end_matches([',', ' ']).len());
                }
                format!("#[{path}({inner})]")
            })
    }

    #[test]
    fn kopium_lists_are_read_flat() {
        let text = "#[serde(default, skip_serializing_if = \"Option::is_none\")] #[serde(rename = \"x\")] struct S;";
        let file = crate::syntax::parse_file(text).unwrap();
        let syn::Item::Struct(s) = &file.items[0] else {
            panic!()
        };
        assert!(s.attrs.iter().all(|a| flat_items(a).is_some()));
        let flat = read_as(&s.attrs, true, field_item).unwrap();
        assert_eq!(flat.rename.as_deref(), Some("x"));
        assert!(flat.skip_serializing_if.is_some() && !flat.default.is_none());
        check(
            "#[serde(default, skip_serializing_if = \"Option::is_none\")] #[serde(rename = \"x\")]",
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn flat_lists_read_as_the_parser_reads_them(lists in prop::collection::vec(list(), 1..4)) {
            check(&lists.concat());
        }
    }
}
