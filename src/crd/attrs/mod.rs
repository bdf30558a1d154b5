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
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        if let Some(text) = crate::syntax::doc_lines(attr) {
            // A doc comment of several lines, read as one attribute.
            let lines_of = text.split('\n');
            lines.extend(lines_of.map(|l| l.strip_prefix(' ').unwrap_or(l).to_string()));
            continue;
        }
        let Ok(nv) = attr.meta.require_name_value() else {
            continue;
        };
        match lit_str(&nv.value) {
            Ok(text) => lines.push(text.strip_prefix(' ').map(str::to_string).unwrap_or(text)),
            Err(_) => {
                return Err(Unsupported::new(
                    span_of(&nv.value),
                    "a doc attribute that is not a string literal",
                    "its text is only known after macro expansion",
                ));
            }
        }
    }
    Ok((!lines.is_empty()).then(|| lines.join("\n")))
}
