//! Small structural edits of API sources, located with syn and applied at exact spans:
//! the `version` and `storage` arguments of a kind's `#[kube(...)]`, and the storage-version
//! re-export of a group module. Nothing else in the file is touched, byte for byte.

use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};
use proc_macro2::{LineColumn, Span, TokenTree};
use syn::spanned::Spanned;
use syn::{Item, UseTree};

use crate::crd::Diagnostic;
use crate::crd::model::derives;

/// What a kind's `#[kube(...)]` says, as far as rsbuilder needs to know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeInfo {
    pub version: String,
    pub storage: bool,
    pub namespaced: bool,
}

/// One `key = value` (or bare `key`) argument of a `#[kube(...)]` attribute.
#[derive(Debug)]
struct Arg {
    key: String,
    /// Byte range of the whole argument.
    start: usize,
    end: usize,
    /// Byte range of the value, when there is one.
    value: Option<(usize, usize, String)>,
}

/// The arguments of each `#[kube(...)]` attribute of one custom resource, in order.
struct Resource {
    attrs: Vec<KubeAttr>,
}

struct KubeAttr {
    /// Byte range of the whole `#[kube(...)]`.
    start: usize,
    end: usize,
    args: Vec<Arg>,
}

impl Resource {
    fn args(&self) -> impl Iterator<Item = (usize, usize, &Arg)> {
        self.attrs.iter().enumerate().flat_map(|(a, attr)| {
            attr.args
                .iter()
                .enumerate()
                .map(move |(i, arg)| (a, i, arg))
        })
    }

    fn find(&self, key: &str) -> Option<(usize, usize, &Arg)> {
        self.args().find(|(_, _, arg)| arg.key == key)
    }

    fn value(&self, key: &str) -> Option<String> {
        self.find(key)
            .and_then(|(_, _, arg)| arg.value.as_ref().map(|v| v.2.clone()))
    }
}

/// Maps proc-macro2 line/column positions to byte offsets of `text`.
struct Offsets<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> Offsets<'a> {
    fn new(text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self { text, line_starts }
    }

    fn of(&self, at: LineColumn) -> usize {
        let start = self.line_starts[at.line - 1];
        let line = &self.text[start..];
        start
            + line
                .char_indices()
                .nth(at.column)
                .map_or(line.len(), |(i, _)| i)
    }

    fn range(&self, span: Span) -> (usize, usize) {
        (self.of(span.start()), self.of(span.end()))
    }
}

/// The file's syntax tree, or a [`Diagnostic`] at the error (its path for the caller to
/// fill in with [`in_file`](crate::crd::diagnostics::in_file)).
fn parse(text: &str) -> Result<syn::File> {
    crate::syntax::parse_file(text).map_err(|e| {
        anyhow::Error::new(Diagnostic::at(
            Path::new(""),
            e.span(),
            format!("cannot parse Rust: {e}"),
        ))
    })
}

/// Finds the `#[derive(CustomResource)]` struct whose `#[kube(kind = ...)]` is `kind`.
fn find_resource(text: &str, kind: &str) -> Result<Option<Resource>> {
    let file = parse(text)?;
    let offsets = Offsets::new(text);
    for item in &file.items {
        let Item::Struct(s) = item else { continue };
        if !derives(&s.attrs, "CustomResource") {
            continue;
        }
        let mut attrs = Vec::new();
        for attr in s.attrs.iter().filter(|a| a.path().is_ident("kube")) {
            let list = attr
                .meta
                .require_list()
                .map_err(|e| anyhow!("#[kube] attribute: {e}"))?;
            let (start, end) = offsets.range(attr.span());
            attrs.push(KubeAttr {
                start,
                end,
                args: split_args(list.tokens.clone(), &offsets),
            });
        }
        let resource = Resource { attrs };
        if resource.value("kind").as_deref() == Some(kind) {
            return Ok(Some(resource));
        }
    }
    Ok(None)
}

