//! Reading Rust source that may be hostile. syn's parser, the trees it builds (their
//! `Drop`, `Clone`, `Debug`) and rsbuilder's own walks all recurse, so a file nested a
//! few thousand levels deep (generics, `mod a {`, parentheses) would overflow the stack
//! and abort the process. Two walls keep that from happening:
//!
//! - every file, and every string literal parsed as Rust (`#[serde(default = "...")]`,
//!   `#[kube(status = "...")]`), passes [`check_nesting`] before syn sees it: a cheap,
//!   iterative walk over its tokens that bounds how deep syn can recurse, and refuses
//!   the input at the token where the bound is crossed;
//! - every command runs on a thread with a [`STACK_SIZE`] stack ([`with_big_stack`]),
//!   sized for the worst input the check lets through, in a debug build, with room to spare.
//!
//! This module is the only one that hands text to syn's parsers: `clippy.toml` forbids
//! `syn::parse_file`, `syn::parse_str`, `syn::parse2` and `LitStr::parse` everywhere else,
//! so no reader can skip the check. Tokens taken out of an already parsed file (an
//! attribute's arguments, a macro's body) were checked with their file.
//!
//! The bound is a cost per token, summed along the nesting: what syn parses by recursion
//! (a bracket group, `<`, a prefix operator such as `&`, `*`, `!`, `-` or `|`, `=`, and
//! keywords that take an expression or a type: `return`, `fn`, `dyn`, `impl`, ...) costs
//! `nesting::RECURSIVE`; everything else, which syn parses in a loop but
//! still stores as a deep tree (`a + b + c`, `x.f().g()`), costs one. The cost restarts
//! where syn's recursion does: after `;`, after `,` outside generic arguments, after an
//! attribute, and after a `{...}` block followed by the next item or statement. A file
//! whose text alone shows it within the bound (`shallow`) is not walked.
//!
//! Over the 12,839 `.rs` files of the Cargo registry on the machine this was written on,
//! the costliest (bitflags' `macro_rules!`) reaches 5,445 and the 99.9th percentile 3,524;
//! [`MAX_COST`] allows more than three times the costliest.

use std::str::FromStr;

use proc_macro2::{Span, TokenStream};
use syn::LitStr;
use syn::parse::Parse;

mod keywords;
mod lex;
mod nesting;
mod plain;
mod raw_docs;
mod shallow;
pub use keywords::{KEYWORDS, NOT_RAW};
pub use nesting::{MAX_COST, check_nesting};
pub use raw_docs::{doc_lines, is_kept_doc};

/// The stack every command runs on. Only what is used is committed; the size is reserved.
/// A debug build of syn uses at most about 1.6 KiB of stack per unit of [`MAX_COST`]
/// (nested generic arguments, the costliest construct measured), so `MAX_COST` units take
/// about 32 MiB; release builds about a seventh of that.
pub const STACK_SIZE: usize = 256 << 20;

/// `syn::parse_file`, after [`check_nesting`].
#[allow(clippy::disallowed_methods)] // the checked entry point
pub fn parse_file(text: &str) -> syn::Result<syn::File> {
    syn::parse2(tokens(file_body(text))?)
}

/// [`parse_file`] for readers that take doc comments only by their value, through
/// [`crate::crd::attrs::doc_string`] (`generate crds`): the lines of each `///` comment
/// reach the lexer as one attribute that holds only a name, their text being kept aside
/// ([`doc_lines`]). The lexer writes each line as an attribute with an escaped string
/// literal, which syn copies and unescapes several times; a kopium-style file is mostly
/// doc comments. The same tree but for the doc attributes; each replacement starts where
/// its comment did and ends its last line, so every other token keeps its line and column.
///
/// Plain structs are built from the tokens without syn's parser ([`plain`]): the same tree.
#[allow(clippy::disallowed_methods)] // the checked entry point
pub fn parse_file_raw_docs(text: &str) -> syn::Result<syn::File> {
    let (text, shallow) = shallow::raw_docs_surely_shallow(file_body(text));
    match plain::file(checked_tokens(&text, shallow)?) {
        Some(file) => Ok(file),
        // The tokens were taken apart: lexed again for syn, which says what is wrong.
        None => syn::parse2(TokenStream::from_str(&text)?),
    }
}

/// Like syn::parse_file: `text` without a byte order mark and a `#!` line that is not an
/// inner attribute (keeping its newline, so lines keep their numbers).
fn file_body(text: &str) -> &str {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    match body.strip_prefix("#!") {
        Some(rest) if !rest.starts_with('[') => rest.find('\n').map_or("", |i| &rest[i..]),
        _ => body,
    }
}

/// `syn::parse_str::<T>(text)`, after [`check_nesting`]: Rust that is not a whole file
/// (a type path, an identifier), from wherever it came.
#[allow(clippy::disallowed_methods)] // the checked entry point
pub fn parse_str<T: Parse>(text: &str) -> syn::Result<T> {
    syn::parse2(tokens(text)?)
}

