//! The values validation attributes name, as the source fixes them: literals, and
//! `const`/`static` items (also `lazy_static!` entries) whose initializer is a literal or a
//! regex built from one (`LazyLock::new(|| Regex::new("..").unwrap())`, once_cell's
//! `Lazy`). schemars renders a bound with `Into<Value>` (so the item's declared type
//! decides integer or float) and a pattern with `.to_string()` (a `Regex` displays the
//! pattern it was built from); `concat!` of literals is a literal. Anything computed is an
//! `Err` with the reason.

use serde_json::Value;
use syn::ext::IdentExt;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Lit, Stmt, Token, UnOp};

use schemars::Schema;

use super::attrs::tokens_to_json;
use super::literals::lit_number_as;
use super::model::{Index, Module, ValueItem};

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

/// The schema a `schema_with` function returns, when its body is one literal:
/// `json_schema!({..})`, or `serde_json::json!({..})` turned into a `Schema`.
pub fn literal_schema(
    index: &Index<'_>,
    module: &[String],
    path: &syn::Path,
) -> Result<Schema, String> {
    let (_, body) = find_fn(index, module, path)
        .ok_or_else(|| format!("`{}` is not a function of the given sources", show(path)))?;
    let not_literal = || {
        format!(
            "the body of `{}` is not one literal schema (`json_schema!({{..}})`, or `json!({{..}})` into a `Schema`)",
            show(path)
        )
    };
    let [Stmt::Expr(expr, None)] = body.stmts.as_slice() else {
        return Err(not_literal());
    };
    let value = literal_json(expr).ok_or_else(not_literal)?;
    Schema::try_from(value).map_err(|_| not_literal())
}

/// The JSON a literal-schema expression holds.
fn literal_json(expr: &Expr) -> Option<Value> {
    match strip(expr) {
        Expr::Macro(m) => {
            let name = m.mac.path.segments.last()?.ident.unraw().to_string();
            matches!(name.as_str(), "json_schema" | "json")
                .then(|| tokens_to_json(&m.mac.tokens))?
        }
        // `json!(..).try_into().unwrap()`, `.into()`.
        Expr::MethodCall(m)
            if ["unwrap", "expect", "into", "try_into"]
                .contains(&m.method.to_string().as_str()) =>
        {
            literal_json(&m.receiver)
        }
        // `Schema::try_from(json!(..))`, `serde_json::from_value(json!(..))`.
        Expr::Call(c) if c.args.len() == 1 => {
            let Expr::Path(func) = &*c.func else {
                return None;
            };
            let last = func.path.segments.last()?.ident.unraw().to_string();
            matches!(last.as_str(), "try_from" | "from" | "from_value")
                .then(|| literal_json(&c.args[0]))?
        }
        _ => None,
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
        Expr::Macro(m) if is_macro(&m.mac, "concat") => concat(&m.mac, depth),
        _ => Err(NOT_A_LITERAL.into()),
    }
}

/// The string `concat!(..)` expands to: its arguments are literals (or `concat!`s of
/// literals, which rustc expands first), written one after the other as rustc writes
/// them — a string's value, a char, a bool, an unsuffixed number as written.
fn concat(mac: &syn::Macro, depth: usize) -> Result<String, String> {
    if depth > MAX_HOPS {
        return Err("its value is defined through too many items".into());
    }
    let not_literal = || "`concat!` of something other than literals".to_string();
    let args = mac
        .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
        .map_err(|_| not_literal())?;
    let mut out = String::new();
    for arg in &args {
        let (neg, lit) = match strip(arg) {
            Expr::Lit(l) => ("", &l.lit),
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match strip(&u.expr) {
                Expr::Lit(l) if matches!(l.lit, Lit::Int(_) | Lit::Float(_)) => ("-", &l.lit),
                _ => return Err(not_literal()),
            },
            Expr::Macro(m) if is_macro(&m.mac, "concat") => {
                out.push_str(&concat(&m.mac, depth + 1)?);
                continue;
            }
            _ => return Err(not_literal()),
        };
        match lit {
            Lit::Str(s) => out.push_str(&s.value()),
            Lit::Char(c) => out.push(c.value()),
            Lit::Bool(b) => out.push_str(&b.value.to_string()),
            // rustc writes an integer's value (`0x10` as `16`) and a float as it is
            // written; suffixes and separators in floats are left to `--exact`.
            Lit::Int(i) if i.suffix().is_empty() => {
                out.push_str(&format!("{neg}{}", i.base10_digits()))
            }
            Lit::Float(f) if f.suffix().is_empty() && !f.to_string().contains('_') => {
                out.push_str(&format!("{neg}{f}"))
            }
            _ => return Err(not_literal()),
        }
    }
    Ok(out)
}

/// Whether `mac` calls the macro `name` (`concat!`, `std::concat!`).
fn is_macro(mac: &syn::Macro, name: &str) -> bool {
    mac.path.segments.last().is_some_and(|s| s.ident == name)
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
    path.segments
        .iter()
        .map(|s| s.ident.unraw().to_string())
        .collect()
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
    let pick = |m: &Module<'_>, name: &str| m.values.get(name).cloned();
    find(index, module.to_vec(), segs, 0, &pick).ok_or_else(|| {
        format!(
            "`{}` is not a `const` or `static` of the given sources",
            segs.join("::")
        )
    })
}

/// The body of the function `path` names from `module`: a free function, or an associated
/// function of an inherent `impl` (`Type::name`), with the module it is defined in.
pub fn find_fn<'a>(
    index: &Index<'a>,
    module: &[String],
    path: &syn::Path,
) -> Option<(Vec<String>, &'a syn::Block)> {
    let pick = |m: &Module<'a>, name: &str| m.fns.get(name).copied();
    find(index, module.to_vec(), &segments(path), 0, &pick)
}

/// `segs` looked up from `module` as rustc looks up a value path: `crate`/`self`/`super`,
/// child modules, `use` items (renames and re-exports), globs; `Type::name` for an
/// associated function. `pick` reads the name in the module it leads to.
fn find<'a, T>(
    index: &Index<'a>,
    module: Vec<String>,
    segs: &[String],
    hops: usize,
    pick: &dyn Fn(&Module<'a>, &str) -> Option<T>,
) -> Option<(Vec<String>, T)> {
    if hops > MAX_HOPS {
        return None;
    }
    let (mut current, rest) = match segs.first()?.as_str() {
        "crate" => (super::deps::crate_root(&module), &segs[1..]),
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
        // A crate depended on by `path`: `api::DEFAULT_PORT`.
        if i == 0
            && let Some(root) = index.dependency(seg)
        {
            current = root;
            continue;
        }
        let m = index.module(&current)?;
        if i + 1 == mods.len()
            && let Some(found) = pick(m, &format!("{seg}::{name}"))
        {
            return Some((current, found));
        }
        // `use a::b as c;` then `c::X`.
        let target = m.uses.get(seg)?;
        let full = [&target[..], &rest[i + 1..]].concat();
        return find(index, current, &full, hops + 1, pick);
    }
    let m = index.module(&current)?;
    if let Some(found) = pick(m, name) {
        return Some((current, found));
    }
    if let Some(target) = m.uses.get(name) {
        return find(index, current.clone(), &target.clone(), hops + 1, pick);
    }
    m.globs.iter().find_map(|glob| {
        let full = [&glob[..], std::slice::from_ref(name)].concat();
        find(index, current.clone(), &full, hops + 1, pick)
    })
}
