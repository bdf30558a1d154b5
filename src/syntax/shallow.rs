//! A first look at a text's nesting, on its bytes: most files are nowhere near
//! [`MAX_COST`], and showing that on the text costs a fraction of [`check_nesting`]'s walk
//! over the tokens (which copies every token of every group: a tenth of `generate crds` on
//! a kopium-style file). A text the look cannot clear goes to the walk. For
//! `generate crds`, the look also drives the doc rewrite ([`super::raw_docs`]): one pass
//! over the text before the lexer, not two.
//!
//! The count never falls below the walk's, so a text it clears, the walk clears too:
//! - every token is at least one unit (a run of ASCII word bytes, with the string it
//!   prefixes, `b"..."`; a literal with its suffix; a bracket; a punctuation byte), and
//!   every unit costs [`RECURSIVE`], the most a token can; code with non-ASCII text
//!   outside literals and comments is left to the walk;
//! - a doc comment, which the lexer turns into an attribute of up to five tokens, costs
//!   five units at its peak;
//! - the count restarts only where the walk's surely does: after `;`, after `,` while no
//!   `<` is open (counting `<` and `>` as the walk does, or more open), after an
//!   attribute, and after a `{...}` block followed by what starts the next item.
//!
//! [`check_nesting`]: super::nesting::check_nesting

use std::borrow::Cow;

use super::lex::{block_comment_end, line_end, quote_end, string_end, word_bytes, word_end};
use super::nesting::{MAX_COST, RECURSIVE};
use super::raw_docs::Rewrite;

/// Word bytes, ASCII only: code outside ASCII is left to the walk.
const WORD: [bool; 256] = word_bytes(false);

/// What a doc comment costs at its peak, in units: `#`, `!`, `[`, `=`, and the rest.
const DOC_UNITS: usize = 5;

/// Whether `text` surely nests within [`MAX_COST`].
pub(super) fn surely_shallow(text: &str) -> bool {
    cost_bound(text, MAX_COST).is_some()
}

/// The doc rewrite ([`Rewrite`]) of `text`, and whether what it writes surely nests within
/// [`MAX_COST`]: one pass over the text for both, the count handing each line comment to
/// the rewrite. The count is of `text`, where each doc comment costs [`DOC_UNITS`] at its
/// peak and restarts the count after it; the attribute written for it (`#`, `[`, a name,
/// `]`) costs less at its peak and restarts the count too. Where the count gives up, the
/// rewrite goes on alone.
pub(super) fn raw_docs_surely_shallow(text: &str) -> (Cow<'_, str>, bool) {
    let mut rewrite = Rewrite::new(text);
    let shallow = match count(text, MAX_COST, Some(&mut rewrite)) {
        Ok(_) => true,
        Err(at) => {
            rewrite.scan_from(at);
            false
        }
    };
    (rewrite.finish(), shallow)
}

/// The most the count reaches over `text`; `None` once it passes `limit`, when the
/// brackets do not match (the lexer refuses those), or at non-ASCII code.
pub(super) fn cost_bound(text: &str, limit: usize) -> Option<usize> {
    count(text, limit, None).ok()
}

/// [`cost_bound`], handing every line comment to `rewrite` when there is one. Where the
/// count gives up, the place past the last unit it read, where no literal or comment is
/// open.
fn count(text: &str, limit: usize, mut rewrite: Option<&mut Rewrite<'_>>) -> Result<usize, usize> {
    let b = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut frame = Frame::default();
    // Whether the units just before were `#` or `#!`, so that a `[` now opens an attribute.
    let mut pound = false;
    let mut max = 0;
    let mut i = 0;
    while i < b.len() {
        let (unit, end) = match b[i] {
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'/' if matches!(b.get(i + 1), Some(b'/' | b'*')) => {
                let (end, doc) = comment(text, i, rewrite.as_deref_mut());
                if !doc {
                    i = end;
                    continue;
                }
                (Unit::Doc, end)
            }
            b'"' => (Unit::Literal, string_end(b, i + 1)),
            b'\'' => match quote_end(text, i) {
                // The quote of a lifetime or a label.
                end if end == i + 1 => (Unit::Punct(b'\''), end),
                end => (Unit::Literal, end),
            },
            c @ (b'(' | b'[' | b'{') => (Unit::Open(c), i + 1),
            c @ (b')' | b']' | b'}') => (Unit::Close(c), i + 1),
            c if WORD[usize::from(c)] => {
                let end = word_end(text, i, &WORD);
                (Unit::Word(&text[i..end]), end)
            }
            // Where the lexer's tokens end in non-ASCII code (identifiers, whitespace) takes
            // Unicode's tables: left to the walk.
            c if !c.is_ascii() => return Err(i),
            c => (Unit::Punct(c), i + 1),
        };
        if std::mem::take(&mut frame.after_block) && !unit.goes_on() {
            frame.restart();
        }
        if let Unit::Close(c) = unit {
            let closed = std::mem::replace(&mut frame, stack.pop().ok_or(end)?);
            if closed.attribute {
                frame.cost = 0;
            }
            frame.after_block = c == b'}';
            pound = false;
            i = end;
            continue;
        }
        frame.cost += RECURSIVE * if unit == Unit::Doc { DOC_UNITS } else { 1 };
        let depth = frame.base + frame.cost;
        if depth > limit {
            return Err(end);
        }
        max = max.max(depth);
        let was_pound = std::mem::take(&mut pound);
        match unit {
            Unit::Doc => frame.cost = 0,
            Unit::Open(c) => {
                let inner = Frame {
                    base: depth,
                    attribute: c == b'[' && was_pound,
                    ..Frame::default()
                };
                stack.push(std::mem::replace(&mut frame, inner));
            }
            Unit::Punct(b';') => frame.restart(),
            Unit::Punct(b',') if frame.angles == 0 => frame.cost = 0,
            Unit::Punct(b'<') => frame.angles += 1,
            // `->` and `=>` close nothing.
            Unit::Punct(b'>') if !(i > 0 && matches!(b[i - 1], b'-' | b'=')) => {
                frame.angles = frame.angles.saturating_sub(1);
            }
            Unit::Punct(b'#') => pound = true,
            Unit::Punct(b'!') => pound = was_pound,
            _ => {}
        }
        i = end;
    }
    if stack.is_empty() { Ok(max) } else { Err(i) }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Unit<'t> {
    Word(&'t str),
    Literal,
    Punct(u8),
    Open(u8),
    Close(u8),
    Doc,
}

impl Unit<'_> {
    /// Whether an expression goes on with this after a `{...}` block (`} else`, `} as T`,
    /// `}.f()`, `}[0]`), where the walk does not restart.
    fn goes_on(self) -> bool {
        match self {
            Unit::Word(word) => word == "else" || word == "as",
            Unit::Literal => false,
            Unit::Open(c) => c == b'[',
            Unit::Punct(_) | Unit::Close(_) | Unit::Doc => true,
        }
    }
}