/// The tokens of `text` (comments dropped, doc comments as `#[doc]` attributes), after
/// [`check_nesting`] (unless a look at the text shows it cannot fail), for readers that
/// need no more than tokens. Lexed once.
pub fn tokens(text: &str) -> syn::Result<TokenStream> {
    checked_tokens(text, shallow::surely_shallow(text))
}

/// [`tokens`], `shallow` being whether a look at the text showed the check cannot fail.
fn checked_tokens(text: &str, shallow: bool) -> syn::Result<TokenStream> {
    let tokens = TokenStream::from_str(text)?;
    if !shallow {
        check_nesting(tokens.clone())?;
    }
    Ok(tokens)
}

/// `lit.parse::<T>()` (Rust written inside a string literal), after [`check_nesting`];
/// a refusal points at the literal.
#[allow(clippy::disallowed_methods)] // the checked entry point
pub fn parse_lit<T: Parse>(lit: &LitStr) -> syn::Result<T> {
    if let Ok(tokens) = TokenStream::from_str(&lit.value()) {
        check_nesting(tokens).map_err(|e| syn::Error::new(lit.span(), e))?;
    }
    lit.parse()
}

/// [`parse_lit`] for a path, such as serde's `skip_serializing_if = "Option::is_none"`
/// that kopium writes on nearly every field: a plain `a::b` of identifiers is built as syn
/// would parse it (every token at the literal's span) without lexing it twice; anything
/// else goes through [`parse_lit`].
pub fn parse_lit_path(lit: &LitStr) -> syn::Result<syn::Path> {
    plain_path(&lit.value(), lit.span()).map_or_else(|| parse_lit(lit), Ok)
}

/// [`parse_lit_path`] for `text`, what a string literal at `span` without suffix holds.
pub fn parse_path_str(text: &str, span: Span) -> syn::Result<syn::Path> {
    plain_path(text, span).map_or_else(|| parse_lit(&LitStr::new(text, span)), Ok)
}

fn plain_path(text: &str, span: Span) -> Option<syn::Path> {
    if !is_plain_path(text) {
        return None;
    }
    let mut segments = syn::punctuated::Punctuated::new();
    for word in text.split("::") {
        if !segments.is_empty() {
            segments.push_punct(syn::Token![::](span));
        }
        segments.push_value(syn::PathSegment::from(proc_macro2::Ident::new(word, span)));
    }
    Some(syn::Path {
        leading_colon: None,
        segments,
    })
}

/// Whether `text` is a plain path, `a::b` of identifiers that are no keyword: what
/// [`parse_path_str`] builds without syn's parser, the same path syn would parse.
pub fn is_plain_path(text: &str) -> bool {
    text.split("::").all(|word| {
        let b = word.as_bytes();
        b.first()
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
            && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
            && !keywords::reserved(word)
    })
}

/// Runs `f` on a thread with a [`STACK_SIZE`] stack and returns its result; a panic in
/// `f` continues on the calling thread.
pub fn with_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> std::io::Result<T> {
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("rsbuilder".into())
            .stack_size(STACK_SIZE)
            .spawn_scoped(scope, f)?;
        Ok(handle
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // building literals to test with
mod tests {
    use super::*;

    #[test]
    fn a_plain_path_in_a_literal_is_the_path_syn_parses() {
        for text in [
            "Option::is_none",
            "is_default",
            "a::b::c_1",
            "_x::y",
            "::a",
            "a::",
            "a::::b",
            "Vec::<u8>::is_empty",
            "self::x",
            "r#type::x",
            "a::_",
            "1a",
            "a b",
            "",
        ] {
            let lit = LitStr::new(text, Span::call_site());
            let fast = plain_path(text, lit.span());
            let syn = lit.parse::<syn::Path>();
            if let Some(path) = &fast {
                assert_eq!(Ok(path), syn.as_ref().map_err(|_| ()), "{text:?}");
            }
            let built = fast.is_some();
            let expected = matches!(
                text,
                "Option::is_none" | "is_default" | "a::b::c_1" | "_x::y"
            );
            assert_eq!(built, expected, "{text:?}");
            assert_eq!(
                parse_lit_path(&lit).ok(),
                syn.ok(),
                "{text:?}: parse_lit_path and syn differ"
            );
        }
    }

    #[test]
    fn ordinary_code_passes() {
        let text = include_str!("crd/assemble.rs");
        assert!(check_nesting(text.parse().unwrap()).is_ok());
        assert!(parse_file(text).is_ok());
    }

    #[test]
    fn string_literals_are_checked_too() {
        let lit: LitStr = syn::parse_str(&format!("{:?}", "Vec<".repeat(2000))).unwrap();
        assert!(parse_lit::<syn::Type>(&lit).is_err());
        let lit: LitStr = syn::parse_str("\"a::b\"").unwrap();
        assert!(parse_lit::<syn::Path>(&lit).is_ok());
    }

    #[test]
    fn a_shebang_line_is_skipped_like_syn_does() {
        assert!(parse_file("#!/usr/bin/env run\nstruct S;\n").is_ok());
        assert!(parse_file("#![allow(dead_code)]\nstruct S;\n").is_ok());
    }
}
