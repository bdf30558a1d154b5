//! Custom resources `generate crds` cannot see: it reads items as written and expands no
//! macro, so a kind inside a `macro_rules!`, in a file brought in by `include!`, or derived
//! through another name would be missing from the output without a word. Each is refused
//! at its place instead (or, for an `include!` whose file is not among the sources, warned
//! about): the output never omits a kind the crate defines.

use std::path::Path;

use syn::Item;

use super::diagnostics::Diagnostic;
use super::diagnostics::span_of;
use super::model::{Index, derives};
use super::modules::normalize;
use super::sources::SourceFile;

/// What the sources hide: refusals, and warnings where `generate crds` cannot tell.
#[derive(Default)]
pub struct Hidden {
    pub refusals: Vec<Diagnostic>,
    pub warnings: Vec<Diagnostic>,
}

/// Looks through every file of `index`; `sources` are all the files given, also those no
/// `mod` declares (an included file is one of them).
pub fn find(index: &Index<'_>, sources: &[&SourceFile]) -> Hidden {
    let mut out = Hidden::default();
    // A dependency's kinds are its own CRDs, not this crate's.
    for file in index
        .files
        .iter()
        .filter(|f| !super::deps::is_dependency(&f.module))
    {
        walk(&file.path, &file.ast.items, sources, &mut out);
    }
    out
}

fn walk(path: &Path, items: &[Item], sources: &[&SourceFile], out: &mut Hidden) {
    for item in items {
        match item {
            Item::Macro(m) if m.mac.path.is_ident("macro_rules") => {
                let name = m
                    .ident
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                if mentions_kind(&m.mac.tokens.to_string()) {
                    out.refusals.push(Diagnostic::at(
                        path,
                        span_of(&m.mac.path),
                        format!(
                            "macro `{name}!` cannot be generated statically: its body derives \
                         `CustomResource`, and `generate crds` does not expand macros (the \
                         custom resources it defines would be missing); define the kind \
                         outside the macro, or use --exact"
                        ),
                    ));
                }
            }
            Item::Macro(m)
                if m.mac
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "include") =>
            {
                include(path, &m.mac, sources, out)
            }
            Item::Struct(s)
                if s.attrs.iter().any(|a| a.path().is_ident("kube"))
                    && !derives(&s.attrs, "CustomResource") =>
            {
                out.refusals.push(Diagnostic::at(
                    path,
                    s.ident.span(),
                    format!(
                        "struct `{}` cannot be generated statically: it has `#[kube(...)]` but no \
                     `#[derive(CustomResource)]` under that name (a derive through an alias, \
                     `use kube::CustomResource as ..`, is not followed); derive \
                     `CustomResource` by its own name, or use --exact",
                        s.ident
                    ),
                ));
            }
            Item::Mod(md) => {
                if let Some((_, inner)) = &md.content {
                    walk(path, inner, sources, out);
                }
            }
            _ => {}
        }
    }
}

/// `include!("file.rs")`: refused when the file (relative to the including one, as rustc
/// reads it) is among the sources and defines a kind; a warning when it is not among them
/// or its path is computed (`concat!(env!("OUT_DIR"), ..)`), since what it holds is unknown.
fn include(path: &Path, mac: &syn::Macro, sources: &[&SourceFile], out: &mut Hidden) {
    let span = span_of(&mac.path);
    let included = mac.parse_body::<syn::LitStr>().ok().and_then(|lit| {
        let target = normalize(&path.parent().unwrap_or(Path::new("")).join(lit.value()));
        let source = sources.iter().find(|s| normalize(&s.path) == target)?;
        Some((lit.value(), source))
    });
    match included {
        Some((written, source)) if mentions_kind(&source.text) => {
            let module = Path::new(&written)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            out.refusals.push(Diagnostic::at(path, span, format!(
                "`include!({written:?})` cannot be generated statically: {} derives \
                 `CustomResource`, and `generate crds` does not follow `include!` (the custom \
                 resources it defines would be missing); declare it as a module (`mod {module};`), \
                 or use --exact",
                source.path.display()
            )));
        }
        Some(_) => {}
        None => out.warnings.push(Diagnostic::at(
            path,
            span,
            "warning: `include!` is not read by `generate crds`: a custom resource in the included file is missed (use --exact)",
        )),
    }
}

/// Whether Rust text derives a custom resource: it names `CustomResource` as a word of
/// its own (`CustomResourceExt` is another name).
fn mentions_kind(text: &str) -> bool {
    const NAME: &str = "CustomResource";
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    text.match_indices(NAME).any(|(at, _)| {
        !word(text[..at].chars().next_back()) && !word(text[at + NAME.len()..].chars().next())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_is_named_as_a_word_of_its_own() {
        assert!(mentions_kind("#[derive(CustomResource)]"));
        assert!(mentions_kind("kube::CustomResource,"));
        assert!(!mentions_kind("where T: CustomResourceExt"));
        assert!(!mentions_kind("MyCustomResource"));
    }
}
