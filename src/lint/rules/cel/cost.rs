//! The API server's static estimate of a rule's cost, reproduced: the number it compares
//! with its budgets when it accepts a CRD ("Resource use by validation functions" in the
//! CustomResourceDefinition docs). The estimate is the worst case over every value the
//! schema allows, in CEL's cost units: 1 per variable, field selection and plain
//! function call, 0 per constant, 10 per list and 30 per map created, a tenth of a unit
//! per character a string function reads, a quarter per character of a regular
//! expression (multiplied by the tenth per character matched), and a comprehension's
//! body once per element its range may hold. Sizes come from the schema ([`Decl`]):
//! `maxLength`, `maxItems`, `maxProperties`, `enum`, formats, else what fits in a 3 MiB
//! request.
//!
//! The estimate follows the API server's estimator node for node, quirks included: a
//! value reached through a path of the schema (`self.a.b`, an item of a list the rule
//! iterates) has the size its declaration allows even where it is a number (0); an
//! iteration variable over a literal list is sized as `self` is; `has()` costs nothing
//! beyond its operand. What it does not know how to cost exactly (a function outside
//! [`estimate`]'s list, an int-or-string operand whose overload decides the cost,
//! two-variable comprehensions, optional syntax, `cel.bind`) it never guesses: the rule
//! gets no estimate, and the caller says so.
//!
//! Why one file: the estimate is one walk of the expression with a case per CEL function,
//! as the API server's estimator has it; the cases share the sizes of the walk, and the
//! tests beside them pin each case's number.

use std::collections::BTreeSet;

use kube_cel::cel::IdedExpr;
use kube_cel::cel::common::ast::{
    CallExpr, ComprehensionExpr, EntryExpr, Expr, LiteralValue, SelectExpr,
};

use super::decl::{Decl, Kind};

/// The API server refuses a rule whose estimated cost, times how often it may run,
/// exceeds this (apiextensions' StaticEstimatedCostLimit).
pub const RULE_LIMIT: u64 = 10_000_000;
/// And a schema whose rules' estimated costs add up to more than this
/// (StaticEstimatedCRDCostLimit).
pub const CRD_LIMIT: u64 = 100_000_000;

const STRING_TRAVERSAL: f64 = 0.1;
const REGEX_LENGTH: f64 = 0.25;
const LIST_CREATE: u64 = 10;
const MAP_CREATE: u64 = 30;

/// "exceeds budget by factor of ...", written as the API server writes it.
pub fn exceed_factor(cost: u64, limit: u64) -> String {
    let factor = cost as f64 / limit as f64;
    if factor > 100.0 {
        "more than 100x".into()
    } else if factor < 1.5 {
        format!("{factor:.6}x")
    } else {
        format!("{factor:.1}x")
    }
}

/// What estimating one expression found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Estimate {
    /// The worst-case cost of one run.
    pub cost: u64,
    /// The part of the expression that costs most, for the hint.
    pub biggest: Option<String>,
}

/// The API server's estimate of `expr` on a node declared as `node` (for `self` and
/// `oldSelf`), or the constructs lint cannot cost.
pub fn estimate(expr: &IdedExpr, node: Decl<'_>) -> Result<Estimate, BTreeSet<String>> {
    let mut coster = Coster {
        root: node,
        locals: Vec::new(),
        unsupported: BTreeSet::new(),
        biggest: None,
    };
    let value = coster.expr(expr);
    if !coster.unsupported.is_empty() {
        return Err(coster.unsupported);
    }
    Ok(Estimate {
        cost: value.cost,
        biggest: coster.biggest.map(|(_, what)| what),
    })
}

