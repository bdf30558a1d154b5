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
//! [`RECURSIVE`]; everything else, which syn parses in a loop but still stores as a deep
//! tree (`a + b + c`, `x.f().g()`), costs one. The cost restarts where syn's recursion
//! does: after `;`, after `,` outside generic arguments, after an attribute, and after a
//! `{...}` block followed by the next item or statement.
//!
//! Over the 12,839 `.rs` files of the Cargo registry on the machine this was written on,
//! the costliest (bitflags' `macro_rules!`) reaches 5,445 and the 99.9th percentile 3,524;
//! [`MAX_COST`] allows more than three times the costliest.

use std::str::FromStr;

use proc_macro2::{Delimiter, Spacing, Span, TokenStream, TokenTree};
use syn::LitStr;
use syn::parse::Parse;

mod lex;
mod raw_docs;
use raw_docs::raw_docs;
pub use raw_docs::{doc_lines, is_kept_doc};

/// The stack every command runs on. Only what is used is committed; the size is reserved.
/// A debug build of syn uses at most about 1.6 KiB of stack per unit of [`MAX_COST`]
/// (nested generic arguments, the costliest construct measured), so `MAX_COST` units take
/// about 32 MiB; release builds about a seventh of that.
pub const STACK_SIZE: usize = 256 << 20;

/// The nesting cost [`check_nesting`] lets through.
pub const MAX_COST: usize = 20_000;

/// The cost of a token syn parses by recursion.
const RECURSIVE: usize = 32;

/// Keywords after which syn parses an expression, a type or a pattern by recursion.
// A `match`, not a list: this runs on every identifier of every file read.
fn recursive_keyword(word: &str) -> bool {
    matches!(
        word,
        "return"
            | "break"
            | "yield"
            | "become"
            | "move"
            | "async"
            | "fn"
            | "dyn"
            | "impl"
            | "mut"
            | "const"
            | "static"
            | "ref"
            | "box"
            | "let"
    )
}

/// Keywords that do not end an operand: a punctuation token after them is a prefix.
fn not_operand(word: &str) -> bool {
    recursive_keyword(word)
        || matches!(
            word,
            "as" | "in"
                | "if"
                | "else"
                | "match"
                | "while"
                | "for"
                | "loop"
                | "unsafe"
                | "where"
                | "use"
                | "pub"
                | "struct"
                | "enum"
                | "type"
                | "mod"
                | "trait"
                | "extern"
        )
}

/// `syn::parse_file`, after [`check_nesting`].
#[allow(clippy::disallowed_methods)] // the checked entry point
pub fn parse_file(text: &str) -> syn::Result<syn::File> {
    syn::parse2(tokens(file_body(text))?)
}

