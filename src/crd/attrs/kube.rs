//! `#[kube(...)]` on a `#[derive(CustomResource)]` struct and `#[x_kube(...)]`
//! (`KubeSchema`), read into typed values with the same defaults kube-derive 5 applies.
//!
//! Why one file: kube-derive reads every `#[kube]` key in one pass, with defaults that
//! depend on other keys; this file mirrors that pass key for key, with its tests.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Expr, ExprCall, ExprLit, ExprMethodCall, ExprPath, ExprTuple, Lit, LitStr};

use kube_core::cel::MergeStrategy;
use kube_core::{ListMerge, MapMerge, Message, Reason, Rule, StructMerge};

use super::serde::skip_value;
use crate::crd::diagnostics::{Unsupported, span_of};
use crate::crd::literals::{lit_bool, lit_str, value_str};
use crate::names;
use crate::syntax::parse_lit;

/// A printer column (`printcolumn(...)` or its JSON string form).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrintColumn {
    pub description: Option<String>,
    pub format: Option<String>,
    pub json_path: String,
    pub name: String,
    pub priority: Option<i32>,
    #[serde(rename = "type")]
    pub type_: String,
}

/// The scale subresource (`scale(...)` or its JSON string form).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Scale {
    pub label_selector_path: Option<String>,
    pub spec_replicas_path: String,
    pub status_replicas_path: String,
}

/// `schema = "..."`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SchemaMode {
    #[default]
    Derived,
    Manual,
    Disabled,
}

/// Everything `#[kube(...)]` says, with kube-derive's defaults applied.
#[derive(Debug, Clone)]
pub struct KubeAttrs {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub doc: Option<String>,
    pub root: Option<String>,
    pub plural: Option<String>,
    pub singular: Option<String>,
    pub namespaced: bool,
    pub no_spec: bool,
    pub schema: SchemaMode,
    pub status: Option<syn::Path>,
    pub categories: Vec<String>,
    pub shortnames: Vec<String>,
    pub printcolumns: Vec<PrintColumn>,
    pub selectable: Vec<String>,
    pub scale: Option<Scale>,
    pub annotations: Vec<(String, String)>,
    pub labels: Vec<(String, String)>,
    pub validations: Vec<Rule>,
    pub storage: bool,
    pub served: bool,
    /// `None`: not deprecated; `Some(None)`: deprecated; `Some(Some(w))`: with a warning.
    pub deprecated: Option<Option<String>>,
    pub span: Span,
    pub storage_span: Span,
    pub unsupported: Vec<Unsupported>,
}

/// `#[x_kube(...)]` on a field or a `KubeSchema` struct.
#[derive(Debug, Clone, Default)]
pub struct XKube {
    pub validations: Vec<Rule>,
    pub merge_strategy: Option<MergeStrategy>,
    pub unsupported: Vec<Unsupported>,
}

impl XKube {
    pub fn is_empty(&self) -> bool {
        self.validations.is_empty() && self.merge_strategy.is_none()
    }
}

/// The `#[kube]` keys kube-derive collects into a list (`#[darling(multiple)]`); darling
/// refuses any other key given twice.
const REPEATABLE: &[&str] = &[
    "derive",
    "attr",
    "category",
    "shortname",
    "printcolumn",
    "selectable",
    "annotation",
    "label",
    "validation",
];

