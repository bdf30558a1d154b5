//! Doc comments as the lexer would read them, written so that it reads them faster: the
//! lines of one `///` comment become one attribute that holds nothing but a name,
//! `#[<marker><number>]`, the comment's text being kept aside under that number
//! ([`doc_lines`]). The scan skips string and character literals and block comments as the
//! lexer does.

use std::borrow::Cow;
use std::sync::{Mutex, OnceLock};

use super::lex::{block_comment_end, line_end, quote_end, string_end, word_bytes, word_end};

/// A text with every outer line doc comment (`///`, not `////`) written as one attribute,
/// skipping string and character literals and block comments as the lexer does. A comment
/// with a carriage return is left for the lexer (which refuses a bare one and drops the one
/// before a newline). The lines of a comment, each right below the one before, become one
/// attribute: kopium's types are mostly such comments, and the lexer, the nesting check and
/// syn each copy an attribute's tokens, which a doc attribute written out (`#[doc = "..."]`,
/// one per line) has more of. The attribute is followed by the comment's line breaks, so
/// every line keeps its number.
///
/// The rewrite is under way: the text up to `copied` is in `out`. The nesting look
/// ([`super::shallow::raw_docs_surely_shallow`]) drives it, handing over each line comment
/// it meets ([`Self::doc_at`]), and leaves the rest to its own scan ([`Self::scan_from`])
/// where it gives up.
pub(super) struct Rewrite<'t> {
    text: &'t str,
    out: String,
    copied: usize,
}

/// The whole rewrite of `text`, by its own scan.
#[cfg(test)]
pub(super) fn raw_docs(text: &str) -> Cow<'_, str> {
    let mut rewrite = Rewrite::new(text);
    rewrite.scan_from(0);
    rewrite.finish()
}

impl<'t> Rewrite<'t> {
    pub(super) fn new(text: &'t str) -> Self {
        Self {
            text,
            out: String::new(),
            copied: 0,
        }
    }

    /// Where the line comment at `i` ends, having written it and the doc comments right
    /// below it as one attribute when it is an outer doc comment.
    pub(super) fn doc_at(&mut self, i: usize) -> usize {
        let text = self.text;
        let end = line_end(text, i);
        let Some(doc) = doc_comment(&text[i..end]) else {
            return end;
        };
        let mut lines = vec![doc];
        let mut last = end;
        while let Some((doc, end)) = doc_comment_below(text, last) {
            lines.push(doc);
            last = end;
        }
        self.out.push_str(&text[self.copied..i]);
        doc_attribute(&mut self.out, &lines);
        self.copied = last;
        last
    }

    /// Rewrites the doc comments from `i`, a place where no literal or comment is open, to
    /// the end.
    pub(super) fn scan_from(&mut self, mut i: usize) {
        let (text, b) = (self.text, self.text.as_bytes());
        while i < b.len() {
            i = match b[i] {
                b'/' if b.get(i + 1) == Some(&b'/') => self.doc_at(i),
                b'/' if b.get(i + 1) == Some(&b'*') => block_comment_end(b, i),
                b'"' => string_end(b, i + 1),
                b'\'' => quote_end(text, i),
                c if WORD[usize::from(c)] => word_end(text, i, &WORD),
                _ => i + 1,
            };
        }
    }

    /// The text, rewritten.
    pub(super) fn finish(mut self) -> Cow<'t, str> {
        if self.copied == 0 {
            return Cow::Borrowed(self.text);
        }
        self.out.push_str(&self.text[self.copied..]);
        Cow::Owned(self.out)
    }
}

/// The text of an outer line doc comment the lexer would accept, from its `///` to the end
/// of its line.
fn doc_comment(comment: &str) -> Option<&str> {
    comment
        .strip_prefix("///")
        .filter(|doc| !doc.starts_with('/') && !doc.contains('\r'))
}

/// The doc comment alone on the line after the one that ends at `end`, if there is one, and
/// where it ends.
fn doc_comment_below(text: &str, end: usize) -> Option<(&str, usize)> {
    let next = end + 1;
    let start = next + text.get(next..)?.find(|c| c != ' ' && c != '\t')?;
    let end = line_end(text, start);
    doc_comment(&text[start..end]).map(|doc| (doc, end))
}

/// `#[<marker><number>]` and the comment's line breaks: the lines of one doc comment,
/// kept aside under that number for [`doc_lines`].
fn doc_attribute(out: &mut String, lines: &[&str]) {
    let number = {
        let mut kept = KEPT_DOCS.lock().unwrap_or_else(|e| e.into_inner());
        kept.push(lines.join("\n").into());
        kept.len() - 1
    };
    out.push_str("#[");
    out.push_str(doc_marker());
    out.push_str(&number.to_string());
    out.push(']');
    for _ in 1..lines.len() {
        out.push('\n');
    }
}