/// The units of one bracket group, counted as the walk counts its tokens.
#[derive(Default)]
struct Frame {
    /// The count at the group's opening bracket.
    base: usize,
    /// The count since the last restart.
    cost: usize,
    /// Open `<`, at least as many as the walk counts.
    angles: usize,
    /// Whether the unit before was a `{...}` block.
    after_block: bool,
    /// Whether this group is an attribute's `[...]`.
    attribute: bool,
}

impl Frame {
    fn restart(&mut self) {
        self.cost = 0;
        self.angles = 0;
    }
}

/// Past the comment at `i` (`//...` or `/*...*/`), and whether it is a doc comment. A line
/// comment goes to `rewrite`, which takes the doc comments right below an outer one with it.
fn comment(text: &str, i: usize, rewrite: Option<&mut Rewrite<'_>>) -> (usize, bool) {
    if text.as_bytes()[i + 1] == b'/' {
        let end = rewrite.map_or_else(|| line_end(text, i), |r| r.doc_at(i));
        (end, is_doc_line(&text[i..]))
    } else {
        let end = block_comment_end(text.as_bytes(), i);
        (end, is_doc_block(&text[i..end]))
    }
}

/// `///` (not `////`) or `//!`: a doc comment, which the lexer turns into tokens.
fn is_doc_line(comment: &str) -> bool {
    (comment.starts_with("///") && !comment.starts_with("////")) || comment.starts_with("//!")
}