/// Reads every `#[kube(...)]` attribute of a struct. `span` locates the derive for errors
/// about missing keys.
pub fn read(attrs: &[Attribute], span: Span) -> syn::Result<KubeAttrs> {
    let mut group = None;
    let mut version = None;
    let mut kind = None;
    let mut a = KubeAttrs {
        group: String::new(),
        version: String::new(),
        kind: String::new(),
        doc: None,
        root: None,
        plural: None,
        singular: None,
        namespaced: false,
        no_spec: false,
        schema: SchemaMode::Derived,
        status: None,
        categories: Vec::new(),
        shortnames: Vec::new(),
        printcolumns: Vec::new(),
        selectable: Vec::new(),
        scale: None,
        annotations: Vec::new(),
        labels: Vec::new(),
        validations: Vec::new(),
        storage: true,
        served: true,
        deprecated: None,
        span,
        storage_span: span,
        unsupported: Vec::new(),
    };
    let mut given = std::collections::BTreeSet::new();
    for attr in attrs.iter().filter(|at| at.path().is_ident("kube")) {
        attr.parse_nested_meta(|m| {
            let name = m.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
            if !REPEATABLE.contains(&name.as_str()) && !given.insert(name.clone()) {
                return Err(m.error(format!(
                    "`{name}` is given twice in #[kube(...)]: kube-derive refuses a key given \
                     more than once (darling: \"Duplicate field `{name}`\"); keep one"
                )));
            }
            match name.as_str() {
                "group" => group = Some(checked_name(&m, names::crd_group)?),
                "version" => version = Some(checked_name(&m, names::served_version)?),
                "kind" => kind = Some(checked_name(&m, names::served_kind)?),
                "doc" => a.doc = Some(value_str(&m)?),
                "root" => a.root = Some(value_str(&m)?),
                "plural" => a.plural = Some(checked_name(&m, names::plural)?),
                "singular" => {
                    a.singular = Some(checked_name(&m, |v| names::dns1035_label("singular", v))?)
                }
                "namespaced" => a.namespaced = flag(&m)?,
                "no_spec" => a.no_spec = flag(&m)?,
                "cel" => {
                    flag(&m)?;
                }
                "storage" => {
                    a.storage_span = span_of(&m.path);
                    a.storage = flag(&m)?;
                }
                "served" => a.served = flag(&m)?,
                "schema" => {
                    let v = value_str(&m)?;
                    a.schema = match v.as_str() {
                        "derived" => SchemaMode::Derived,
                        "manual" => SchemaMode::Manual,
                        "disabled" => SchemaMode::Disabled,
                        other => return Err(m.error(format!(
                            "unknown schema mode {other:?}: expected \"derived\", \"manual\" or \"disabled\""
                        ))),
                    };
                }
                "status" => {
                    let lit: LitStr = m.value()?.parse()?;
                    a.status = Some(parse_lit(&lit)?);
                }
                "category" => a
                    .categories
                    .push(checked_name(&m, |v| names::dns1035_label("category", v))?),
                "shortname" => a
                    .shortnames
                    .push(checked_name(&m, |v| names::dns1035_label("short name", v))?),
                "selectable" => a.selectable.push(checked_name(&m, names::selectable_field)?),
                "annotation" => a.annotations.push(key_value(&m, |_| Ok(()), |_| Ok(()))?),
                "label" => a
                    .labels
                    .push(key_value(&m, names::label_key, names::label_value)?),
                "printcolumn" => a.printcolumns.push(printcolumn(&m)?),
                "scale" => a.scale = Some(scale(&m)?),
                "deprecated" => {
                    a.deprecated = Some(if m.input.peek(syn::Token![=]) { Some(value_str(&m)?) } else { None });
                }
                "validation" => {
                    let expr: Expr = m.value()?.parse()?;
                    match rule(&expr) {
                        Some(r) => a.validations.push(accepted(r, &expr)?),
                        None => a.unsupported.push(cel_unsupported(&expr)),
                    }
                }
                // Root-struct plumbing that does not reach the CRD.
                "derive" | "attr" | "crates" => skip_value(&m)?,
                other => return Err(m.error(format!("unknown #[kube] attribute `{other}`"))),
            }
            Ok(())
        })?;
    }
    a.group =
        group.ok_or_else(|| syn::Error::new(span, "#[kube(...)] is missing `group = \"...\"`"))?;
    a.version = version
        .ok_or_else(|| syn::Error::new(span, "#[kube(...)] is missing `version = \"...\"`"))?;
    a.kind =
        kind.ok_or_else(|| syn::Error::new(span, "#[kube(...)] is missing `kind = \"...\"`"))?;
    Ok(a)
}

