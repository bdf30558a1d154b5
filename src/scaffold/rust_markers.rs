//! Scaffold markers in Rust files, read as Rust rather than as lines of text.
//!
//! A marker is a `// +rsbuilder:scaffold:<name>` comment on a line of its own where code
//! could stand. The same words inside a block comment, a doc comment or a string literal
//! mark nothing: writing the fragment there would register nothing while saying it had,
//! so such a marker is refused at its line. Whether a fragment is already registered is
//! decided by the tokens of the list or module the marker stands in, where comments and
//! layout do not count: `// pub mod zed;` above the module list declares no module.

use std::path::Path;

use anyhow::{Result, bail};
use proc_macro2::{Delimiter, TokenStream, TokenTree};

use super::markers::{PREFIX, indentation, indented};
use crate::diagnostic::Diagnostic;
use crate::syntax;

/// Inserts `fragment` above marker `name` of the Rust file `path` (`text`), or above the
/// line where the tokens `before` stand among the marker's siblings when they do (to keep
/// a list in order). Returns the new text, or `None` when the tokens of `fragment` are
/// already among the marker's siblings. Errors name `path`.
pub fn insert(
    path: &Path,
    text: &str,
    name: &str,
    fragment: &str,
    before: Option<&str>,
) -> Result<Option<String>> {
    // The whole file, through the nesting check, so that what is read below is Rust.
    syntax::parse_file(text)
        .map_err(|e| Diagnostic::at(path, e.span(), format!("cannot parse Rust: {e}")))?;
    let marker = find(path, text, name)?;
    let wanted = trees(fragment)?;
    if is_present(&marker.siblings, &wanted) {
        return Ok(None);
    }
    let at = match before {
        Some(anchor) => line_of(&marker.siblings, &trees(anchor)?, text),
        None => None,
    }
    .unwrap_or(marker.line_start);
    let line = &text[at..];
    let indented = indented(fragment, indentation(line));
    Ok(Some(format!("{}{indented}{line}", &text[..at])))
}

/// A marker found where code could stand.
struct Marker {
    /// The byte offset of its line.
    line_start: usize,
    /// The tokens of the group it stands in (the file, a module, a `vec![...]`), in order.
    siblings: Vec<TokenTree>,
}

/// The first marker `name` of `text` that stands where code could; an error at the first
/// line that mentions it otherwise.
fn find(path: &Path, text: &str, name: &str) -> Result<Marker> {
    let words = format!("{PREFIX}{name}");
    let mut hidden = None;
    let mut line_start = 0;
    for (number, line) in text.split_inclusive('\n').enumerate() {
        let body = line.trim();
        if mentions(body, &words) {
            if is_line_comment(body, &words)
                && let Some(siblings) = siblings_of_line(text, line_start, line)?
            {
                return Ok(Marker {
                    line_start,
                    siblings,
                });
            }
            hidden.get_or_insert(number + 1);
        }
        line_start += line.len();
    }
    match hidden {
        Some(line) => bail!(
            "{}:{line}: the scaffold marker `{words}` is inside a comment or a string, where it \
             marks nothing; put it back as `// {words}` on a line of its own in the code",
            path.display()
        ),
        None => bail!(
            "{}: scaffold marker `{words}` not found; restore that comment line so rsbuilder \
             can register code there",
            path.display()
        ),
    }
}

/// Whether `body` (a trimmed line) names the marker `words`, not a longer one.
fn mentions(body: &str, words: &str) -> bool {
    body.match_indices(words).any(|(i, _)| {
        !body[i + words.len()..]
            .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    })
}

/// Whether `body` (a trimmed line) is the plain line comment `// <words>`: not a doc
/// comment (`///`, `//!`), which is an attribute of the code that follows.
fn is_line_comment(body: &str, words: &str) -> bool {
    let Some(comment) = body.strip_prefix("//") else {
        return false;
    };
    let doc = (comment.starts_with('/') && !comment.starts_with("//")) || comment.starts_with('!');
    !doc && comment.trim() == words
}

/// The tokens of the group that the comment `line` (at `line_start`) stands in, or `None`
/// when the comment is inside a block comment or a string literal. Found by lexing the
/// file with an identifier in the comment's place: the lexer alone knows where comments
/// and literals begin and end.
fn siblings_of_line(text: &str, line_start: usize, line: &str) -> Result<Option<Vec<TokenTree>>> {
    let mut probe = String::from("__rsbuilder_marker");
    while text.contains(&probe) {
        probe.push('_');
    }
    let start = line_start + indentation(line).len();
    let end = line_start + line.trim_end().len();
    let probed = format!("{}{probe}{}", &text[..start], &text[end..]);
    let is_probe = |t: &TokenTree| matches!(t, TokenTree::Ident(i) if *i == probe);
    // Iterative: the nesting is bounded by the check, but a walk need not rely on it.
    let mut streams = vec![syntax::tokens(&probed)?];
    while let Some(stream) = streams.pop() {
        let trees: Vec<TokenTree> = stream.into_iter().collect();
        if trees.iter().any(is_probe) {
            return Ok(Some(trees.into_iter().filter(|t| !is_probe(t)).collect()));
        }
        streams.extend(trees.into_iter().filter_map(|t| match t {
            TokenTree::Group(g) => Some(g.stream()),
            _ => None,
        }));
    }
    Ok(None)
}

