//! A file's items built from its tokens, the plain structs without syn's parser. syn copies
//! every token into a buffer of its own and parses each through layers of lookahead built
//! for any Rust; a kopium-style file is hundreds of structs whose fields are
//! `#[attr] pub name: Path<Args>`, and building those directly takes a fraction of that.
//!
//! What is built here is the tree syn's parser builds from the same tokens, token for token
//! and span for span: anything but the plainest shapes goes to syn, at the smallest unit
//! that parses alone (a field, an item); a unit syn refuses sends the whole file to syn
//! ([`file`] returns `None`), so that every error is syn's own.
//!
//! The plain shapes, with syn's readings they must match (syn 2's `item.rs`, `data.rs`,
//! `attr.rs`, `ty.rs`, `path.rs`):
//! - an item `#[..]* pub? struct Name { fields }`: no generics, no `where`;
//! - a field `#[..]* pub? name: Type`, where `pub` is not followed by `(`;
//! - an attribute `#[path]`, `#[path(..)]` (any delimiter) or `#[path = literal]`, with a
//!   one-word path;
//! - a type `a::b<T, U>::c`: words that are neither keywords nor `_`, angle brackets that
//!   hold such types, ending where the field or argument ends.

use proc_macro2::{Delimiter, Group, Punct, Spacing, TokenStream, TokenTree};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Token, token};

use super::keywords;

/// The file syn would parse from `tokens`, or `None` where a part is not plain and syn
/// refuses it alone, or the parts do not split into items.
#[allow(clippy::disallowed_methods)] // tokens of a file `super::tokens` checked
pub(super) fn file(tokens: TokenStream) -> Option<syn::File> {
    let mut trees = tokens.into_iter().peekable();
    // The file's inner attributes (`#![..]`, `//!`), for syn; an outer one starts an item.
    let mut inner = Vec::new();
    let mut item = Vec::new();
    while is_punct(trees.peek(), '#') {
        let pound = trees.next()?;
        if !is_punct(trees.peek(), '!') {
            item.push(pound);
            break;
        }
        inner.push(pound);
        inner.extend(trees.next());
        inner.extend(trees.next());
    }
    let attrs = syn::Attribute::parse_inner
        .parse2(inner.into_iter().collect())
        .ok()?;
    let mut items = Vec::new();
    let mut end = ItemEnd::default();
    while let Some(tree) = trees.next() {
        let ends = end.after(&tree, &item);
        item.push(tree);
        if !ends {
            continue;
        }
        if is_punct(trees.peek(), ';') {
            item.extend(trees.next());
        }
        end = ItemEnd::default();
        items.push(item_of(std::mem::take(&mut item))?);
    }
    if !item.is_empty() {
        return None;
    }
    Some(syn::File {
        shebang: None,
        attrs,
        items,
    })
}