/// Reads `#[x_kube(...)]` attributes (field or struct level).
pub fn read_x_kube(attrs: &[Attribute]) -> syn::Result<XKube> {
    let mut x = XKube::default();
    for attr in attrs.iter().filter(|at| at.path().is_ident("x_kube")) {
        attr.parse_nested_meta(|m| {
            let name = m.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
            match name.as_str() {
                "validation" => {
                    let expr: Expr = m.value()?.parse()?;
                    match rule(&expr) {
                        Some(r) => x.validations.push(accepted(r, &expr)?),
                        None => x.unsupported.push(cel_unsupported(&expr)),
                    }
                }
                "merge_strategy" => {
                    let expr: Expr = m.value()?.parse()?;
                    match merge_strategy(&expr) {
                        Some(s) => x.merge_strategy = Some(s),
                        None => x.unsupported.push(Unsupported::new(
                            span_of(&expr),
                            "this `merge_strategy` expression",
                            "only `ListMerge::…`, `MapMerge::…` and `StructMerge::…` values with literal keys are understood",
                        )),
                    }
                }
                "cel" => {
                    flag(&m)?;
                }
                "crates" => skip_value(&m)?,
                other => return Err(m.error(format!("unknown #[x_kube] attribute `{other}`"))),
            }
            Ok(())
        })?;
    }
    Ok(x)
}

fn cel_unsupported(expr: &Expr) -> Unsupported {
    Unsupported::new(
        span_of(expr),
        "this CEL `validation` expression",
        "only string literals, (rule, message) tuples and `Rule::new(..)` chains with literal arguments are understood",
    )
}

/// A name the CRD carries (and `generate crds` turns into a file name): a string literal
/// that passes `rule`, the API server's own, or an error at the literal.
fn checked_name(
    m: &ParseNestedMeta<'_>,
    rule: impl Fn(&str) -> anyhow::Result<()>,
) -> syn::Result<String> {
    let expr: Expr = m.value()?.parse()?;
    let value = lit_str(&expr)?;
    rule(&value).map_err(|e| syn::Error::new_spanned(&expr, e))?;
    Ok(value)
}

/// darling's bool: a bare flag, `= true/false`, or a string that parses as one
/// (`namespaced = "true"`), as darling's `FromMeta for bool` accepts.
fn flag(m: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    if !m.input.peek(syn::Token![=]) {
        return Ok(true);
    }
    let expr: Expr = m.value()?.parse()?;
    match strip_group(&expr) {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => parse_str(s, "`true` or `false`"),
        _ => lit_bool(&expr),
    }
}

/// darling's `i32`: an integer literal (suffix allowed) or a string that parses as one
/// (`priority = "1"`); a negated literal is an expression darling does not take.
fn darling_i32(expr: &Expr) -> syn::Result<i32> {
    match strip_group(expr) {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse(),
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => parse_str(s, "an integer"),
        other => Err(syn::Error::new_spanned(other, "expected an integer")),
    }
}

/// A string darling parses into a value (`FromStr`, as its `from_string` does).
fn parse_str<T: std::str::FromStr>(s: &LitStr, expected: &str) -> syn::Result<T> {
    s.value().parse().map_err(|_| {
        syn::Error::new_spanned(s, format!("expected {expected}, found {:?}", s.value()))
    })
}

/// The expression inside the invisible groups `macro_rules!` leaves, as darling sees it.
fn strip_group(expr: &Expr) -> &Expr {
    match expr {
        Expr::Group(g) => strip_group(&g.expr),
        other => other,
    }
}

/// `("key", "value")` whose key and value pass `key_rule` and `value_rule` (the API
/// server's rules for that map), or an error at the one that does not.
fn key_value(
    m: &ParseNestedMeta<'_>,
    key_rule: impl Fn(&str) -> anyhow::Result<()>,
    value_rule: impl Fn(&str) -> anyhow::Result<()>,
) -> syn::Result<(String, String)> {
    let content;
    syn::parenthesized!(content in m.input);
    let k: LitStr = content.parse()?;
    content.parse::<syn::Token![,]>()?;
    let v: LitStr = content.parse()?;
    key_rule(&k.value()).map_err(|e| syn::Error::new(k.span(), e))?;
    value_rule(&v.value()).map_err(|e| syn::Error::new(v.span(), e))?;
    Ok((k.value(), v.value()))
}