/// The token trees of a fragment rsbuilder writes.
fn trees(fragment: &str) -> Result<Vec<TokenTree>> {
    Ok(syntax::tokens(fragment)?.into_iter().collect())
}

/// Whether `fragment` already stands among `siblings`: a module of its name for a module
/// declaration (`mod x;` and `pub mod x;` declare the same module), else the same tokens
/// as a whole element (a list entry, an item, a statement, a match arm).
fn is_present(siblings: &[TokenTree], fragment: &[TokenTree]) -> bool {
    if let Some(module) = declared_module(fragment) {
        return siblings
            .windows(2)
            .any(|w| is_ident(&w[0], "mod") && is_ident(&w[1], &module));
    }
    find_element(siblings, fragment).is_some()
}

/// Where the tokens of `fragment` stand among `siblings` as a whole element: after the
/// start, a separator, a block or an attribute, and up to the end or a separator.
fn find_element(siblings: &[TokenTree], fragment: &[TokenTree]) -> Option<usize> {
    if fragment.is_empty() || fragment.len() > siblings.len() {
        return None;
    }
    let ends_itself = fragment.last().is_some_and(ends_element);
    (0..=siblings.len() - fragment.len()).find(|&i| {
        let end = i + fragment.len();
        let starts = i == 0 || ends_element(&siblings[i - 1]) || is_attribute(siblings, i - 1);
        let ends = ends_itself || end == siblings.len() || is_separator(&siblings[end]);
        starts && ends && same(&siblings[i..end], fragment)
    })
}

/// The line start of the line where `anchor` stands among `siblings`, when it is the first
/// thing on that line (so that what goes above it goes above nothing else).
fn line_of(siblings: &[TokenTree], anchor: &[TokenTree], text: &str) -> Option<usize> {
    let first = &siblings[find_element(siblings, anchor)?];
    let at = first.span().start();
    let line_start: usize = text
        .split_inclusive('\n')
        .take(at.line - 1)
        .map(str::len)
        .sum();
    let line = text[line_start..].split('\n').next()?;
    (indentation(line).chars().count() == at.column).then_some(line_start)
}

/// `mod x;`, with any visibility: the name `x`.
fn declared_module(fragment: &[TokenTree]) -> Option<String> {
    let [vis @ .., keyword, name, semi] = fragment else {
        return None;
    };
    let visibility = match vis {
        [] => true,
        [p] => is_ident(p, "pub"),
        [p, TokenTree::Group(g)] => is_ident(p, "pub") && g.delimiter() == Delimiter::Parenthesis,
        _ => false,
    };
    (visibility && is_ident(keyword, "mod") && is_separator(semi)).then(|| name.to_string())
}

fn is_ident(tree: &TokenTree, name: &str) -> bool {
    matches!(tree, TokenTree::Ident(i) if i == name)
}

fn is_separator(tree: &TokenTree) -> bool {
    matches!(tree, TokenTree::Punct(p) if matches!(p.as_char(), ',' | ';'))
}

/// A separator, or a `{...}` block, which ends an item, a statement or a match arm.
fn ends_element(tree: &TokenTree) -> bool {
    is_separator(tree) || matches!(tree, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace)
}

/// Whether `siblings[i]` is the `[...]` of an attribute `#[...]`.
fn is_attribute(siblings: &[TokenTree], i: usize) -> bool {
    matches!(&siblings[i], TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket)
        && i > 0
        && matches!(&siblings[i - 1], TokenTree::Punct(p) if p.as_char() == '#')
}

