//! The nesting check: a walk over the tokens that bounds how deep syn can recurse on them
//! (see [`super`] for why, and for the rules it counts by).

use proc_macro2::{Delimiter, Spacing, Span, TokenStream, TokenTree};

/// The nesting cost [`check_nesting`] lets through.
pub const MAX_COST: usize = 20_000;

/// The cost of a token syn parses by recursion.
pub(super) const RECURSIVE: usize = 32;

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

/// Refuses `tokens` when they nest deeper than [`MAX_COST`], at the first token beyond.
pub fn check_nesting(tokens: TokenStream) -> syn::Result<()> {
    walk(tokens, MAX_COST).map(drop).map_err(too_deep)
}

/// The highest cost the tokens reach, or the first token where it passes `limit`.
pub(super) fn walk(tokens: TokenStream, limit: usize) -> Result<usize, Span> {
    let mut max = 0;
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
        if depth > limit {
            return Err(token.span());
        }
        max = max.max(depth);
        frame.restart_after(kind, prev);
        if let TokenTree::Group(group) = &token {
            stack.push(Frame::new(group.stream(), depth));
        }
    }
    Ok(max)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> syn::Result<()> {
        check_nesting(text.parse().unwrap())
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
}