/// A printer column, in either form, whose type and format the API server accepts.
fn printcolumn(m: &ParseNestedMeta<'_>) -> syn::Result<PrintColumn> {
    let span = span_of(&m.path);
    let column = printcolumn_value(m)?;
    names::printer_column(&column.type_, column.format.as_deref())
        .map_err(|e| syn::Error::new(span, e))?;
    Ok(column)
}

fn printcolumn_value(m: &ParseNestedMeta<'_>) -> syn::Result<PrintColumn> {
    if m.input.peek(syn::Token![=]) {
        let lit: LitStr = m.value()?.parse()?;
        return serde_json::from_str(&lit.value())
            .map_err(|e| syn::Error::new(lit.span(), e.to_string()));
    }
    let mut map = serde_json::Map::new();
    m.parse_nested_meta(|inner| {
        let key = inner
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        let expr: Expr = inner.value()?.parse()?;
        let value = match (&key[..], &expr) {
            ("priority", _) => serde_json::Value::from(darling_i32(&expr)?),
            _ => serde_json::Value::from(lit_str(&expr)?),
        };
        let key = match key.as_str() {
            "json_path" => "jsonPath".to_string(),
            "type_" => "type".to_string(),
            "description" | "format" | "name" | "priority" => key,
            other => return Err(inner.error(format!("unknown printcolumn field `{other}`"))),
        };
        map.insert(key, value);
        Ok(())
    })?;
    serde_json::from_value(serde_json::Value::Object(map)).map_err(|e| m.error(e.to_string()))
}

fn scale(m: &ParseNestedMeta<'_>) -> syn::Result<Scale> {
    if m.input.peek(syn::Token![=]) {
        let lit: LitStr = m.value()?.parse()?;
        return serde_json::from_str(&lit.value())
            .map_err(|e| syn::Error::new(lit.span(), e.to_string()));
    }
    let mut map = serde_json::Map::new();
    m.parse_nested_meta(|inner| {
        let key = match inner
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default()
            .as_str()
        {
            "label_selector_path" => "labelSelectorPath",
            "spec_replicas_path" => "specReplicasPath",
            "status_replicas_path" => "statusReplicasPath",
            other => return Err(inner.error(format!("unknown scale field `{other}`"))),
        };
        map.insert(key.into(), value_str(&inner)?.into());
        Ok(())
    })?;
    serde_json::from_value(serde_json::Value::Object(map)).map_err(|e| m.error(e.to_string()))
}

/// `rule`, unless the API server refuses it where kube-derive writes it as it is: with
/// `optionalOldSelf` set, a rule must use `oldSelf` ("may not be set if oldSelf is not used
/// in rule", k8s.io/apiextensions-apiserver's validation of `x-kubernetes-validations`).
fn accepted(rule: Rule, expr: &Expr) -> syn::Result<Rule> {
    if rule.optional_old_self == Some(true) && !mentions_old_self(&rule.rule) {
        return Err(syn::Error::new_spanned(
            expr,
            "`optional_old_self(true)` on a rule that does not use `oldSelf`: the API server \
             rejects the CRD (`optionalOldSelf` may not be set if oldSelf is not used in the \
             rule); drop `optional_old_self`, or write the rule against `oldSelf`",
        ));
    }
    Ok(rule)
}

/// Whether the CEL expression names the variable `oldSelf` (outside string literals).
fn mentions_old_self(cel: &str) -> bool {
    let bytes = cel.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            quote @ (b'"' | b'\'') => {
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b if b.is_ascii_alphabetic() || b == b'_' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let member = start > 0 && bytes[start - 1] == b'.';
                if &cel[start..i] == "oldSelf" && !member {
                    return true;
                }
            }
            _ => i += 1,
        }
    }
    false
}