/// The same tokens, whatever the comments and layout between them.
fn same(a: &[TokenTree], b: &[TokenTree]) -> bool {
    TokenStream::from_iter(a.iter().cloned()).to_string()
        == TokenStream::from_iter(b.iter().cloned()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(text: &str, name: &str, fragment: &str) -> Result<Option<String>> {
        insert(Path::new("src/lib.rs"), text, name, fragment, None)
    }

    const MODS: &str = "pub mod a;\n// +rsbuilder:scaffold:mods\n\nfn f() -> Vec<u8> {\n    vec![\n        1,\n        // +rsbuilder:scaffold:list\n    ]\n}\n";

    #[test]
    fn inserts_above_the_marker_with_its_indentation_once() {
        let once = add(MODS, "list", "x::y(),").unwrap().unwrap();
        assert!(
            once.contains("        1,\n        x::y(),\n        // +rsbuilder"),
            "{once}"
        );
        assert_eq!(add(&once, "list", "x::y(),").unwrap(), None);
        let laid_out = once.replace("x::y(),", "x :: y ( ) , // mine");
        assert_eq!(add(&laid_out, "list", "x::y(),").unwrap(), None);
    }

    #[test]
    fn commented_out_fragments_are_not_present() {
        for text in [
            format!("// pub mod b;\n{MODS}"),
            format!("/* pub mod b; */\n{MODS}"),
            format!("/// pub mod b;\nconst B: u8 = 0;\n{MODS}"),
            format!("const B: &str = \"pub mod b;\";\n{MODS}"),
            MODS.replace("        1,\n", "        1,\n        // b::c(),\n"),
        ] {
            assert!(
                add(&text, "mods", "pub mod b;").unwrap().is_some(),
                "{text}"
            );
            assert!(add(&text, "list", "b::c(),").unwrap().is_some(), "{text}");
        }
    }

    #[test]
    fn a_module_is_present_whatever_its_visibility_but_only_beside_the_marker() {
        let private = format!("mod b;\n{MODS}");
        assert_eq!(add(&private, "mods", "pub mod b;").unwrap(), None);
        let nested = format!("mod tests {{ pub mod b; }}\n{MODS}");
        assert!(add(&nested, "mods", "pub mod b;").unwrap().is_some());
    }

    #[test]
    fn fragments_match_whole_elements_only() {
        let text = MODS.replace("        1,\n", "        a::x::y(),\n");
        assert!(add(&text, "list", "x::y(),").unwrap().is_some());
    }

    #[test]
    fn a_marker_where_no_code_stands_is_refused_at_its_line() {
        let marker = "// +rsbuilder:scaffold:mods";
        for hidden in [
            format!("/*\n{marker}\n*/"),
            format!("/* /* */\n{marker}\n*/"),
            format!("/{marker}"),
            format!("//!{}", &marker[2..]),
            format!("/*! {marker} */"),
            format!("const S: &str = \"\n{marker}\n\";"),
            format!("const S: &str = r#\"\n{marker}\n\"#;"),
        ] {
            let text = MODS.replace(marker, &hidden);
            let line = 2 + hidden
                .lines()
                .position(|l| l.contains("+rsbuilder"))
                .unwrap();
            let err = add(&text, "mods", "pub mod b;").unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("src/lib.rs:{line}:")),
                "{hidden}: {err}"
            );
        }
    }

    #[test]
    fn a_marker_in_code_wins_over_one_in_a_comment() {
        let text = format!("/*\n// +rsbuilder:scaffold:mods\n*/\n{MODS}");
        let out = add(&text, "mods", "pub mod b;").unwrap().unwrap();
        assert!(
            out.contains("pub mod a;\npub mod b;\n// +rsbuilder"),
            "{out}"
        );
    }

    #[test]
    fn longer_marker_names_are_other_markers() {
        let text = MODS.replace("scaffold:mods", "scaffold:mods-x");
        let err = add(&text, "mods", "pub mod b;").unwrap_err().to_string();
        assert!(err.contains("not found"), "{err}");
    }

    #[test]
    fn an_anchor_orders_the_list() {
        let text = MODS.replace("        1,\n", "        1,\n        3,\n");
        let path = Path::new("src/lib.rs");
        let out = insert(path, &text, "list", "2,", Some("3,"))
            .unwrap()
            .unwrap();
        assert!(
            out.contains("        1,\n        2,\n        3,\n"),
            "{out}"
        );
        let commented = text.replace("vec![\n", "vec![\n        // 3,\n");
        let out = insert(path, &commented, "list", "2,", Some("3,"))
            .unwrap()
            .unwrap();
        assert!(
            out.contains("        2,\n        3,\n        // +rsb"),
            "{out}"
        );
    }

    #[test]
    fn a_file_that_is_not_rust_is_refused_at_the_error() {
        let err = add("fn (\n// +rsbuilder:scaffold:mods\n", "mods", "pub mod b;")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("src/lib.rs:"), "{err}");
        let deep = format!(
            "{MODS}type T = {}u8{};\n",
            "Vec<".repeat(50_000),
            ">".repeat(50_000)
        );
        let err = add(&deep, "mods", "pub mod b;").unwrap_err().to_string();
        assert!(err.contains("nests too deeply"), "{err}");
    }
}