/// Splits attribute tokens at top-level commas into arguments.
fn split_args(tokens: proc_macro2::TokenStream, offsets: &Offsets<'_>) -> Vec<Arg> {
    let mut args = Vec::new();
    let mut current: Vec<TokenTree> = Vec::new();
    let flush = |current: &mut Vec<TokenTree>, args: &mut Vec<Arg>| {
        if current.is_empty() {
            return;
        }
        let key = match &current[0] {
            TokenTree::Ident(i) => i.to_string(),
            other => other.to_string(),
        };
        let start = offsets.range(current[0].span()).0;
        let end = offsets.range(current[current.len() - 1].span()).1;
        let value = match current.as_slice() {
            [_, TokenTree::Punct(eq), value] if eq.as_char() == '=' => {
                let (s, e) = offsets.range(value.span());
                let text = match value {
                    TokenTree::Literal(lit) => {
                        let lit = syn::Lit::new(lit.clone());
                        match lit {
                            syn::Lit::Str(s) => s.value(),
                            other => quote::quote!(#other).to_string(),
                        }
                    }
                    other => other.to_string(),
                };
                Some((s, e, text))
            }
            _ => None,
        };
        args.push(Arg {
            key,
            start,
            end,
            value,
        });
        current.clear();
    };
    for tt in tokens {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' => flush(&mut current, &mut args),
            _ => current.push(tt),
        }
    }
    flush(&mut current, &mut args);
    args
}

/// Reads the `#[kube(...)]` of `kind` in `text`; `None` when the file does not define it.
pub fn kube_info(text: &str, kind: &str) -> Result<Option<KubeInfo>> {
    let Some(r) = find_resource(text, kind)? else {
        return Ok(None);
    };
    let storage = match r.find("storage") {
        None => true,
        Some((_, _, arg)) => arg.value.as_ref().is_none_or(|v| v.2 != "false"),
    };
    Ok(Some(KubeInfo {
        version: r.value("version").unwrap_or_default(),
        storage,
        namespaced: r.find("namespaced").is_some(),
    }))
}

fn splice(text: &str, start: usize, end: usize, with: &str) -> String {
    format!("{}{with}{}", &text[..start], &text[end..])
}

fn require(text: &str, kind: &str) -> Result<Resource> {
    find_resource(text, kind)?.with_context(|| {
        format!("no `#[derive(CustomResource)]` with `#[kube(kind = \"{kind}\")]` found")
    })
}

/// Rewrites the `version = "..."` argument of `kind`.
pub fn set_version(text: &str, kind: &str, version: &str) -> Result<String> {
    let r = require(text, kind)?;
    let Some((_, _, arg)) = r.find("version") else {
        bail!("the #[kube(...)] of {kind} has no `version = \"...\"`");
    };
    let (start, end, _) = arg
        .value
        .as_ref()
        .with_context(|| format!("the #[kube(...)] of {kind} has `version` without a value"))?;
    Ok(splice(text, *start, *end, &format!("{version:?}")))
}

/// Makes `kind` the storage version (removes `storage = false`) or not (adds it after
/// `version = ...`). Returns the text unchanged when it already says so.
pub fn set_storage(text: &str, kind: &str, storage: bool) -> Result<String> {
    let r = require(text, kind)?;
    let current = r.find("storage");
    if storage {
        let Some((a, i, arg)) = current else {
            return Ok(text.to_string());
        };
        if arg.value.as_ref().is_none_or(|v| v.2 != "false") {
            return Ok(text.to_string());
        }
        let attr = &r.attrs[a];
        let (start, end) = if let Some(next) = attr.args.get(i + 1) {
            (arg.start, next.start)
        } else if i > 0 {
            (attr.args[i - 1].end, arg.end)
        } else {
            // The attribute holds nothing else: remove it with its line.
            let line_start = text[..attr.start].rfind('\n').map_or(0, |p| p + 1);
            let end = text[attr.end..]
                .find('\n')
                .map_or(text.len(), |p| attr.end + p + 1);
            if text[line_start..attr.start].trim().is_empty() {
                (line_start, end)
            } else {
                (attr.start, attr.end)
            }
        };
        return Ok(splice(text, start, end, ""));
    }
    if let Some((_, _, arg)) = current {
        return Ok(match &arg.value {
            Some((_, _, v)) if v == "false" => text.to_string(),
            _ => splice(text, arg.start, arg.end, "storage = false"),
        });
    }
    let Some((a, i, version)) = r.find("version") else {
        bail!("the #[kube(...)] of {kind} has no `version = \"...\"`");
    };
    let attr = &r.attrs[a];
    Ok(match attr.args.get(i + 1) {
        Some(next) => {
            let separator = &text[version.end..next.start];
            splice(
                text,
                next.start,
                next.start,
                &format!("storage = false{separator}"),
            )
        }
        None => splice(text, version.end, version.end, ", storage = false"),
    })
}