/// A CEL rule written as kube-derive accepts it: `"rule"`, `("rule", "message")`, or
/// `Rule::new("rule")` followed by `.message(..)`, `.reason(..)`, `.field_path(..)`,
/// `.optional_old_self(..)` with literal arguments.
pub fn rule(expr: &Expr) -> Option<Rule> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(Rule::new(s.value())),
        Expr::Tuple(ExprTuple { elems, .. }) if elems.len() == 2 => {
            let rule = lit_str(&elems[0]).ok()?;
            let msg = lit_str(&elems[1]).ok()?;
            Some(Rule::new(rule).message(msg.as_str()))
        }
        Expr::Call(ExprCall { func, args, .. })
            if path_ends(func, &["Rule", "new"]) && args.len() == 1 =>
        {
            Some(Rule::new(string_expr(&args[0])?))
        }
        Expr::MethodCall(ExprMethodCall {
            receiver,
            method,
            args,
            ..
        }) if args.len() == 1 => {
            let base = rule(receiver)?;
            let arg = &args[0];
            match method.to_string().as_str() {
                "message" => Some(base.message(message(arg)?)),
                "reason" => Some(base.reason(reason(arg)?)),
                "field_path" => Some(base.field_path(string_expr(arg)?)),
                "optional_old_self" => Some(base.optional_old_self(lit_bool(arg).ok()?)),
                _ => None,
            }
        }
        Expr::Paren(p) => rule(&p.expr),
        Expr::Group(g) => rule(&g.expr),
        _ => None,
    }
}

fn message(expr: &Expr) -> Option<Message> {
    if let Some(s) = string_expr(expr) {
        return Some(Message::Message(s));
    }
    let Expr::Call(ExprCall { func, args, .. }) = expr else {
        return None;
    };
    let text = string_expr(args.first()?)?;
    if path_ends(func, &["Message", "Expression"]) {
        Some(Message::Expression(text))
    } else if path_ends(func, &["Message", "Message"]) {
        Some(Message::Message(text))
    } else {
        None
    }
}

fn reason(expr: &Expr) -> Option<Reason> {
    let Expr::Path(ExprPath { path, .. }) = expr else {
        return None;
    };
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    if segs.len() >= 2 && segs[segs.len() - 2] != "Reason" {
        return None;
    }
    match segs.last()?.as_str() {
        "FieldValueInvalid" => Some(Reason::FieldValueInvalid),
        "FieldValueForbidden" => Some(Reason::FieldValueForbidden),
        "FieldValueRequired" => Some(Reason::FieldValueRequired),
        "FieldValueDuplicate" => Some(Reason::FieldValueDuplicate),
        _ => None,
    }
}

fn merge_strategy(expr: &Expr) -> Option<MergeStrategy> {
    match expr {
        Expr::Path(ExprPath { path, .. }) => {
            let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            let [.., ty, variant] = segs.as_slice() else {
                return None;
            };
            match (ty.as_str(), variant.as_str()) {
                ("ListMerge", "Atomic") => Some(ListMerge::Atomic.into()),
                ("ListMerge", "Set") => Some(ListMerge::Set.into()),
                ("MapMerge", "Atomic") => Some(MapMerge::Atomic.into()),
                ("MapMerge", "Granular") => Some(MapMerge::Granular.into()),
                ("StructMerge", "Atomic") => Some(StructMerge::Atomic.into()),
                ("StructMerge", "Granular") => Some(StructMerge::Granular.into()),
                _ => None,
            }
        }
        Expr::Call(ExprCall { func, args, .. })
            if path_ends(func, &["ListMerge", "Map"]) && args.len() == 1 =>
        {
            Some(ListMerge::Map(string_vec(&args[0])?).into())
        }
        _ => None,
    }
}

/// `vec!["a".into(), "b".to_string(), String::from("c")]`
fn string_vec(expr: &Expr) -> Option<Vec<String>> {
    let Expr::Macro(m) = expr else { return None };
    if !m.mac.path.is_ident("vec") {
        return None;
    }
    let items = m
        .mac
        .parse_body_with(syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated)
        .ok()?;
    items.iter().map(string_expr).collect()
}

