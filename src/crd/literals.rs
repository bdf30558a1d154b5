//! The value of a literal expression: a string, a boolean, a number as JSON. Read from
//! `#[cfg(feature = "..")]` and `#[path = ".."]` while the crate is read, from attributes
//! and `json!` tokens while it is modelled, from `const` initializers while types resolve:
//! so it sits below all of them.

use serde_json::Value;
use syn::meta::ParseNestedMeta;
use syn::parse::discouraged::Speculative;
use syn::{Expr, ExprLit, Lit, LitStr, UnOp};

/// A string literal, or an error at the expression.
pub fn lit_str(expr: &Expr) -> syn::Result<String> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Ok(s.value()),
        Expr::Group(g) => lit_str(&g.expr),
        other => Err(syn::Error::new_spanned(other, "expected a string literal")),
    }
}

/// The string literal of an attribute's `name = "..."`, or an error at the expression.
pub fn value_str(m: &ParseNestedMeta<'_>) -> syn::Result<String> {
    let value = m.value()?;
    // Nearly always a lone string literal (`rename = "x"`): read as one, it is the same
    // string, without parsing an expression.
    let lone = value.fork();
    if let Ok(lit) = lone.parse::<LitStr>()
        && (lone.is_empty() || lone.peek(syn::Token![,]))
    {
        value.advance_to(&lone);
        return Ok(lit.value());
    }
    let expr: Expr = value.parse()?;
    lit_str(&expr)
}

/// A boolean literal.
pub fn lit_bool(expr: &Expr) -> syn::Result<bool> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Bool(b), ..
        }) => Ok(b.value),
        other => Err(syn::Error::new_spanned(other, "expected `true` or `false`")),
    }
}

/// A literal number (optionally negated) as JSON, the way `impl Into<Value>` would see
/// an untyped Rust literal: integers as i32 unless suffixed or too large, floats as f64.
pub fn lit_number(expr: &Expr) -> Option<Value> {
    lit_number_as(expr, None)
}

/// [`lit_number`] for a literal of type `ty` (a primitive's name: the `const`'s type).
pub fn lit_number_as(expr: &Expr, ty: Option<&str>) -> Option<Value> {
    let (lit, neg) = match expr {
        Expr::Lit(ExprLit { lit, .. }) => (lit, false),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match &*u.expr {
            Expr::Lit(ExprLit { lit, .. }) => (lit, true),
            _ => return None,
        },
        Expr::Group(g) => return lit_number_as(&g.expr, ty),
        Expr::Paren(p) => return lit_number_as(&p.expr, ty),
        _ => return None,
    };
    match lit {
        Lit::Int(i) => int_value(i.base10_digits(), ty.unwrap_or(i.suffix()), neg),
        Lit::Float(f) => float_value(f.base10_digits(), ty.unwrap_or(f.suffix()), neg),
        _ => None,
    }
}

fn int_value(digits: &str, suffix: &str, neg: bool) -> Option<Value> {
    let text = if neg {
        format!("-{digits}")
    } else {
        digits.to_string()
    };
    match suffix {
        "f32" => text.parse::<f32>().ok().map(Value::from),
        "f64" => text.parse::<f64>().ok().map(Value::from),
        "u64" | "u128" | "usize" => text.parse::<u64>().ok().map(Value::from),
        "" | "i32" => text.parse::<i32>().ok().map(Value::from),
        _ => text.parse::<i64>().ok().map(Value::from),
    }
}

fn float_value(digits: &str, suffix: &str, neg: bool) -> Option<Value> {
    let text = if neg {
        format!("-{digits}")
    } else {
        digits.to_string()
    };
    if suffix == "f32" {
        text.parse::<f32>().ok().map(Value::from)
    } else {
        text.parse::<f64>().ok().map(Value::from)
    }
}
