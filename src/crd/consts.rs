//! The values validation attributes name, as the source fixes them: literals, and
//! `const`/`static` items (also `lazy_static!` entries) whose initializer is a literal or a
//! regex built from one (`LazyLock::new(|| Regex::new("..").unwrap())`, once_cell's
//! `Lazy`). schemars renders a bound with `Into<Value>` (so the item's declared type
//! decides integer or float) and a pattern with `.to_string()` (a `Regex` displays the
//! pattern it was built from). Anything computed is an `Err` with the reason.

use serde_json::Value;
use syn::{Expr, ExprLit, Lit, Stmt, UnOp};

use super::attrs::lit_number_as;
use super::model::{Index, ValueItem};

/// Paths followed through `use` items and re-exports before giving up (a cycle).
const MAX_HOPS: usize = 16;

const NOT_A_LITERAL: &str = "it is not a literal, nor a `const`/`static` with a literal value";

/// The JSON number `expr` (written in `module`) gives a validation bound.
pub fn number(index: &Index<'_>, module: &[String], expr: &Expr) -> Result<Value, String> {
    match strip(expr) {
        Expr::Path(p) if p.qself.is_none() => {
            let (at, item) = lookup(index, module, &segments(&p.path))?;
            let ty = prim_name(&item.ty)
                .ok_or_else(|| format!("`{}` is not of a number type", show(&p.path)))?;
            match strip(&item.expr) {
                Expr::Path(_) => number(index, &at, &item.expr),
                e => lit_number_as(e, Some(ty))
                    .ok_or_else(|| format!("`{}`: {NOT_A_LITERAL}", show(&p.path))),
            }
        }
        e => lit_number_as(e, None).ok_or_else(|| NOT_A_LITERAL.to_string()),
    }
}

/// The string `(expr).to_string()` gives, for `expr` written in `module`.
pub fn text(index: &Index<'_>, module: &[String], expr: &Expr) -> Result<String, String> {
    text_depth(index, module, expr, 0)
}

fn text_depth(
    index: &Index<'_>,
    module: &[String],
    expr: &Expr,
    depth: usize,
) -> Result<String, String> {
    if depth > MAX_HOPS {
        return Err("its value is defined through too many items".into());
    }
    match strip(expr) {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Ok(s.value()),
        Expr::Path(p) if p.qself.is_none() => {
            let (at, item) = lookup(index, module, &segments(&p.path))?;
            init_text(index, &at, &item.expr, depth + 1)
                .map_err(|why| format!("`{}`: {why}", show(&p.path)))
        }
        _ => Err(NOT_A_LITERAL.into()),
    }
}

/// The text an item's initializer displays as: a string literal, another such item, or a
/// lazily built `Regex` from one.
fn init_text(
    index: &Index<'_>,
    module: &[String],
    expr: &Expr,
    depth: usize,
) -> Result<String, String> {
    match strip(expr) {
        // `Regex::new("..").unwrap()` / `.expect("..")`: the regex, or a panic.
        Expr::MethodCall(m) if m.method == "unwrap" || m.method == "expect" => {
            init_text(index, module, &m.receiver, depth)
        }
        Expr::Call(call) => {
            let Expr::Path(func) = &*call.func else {
                return Err(NOT_A_LITERAL.into());
            };
            let segs = segments(&func.path);
            let tail: Vec<&str> = segs.iter().rev().take(2).map(String::as_str).collect();
            match (tail.as_slice(), call.args.len()) {
                // `LazyLock::new(|| ..)`, once_cell's `Lazy::new(|| ..)`.
                (["new", "LazyLock" | "Lazy"], 1) => match &call.args[0] {
                    Expr::Closure(c) if c.inputs.is_empty() => {
                        init_text(index, module, closure_body(&c.body), depth)
                    }
                    _ => Err("the lazy value is not a closure with a literal body".into()),
                },
                (["new", "Regex"], 1) => text_depth(index, module, &call.args[0], depth),
                _ => Err(NOT_A_LITERAL.into()),
            }
        }
        e => text_depth(index, module, e, depth),
    }
}

/// A closure's body without the block around one expression.
fn closure_body(body: &Expr) -> &Expr {
    match body {
        Expr::Block(b) => match b.block.stmts.as_slice() {
            [Stmt::Expr(e, None)] => closure_body(e),
            _ => body,
        },
        other => other,
    }
}

/// `expr` without what does not change its value: parentheses, macro groups, `&x`, `*x`.
fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        Expr::Reference(r) => strip(&r.expr),
        Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => strip(&u.expr),
        other => other,
    }
}

/// The primitive number type an item is declared with (`usize`, `f64`, ...).
fn prim_name(ty: &syn::Type) -> Option<&'static str> {
    const PRIMS: &[&str] = &[
        "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
        "f32", "f64",
    ];
    let syn::Type::Path(p) = ty else { return None };
    let name = p.path.get_ident()?.to_string();
    PRIMS.iter().copied().find(|n| *n == name)
}

fn segments(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

fn show(path: &syn::Path) -> String {
    segments(path).join("::")
}

/// The `const`/`static` a value path names, with the module it is defined in.
fn lookup(
    index: &Index<'_>,
    module: &[String],
    segs: &[String],
) -> Result<(Vec<String>, ValueItem), String> {
    find(index, module.to_vec(), segs, 0).ok_or_else(|| {
        format!(
            "`{}` is not a `const` or `static` of the given sources",
            segs.join("::")
        )
    })
}

fn find(
    index: &Index<'_>,
    module: Vec<String>,
    segs: &[String],
    hops: usize,
) -> Option<(Vec<String>, ValueItem)> {
    if hops > MAX_HOPS {
        return None;
    }
    let (mut current, rest) = match segs.first()?.as_str() {
        "crate" => (Vec::new(), &segs[1..]),
        "self" => (module, &segs[1..]),
        "super" => {
            let mut base = module;
            let mut rest = segs;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
            (base, rest)
        }
        _ => (module, segs),
    };
    let (name, mods) = rest.split_last()?;
    for (i, seg) in mods.iter().enumerate() {
        let child = [&current[..], std::slice::from_ref(seg)].concat();
        if index.module(&child).is_some() {
            current = child;
            continue;
        }
        // `use a::b as c;` then `c::X`.
        let target = index.module(&current)?.uses.get(seg)?;
        let full = [&target[..], &rest[i + 1..]].concat();
        return find(index, current, &full, hops + 1);
    }
    let m = index.module(&current)?;
    if let Some(v) = m.values.get(name) {
        return Some((current, v.clone()));
    }
    if let Some(target) = m.uses.get(name) {
        return find(index, current.clone(), &target.clone(), hops + 1);
    }
    m.globs.iter().find_map(|glob| {
        let full = [&glob[..], std::slice::from_ref(name)].concat();
        find(index, current.clone(), &full, hops + 1)
    })
}