/// [`parse_file`] for readers that take doc comments only by their value, through
/// [`crate::crd::attrs::doc_string`] (`generate crds`): the lines of each `///` comment
/// reach the lexer as one attribute that holds only a name, their text being kept aside
/// ([`doc_lines`]). The lexer writes each line as an attribute with an escaped string
/// literal, which syn copies and unescapes several times: on a kopium-style file, mostly
/// doc comments, this saves a fifth of `generate crds`. The same tree but for the doc
/// attributes; each replacement starts where its comment did and ends its last line, so
/// every other token keeps its line and column.
#[allow(clippy::disallowed_methods)] // the checked entry point
pub fn parse_file_raw_docs(text: &str) -> syn::Result<syn::File> {
    syn::parse2(tokens(&raw_docs(file_body(text)))?)
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
/// [`check_nesting`], for readers that need no more than tokens. Lexed once.
pub fn tokens(text: &str) -> syn::Result<TokenStream> {
    let tokens = TokenStream::from_str(text)?;
    check_nesting(tokens.clone())?;
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
    let mut segments = syn::punctuated::Punctuated::new();
    for word in text.split("::") {
        let b = word.as_bytes();
        let ident = b
            .first()
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
            && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_');
        if !ident || word == "_" || KEYWORDS.contains(&word) || NOT_RAW.contains(&word) {
            return None;
        }
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

/// Keywords of Rust 2024 (strict and reserved): no identifier, but a raw one (`r#type`).
/// A plain path with one of them, or with one of [`NOT_RAW`], is left to syn.
pub const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "static", "struct", "trait", "true", "try", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof",
    "unsized", "virtual", "yield",
];

/// Keywords that cannot be raw identifiers either.
pub const NOT_RAW: &[&str] = &["crate", "self", "super", "Self"];

/// Refuses `tokens` when they nest deeper than [`MAX_COST`], at the first token beyond.
pub fn check_nesting(tokens: TokenStream) -> syn::Result<()> {
    let mut stack = vec![Frame::new(tokens, 0)];
    while let Some(frame) = stack.last_mut() {
        let Some(token) = frame.tokens.next() else {
            stack.pop();
            continue;
        };
        let kind = Kind::of(&token);
        let prev = frame.prev.replace(kind);
        frame.restart_before(kind, prev);
        frame.cost += cost(kind, prev);
        let depth = frame.base + frame.cost;
        if depth > MAX_COST {
            return Err(too_deep(token.span()));
        }
        frame.restart_after(kind, prev);
        if let TokenTree::Group(group) = &token {
            stack.push(Frame::new(group.stream(), depth));
        }
    }
    Ok(())
}

fn too_deep(span: Span) -> syn::Error {
    syn::Error::new(
        span,
        "the code nests too deeply here for rsbuilder to read (more than about 600 levels of \
         brackets, generic arguments, references or prefix operators, or one expression of \
         more than about 20000 tokens); split it up",
    )
}

/// What the rules below need of a token: the walk keeps this of the previous token rather
/// than a copy of it, and reads each identifier's text once.
#[derive(Clone, Copy)]
enum Kind {
    Group(Delimiter),
    Punct(char, Spacing),
    Literal,
    Ident {
        /// One of [`recursive_keyword`]'s.
        recursive: bool,
        /// Not one of [`not_operand`]'s.
        operand: bool,
        /// `else` or `as`, which go on with the expression before them.
        goes_on: bool,
    },
}

impl Kind {
    fn of(token: &TokenTree) -> Self {
        match token {
            TokenTree::Group(g) => Self::Group(g.delimiter()),
            TokenTree::Punct(p) => Self::Punct(p.as_char(), p.spacing()),
            TokenTree::Literal(_) => Self::Literal,
            TokenTree::Ident(i) => {
                let word = i.to_string();
                let word = word.as_str();
                Self::Ident {
                    recursive: recursive_keyword(word),
                    operand: !not_operand(word),
                    goes_on: word == "else" || word == "as",
                }
            }
        }
    }
}

/// The tokens of one group and the cost of the current run of tokens in it.
struct Frame {
    tokens: proc_macro2::token_stream::IntoIter,
    prev: Option<Kind>,
    /// The cost at the group's opening bracket.
    base: usize,
    /// The cost since the last restart.
    cost: usize,
    /// Open `<` not yet closed (comparisons count too: it only keeps `,` from restarting).
    angles: usize,
    /// Whether the previous tokens were `#` or `#!`, so a `[...]` now is an attribute.
    attribute: bool,
}

impl Frame {
    fn new(tokens: TokenStream, base: usize) -> Self {
        Self {
            tokens: tokens.into_iter(),
            prev: None,
            base,
            cost: 0,
            angles: 0,
            attribute: false,
        }
    }

    /// A `{...}` block ends an item or a statement unless an expression goes on after it
    /// (`} else`, `} as T`, `}.f()`, `} + 1`, `}[0]`).
    fn restart_before(&mut self, token: Kind, prev: Option<Kind>) {
        if !matches!(prev, Some(Kind::Group(Delimiter::Brace))) {
            return;
        }
        let goes_on = match token {
            Kind::Punct(..) => true,
            Kind::Ident { goes_on, .. } => goes_on,
            Kind::Group(delimiter) => delimiter == Delimiter::Bracket,
            Kind::Literal => false,
        };
        if !goes_on {
            self.cost = 0;
            self.angles = 0;
        }
    }

    fn restart_after(&mut self, token: Kind, prev: Option<Kind>) {
        let was_attribute = std::mem::take(&mut self.attribute);
        match token {
            Kind::Punct(c, _) => match c {
                ';' => {
                    self.cost = 0;
                    self.angles = 0;
                }
                ',' if self.angles == 0 => self.cost = 0,
                '<' => self.angles += 1,
                '>' if !is_arrow(prev) => self.angles = self.angles.saturating_sub(1),
                '#' => self.attribute = true,
                '!' => self.attribute = was_attribute,
                _ => {}
            },
            Kind::Group(Delimiter::Bracket) if was_attribute => self.cost = 0,
            _ => {}
        }
    }
}

/// `->` or `=>`: a `>` that closes no generic argument list.
fn is_arrow(prev: Option<Kind>) -> bool {
    matches!(prev, Some(Kind::Punct('-' | '=', Spacing::Joint)))
}

fn cost(token: Kind, prev: Option<Kind>) -> usize {
    let recursive = match token {
        Kind::Group(_) => true,
        Kind::Ident { recursive, .. } => recursive,
        Kind::Punct(c, _) => matches!(c, '<' | '=') || !prev.is_some_and(ends_operand),
        Kind::Literal => false,
    };
    if recursive { RECURSIVE } else { 1 }
}

/// Whether a punctuation token after `token` is an infix or postfix operator (syn parses a
/// chain of those in a loop) rather than a prefix one (parsed by recursion).
fn ends_operand(token: Kind) -> bool {
    match token {
        Kind::Literal | Kind::Group(_) => true,
        Kind::Ident { operand, .. } => operand,
        Kind::Punct(c, _) => c == '?',
    }
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

    fn check(text: &str) -> syn::Result<()> {
        check_nesting(text.parse().unwrap())
    }

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
        assert!(check(text).is_ok());
        assert!(parse_file(text).is_ok());
    }

    #[test]
    fn deep_nesting_is_refused_where_it_crosses_the_bound() {
        let generics = format!("type T = {}u8{};", "Vec<".repeat(1500), ">".repeat(1500));
        let err = check(&generics).unwrap_err();
        assert_eq!(err.span().start().line, 1);
        assert!(
            err.span().start().column > 9,
            "{}",
            err.span().start().column
        );
        for text in [
            format!("{}{}", "mod a {".repeat(2000), "}".repeat(2000)),
            format!(
                "const X: u8 = {}1{};",
                "(".repeat(100_000),
                ")".repeat(100_000)
            ),
            format!("type T = {}u8;", "&".repeat(5000)),
            format!("const X: u8 = 1{};", " + 1".repeat(30_000)),
            format!("fn f() {{ a{} = 1; }}", " = a".repeat(5000)),
            format!("fn f() {{ if a {{}}{} }}", " else if a {}".repeat(10_000)),
        ] {
            assert!(check(&text).is_err(), "{}", &text[..40]);
        }
    }

    /// syn parses what follows `return` (and the other [`recursive_keyword`]s) by recursion,
    /// and a `&` after `mut` (one of the [`not_operand`]s) as a prefix: chains of them nest.
    #[test]
    fn keywords_that_recurse_count_as_nesting() {
        let returns = format!("fn f() {{ {}1; }}", "return ".repeat(1000));
        let references = format!("type T = {}u8;", "&mut ".repeat(400));
        for text in [returns, references] {
            assert!(check(&text).is_err(), "{}", &text[..40]);
        }
    }

    #[test]
    fn runs_restart_where_syn_loops() {
        // Long lists, many statements and many items are flat in syn.
        let list = format!("const X: [u8; 50000] = [{}];", "1, ".repeat(50_000));
        let statements = format!("fn f() {{ {} }}", "a(1); ".repeat(50_000));
        let items = "struct A {}\n".repeat(50_000);
        let arms = format!("fn f() {{ match x {{ {} }} }}", "A => {} ".repeat(50_000));
        let attributes = format!("{}struct S;", "/// doc\n".repeat(50_000));
        for text in [list, statements, items, arms, attributes] {
            assert!(check(&text).is_ok(), "{}", &text[..40]);
        }
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