/// The type of a value, as far as costs care.
#[derive(Debug, Clone)]
enum Ty<'a> {
    Object(Decl<'a>),
    List(Box<Ty<'a>>),
    Map(Box<Ty<'a>>, Box<Ty<'a>>),
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Duration,
    Timestamp,
    Null,
    /// An int-or-string value: its overload is chosen when the rule runs.
    Dyn,
}

impl<'a> Ty<'a> {
    fn of(decl: Decl<'a>) -> Ty<'a> {
        match decl.kind() {
            Kind::Object => Ty::Object(decl),
            Kind::List => Ty::List(Box::new(decl.elem().map_or(Ty::Dyn, Ty::of))),
            Kind::Map => Ty::Map(
                Box::new(Ty::String),
                Box::new(decl.elem().map_or(Ty::Dyn, Ty::of)),
            ),
            Kind::String => Ty::String,
            Kind::Bytes => Ty::Bytes,
            Kind::Duration => Ty::Duration,
            Kind::Timestamp => Ty::Timestamp,
            Kind::Bool => Ty::Bool,
            Kind::Int => Ty::Int,
            Kind::Double => Ty::Double,
            Kind::Dyn => Ty::Dyn,
        }
    }

    /// Values of a fixed size, which CEL sizes as 1 where nothing else tells.
    fn scalar(&self) -> bool {
        matches!(
            self,
            Ty::Bool | Ty::Int | Ty::Uint | Ty::Double | Ty::Duration | Ty::Timestamp
        )
    }

    fn text(&self) -> bool {
        matches!(self, Ty::String | Ty::Bytes)
    }
}

/// The sizes of a literal container's keys (or indices) and values.
#[derive(Debug, Clone, Copy)]
struct Entry {
    key: u64,
    value: u64,
    list: bool,
}

impl Entry {
    fn union(a: Option<Entry>, b: Option<Entry>) -> Option<Entry> {
        let (a, b) = (a?, b?);
        Some(Entry {
            key: a.key.max(b.key),
            value: a.value.max(b.value),
            list: a.list,
        })
    }
}

/// One costed sub-expression: its cost, the size CEL gives it (None: unknown, read as
/// the largest size), the path from `self` it was reached by, and its type.
#[derive(Debug, Clone)]
struct Value<'a> {
    cost: u64,
    size: Option<u64>,
    path: Vec<String>,
    entry: Option<Entry>,
    ty: Ty<'a>,
}

impl<'a> Value<'a> {
    fn size_or_max(&self) -> u64 {
        self.size.unwrap_or(u64::MAX)
    }
}

#[derive(Debug, Clone)]
struct Local<'a> {
    name: String,
    path: Vec<String>,
    size: Option<u64>,
    entry: Option<Entry>,
    ty: Ty<'a>,
}

struct Coster<'a> {
    root: Decl<'a>,
    locals: Vec<Local<'a>>,
    unsupported: BTreeSet<String>,
    biggest: Option<(u64, String)>,
}

/// `x` times a cost factor, rounded up, saturating as CEL's estimator does.
fn factor(x: u64, per_unit: f64) -> u64 {
    let xf = x as f64;
    if xf > 0.0 && per_unit > 0.0 && xf > u64::MAX as f64 / per_unit {
        return u64::MAX;
    }
    let ceil = (xf * per_unit).ceil();
    if ceil >= 18_446_744_073_709_551_616.0 {
        u64::MAX
    } else {
        ceil as u64
    }
}