/// `text` with each attribute [`doc_attribute`] wrote showing the comment it stands for
/// instead of its number: two rewrites of one text compare equal this way.
#[cfg(test)]
pub(super) fn with_docs_shown(text: &str) -> String {
    let open = format!("#[{}", doc_marker());
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(&open) {
        let after = &rest[at + open.len()..];
        let close = after.find(']').expect("a written attribute is closed");
        let number: usize = after[..close].parse().expect("a written number");
        let kept = KEPT_DOCS.lock().unwrap_or_else(|e| e.into_inner());
        out.push_str(&rest[..at]);
        out.push_str(&format!("#[doc {:?}]", kept[number]));
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

/// The text of the comments [`doc_attribute`] wrote, by number. Kept for the life of the
/// process: a command reads each file once.
static KEPT_DOCS: Mutex<Vec<Box<str>>> = Mutex::new(Vec::new());

/// How the name of each attribute [`raw_docs`] writes begins: random for each process, so
/// that no attribute of a user's can be taken for one.
fn doc_marker() -> &'static str {
    static MARKER: OnceLock<String> = OnceLock::new();
    MARKER.get_or_init(|| {
        use std::hash::{BuildHasher, RandomState};
        let random = RandomState::new().hash_one(std::process::id());
        format!("__rsbuilder_doc_{random:016x}_")
    })
}

/// The text of a doc comment (its lines joined by `\n`, each as a `#[doc]` attribute of
/// its own line would hold it) when `attr` is the attribute [`super::parse_file_raw_docs`]
/// wrote for it.
pub fn doc_lines(attr: &syn::Attribute) -> Option<String> {
    let number = kept_number(attr)?;
    let kept = KEPT_DOCS.lock().unwrap_or_else(|e| e.into_inner());
    kept.get(number).map(|text| text.to_string())
}

/// Whether `attr` is a doc comment [`super::parse_file_raw_docs`] wrote as an attribute.
pub fn is_kept_doc(attr: &syn::Attribute) -> bool {
    kept_number(attr).is_some()
}

fn kept_number(attr: &syn::Attribute) -> Option<usize> {
    let syn::Meta::Path(path) = &attr.meta else {
        return None;
    };
    let name = path.get_ident()?.to_string();
    name.strip_prefix(doc_marker())?.parse().ok()
}

/// Word bytes as the lexer reads them: a character outside ASCII is a word's (an
/// identifier's) or whitespace, and neither starts a comment or a literal.
const WORD: [bool; 256] = word_bytes(true);

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // building literals to test with
mod tests {
    use super::super::{parse_file, parse_file_raw_docs};
    use super::*;
    use proc_macro2::{TokenStream, TokenTree};
    use syn::LitStr;

    /// The tokens of `file` with their starting line and column, doc attributes as the
    /// value of their string: what `parse_file_raw_docs` must keep. The place of a doc
    /// attribute's own tokens is not kept (the lexer gives them all the comment's span).
    fn tokens_and_places(file: &syn::File) -> Vec<(String, Option<(usize, usize)>)> {
        fn walk(stream: TokenStream, out: &mut Vec<(String, Option<(usize, usize)>)>) {
            let trees: Vec<TokenTree> = stream.into_iter().collect();
            for (i, tree) in trees.iter().enumerate() {
                // A doc attribute's lines: one as the lexer writes it, or those of a
                // comment as `raw_docs` writes it.
                let doc = |t: &TokenTree| {
                    let TokenTree::Group(g) = t else { return None };
                    match g.stream().into_iter().collect::<Vec<_>>().as_slice() {
                        [
                            TokenTree::Ident(d),
                            TokenTree::Punct(e),
                            TokenTree::Literal(l),
                        ] if d == "doc" && e.as_char() == '=' => {
                            let lit: LitStr =
                                syn::parse2(TokenTree::Literal(l.clone()).into()).ok()?;
                            Some(vec![lit.value()])
                        }
                        [TokenTree::Ident(name)] => {
                            let attr = syn::Attribute {
                                pound_token: Default::default(),
                                style: syn::AttrStyle::Outer,
                                bracket_token: Default::default(),
                                meta: syn::Meta::Path(name.clone().into()),
                            };
                            let text = doc_lines(&attr)?;
                            Some(text.split('\n').map(str::to_string).collect())
                        }
                        _ => None,
                    }
                };
                if let Some(lines) = doc(tree) {
                    let inner =
                        i > 0 && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '!');
                    for line in lines {
                        out.push((
                            format!("doc{} {line:?}", if inner { "!" } else { "" }),
                            None,
                        ));
                    }
                    continue;
                }
                let in_doc = |j: usize| trees.get(j).and_then(doc).is_some();
                // A doc attribute's `#` (and `!`) stands once for all the lines it holds:
                // each line says whether it is an inner doc instead.
                let pound_of_doc = matches!(tree, TokenTree::Punct(p) if p.as_char() == '#' || p.as_char() == '!')
                    && (in_doc(i + 1) || in_doc(i + 2));
                if pound_of_doc {
                    continue;
                }
                let at = tree.span().start();
                let place = Some((at.line, at.column));
                match tree {
                    TokenTree::Group(g) => {
                        out.push((format!("{:?}", g.delimiter()), place));
                        walk(g.stream(), out);
                    }
                    other => out.push((other.to_string(), place)),
                }
            }
        }
        let mut out = Vec::new();
        walk(quote::ToTokens::to_token_stream(file), &mut out);
        out
    }

    fn same_with_raw_docs(text: &str) {
        let plain = parse_file(text).expect(text);
        let raw = parse_file_raw_docs(text).expect(text);
        assert_eq!(tokens_and_places(&raw), tokens_and_places(&plain), "{text}");
    }

    #[test]
    fn raw_docs_read_the_same_tree() {
        same_with_raw_docs(include_str!("../crd/assemble.rs"));
        same_with_raw_docs(include_str!("../../bench/crds/pooler/src/pooler.rs"));
        let tricky = [
            "/// a \"quoted\" word, a \\ backslash, \"# and \"## hashes\nstruct S;",
            "///\n/// \u{e9}t\u{e9} \u{1F600}\t tab\nstruct S;",
            "struct S { a: u8, /// after code\n b: u8 }",
            "//// not a doc\n//! an inner doc\n/* /// in a block /* nested */ /// still */ struct S;",
            "/** block doc */ struct S;",
            "const A: &str = \"\n/// in a string\n\"; /// doc after it\nstruct S;",
            "const A: &str = r#\"\n/// in a raw \"string\n\"#; const B: &[u8] = br\"///\";\n/// doc\nstruct S;",
            "const C: char = '\"'; /// doc\nconst D: char = '\\''; const E: u8 = b'\"';\n/// doc\nstruct S;",
            "const C: char = '\"'; const S: &str = \"\n/// in a string\n\";\n/// doc\nstruct S;",
            "const D: char = '\\\"'; const S: &str = \"\n/// in a string\n\";\n/// doc\nstruct S;",
            "fn f<'a>(x: &'a str) -> &'a str { 'l: loop { break 'l x; } }\n/// doc \"\nstruct S;",
            "const F: &str = \"\\\"///\\\\\"; /// doc\nstruct S; const r#type: u8 = 1; /// doc\nstruct T;",
            "const G: &str = \"\u{e9}\\\\\u{e9}\"; /// doc\nconst H: char = '\u{e9}'; const I: char = '\\u{e9}'; /// doc\nstruct U;",
            "/// crlf\r\nstruct S;\r\n",
            "/// one\n/// two \"# \"##\n\t  ///three\n///\n/// five\nstruct S;",
            "/// one\n\n/// after a blank line\n//// not a doc\n/// again\n/// crlf\r\nstruct S;",
            "struct S { /// a\n    /// b\n    x: u8, /// c\n    /// d\n    y: u8 }",
            // A literal's suffix is read with it: `'x'r` and `"a"r`, then no raw strings.
            "m!('x'r#\"a\" \"#\" \"\n/// in a string\n\");\nstruct S;",
            "m!(\"a\"r#\"b\" \"#\" \"\n/// in a string\n\");\nstruct S;",
        ];
        for text in tricky {
            same_with_raw_docs(text);
        }
    }

    #[test]
    fn a_comment_of_several_lines_is_one_attribute_that_keeps_its_lines() {
        let text = "/// a \"#\n  /// b\n\t///\nstruct S;\n/// c\n\n/// d\nstruct T;";
        let out = raw_docs(text);
        assert_eq!(out.matches(doc_marker()).count(), 3, "{out}");
        assert_eq!(out.lines().count(), text.lines().count(), "{out}");
        let file = parse_file_raw_docs(text).unwrap();
        let docs: Vec<Option<String>> = file
            .items
            .iter()
            .map(|item| match item {
                syn::Item::Struct(s) => doc_lines(&s.attrs[0]),
                _ => None,
            })
            .collect();
        assert_eq!(docs, [Some(" a \"#\n b\n".into()), Some(" c".into())]);
        // An attribute of the user's that looks like one is not read as one.
        let forged = "#[__rsbuilder_doc_0123456789abcdef_0] struct S;";
        let file = parse_file_raw_docs(forged).unwrap();
        let syn::Item::Struct(s) = &file.items[0] else {
            panic!("a struct")
        };
        assert_eq!(doc_lines(&s.attrs[0]), None);
    }

    #[test]
    fn raw_docs_leave_what_the_lexer_refuses_to_it() {
        assert!(parse_file("/// bare \r carriage return\nstruct S;").is_err());
        assert!(parse_file_raw_docs("/// bare \r carriage return\nstruct S;").is_err());
        assert_eq!(raw_docs("struct S; // no doc\n"), "struct S; // no doc\n");
        // A comment that documents nothing is refused as the lexer's attribute is.
        let dangling = "struct S;\n/// at the end";
        let (plain, raw) = (parse_file(dangling), parse_file_raw_docs(dangling));
        assert!(plain.is_err());
        assert_eq!(
            plain.map_err(|e| e.to_string()).err(),
            raw.map_err(|e| e.to_string()).err()
        );
    }
}
