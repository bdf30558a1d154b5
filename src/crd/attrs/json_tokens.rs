//! The value of `serde_json::json!(..)` tokens (also `schemars::json_schema!`, which hands
//! its tokens to `json!`, and `#[schemars(extend("k" = ..))]`, whose value `json!` reads)
//! when they are a literal: the grammar `json!` accepts — objects with string-literal
//! keys, arrays, trailing commas, `null`/`true`/`false` — over Rust literals, each turned
//! into JSON as `json!` turns it (`to_value(&lit)`): integers by their type (unsuffixed:
//! `i32`), strings with Rust's escapes and raw strings, chars as one-character strings.
//! Anything `json!` would have to run code for (a variable, a call, an identifier key)
//! is no literal: `None`.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use serde_json::{Map, Value};
use syn::{Expr, ExprLit, Lit};

use crate::crd::literals::lit_number;

/// The JSON `json!(tokens)` builds, when `tokens` are one literal value.
pub fn tokens_to_json(tokens: &TokenStream) -> Option<Value> {
    let tokens: Vec<TokenTree> = tokens.clone().into_iter().collect();
    value(&tokens)
}

/// One value: an object, an array, or a scalar literal.
fn value(tokens: &[TokenTree]) -> Option<Value> {
    if let [TokenTree::Group(g)] = tokens {
        let inner: Vec<TokenTree> = g.stream().into_iter().collect();
        return match g.delimiter() {
            Delimiter::Brace => object(&inner),
            Delimiter::Bracket => array(&inner),
            // `(1)`, and the invisible groups `macro_rules!` leaves: the value inside.
            Delimiter::Parenthesis | Delimiter::None => value(&inner),
        };
    }
    scalar(tokens)
}

fn array(tokens: &[TokenTree]) -> Option<Value> {
    entries(tokens)?
        .into_iter()
        .map(value)
        .collect::<Option<Vec<_>>>()
        .map(Value::Array)
}

fn object(tokens: &[TokenTree]) -> Option<Value> {
    let mut map = Map::new();
    for entry in entries(tokens)? {
        let [key, TokenTree::Punct(colon), rest @ ..] = entry else {
            return None;
        };
        if colon.as_char() != ':' {
            return None;
        }
        let Lit::Str(key) = Lit::new(literal(key)?) else {
            return None;
        };
        // `json!` inserts in order: a repeated key keeps its last value.
        map.insert(key.value(), value(rest)?);
    }
    Some(Value::Object(map))
}

/// The comma-separated entries of an object or array; one trailing comma is allowed, an
/// empty entry anywhere else is not (as `json!`).
fn entries(tokens: &[TokenTree]) -> Option<Vec<&[TokenTree]>> {
    if tokens.is_empty() {
        return Some(Vec::new());
    }
    let mut parts: Vec<&[TokenTree]> = tokens
        .split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
        .collect();
    if parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    (!parts.iter().any(|p| p.is_empty())).then_some(parts)
}

fn literal(token: &TokenTree) -> Option<proc_macro2::Literal> {
    match token {
        TokenTree::Literal(l) => Some(l.clone()),
        TokenTree::Group(g) if g.delimiter() == Delimiter::None => {
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            match inner.as_slice() {
                [one] => literal(one),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `null`, `true`, `false`, or a Rust literal expression (a number may be negated).
fn scalar(tokens: &[TokenTree]) -> Option<Value> {
    if let [TokenTree::Ident(i)] = tokens
        && i == "null"
    {
        return Some(Value::Null);
    }
    // Tokens of a file that `syntax::parse_file` already checked, not text.
    #[allow(clippy::disallowed_methods)]
    let expr: Expr = syn::parse2(tokens.iter().cloned().collect()).ok()?;
    if let Some(n) = lit_number(&expr) {
        return Some(n);
    }
    match expr {
        Expr::Lit(ExprLit { lit, .. }) => match lit {
            Lit::Str(s) => Some(Value::String(s.value())),
            Lit::Char(c) => Some(Value::String(c.value().to_string())),
            Lit::Bool(b) => Some(Value::Bool(b.value)),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::tokens_to_json;
    use serde_json::json;

    fn check(tokens: &str, expected: Option<serde_json::Value>) {
        let tokens: proc_macro2::TokenStream = tokens.parse().expect("tokens");
        assert_eq!(tokens_to_json(&tokens), expected, "{tokens}");
    }

    #[test]
    fn literals_in_every_form_json_accepts() {
        check(r#"{ "a": 1, }"#, Some(json!({"a": 1})));
        check(r#"[1, [2, [],], {},]"#, Some(json!([1, [2, []], {}])));
        check(
            r#"{"n": -3, "f": -1.5, "z": null}"#,
            Some(json!({"n": -3, "f": -1.5, "z": null})),
        );
        check(
            r#"{"big": 1_000_000u64, "x": 0x10}"#,
            Some(json!({"big": 1_000_000u64, "x": 16})),
        );
        check(
            r#"[r"a\d", "q\"\u{e9}", 'c', true]"#,
            Some(json!(["a\\d", "q\"é", "c", true])),
        );
        check(r#"{"a": 1, "a": 2}"#, Some(json!({"a": 2})));
        check("(5)", Some(json!(5)));
    }

    #[test]
    fn anything_computed_is_no_literal() {
        for tokens in [
            "{ a: 1 }",
            r#"{ "a": x }"#,
            r#"{ "a": 1,, }"#,
            "[,]",
            r#"{ "a": f(1) }"#,
            r#"{ "a": 1 + 2 }"#,
            r#"{ "a" 1 }"#,
            "[b\"x\"]",
            "3000000000",
        ] {
            check(tokens, None);
        }
    }
}
