//! Typed values read from `#[kube]`, `#[x_kube]`, `#[serde]`, `#[schemars]` and doc
//! attributes. Reading only: nothing here knows about schemas (controller-tools' markers
//! split). Values that cannot be known statically are kept as [`Unsupported`] so the schema
//! builder can refuse them at their span.

pub mod json_tokens;
pub mod kube;
pub mod schemars;
pub mod serde;
pub mod validation;

pub use json_tokens::tokens_to_json;

use syn::Attribute;

use super::diagnostics::{Unsupported, span_of};
use super::literals::lit_str;

/// The doc comment the way schemars' derive joins it: one leading space stripped per line,
/// lines joined with `\n`. `Err` when a doc attribute is not a string literal
/// (`#[doc = include_str!(..)]`).
pub fn doc_string(attrs: &[Attribute]) -> Result<Option<String>, Unsupported> {
    // Each line without the one space after `///`, joined by `\n`.
    let mut doc: Option<String> = None;
    let mut push = |line: &str| {
        let doc = match &mut doc {
            Some(doc) => {
                doc.push('\n');
                doc
            }
            None => doc.insert(String::new()),
        };
        doc.push_str(line.strip_prefix(' ').unwrap_or(line));
    };
    for attr in attrs {
        if let Some(text) = crate::syntax::doc_lines(attr) {
            // A doc comment, its lines read as one attribute.
            text.split('\n').for_each(&mut push);
            continue;
        }
        if !attr.path().is_ident("doc") {
            continue;
        }
        let Ok(nv) = attr.meta.require_name_value() else {
            continue;
        };
        match lit_str(&nv.value) {
            Ok(text) => push(&text),
            Err(_) => {
                return Err(Unsupported::new(
                    span_of(&nv.value),
                    "a doc attribute that is not a string literal",
                    "its text is only known after macro expansion",
                ));
            }
        }
    }
    Ok(doc)
}