/// A string literal, possibly through `.into()`, `.to_string()`, `.to_owned()` or `String::from`.
pub fn string_expr(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s.value()),
        Expr::MethodCall(ExprMethodCall {
            receiver,
            method,
            args,
            ..
        }) if args.is_empty()
            && ["into", "to_string", "to_owned"].contains(&method.to_string().as_str()) =>
        {
            match &**receiver {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => Some(s.value()),
                _ => None,
            }
        }
        Expr::Call(ExprCall { func, args, .. })
            if path_ends(func, &["String", "from"]) && args.len() == 1 =>
        {
            lit_str(&args[0]).ok()
        }
        _ => None,
    }
}

fn path_ends(func: &Expr, want: &[&str]) -> bool {
    let Expr::Path(ExprPath { path, .. }) = func else {
        return false;
    };
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    segs.len() >= want.len()
        && segs[segs.len() - want.len()..]
            .iter()
            .zip(want)
            .all(|(a, b)| a == b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_self_is_found_as_the_variable_only() {
        for used in [
            "self == oldSelf",
            "oldSelf.optMap(o, o == self).orValue(true)",
            "!has(oldSelf.x)",
        ] {
            assert!(mentions_old_self(used), "{used}");
        }
        for unused in [
            "self.x > 0",
            "self.oldSelf > 0",
            "self.name != 'oldSelf'",
            r#"self.s == "a \" oldSelf""#,
            "self.oldSelfish",
        ] {
            assert!(!mentions_old_self(unused), "{unused}");
        }
    }

    #[test]
    fn reads_kube_attrs_with_defaults() {
        let s: syn::ItemStruct = syn::parse_quote! {
            #[kube(group = "a.io", version = "v1", kind = "Foo", namespaced, shortname = "f",
                   printcolumn(name = "Age", type_ = "date", json_path = ".metadata.creationTimestamp"),
                   scale = r#"{"specReplicasPath":".spec.r","statusReplicasPath":".status.r"}"#,
                   deprecated = "old", storage = false, validation = Rule::new("true").message("m"))]
            struct FooSpec {}
        };
        let a = read(&s.attrs, Span::call_site()).unwrap();
        assert_eq!((a.group.as_str(), a.kind.as_str()), ("a.io", "Foo"));
        assert!(a.namespaced && a.served && !a.storage);
        assert_eq!(a.printcolumns[0].type_, "date");
        assert_eq!(a.scale.unwrap().spec_replicas_path, ".spec.r");
        assert_eq!(a.deprecated, Some(Some("old".into())));
        assert_eq!(a.validations.len(), 1);
    }

    #[test]
    fn missing_kind_is_an_error() {
        let s: syn::ItemStruct = syn::parse_quote! {
            #[kube(group = "a.io", version = "v1")]
            struct FooSpec {}
        };
        assert!(read(&s.attrs, Span::call_site()).is_err());
    }

    /// darling takes numbers and booleans as strings that parse, but no other expression
    /// and no string that does not parse: those are compile errors in kube-derive too.
    #[test]
    fn values_darling_rejects_are_errors() {
        let attrs = |a: syn::ItemStruct| read(&a.attrs, Span::call_site());
        for s in [
            syn::parse_quote! { #[kube(group = "a.io", version = "v1", kind = "Foo", namespaced = "yes")] struct S; },
            syn::parse_quote! { #[kube(group = "a.io", version = "v1", kind = "Foo", storage = 1)] struct S; },
            syn::parse_quote! {
                #[kube(group = "a.io", version = "v1", kind = "Foo",
                       printcolumn(name = "A", type_ = "date", json_path = ".a", priority = -1))]
                struct S;
            },
            syn::parse_quote! {
                #[kube(group = "a.io", version = "v1", kind = "Foo",
                       printcolumn(name = "A", type_ = "date", json_path = ".a", priority = "1.5"))]
                struct S;
            },
        ] {
            assert!(attrs(s).is_err());
        }
    }
}