impl<'a> Coster<'a> {
    fn unsupported(&mut self, what: String) -> Value<'a> {
        self.unsupported.insert(what);
        Value {
            cost: 0,
            size: None,
            path: Vec::new(),
            entry: None,
            ty: Ty::Dyn,
        }
    }

    /// The declaration at the end of a path from `self` (its first step, the variable,
    /// is skipped: every path starts at the node the rule sits on).
    fn walk(&self, path: &[String]) -> Option<Decl<'a>> {
        let (_, steps) = path.split_first()?;
        steps
            .iter()
            .try_fold(self.root, |decl, step| match step.as_str() {
                "@items" | "@values" => decl.elem(),
                "@keys" => decl.key(),
                field => decl.field(field),
            })
    }

    /// The size CEL computes for a value with no size of its own: its declaration's
    /// largest, else 1 for scalars.
    fn declared_size(&self, path: &[String], ty: &Ty<'a>) -> Option<u64> {
        self.walk(path)
            .map(|d| d.max_elements())
            .or_else(|| ty.scalar().then_some(1))
    }

    /// Remembers the costliest part of the expression, described for the hint.
    fn note(&mut self, cost: u64, what: impl FnOnce(&Self) -> String) {
        if cost > 0 && self.biggest.as_ref().is_none_or(|(c, _)| cost > *c) {
            self.biggest = Some((cost, what(self)));
        }
    }

    /// `self.a.b` for a path, with what bounds its size.
    fn describe(&self, value: &Value<'a>) -> String {
        let computed = || {
            let size = value.size.map_or("unknown".into(), |s| s.to_string());
            format!("a value the rule computes (size {size})")
        };
        let Some(first) = value.path.first() else {
            return computed();
        };
        let decl = match self.walk(&value.path) {
            Some(decl) if first == "self" || first == "oldSelf" => decl,
            _ => return computed(),
        };
        let mut shown = first.clone();
        for step in &value.path[1..] {
            match step.as_str() {
                "@items" | "@values" => shown.push_str("[*]"),
                "@keys" => shown.push_str(".<key>"),
                field => {
                    shown.push('.');
                    shown.push_str(field);
                }
            }
        }
        let (unit, bound) = match decl.kind() {
            Kind::List => ("items", "maxItems"),
            Kind::Map => ("entries", "maxProperties"),
            _ => ("bytes", "maxLength"),
        };
        let size = decl.max_elements();
        if decl.bounded() {
            format!("`{shown}` (at most {size} {unit})")
        } else {
            format!("`{shown}` (no {bound}: up to {size} {unit}, what fits in a 3 MiB request)")
        }
    }

    fn local(&self, name: &str) -> Option<&Local<'a>> {
        self.locals.iter().rev().find(|l| l.name == name)
    }

    fn expr(&mut self, e: &IdedExpr) -> Value<'a> {
        match &e.expr {
            Expr::Literal(literal) => {
                let (size, ty) = match literal {
                    LiteralValue::String(s) => (s.inner().chars().count() as u64, Ty::String),
                    LiteralValue::Bytes(b) => (b.inner().len() as u64, Ty::Bytes),
                    LiteralValue::Boolean(_) => (1, Ty::Bool),
                    LiteralValue::Int(_) => (1, Ty::Int),
                    LiteralValue::UInt(_) => (1, Ty::Uint),
                    LiteralValue::Double(_) => (1, Ty::Double),
                    LiteralValue::Null => (1, Ty::Null),
                };
                Value {
                    cost: 0,
                    size: Some(size),
                    path: Vec::new(),
                    entry: None,
                    ty,
                }
            }
            Expr::Ident(name) => self.ident(name),
            Expr::Select(select) => self.select(select),
            Expr::Call(call) => self.call(call),
            Expr::List(list) => {
                if !list.optional_indices.is_empty() {
                    return self.unsupported("optional list elements (`[?x]`)".into());
                }
                let items: Vec<Value<'a>> = list.elements.iter().map(|e| self.expr(e)).collect();
                let cost = items
                    .iter()
                    .fold(LIST_CREATE, |sum, v| sum.saturating_add(v.cost));
                let value = items.iter().map(Value::size_or_max).max().unwrap_or(0);
                Value {
                    cost,
                    size: Some(items.len() as u64),
                    path: Vec::new(),
                    entry: Some(Entry {
                        key: 1,
                        value,
                        list: true,
                    }),
                    ty: Ty::List(Box::new(items.first().map_or(Ty::Dyn, |v| v.ty.clone()))),
                }
            }
            Expr::Map(map) => {
                let mut cost = MAP_CREATE;
                let (mut key, mut value) = (0, 0);
                let mut ty = Ty::Map(Box::new(Ty::Dyn), Box::new(Ty::Dyn));
                for entry in &map.entries {
                    let EntryExpr::MapEntry(entry) = &entry.expr else {
                        return self.unsupported("a message literal".into());
                    };
                    if entry.optional {
                        return self.unsupported("optional map entries (`?k: v`)".into());
                    }
                    let (k, v) = (self.expr(&entry.key), self.expr(&entry.value));
                    cost = cost.saturating_add(k.cost).saturating_add(v.cost);
                    key = key.max(k.size_or_max());
                    value = value.max(v.size_or_max());
                    ty = Ty::Map(Box::new(k.ty), Box::new(v.ty));
                }
                Value {
                    cost,
                    size: Some(map.entries.len() as u64),
                    path: Vec::new(),
                    entry: Some(Entry {
                        key,
                        value,
                        list: false,
                    }),
                    ty,
                }
            }
            Expr::Struct(_) => self.unsupported("a message literal".into()),
            Expr::Comprehension(c) => self.comprehension(c),
            Expr::Unspecified => self.unsupported("an empty expression".into()),
        }
    }

    fn ident(&mut self, name: &str) -> Value<'a> {
        let (path, size, entry, ty) = match self.local(name) {
            Some(local) => (
                local.path.clone(),
                local.size,
                local.entry,
                local.ty.clone(),
            ),
            None if matches!(name, "self" | "oldSelf") => {
                (vec![name.to_string()], None, None, Ty::of(self.root))
            }
            None => return self.unsupported(format!("the name `{name}`")),
        };
        let size = self.declared_size(&path, &ty).or(size);
        Value {
            cost: 1,
            size,
            path,
            entry,
            ty,
        }
    }

    fn select(&mut self, select: &SelectExpr) -> Value<'a> {
        let operand = self.expr(&select.operand);
        if select.test {
            // has(): free beyond its operand in Kubernetes (PresenceTestHasCost(false)).
            return Value {
                cost: operand.cost,
                size: Some(1),
                path: Vec::new(),
                entry: None,
                ty: Ty::Bool,
            };
        }
        let ty = match &operand.ty {
            Ty::Object(decl) => match decl.field(&select.field) {
                Some(field) => Ty::of(field),
                None => return self.unsupported(format!("the field `{}`", select.field)),
            },
            Ty::Map(_, value) => (**value).clone(),
            Ty::Dyn => Ty::Dyn,
            _ => return self.unsupported(format!("`.{}` on a scalar", select.field)),
        };
        let cost = operand.cost.saturating_add(match operand.ty {
            Ty::Object(_) | Ty::Map(..) => 1,
            _ => 0,
        });
        let mut path = operand.path;
        path.push(select.field.clone());
        let size = self.declared_size(&path, &ty);
        Value {
            cost,
            size,
            path,
            entry: None,
            ty,
        }
    }

    fn comprehension(&mut self, c: &ComprehensionExpr) -> Value<'a> {
        if c.iter_var2.is_some() {
            return self.unsupported("two-variable comprehensions".into());
        }
        let range = self.expr(&c.iter_range);
        let init = self.expr(&c.accu_init);
        let mut cost = range.cost.saturating_add(init.cost);
        self.locals.push(Local {
            name: c.accu_var.clone(),
            path: init.path.clone(),
            size: init.size,
            entry: init.entry,
            ty: init.ty.clone(),
        });
        let list = match (&range.entry, &range.ty) {
            (Some(entry), _) => entry.list,
            (None, Ty::List(_)) => true,
            (None, Ty::Map(..)) => false,
            _ => {
                self.locals.pop();
                return self.unsupported("a comprehension over a value of unknown type".into());
            }
        };
        let (size, step, ty) = match (&range.ty, list) {
            (Ty::List(elem), true) => (range.entry.map(|e| e.value), "@items", (**elem).clone()),
            (Ty::Map(key, _), false) => (range.entry.map(|e| e.key), "@keys", (**key).clone()),
            _ => (None, if list { "@items" } else { "@keys" }, Ty::Dyn),
        };
        let mut path = range.path.clone();
        path.push(step.to_string());
        self.locals.push(Local {
            name: c.iter_var.clone(),
            path,
            size,
            entry: None,
            ty,
        });
        let condition = self.expr(&c.loop_cond);
        let step = self.expr(&c.loop_step);
        self.locals.pop();
        let result = self.expr(&c.result);
        self.locals.pop();
        let count = range.size_or_max();
        let per_element = step.cost.saturating_add(condition.cost);
        let iterations = count.saturating_mul(per_element);
        cost = cost.saturating_add(result.cost).saturating_add(iterations);
        self.note(iterations, |this| {
            let range = this.describe(&range);
            format!("iterating over {range}, {per_element} per element")
        });
        let (size, entry) = match &c.accu_init.expr {
            Expr::Literal(_) => (init.size, None),
            Expr::List(_) | Expr::Map(_) => (Some(count), step.entry),
            _ => (result.ty.scalar().then_some(1), None),
        };
        // `map` and `filter` start from `[]`: their step says what the list holds.
        let ty = match (&result.ty, step.ty) {
            (Ty::List(elem), Ty::List(built)) if matches!(**elem, Ty::Dyn) => Ty::List(built),
            _ => result.ty,
        };
        Value {
            cost,
            size,
            path: Vec::new(),
            entry,
            ty,
        }
    }

    fn call(&mut self, call: &CallExpr) -> Value<'a> {
        let name = call.func_name.as_str();
        if let Some(target) = &call.target
            && let Expr::Ident(ns) = &target.expr
            && self.local(ns).is_none()
            && !matches!(ns.as_str(), "self" | "oldSelf")
        {
            return self.unsupported(format!("`{ns}.{name}`"));
        }
        let args: Vec<Value<'a>> = call.args.iter().map(|a| self.expr(a)).collect();
        let target = call.target.as_ref().map(|t| self.expr(t));
        let arg_costs = args.iter().fold(0u64, |s, a| s.saturating_add(a.cost));
        let receiver_cost = target.as_ref().map_or(0, |t| t.cost);
        // Each arm: the function's own cost (arguments excluded), its result's size and
        // type; a few operators cost their arguments differently and return early.
        let (own, size, entry, path, ty) = match (name, target.as_ref(), args.as_slice()) {
            ("_&&_" | "_||_", None, [a, b]) => {
                return self.result(a.cost.saturating_add(b.cost), None, Ty::Bool);
            }
            ("_?_:_", None, [c, t, f]) => {
                let ty = if matches!(t.ty, Ty::Null) {
                    f.ty.clone()
                } else {
                    t.ty.clone()
                };
                return Value {
                    cost: c.cost.saturating_add(t.cost.max(f.cost)),
                    size: Some(t.size_or_max().max(f.size_or_max())),
                    path: Vec::new(),
                    entry: Entry::union(t.entry, f.entry),
                    ty,
                };
            }
            ("!_" | "@not_strictly_false", None, [_]) => (1, None, None, Vec::new(), Ty::Bool),
            ("-_", None, [a]) if a.ty.scalar() => (1, None, None, Vec::new(), a.ty.clone()),
            ("_==_" | "_!=_", None, [a, b]) => {
                let smallest = a.size_or_max().min(b.size_or_max());
                (
                    factor(smallest, STRING_TRAVERSAL),
                    None,
                    None,
                    Vec::new(),
                    Ty::Bool,
                )
            }
            ("_<_" | "_<=_" | "_>_" | "_>=_", None, [a, b]) => {
                if a.ty.text() || b.ty.text() {
                    let smallest = a.size_or_max().min(b.size_or_max());
                    (
                        factor(smallest, STRING_TRAVERSAL),
                        None,
                        None,
                        Vec::new(),
                        Ty::Bool,
                    )
                } else if a.ty.scalar() || b.ty.scalar() {
                    (1, None, None, Vec::new(), Ty::Bool)
                } else {
                    return self.unsupported(format!(
                        "`{}` on int-or-string values",
                        &name[1..name.len() - 1]
                    ));
                }
            }
            ("_+_", None, [a, b]) => match (&a.ty, &b.ty) {
                (Ty::String, Ty::String) | (Ty::Bytes, Ty::Bytes) => {
                    let size = a.size_or_max().saturating_add(b.size_or_max());
                    let entry = Entry::union(a.entry, b.entry);
                    (
                        factor(size, STRING_TRAVERSAL),
                        Some(size),
                        entry,
                        Vec::new(),
                        a.ty.clone(),
                    )
                }
                (Ty::List(_), Ty::List(_)) => {
                    let size = a.size_or_max().saturating_add(b.size_or_max());
                    let entry = Entry::union(a.entry, b.entry);
                    let ty = if matches!(&a.ty, Ty::List(e) if matches!(**e, Ty::Dyn)) {
                        b.ty.clone()
                    } else {
                        a.ty.clone()
                    };
                    (1, Some(size), entry, Vec::new(), ty)
                }
                (x, y) if x.scalar() && y.scalar() => {
                    let ty = if matches!(x, Ty::Duration) {
                        y.clone()
                    } else {
                        x.clone()
                    };
                    (1, None, None, Vec::new(), ty)
                }
                _ => return self.unsupported("`+` on int-or-string values".into()),
            },
            ("_-_" | "_*_" | "_/_" | "_%_", None, [a, b]) if a.ty.scalar() && b.ty.scalar() => {
                let ty = match (&a.ty, &b.ty) {
                    (Ty::Timestamp, Ty::Timestamp) => Ty::Duration,
                    (x, _) => x.clone(),
                };
                (1, None, None, Vec::new(), ty)
            }
            ("_[_]", None, [container, _]) => {
                let (step, ty) = match &container.ty {
                    Ty::List(elem) => ("@items", (**elem).clone()),
                    Ty::Map(_, value) => ("@values", (**value).clone()),
                    _ => return self.unsupported("indexing a value that is no list or map".into()),
                };
                let mut path = container.path.clone();
                path.push(step.into());
                let size = container.entry.map(|e| e.value);
                (1, size, None, path, ty)
            }
            ("@in", None, [_, container]) => match container.ty {
                Ty::List(_) => (
                    factor(container.size_or_max(), 1.0),
                    None,
                    None,
                    Vec::new(),
                    Ty::Bool,
                ),
                Ty::Map(..) => (1, None, None, Vec::new(), Ty::Bool),
                _ => return self.unsupported("`in` on a value that is no list or map".into()),
            },
            ("size", Some(_), []) | ("size", None, [_]) => (1, None, None, Vec::new(), Ty::Int),
            ("contains", Some(s), [sub]) if s.ty == Ty::String => {
                let own = factor(s.size_or_max(), STRING_TRAVERSAL)
                    .saturating_mul(factor(sub.size_or_max(), STRING_TRAVERSAL));
                self.note(own, |this| format!("`contains` on {}", this.describe(s)));
                (own, None, None, Vec::new(), Ty::Bool)
            }
            ("startsWith" | "endsWith", Some(s), [prefix]) if s.ty == Ty::String => (
                factor(prefix.size_or_max(), STRING_TRAVERSAL),
                None,
                None,
                Vec::new(),
                Ty::Bool,
            ),
            ("matches", Some(s), [re]) | ("matches", None, [s, re]) if s.ty == Ty::String => {
                let own = factor(s.size_or_max().saturating_add(1), STRING_TRAVERSAL)
                    .saturating_mul(factor(re.size_or_max(), REGEX_LENGTH));
                self.note(own, |this| format!("`matches` on {}", this.describe(s)));
                (own, None, None, Vec::new(), Ty::Bool)
            }
            ("lowerAscii" | "upperAscii" | "trim", Some(s), [])
            | ("substring", Some(s), [_] | [_, _])
                if s.ty == Ty::String =>
            {
                let size = s.size_or_max();
                (
                    factor(size, STRING_TRAVERSAL),
                    Some(size),
                    None,
                    Vec::new(),
                    Ty::String,
                )
            }
            ("indexOf" | "lastIndexOf", Some(s), [_] | [_, _]) if s.ty == Ty::String => (
                factor(s.size_or_max(), STRING_TRAVERSAL),
                None,
                None,
                Vec::new(),
                Ty::Int,
            ),
            ("charAt", Some(s), [_]) if s.ty == Ty::String => {
                (1, None, None, Vec::new(), Ty::String)
            }
            ("find" | "findAll", Some(s), [re, ..]) if s.ty == Ty::String && args.len() <= 2 => {
                let size = s.size_or_max();
                let own = factor(size.saturating_add(1), STRING_TRAVERSAL)
                    .saturating_mul(factor(re.size_or_max(), REGEX_LENGTH));
                self.note(own, |this| format!("`{name}` on {}", this.describe(s)));
                let ty = if name == "find" {
                    Ty::String
                } else {
                    Ty::List(Box::new(Ty::String))
                };
                (own, Some(size), None, Vec::new(), ty)
            }
            ("split", Some(s), [_] | [_, _]) if s.ty == Ty::String => {
                let limit = call.args.get(1).and_then(|a| match &a.expr {
                    Expr::Literal(LiteralValue::Int(n)) => Some(*n.inner() as u64),
                    _ => None,
                });
                let size = limit.unwrap_or(s.size_or_max());
                let own = factor(s.size_or_max(), 0.2);
                (
                    own,
                    Some(size),
                    None,
                    Vec::new(),
                    Ty::List(Box::new(Ty::String)),
                )
            }
            ("int" | "uint" | "double", None, [a]) if !matches!(a.ty, Ty::Dyn) => {
                let ty = match name {
                    "int" => Ty::Int,
                    "uint" => Ty::Uint,
                    _ => Ty::Double,
                };
                (1, None, None, Vec::new(), ty)
            }
            ("string", None, [a]) if matches!(a.ty, Ty::Bytes) => {
                let size = a.size_or_max();
                (
                    factor(size, STRING_TRAVERSAL),
                    Some(size),
                    None,
                    Vec::new(),
                    Ty::String,
                )
            }
            ("string", None, [a]) if !matches!(a.ty, Ty::Dyn) => {
                (1, None, None, Vec::new(), Ty::String)
            }
            _ => {
                let shown = match call.target {
                    Some(_) => format!("`.{name}()`"),
                    None => format!("`{name}`"),
                };
                return self.unsupported(shown);
            }
        };
        let cost = own.saturating_add(arg_costs).saturating_add(receiver_cost);
        let size = size
            .or_else(|| self.declared_size(&path, &ty))
            .or_else(|| ty.scalar().then_some(1));
        Value {
            cost,
            size,
            path,
            entry,
            ty,
        }
    }

    fn result(&self, cost: u64, size: Option<u64>, ty: Ty<'a>) -> Value<'a> {
        Value {
            cost,
            size: size.or_else(|| ty.scalar().then_some(1)),
            path: Vec::new(),
            entry: None,
            ty,
        }
    }
}