/// Whether `tree` is the punctuation `c`.
fn is_punct(tree: Option<&TokenTree>, c: char) -> bool {
    matches!(tree, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

/// Where an item ends, as its tokens go by: at a `;`, or at braces that are not inside
/// angle brackets (`A<{ N }>`) nor after an `=` (`const C: S = S { .. };`), with the `;`
/// after them if there is one (`use a::{b};`). A split syn does not make fails to parse,
/// and the file goes to syn whole.
#[derive(Default)]
struct ItemEnd {
    angles: usize,
    assigned: bool,
}

impl ItemEnd {
    /// Whether `tree`, after `before`, ends the item.
    fn after(&mut self, tree: &TokenTree, before: &[TokenTree]) -> bool {
        match tree {
            TokenTree::Punct(p) => {
                count_angle(&mut self.angles, p, before);
                match p.as_char() {
                    ';' => return true,
                    '=' if self.angles == 0 => self.assigned = true,
                    _ => {}
                }
            }
            TokenTree::Group(g) => {
                return g.delimiter() == Delimiter::Brace && self.angles == 0 && !self.assigned;
            }
            _ => {}
        }
        false
    }
}

/// The item syn parses from `tokens`, built here when it is a plain struct.
#[allow(clippy::disallowed_methods)] // tokens of a file `super::tokens` checked
fn item_of(mut tokens: Vec<TokenTree>) -> Option<syn::Item> {
    if let Some(header) = struct_header(&tokens) {
        let Some(TokenTree::Group(body)) = tokens.pop() else {
            unreachable!("a plain struct ends with its body")
        };
        return Some(syn::Item::Struct(syn::ItemStruct {
            fields: syn::Fields::Named(fields(body)?),
            ..header
        }));
    }
    syn::parse2(tokens.into_iter().collect()).ok()
}

/// The struct `tokens` hold, but for its fields, when its attributes and header are plain
/// and its last token is the braces of its fields.
fn struct_header(tokens: &[TokenTree]) -> Option<syn::ItemStruct> {
    let (attrs, rest) = outer_attrs(tokens)?;
    let (vis, rest) = visibility(rest)?;
    let [
        TokenTree::Ident(keyword),
        TokenTree::Ident(ident),
        TokenTree::Group(body),
    ] = rest
    else {
        return None;
    };
    if keyword != "struct" || !is_ident(ident) || body.delimiter() != Delimiter::Brace {
        return None;
    }
    Some(syn::ItemStruct {
        attrs,
        vis,
        struct_token: Token![struct](keyword.span()),
        ident: ident.clone(),
        generics: syn::Generics::default(),
        fields: syn::Fields::Unit,
        semi_token: None,
    })
}

/// The fields between `body`'s braces, each built here when plain, by syn otherwise.
fn fields(body: Group) -> Option<syn::FieldsNamed> {
    let brace_token = token::Brace {
        span: body.delim_span(),
    };
    let stream = body.stream();
    // The braces' own reference to the tokens goes, so that they are moved, not copied.
    drop(body);
    let mut named = Punctuated::new();
    let mut field = Vec::new();
    let mut angles = 0usize;
    let mut trees = stream.into_iter().peekable();
    while let Some(tree) = trees.next() {
        if let TokenTree::Punct(p) = &tree {
            if p.as_char() == ',' && angles == 0 {
                named.push_value(field_of(std::mem::take(&mut field))?);
                named.push_punct(Token![,](p.span()));
                continue;
            }
            count_angle(&mut angles, p, &field);
        }
        field.push(tree);
        if trees.peek().is_none() {
            named.push_value(field_of(std::mem::take(&mut field))?);
        }
    }
    Some(syn::FieldsNamed { brace_token, named })
}

/// Counts `p` into `depth`, the angle brackets open before it: `->`'s `>` closes none.
fn count_angle(depth: &mut usize, p: &Punct, before: &[TokenTree]) {
    let arrow = || matches!(before.last(), Some(TokenTree::Punct(m)) if m.as_char() == '-' && m.spacing() == Spacing::Joint);
    match p.as_char() {
        '<' => *depth += 1,
        '>' if !arrow() => *depth = depth.saturating_sub(1),
        _ => {}
    }
}

/// The named field syn parses from `tokens`, built here when it is plain.
fn field_of(tokens: Vec<TokenTree>) -> Option<syn::Field> {
    plain_field(&tokens).or_else(|| {
        syn::Field::parse_named
            .parse2(tokens.into_iter().collect())
            .ok()
    })
}

/// `#[..]* pub? name: Type`, with plain attributes and a path type.
fn plain_field(tokens: &[TokenTree]) -> Option<syn::Field> {
    let (attrs, rest) = outer_attrs(tokens)?;
    let (vis, rest) = visibility(rest)?;
    let [TokenTree::Ident(ident), TokenTree::Punct(colon), ty @ ..] = rest else {
        return None;
    };
    if !is_ident(ident) || colon.as_char() != ':' || colon.spacing() != Spacing::Alone {
        return None;
    }
    let (ty, rest) = path_type(ty)?;
    if !rest.is_empty() {
        return None;
    }
    Some(syn::Field {
        attrs,
        vis,
        mutability: syn::FieldMutability::None,
        ident: Some(ident.clone()),
        colon_token: Some(Token![:](colon.span())),
        ty,
    })
}

/// The attributes `tokens` start with, when all are plain, and the tokens after them.
fn outer_attrs(mut tokens: &[TokenTree]) -> Option<(Vec<syn::Attribute>, &[TokenTree])> {
    let mut attrs = Vec::new();
    while let [TokenTree::Punct(pound), rest @ ..] = tokens
        && pound.as_char() == '#'
    {
        let [TokenTree::Group(brackets), rest @ ..] = rest else {
            return None;
        };
        if brackets.delimiter() != Delimiter::Bracket {
            return None;
        }
        attrs.push(syn::Attribute {
            pound_token: Token![#](pound.span()),
            style: syn::AttrStyle::Outer,
            bracket_token: token::Bracket {
                span: brackets.delim_span(),
            },
            meta: meta(brackets.stream())?,
        });
        tokens = rest;
    }
    Some((attrs, tokens))
}

/// `path`, `path(..)` or `path = literal`, for a one-word path.
fn meta(tokens: TokenStream) -> Option<syn::Meta> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let [TokenTree::Ident(word), rest @ ..] = tokens.as_slice() else {
        return None;
    };
    let path = syn::Path::from(word.clone());
    match rest {
        [] => Some(syn::Meta::Path(path)),
        [TokenTree::Group(g)] => {
            let span = g.delim_span();
            let delimiter = match g.delimiter() {
                Delimiter::Parenthesis => syn::MacroDelimiter::Paren(token::Paren { span }),
                Delimiter::Bracket => syn::MacroDelimiter::Bracket(token::Bracket { span }),
                Delimiter::Brace => syn::MacroDelimiter::Brace(token::Brace { span }),
                Delimiter::None => return None,
            };
            Some(syn::Meta::List(syn::MetaList {
                path,
                delimiter,
                tokens: g.stream(),
            }))
        }
        [TokenTree::Punct(eq), TokenTree::Literal(lit)] if eq.as_char() == '=' => {
            Some(syn::Meta::NameValue(syn::MetaNameValue {
                path,
                eq_token: Token![=](eq.span()),
                value: syn::Expr::Lit(syn::ExprLit {
                    attrs: Vec::new(),
                    lit: syn::Lit::new(lit.clone()),
                }),
            }))
        }
        _ => None,
    }
}

/// `pub` not followed by `(`, or nothing.
fn visibility(tokens: &[TokenTree]) -> Option<(syn::Visibility, &[TokenTree])> {
    match tokens {
        [TokenTree::Ident(word), rest @ ..] if word == "pub" => match rest.first() {
            Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => None,
            _ => Some((syn::Visibility::Public(Token![pub](word.span())), rest)),
        },
        _ => Some((syn::Visibility::Inherited, tokens)),
    }
}

/// The path type `tokens` start with, and the tokens after it, which must start with what
/// ends a type where it is (`,`, `>`, or nothing).
fn path_type(mut tokens: &[TokenTree]) -> Option<(syn::Type, &[TokenTree])> {
    let mut segments = Punctuated::new();
    loop {
        let [TokenTree::Ident(ident), rest @ ..] = tokens else {
            return None;
        };
        if !is_ident(ident) {
            return None;
        }
        let (arguments, rest) = match rest {
            [TokenTree::Punct(lt), TokenTree::Ident(_), ..] if lt.as_char() == '<' => {
                let (args, rest) = angle_args(lt, &rest[1..])?;
                (syn::PathArguments::AngleBracketed(args), rest)
            }
            _ => (syn::PathArguments::None, rest),
        };
        segments.push_value(syn::PathSegment {
            ident: ident.clone(),
            arguments,
        });
        tokens = rest;
        match tokens {
            [TokenTree::Punct(c1), TokenTree::Punct(c2), next @ ..]
                if c1.as_char() == ':' && c1.spacing() == Spacing::Joint && c2.as_char() == ':' =>
            {
                segments.push_punct(Token![::]([c1.span(), c2.span()]));
                tokens = next;
            }
            [] => break,
            [TokenTree::Punct(p), ..] if matches!(p.as_char(), ',' | '>') => break,
            _ => return None,
        }
    }
    let path = syn::Path {
        leading_colon: None,
        segments,
    };
    Some((syn::Type::Path(syn::TypePath { qself: None, path }), tokens))
}

/// `<T, U,>` after the `<` at `lt`: path types, then the `>`.
fn angle_args<'a>(
    lt: &Punct,
    mut tokens: &'a [TokenTree],
) -> Option<(syn::AngleBracketedGenericArguments, &'a [TokenTree])> {
    let mut args = Punctuated::new();
    let (gt, rest) = loop {
        let (ty, rest) = path_type(tokens)?;
        args.push_value(syn::GenericArgument::Type(ty));
        match rest {
            [TokenTree::Punct(gt), rest @ ..] if gt.as_char() == '>' => break (gt, rest),
            [TokenTree::Punct(comma), rest @ ..] if comma.as_char() == ',' => {
                args.push_punct(Token![,](comma.span()));
                match rest {
                    [TokenTree::Punct(gt), rest @ ..] if gt.as_char() == '>' => break (gt, rest),
                    _ => tokens = rest,
                }
            }
            _ => return None,
        }
    };
    let args = syn::AngleBracketedGenericArguments {
        colon2_token: None,
        lt_token: Token![<](lt.span()),
        args,
        gt_token: Token![>](gt.span()),
    };
    Some((args, rest))
}

/// An identifier syn takes as a name: no keyword, no `_` (raw identifiers are names).
fn is_ident(ident: &proc_macro2::Ident) -> bool {
    !keywords::reserved(&ident.to_string())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // syn's reading, to compare with
mod tests {
    use super::*;
    use std::path::Path;
    use std::str::FromStr;

    /// A token as syn writes it back, with the line and column where it starts and ends.
    type Placed = (String, (usize, usize), (usize, usize));

    /// Every token of `file`, placed.
    fn tokens_and_places(file: &syn::File) -> Vec<Placed> {
        fn walk(stream: TokenStream, out: &mut Vec<Placed>) {
            for tree in stream {
                let (start, end) = (tree.span().start(), tree.span().end());
                let place = ((start.line, start.column), (end.line, end.column));
                match tree {
                    TokenTree::Group(g) => {
                        out.push((format!("{:?}", g.delimiter()), place.0, place.1));
                        walk(g.stream(), out);
                    }
                    other => out.push((other.to_string(), place.0, place.1)),
                }
            }
        }
        let mut out = Vec::new();
        walk(quote::ToTokens::to_token_stream(file), &mut out);
        out
    }

    /// What syn makes of `text`, and what [`file`] does: the same tree, token for token and
    /// place for place, where `file` builds one. Returns whether it did.
    fn same_as_syn(text: &str, name: &str) -> bool {
        let lex = || TokenStream::from_str(text);
        let Ok(tokens) = lex() else { return false };
        let syn = syn::parse2::<syn::File>(lex().unwrap());
        let Some(plain) = file(tokens) else {
            return false;
        };
        let syn = syn.unwrap_or_else(|e| panic!("{name}: plain built a file syn refuses: {e}"));
        assert!(plain == syn, "{name}: not the tree syn parses");
        assert_eq!(tokens_and_places(&plain), tokens_and_places(&syn), "{name}");
        true
    }

    fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    #[test]
    fn the_files_of_this_repository_read_as_syn_reads_them() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        for dir in ["src", "bench", "testdata", "tests"] {
            rust_files(&root.join(dir), &mut files);
        }
        let mut built = 0;
        for path in &files {
            let text = std::fs::read_to_string(path).unwrap();
            let name = path.display().to_string();
            built += usize::from(same_as_syn(&text, &name));
            // As `parse_file_raw_docs` hands it over: doc comments as marker attributes.
            same_as_syn(&super::super::raw_docs::raw_docs(&text), &name);
        }
        assert!(
            built > files.len() / 2,
            "{built} of {} files built",
            files.len()
        );
    }

    #[test]
    fn what_is_not_plain_is_syns_and_what_syn_refuses_is_left_to_it() {
        let cases = [
            // Plain, and what is near it.
            "//! inner doc\n#![allow(x)]\n/// doc\n#[derive(A, B)] #[serde(rename_all = \"camelCase\")]\npub struct S { /// doc\n #[serde(default, skip_serializing_if = \"Option::is_none\")] pub r#type: Option<Vec<a::b::C>>, b: BTreeMap<String, i32,>, }",
            "struct S {} struct T { a: u8 } pub struct U { pub a: std::collections::BTreeMap<String, Option<Box<U>>> }",
            "#[doc = \"x\"] #[a::b] #[a = -1] #[a = b] #[a[x]] #[a{x}] #[a(x) y] struct S { #[doc = r\"y\"] #[crate] a: u8 }",
            // Generics, `where`, tuple and unit structs, other items.
            "struct S<T> { a: T } struct W where u8: Copy { a: u8 } struct T(u8); struct U; enum E { A } use a::b; const C: S = S { a: 1 }; impl S {} fn f() {} mod m { struct S { a: u8 } }",
            // Fields syn reads: visibility, keywords, types of every other kind.
            "struct S { pub(crate) a: u8, pub(in a) b: u8, c: &'static str, d: (u8, u8), e: [u8; 2], f: fn(u8) -> u8, g: dyn A + B, h: <T as A>::B, i: ::a::B, j: a::<B>, k: A<'a>, l: A<1>, m: A<{ 1 }>, n: A<B = C>, o: A<B: C>, p: Box<dyn Fn(A, B) -> C>, q: m!(), r: self::A, s: Self, t: a::b::<C>, u: A<>, v: impl A, w: _, x: !, y: A<B<C>>, z: A<B<C>,>, }",
            "struct S { r#struct: u8, r#_a: u8, Self_: u8, union: union, auto: default, builtin: u8, }",
            "struct S { a: A<fn() -> B, C>, b: Box<dyn Fn(A, B) -> C<D>>, c: u8 }",
            // Braces that end no item.
            "type A = B<{ 1 }, { 2 }>; struct S { a: u8 } const C: u8 = if D { 1 } else { 2 }; const E: S = S { a: T { b: 1 } }; use a::{b, c}; struct T<const N: usize = 1> {} impl<T: A<B = C>> D for E<F<G>> where H: Fn() -> I {} fn f() -> J<{ 1 }> {} static K: L = L {};",
            // Refused: syn's errors, not a tree of our own.
            "struct S { a: u8,, }",
            "struct S { a: u8 b: u8 }",
            "struct S { a:: u8 }",
            "struct S { a: u8 = 1 }",
            "struct S { type: u8 }",
            "struct S { _: u8 }",
            "struct S { a: Vec<u8 }",
            "struct S { a: Vec<u8>> }",
            "struct S { #![inner] a: u8 }",
            "struct S {};",
            "struct S { a: u8 } ;",
            "struct S { a: u8 } struct",
            "#[a] #![b] struct S {}",
            "#!(a) struct S {}",
            "pub(crate) struct S { a: u8 }",
            "struct fn { a: u8 }",
            "#[a] pub pub struct S {}",
        ];
        for text in cases {
            // Whatever syn reads splits into items, each read here or by syn.
            let syn = syn::parse_str::<syn::File>(text);
            assert_eq!(same_as_syn(text, text), syn.is_ok(), "{text}");
        }
    }

    #[test]
    fn plain_fields_and_headers_are_built_here() {
        let tokens = |text: &str| -> Vec<TokenTree> {
            TokenStream::from_str(text).unwrap().into_iter().collect()
        };
        for field in [
            "a: u8",
            "pub r#type: Option<Vec<a::B>>",
            "#[serde(default)] #[__doc_1] pub a: BTreeMap<String, Option<i32>,>",
            "#[doc = \"x\"] a: A<B<C<D>>>",
        ] {
            assert!(plain_field(&tokens(field)).is_some(), "{field}");
        }
        for field in [
            "pub(crate) a: u8",
            "a: &u8",
            "a: A<'b>",
            "a: ::A",
            "type: u8",
            "#[a::b] a: u8",
        ] {
            assert!(plain_field(&tokens(field)).is_none(), "{field}");
        }
        for header in ["#[derive(A)] pub struct S {}", "struct S { a: u8 }"] {
            assert!(struct_header(&tokens(header)).is_some(), "{header}");
        }
        for header in [
            "struct S<T> {}",
            "pub(crate) struct S {}",
            "struct S(u8);",
            "struct S;",
            "enum S {}",
        ] {
            assert!(struct_header(&tokens(header)).is_none(), "{header}");
        }
    }

    /// Every 50th `.rs` file of the Cargo registry on the machine, by path: structs of every
    /// style. (All 15,172 files of the registry this was written on were checked once:
    /// 15,168 built here, each the tree syn parses.)
    #[test]
    fn the_cargo_registry_reads_as_syn_reads_it() {
        let home = std::env::var_os("CARGO_HOME")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| Path::new(&std::env::var_os("HOME").unwrap()).join(".cargo"));
        let mut files = Vec::new();
        rust_files(&home.join("registry/src"), &mut files);
        files.sort();
        let sample: Vec<_> = files.iter().step_by(50).collect();
        let mut built = 0;
        for path in &sample {
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            let Ok(tokens) = TokenStream::from_str(&text) else {
                continue;
            };
            // What the nesting check refuses never reaches the parsers.
            if super::super::nesting::check_nesting(tokens).is_ok() {
                built += usize::from(same_as_syn(&text, &path.display().to_string()));
            }
        }
        assert!(
            built > sample.len() / 2,
            "{built} of {} files built",
            sample.len()
        );
    }
}