/// `/** */` (not `/***` or `/**/`) or `/*! */`.
fn is_doc_block(comment: &str) -> bool {
    (comment.starts_with("/**") && !comment.starts_with("/***") && !comment.starts_with("/**/"))
        || comment.starts_with("/*!")
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::nesting::{check_nesting, walk};
    use super::super::raw_docs::{raw_docs, with_docs_shown};
    use super::*;

    /// That the count over `text`, when it clears `text`, reaches at least the walk's
    /// highest cost (when the lexer takes `text`), and so does the count that drives the
    /// doc rewrite, over the rewritten text: it counts the same and rewrites as
    /// [`raw_docs`] does. Not clearing a text is always safe.
    fn covers(text: &str) -> Result<(), TestCaseError> {
        let counted = cost_bound(text, usize::MAX);
        let (rewritten, driven) = rewrite_with_limit(text, usize::MAX);
        prop_assert_eq!(
            with_docs_shown(&rewritten),
            with_docs_shown(&raw_docs(text))
        );
        prop_assert_eq!(driven, counted);
        for (text, counted) in [(text, counted), (&*rewritten, driven)] {
            let Ok(tokens) = text.parse() else {
                continue;
            };
            let walked = walk(tokens, usize::MAX).expect("no limit");
            prop_assert!(
                counted.is_none_or(|c| c >= walked),
                "counted {counted:?}, walked {walked}: {text:?}"
            );
        }
        Ok(())
    }

    /// [`raw_docs_surely_shallow`] with any limit: the rewritten text and the count.
    fn rewrite_with_limit(text: &str, limit: usize) -> (Cow<'_, str>, Option<usize>) {
        let mut rewrite = Rewrite::new(text);
        let counted = count(text, limit, Some(&mut rewrite));
        if let Err(at) = counted {
            rewrite.scan_from(at);
        }
        (rewrite.finish(), counted.ok())
    }

    /// Wherever the count gives up (at a doc comment it has rewritten, inside brackets,
    /// at text outside ASCII), the rewrite goes on from there as its own scan would.
    #[test]
    fn the_rewrite_goes_on_where_the_count_gives_up() {
        let text = "/// a\n/// b\nstruct A { /// c\n x: (u8, [/// d\n u8; 2]) }\n\
                    type T = a::b::c::d::e::f::g/// e\n;\n// f\n/// g \u{e9}\nconst \u{e9}: u8 = 1; /// h\n";
        let whole = with_docs_shown(&raw_docs(text));
        assert_ne!(whole, text);
        for limit in 0..=40 * RECURSIVE {
            let (rewritten, counted) = rewrite_with_limit(text, limit);
            assert_eq!(with_docs_shown(&rewritten), whole, "limit {limit}");
            assert_eq!(counted, None, "limit {limit}: the text is not ASCII");
        }
        let ascii = text.replace('\u{e9}', "e");
        let (rewritten, shallow) = raw_docs_surely_shallow(&ascii);
        assert!(shallow);
        assert_eq!(
            with_docs_shown(&rewritten),
            with_docs_shown(&raw_docs(&ascii))
        );
    }

    #[test]
    fn real_files_count_no_less_than_the_walk_and_are_cleared() {
        let pooler = include_str!("../../bench/crds/pooler/src/pooler.rs");
        let files = [
            include_str!("../crd/assemble.rs"),
            include_str!("../crd/schema.rs"),
            include_str!("../syntax.rs"),
            include_str!("raw_docs.rs"),
            include_str!("shallow.rs"),
            pooler,
            &raw_docs(pooler),
        ];
        for text in files {
            covers(text).unwrap();
            assert!(surely_shallow(text), "{}", &text[..80]);
        }
    }

    /// Texts where the count is tight, each unit a token the walk also counts in full: a
    /// restart the walk does not make shows here.
    #[test]
    fn tight_texts_count_no_less_than_the_walk() {
        for text in [
            "((<,0x1f))",
            "(<->,(((()))))",
            "(<=>,(((()))))",
            "(/// d\n)",
            "(#[a]())",
            "(#![a]())",
            "({}[0]((())))",
            "({} else ((())))",
        ] {
            covers(text).unwrap();
        }
    }

    #[test]
    fn deep_texts_are_left_to_the_walk() {
        for text in [
            format!("type T = {}u8{};", "Vec<".repeat(700), ">".repeat(700)),
            format!("{}{}", "mod a {".repeat(700), "}".repeat(700)),
            format!("type T = {}u8;", "&".repeat(700)),
        ] {
            assert!(!surely_shallow(&text), "{}", &text[..40]);
            assert!(check_nesting(text.parse().unwrap()).is_err());
        }
        // Brackets the lexer refuses are not cleared either.
        assert_eq!(cost_bound("fn f() { ( }", MAX_COST), None);
        assert_eq!(cost_bound("fn f() }", MAX_COST), None);
    }

    /// Pieces of Rust where the two counts could part: restarts (`;`, `,`, `<`/`>` and
    /// the arrows, attributes, blocks, `else`, `as`), literals and lifetimes that hold
    /// brackets or punctuation, comments and doc comments, non-ASCII text.
    fn piece() -> impl Strategy<Value = String> {
        let leaf = prop::sample::select(vec![
            "fn",
            "let",
            "return",
            "mut",
            "else",
            "as",
            "x",
            "r#type",
            "r#else",
            "1",
            "1.5",
            "1e-5",
            "0x1f",
            "'a",
            "'x'",
            "b'x'",
            "'\\''",
            "'('",
            "\"s;,{<\"",
            "r#\"a\"\"#",
            "b\"x)\"",
            "c\"y\"",
            "<",
            ">",
            "->",
            "=>",
            "=",
            "-",
            "&",
            "*",
            "!",
            "#",
            "#!",
            ",",
            ";",
            "?",
            ".",
            "::",
            "+",
            "|",
            "\u{e9}",
            "\u{200e}",
            "/* c; { */",
            "// c {\n",
            "/// d\n",
            "//// e\n",
            "//! f\n",
            "/** g */",
            "/*! h */",
            "/**/",
            "\n",
        ])
        .prop_map(str::to_string);
        leaf.prop_recursive(5, 120, 8, |inner| {
            (
                prop::sample::select(vec![("(", ")"), ("[", "]"), ("{", "}")]),
                prop::collection::vec((inner, prop::sample::select(vec!["", " ", "\n"])), 0..8),
            )
                .prop_map(|((open, close), parts)| {
                    let body: String = parts.into_iter().map(|(p, sep)| p + sep).collect();
                    format!("{open}{body}{close}")
                })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn the_count_is_never_below_the_walks(
            parts in prop::collection::vec((piece(), prop::sample::select(vec!["", " ", "\n"])), 0..24)
        ) {
            let text: String = parts.into_iter().map(|(p, sep)| p + sep).collect();
            covers(&text)?;
        }
    }
}