impl PartialEq for Ty<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value as Json, json};

    use super::*;
    use crate::lint::schema::Schema;

    /// The estimate of `rule` on a node of `schema` (not a resource root), or what it
    /// cannot cost.
    fn check(schema: &Json, rule: &str) -> Result<u64, Vec<String>> {
        let expr = kube_cel::cel::parser::Parser::new()
            .enable_optional_syntax(true)
            .parse(rule)
            .unwrap();
        let node = Decl::of(Schema(schema), false).expect("a declared node");
        estimate(&expr, node)
            .map(|e| e.cost)
            .map_err(|u| u.into_iter().collect())
    }

    fn string() -> Json {
        json!({"type": "string"})
    }

    fn list(items: Json) -> Json {
        json!({"type": "array", "items": items})
    }

    fn map(values: Json) -> Json {
        json!({"type": "object", "additionalProperties": values})
    }

    /// Each rule on a node without a bound (before) and with one (after: `key: n` added),
    /// and the API server's estimates for both (`tests/api_server_cel_cost.rs` holds
    /// lint to the server's numbers on the shapes these come from).
    #[test]
    fn estimates_before_and_after_a_bound() {
        let short = |n: u64| json!({"type": "string", "maxLength": n});
        let person = json!({"type": "object", "required": ["name"], "properties": {
            "name": short(20),
            "age": {"type": "integer"},
            "tags": {"type": "array", "items": short(8), "maxItems": 4},
        }});
        #[rustfmt::skip]
        let cases: &[(&str, Json, &str, u64, u64, u64)] = &[
            // size() and comparisons: constants, whatever the bound.
            ("self.size() <= 10", string(), "maxLength", 10, 3, 3),
            // == reads the shorter side: here the literal.
            ("self == 'abc'", string(), "maxLength", 2, 2, 2),
            // startsWith reads its argument, not the string.
            ("self.startsWith('abcdefghijklmnopqrstu')", string(), "maxLength", 5, 4, 4),
            // contains: a tenth per byte of the string times a tenth per byte of the argument.
            ("self.contains('ab')", string(), "maxLength", 100, 314574, 41),
            // matches: (bytes + 1)/10 times a quarter per character of the regex.
            ("self.matches('^[a-z]+$')", string(), "maxLength", 63, 629147, 53),
            ("matches(self, '^x$')", string(), "maxLength", 63, 314574, 27),
            ("self.lowerAscii() == self", string(), "maxLength", 10, 629148, 10),
            ("self.upperAscii().endsWith('X')", string(), "maxLength", 10, 314575, 6),
            ("self.trim().size() > 0", string(), "maxLength", 10, 314576, 7),
            ("self.indexOf('-') != 0", string(), "maxLength", 10, 314575, 6),
            ("self.find('[0-9]+') != ''", string(), "maxLength", 10, 629147, 11),
            ("self.split('/').size() < 4", string(), "maxLength", 10, 629149, 11),
            ("self + '-x' != ''", string(), "maxLength", 10, 314574, 6),
            // all / exists / exists_one over a list: its items times the body.
            ("self.all(x, x.size() < 8)", list(string()), "maxItems", 10, 6291452, 62),
            ("self.exists(x, x == 'a')", list(string()), "maxItems", 10, 6291452, 62),
            ("self.exists_one(x, x == 'a')", list(string()), "maxItems", 10, 4194303, 43),
            ("self.all(x, x.matches('^[a-z]+$'))", list(short(16)), "maxItems", 10, 18874352, 182),
            ("'x' in self", list(string()), "maxItems", 10, 1048576, 11),
            ("self[0] == 'x'", list(string()), "maxItems", 10, 3, 3),
            // map and filter build lists: 10 per list, and their result is iterated again.
            ("self.map(x, x.size()).all(n, n < 3)", list(string()), "maxItems", 10, 19922938, 203),
            ("self.filter(x, x != '').size() > 0", list(string()), "maxItems", 10, 14680064, 154),
            // Nested comprehensions multiply.
            ("self.all(x, self.exists(y, x == y))", list(short(4)), "maxItems", 10, 8796081487877, 852),
            ("self.all(p, p.tags.all(t, t != p.name))", list(person), "maxItems", 10, 11130990, 462),
            // Maps iterate over their keys, which the server sizes as empty strings.
            ("self.all(k, k.startsWith('x') && self[k].size() < 3)", map(string()), "maxProperties", 10, 3932152, 102),
            ("has(self.key)", map(string()), "maxProperties", 10, 1, 1),
            ("'key' in self", map(string()), "maxProperties", 10, 2, 2),
        ];
        let mut wrong = Vec::new();
        for (rule, before, key, n, cost_before, cost_after) in cases {
            let mut after = before.clone();
            after[*key] = (*n).into();
            for (schema, want) in [(before, cost_before), (&after, cost_after)] {
                match check(schema, rule) {
                    Ok(got) if got == *want => {}
                    got => wrong.push(format!("`{rule}` on {schema}: {got:?}, want {want}")),
                }
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn what_cannot_be_costed_exactly_is_said_not_guessed() {
        let port = json!({"type": "object", "properties": {
            "port": {"x-kubernetes-int-or-string": true},
            "tags": list(string()),
        }});
        for (rule, wanted) in [
            ("self.tags.sortBy(t, t).size() > 0", "`.sortBy()`"),
            ("self.tags.all(i, t, t != '')", "`.all()`"),
            (
                "quantity('1Gi').isGreaterThan(quantity('1Mi'))",
                "`quantity`",
            ),
            ("sets.contains(self.tags, ['a'])", "`sets.contains`"),
            ("self.port + 1 > 2", "`+` on int-or-string values"),
            ("[?self.tags[0]].size() > 0", "optional list elements"),
        ] {
            match check(&port, rule) {
                Err(unsupported) => assert!(
                    unsupported.iter().any(|u| u.contains(wanted)),
                    "{rule}: {unsupported:?}"
                ),
                Ok(cost) => panic!("{rule} costed at {cost}"),
            }
        }
    }

    #[test]
    fn the_root_declares_kind_api_version_and_capped_names() {
        let root = json!({"type": "object", "properties": {
            "metadata": {"type": "object"},
            "spec": {"type": "object", "properties": {"a": string()}},
        }});
        let node = Decl::of(Schema(&root), true).unwrap();
        let cost = |rule: &str| {
            let expr = kube_cel::cel::parser::Parser::new().parse(rule).unwrap();
            estimate(&expr, node).unwrap().cost
        };
        // metadata.name: 253 characters, 4 bytes each.
        assert_eq!(cost("self.metadata.name.contains('a')"), 3 + 102);
        assert_eq!(cost("self.metadata.generateName.contains('a')"), 3 + 101);
        assert_eq!(cost("self.kind.contains('a')"), 2 + 314573);
        assert_eq!(cost("self.spec.a.contains('a')"), 3 + 314573);
    }

    #[test]
    fn an_enum_bounds_a_string_as_its_longest_value_unless_max_length_does() {
        let tier = json!({"type": "string", "enum": ["gold", "silver"]});
        assert_eq!(check(&tier, "self.contains('ol')"), Ok(2));
        let long = json!({"type": "string", "enum": ["gold"], "maxLength": 100});
        assert_eq!(check(&long, "self.contains('ol')"), Ok(41));
    }

    #[test]
    fn factors_are_written_as_the_api_server_writes_them() {
        for (cost, limit, shown) in [
            (10_000_001, RULE_LIMIT, "1.000000x"),
            (10_000_020, RULE_LIMIT, "1.000002x"),
            (14_999_999, RULE_LIMIT, "1.500000x"),
            (15_000_000, RULE_LIMIT, "1.5x"),
            (167_772_002, CRD_LIMIT, "1.7x"),
            (1_000_000_000, RULE_LIMIT, "100.0x"),
            (1_000_000_001, RULE_LIMIT, "more than 100x"),
        ] {
            assert_eq!(exceed_factor(cost, limit), shown, "{cost}");
        }
    }
}