/// In a group module, the version named by `pub use <version>::<module>;`, the re-export
/// of a kind's storage version.
pub fn storage_alias(text: &str, module: &str) -> Result<Option<String>> {
    Ok(find_alias(text, module)?.map(|(_, _, v)| v))
}

fn find_alias(text: &str, module: &str) -> Result<Option<(usize, usize, String)>> {
    let file = parse(text)?;
    let offsets = Offsets::new(text);
    for item in &file.items {
        let Item::Use(u) = item else { continue };
        let UseTree::Path(version) = &u.tree else {
            continue;
        };
        let re_exported = match &*version.tree {
            UseTree::Name(name) => name.ident == module,
            UseTree::Rename(rename) => rename.ident == module,
            UseTree::Path(path) => path.ident == module,
            _ => false,
        };
        if re_exported {
            let (start, end) = offsets.range(version.ident.span());
            return Ok(Some((start, end, version.ident.to_string())));
        }
    }
    Ok(None)
}

/// Points the storage-version re-export of `module` at `version`.
pub fn set_storage_alias(text: &str, module: &str, version: &str) -> Result<String> {
    let (start, end, _) = find_alias(text, module)?.with_context(|| {
        format!("no `pub use <version>::{module};` re-export of the storage version found")
    })?;
    Ok(splice(text, start, end, version))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TYPES: &str = r#"use kube::CustomResource;

/// The spec.
#[derive(CustomResource, Clone, Debug)]
#[kube(
    group = "batch.example.com",
    version = "v1alpha1",
    kind = "CronJob",
    plural = "cronjobs",
    namespaced,
    status = "CronJobStatus"
)]
pub struct CronJobSpec {
    pub foo: Option<String>, // café
}
"#;

    #[test]
    fn reads_version_scope_and_storage() {
        let info = kube_info(TYPES, "CronJob").unwrap().unwrap();
        assert_eq!(
            info,
            KubeInfo {
                version: "v1alpha1".into(),
                storage: true,
                namespaced: true
            }
        );
        assert_eq!(kube_info(TYPES, "Other").unwrap(), None);
    }

    #[test]
    fn storage_false_goes_after_version_and_comes_back_out() {
        let off = set_storage(TYPES, "CronJob", false).unwrap();
        assert!(
            off.contains(
                "    version = \"v1alpha1\",\n    storage = false,\n    kind = \"CronJob\",\n"
            ),
            "{off}"
        );
        assert!(!kube_info(&off, "CronJob").unwrap().unwrap().storage);
        assert_eq!(set_storage(&off, "CronJob", false).unwrap(), off);
        assert_eq!(set_storage(&off, "CronJob", true).unwrap(), TYPES);
        assert_eq!(set_storage(TYPES, "CronJob", true).unwrap(), TYPES);
    }

    #[test]
    fn storage_edits_handle_other_layouts() {
        let one_line = "#[derive(CustomResource)]\n#[kube(group = \"g\", kind = \"K\", version = \"v1\")]\nstruct S {}\n";
        let off = set_storage(one_line, "K", false).unwrap();
        assert!(off.contains("version = \"v1\", storage = false)]"), "{off}");
        assert_eq!(set_storage(&off, "K", true).unwrap(), one_line);
        let separate = "#[derive(CustomResource)]\n#[kube(group = \"g\", kind = \"K\", version = \"v1\")]\n#[kube(storage = false)]\nstruct S {}\n";
        assert_eq!(set_storage(separate, "K", true).unwrap(), one_line);
    }

    #[test]
    fn version_is_rewritten_in_place() {
        let v = set_version(TYPES, "CronJob", "v1beta1").unwrap();
        assert_eq!(v, TYPES.replace("\"v1alpha1\"", "\"v1beta1\""));
    }

    #[test]
    fn storage_alias_is_found_and_moved() {
        let text =
            "pub mod v1;\n\n/// Doc.\npub use v1alpha1::cron_job;\npub use v1::tenant::Tenant;\n";
        assert_eq!(
            storage_alias(text, "cron_job").unwrap().as_deref(),
            Some("v1alpha1")
        );
        let moved = set_storage_alias(text, "cron_job", "v1").unwrap();
        assert_eq!(moved, text.replace("use v1alpha1::", "use v1::"));
        assert!(set_storage_alias(text, "other", "v1").is_err());
    }
}
