//! A type checker for CRD validation rules. The API server type-checks every rule against
//! the schema node it sits on before it accepts the CRD ("Validation rules" in the
//! CustomResourceDefinition docs: `self` has the node's type, unknown fields and wrong
//! types are compile errors); the `cel` crate only interprets, so lint checks here.
//!
//! It errs towards silence: a type it cannot know is `dyn`, and `dyn` fits everywhere. So
//! every error it reports is one the API server reports too; what it cannot type-check
//! it reports as unsupported rather than passing.
//!
//! Why one file: the checker is one walk of the expression with a case per CEL function
//! and operator over one environment (`self`'s type); the tests beside it pin each case.

use std::collections::BTreeSet;

use kube_cel::cel::IdedExpr;
use kube_cel::cel::common::ast::{
    CallExpr, ComprehensionExpr, EntryExpr, Expr, LiteralValue, SelectExpr,
};

use super::functions::{self, Function, Ret};
use crate::lint::schema::Schema;

/// The CEL type of a value, as far as lint knows it.
#[derive(Debug, Clone)]
pub enum Ty<'a> {
    Dyn,
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Duration,
    Timestamp,
    List(Box<Ty<'a>>),
    Map(Box<Ty<'a>>, Box<Ty<'a>>),
    /// An object node of the schema; `root` objects (and embedded resources) also have
    /// `apiVersion`, `kind` and a restricted `metadata`.
    Object(Schema<'a>, bool),
    /// `metadata` at the root: only `name` and `generateName` are visible to rules.
    Meta,
    Optional(Box<Ty<'a>>),
    /// A Kubernetes library object: quantity, url, ip, cidr, semver, format.
    Opaque(&'static str),
}

impl<'a> Ty<'a> {
    /// The type of values of a schema node, as the API server declares it to CEL
    /// ("Type checking" and the OpenAPI-to-CEL type table of the CRD docs).
    pub fn of(s: Schema<'a>) -> Ty<'a> {
        if s.int_or_string() {
            return Ty::Dyn;
        }
        match s.type_() {
            "object" => {
                if let Some(values) = s.additional_properties() {
                    Ty::Map(Box::new(Ty::String), Box::new(Ty::of(values)))
                } else {
                    // The API server declares an object by its properties alone: what
                    // `x-kubernetes-preserve-unknown-fields` keeps is not visible to rules.
                    Ty::Object(s, s.embedded_resource())
                }
            }
            "array" => Ty::List(Box::new(s.items().map_or(Ty::Dyn, Ty::of))),
            "string" => match s.format() {
                "byte" => Ty::Bytes,
                "duration" => Ty::Duration,
                "date" | "date-time" => Ty::Timestamp,
                _ => Ty::String,
            },
            "integer" => Ty::Int,
            "number" => Ty::Double,
            "boolean" => Ty::Bool,
            _ => Ty::Dyn,
        }
    }

    /// The kind of a receiver, as the function table names them.
    fn kind(&self) -> &'static str {
        match self {
            Ty::Dyn => "dyn",
            Ty::Null => "null",
            Ty::Bool => "bool",
            Ty::Int => "int",
            Ty::Uint => "uint",
            Ty::Double => "double",
            Ty::String => "string",
            Ty::Bytes => "bytes",
            Ty::Duration => "duration",
            Ty::Timestamp => "timestamp",
            Ty::List(_) => "list",
            Ty::Map(..) => "map",
            Ty::Object(..) | Ty::Meta => "object",
            Ty::Optional(_) => "optional",
            Ty::Opaque(name) => name,
        }
    }

    /// What values of this type can be compared or combined with; None when unknown.
    fn category(&self) -> Option<&'static str> {
        match self {
            Ty::Dyn | Ty::Null => None,
            Ty::Int | Ty::Uint | Ty::Double => Some("number"),
            other => Some(other.kind()),
        }
    }

    pub fn display(&self) -> String {
        match self {
            Ty::List(t) => format!("list({})", t.display()),
            Ty::Map(k, v) => format!("map({}, {})", k.display(), v.display()),
            Ty::Object(..) | Ty::Meta => "object".into(),
            Ty::Optional(t) => format!("optional({})", t.display()),
            other => other.kind().into(),
        }
    }

    fn is_dyn(&self) -> bool {
        matches!(self, Ty::Dyn)
    }
}

/// What checking one expression found.
#[derive(Debug)]
pub struct Outcome<'a> {
    pub ty: Ty<'a>,
    /// Errors the API server would report when it compiles the rule.
    pub errors: Vec<String>,
    /// Functions and macros lint cannot evaluate.
    pub unsupported: BTreeSet<String>,
    pub uses_old_self: bool,
}

/// Type-checks `expr` with `self` of type `self_ty`, and `oldSelf` of the same type, or an
/// optional of it under `optionalOldSelf`.
pub fn check<'a>(expr: &IdedExpr, self_ty: Ty<'a>, optional_old_self: bool) -> Outcome<'a> {
    let old_self_ty = if optional_old_self {
        Ty::Optional(Box::new(self_ty.clone()))
    } else {
        self_ty.clone()
    };
    let mut checker = Checker {
        self_ty,
        old_self_ty,
        scopes: Vec::new(),
        errors: Vec::new(),
        unsupported: BTreeSet::new(),
        old_self: false,
    };
    let ty = checker.expr(expr);
    Outcome {
        ty,
        errors: checker.errors,
        unsupported: checker.unsupported,
        uses_old_self: checker.old_self,
    }
}

/// CEL's reserved words, which Kubernetes escapes as `__word__` in field names.
const RESERVED: &[&str] = &[
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// How a property is named in CEL (Kubernetes' field name escaping): `__` becomes
/// `__underscores__`, `.` `__dot__`, `-` `__dash__`, `/` `__slash__`, a reserved word
/// `__word__`. None for names CEL cannot reach.
pub fn escape(name: &str) -> Option<String> {
    if RESERVED.contains(&name) {
        return Some(format!("__{name}__"));
    }
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || "_.-/".contains(c));
    if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric() || "_.-/".contains(c)) {
        return None;
    }
    Some(
        name.replace("__", "__underscores__")
            .replace('.', "__dot__")
            .replace('-', "__dash__")
            .replace('/', "__slash__"),
    )
}

struct Checker<'a> {
    self_ty: Ty<'a>,
    old_self_ty: Ty<'a>,
    scopes: Vec<(String, Ty<'a>)>,
    errors: Vec<String>,
    unsupported: BTreeSet<String>,
    old_self: bool,
}

impl<'a> Checker<'a> {
    fn error(&mut self, message: String) -> Ty<'a> {
        self.errors.push(message);
        Ty::Dyn
    }

    fn is_variable(&self, name: &str) -> bool {
        matches!(name, "self" | "oldSelf") || self.scopes.iter().any(|(n, _)| n == name)
    }

    fn expr(&mut self, e: &IdedExpr) -> Ty<'a> {
        match &e.expr {
            Expr::Literal(literal) => match literal {
                LiteralValue::Boolean(_) => Ty::Bool,
                LiteralValue::Bytes(_) => Ty::Bytes,
                LiteralValue::Double(_) => Ty::Double,
                LiteralValue::Int(_) => Ty::Int,
                LiteralValue::Null => Ty::Null,
                LiteralValue::String(_) => Ty::String,
                LiteralValue::UInt(_) => Ty::Uint,
            },
            Expr::Ident(name) => self.ident(name),
            Expr::List(list) => {
                let types: Vec<Ty<'a>> = list.elements.iter().map(|e| self.expr(e)).collect();
                let elem = self.join_all(&types, "list literal");
                Ty::List(Box::new(elem))
            }
            Expr::Map(map) => {
                let mut keys = Vec::new();
                let mut values = Vec::new();
                for entry in &map.entries {
                    if let EntryExpr::MapEntry(e) = &entry.expr {
                        keys.push(self.expr(&e.key));
                        values.push(self.expr(&e.value));
                    }
                }
                let k = self.join_all(&keys, "map literal keys");
                let v = self.join_all(&values, "map literal values");
                Ty::Map(Box::new(k), Box::new(v))
            }
            Expr::Struct(s) => self.error(format!("undeclared type `{}`", s.type_name)),
            Expr::Select(select) => self.select(select),
            Expr::Call(call) => self.call(call),
            Expr::Comprehension(c) => self.comprehension(c),
            Expr::Unspecified => Ty::Dyn,
        }
    }

    fn ident(&mut self, name: &str) -> Ty<'a> {
        if let Some((_, ty)) = self.scopes.iter().rev().find(|(n, _)| n == name) {
            return ty.clone();
        }
        match name {
            "self" => self.self_ty.clone(),
            "oldSelf" => {
                self.old_self = true;
                self.old_self_ty.clone()
            }
            // Types are values (`type(x) == int`); lint cannot evaluate `type` itself.
            "int" | "uint" | "double" | "bool" | "string" | "bytes" | "list" | "map"
            | "null_type" | "type" => Ty::Dyn,
            _ => self.error(format!(
                "undeclared reference to `{name}` (rules see `self` and `oldSelf`)"
            )),
        }
    }

    fn field(&mut self, operand: &Ty<'a>, field: &str) -> Ty<'a> {
        match operand {
            Ty::Dyn => Ty::Dyn,
            // Selecting a field of an optional value gives an optional of the field.
            Ty::Optional(inner) => Ty::Optional(Box::new(self.field(inner, field))),
            Ty::Map(_, value) => (**value).clone(),
            Ty::Meta => match field {
                "name" | "generateName" => Ty::String,
                _ => self.error(format!(
                    "`metadata.{field}` is not visible to rules: only metadata.name and metadata.generateName are"
                )),
            },
            Ty::Object(schema, root) => {
                if *root {
                    match field {
                        "apiVersion" | "kind" => return Ty::String,
                        "metadata" => return Ty::Meta,
                        _ => {}
                    }
                }
                let found = schema.properties().and_then(|properties| {
                    properties
                        .iter()
                        .find(|(name, _)| escape(name).as_deref() == Some(field))
                });
                // kube-cel escapes `_` as `__` where Kubernetes keeps it (only `__` is
                // escaped there): lint's evaluator would not find the field.
                if let Some((name, _)) = found
                    && name.contains('_')
                {
                    self.unsupported
                        .insert(format!("the field `{name}` (lint's evaluator misnames fields with `_`)"));
                }
                let found = found.map(|(_, p)| Ty::of(Schema(p)));
                match found {
                    Some(ty) => ty,
                    None => {
                        let known: Vec<String> = schema
                            .properties()
                            .into_iter()
                            .flat_map(|p| p.keys())
                            .filter_map(|k| escape(k))
                            .collect();
                        let known = if known.is_empty() {
                            "it has none".to_string()
                        } else {
                            format!("it has {}", known.join(", "))
                        };
                        self.error(format!("undefined field `{field}` ({known})"))
                    }
                }
            }
            other => self.error(format!(
                "`.{field}` on a value of type {}, which has no fields",
                other.display()
            )),
        }
    }

    fn select(&mut self, select: &SelectExpr) -> Ty<'a> {
        let operand = self.expr(&select.operand);
        let ty = self.field(&operand, &select.field);
        if select.test { Ty::Bool } else { ty }
    }

    fn call(&mut self, call: &CallExpr) -> Ty<'a> {
        let name = call.func_name.as_str();
        let args = &call.args;
        match (name, args.len()) {
            ("_&&_" | "_||_", 2) => {
                for arg in args {
                    let ty = self.expr(arg);
                    self.want_bool(&ty, if name == "_&&_" { "&&" } else { "||" });
                }
                Ty::Bool
            }
            ("!_", 1) => {
                let ty = self.expr(&args[0]);
                self.want_bool(&ty, "!");
                Ty::Bool
            }
            ("@not_strictly_false", 1) => {
                self.expr(&args[0]);
                Ty::Bool
            }
            ("-_", 1) => {
                let ty = self.expr(&args[0]);
                if !matches!(ty.category(), None | Some("number") | Some("duration")) {
                    return self.error(format!("`-` cannot negate a {}", ty.display()));
                }
                ty
            }
            ("_?_:_", 3) => {
                let cond = self.expr(&args[0]);
                self.want_bool(&cond, "the condition of `? :`");
                let a = self.expr(&args[1]);
                let b = self.expr(&args[2]);
                self.join_all(&[a, b], "the branches of `? :`")
            }
            ("_==_" | "_!=_", 2) => {
                let (a, b) = (self.expr(&args[0]), self.expr(&args[1]));
                if let (Some(x), Some(y)) = (a.category(), b.category())
                    && x != y
                {
                    self.error(format!(
                        "`{}` compares {} with {}, which can never be equal",
                        if name == "_==_" { "==" } else { "!=" },
                        a.display(),
                        b.display()
                    ));
                }
                Ty::Bool
            }
            ("_<_" | "_<=_" | "_>_" | "_>=_", 2) => {
                let (a, b) = (self.expr(&args[0]), self.expr(&args[1]));
                let op = &name[1..name.len() - 1];
                match (a.category(), b.category()) {
                    (Some(x), Some(y)) if x != y => {
                        self.error(format!(
                            "`{op}` cannot order {} and {}",
                            a.display(),
                            b.display()
                        ));
                    }
                    (Some(x), _) | (_, Some(x))
                        if !matches!(
                            x,
                            "number" | "string" | "bytes" | "bool" | "timestamp" | "duration"
                        ) =>
                    {
                        self.error(format!("`{op}` cannot order values of type {x}"));
                    }
                    _ => {}
                }
                Ty::Bool
            }
            ("_+_" | "_-_" | "_*_" | "_/_" | "_%_", 2) => {
                let (a, b) = (self.expr(&args[0]), self.expr(&args[1]));
                self.arithmetic(&name[1..2], a, b)
            }
            ("_[_]", 2) => {
                let (a, b) = (self.expr(&args[0]), self.expr(&args[1]));
                self.index(a, b)
            }
            ("_[?_]", 2) => {
                let (a, b) = (self.expr(&args[0]), self.expr(&args[1]));
                let a = unwrap_optional(a);
                Ty::Optional(Box::new(self.index(a, b)))
            }
            ("_?._", 2) => {
                let operand = unwrap_optional(self.expr(&args[0]));
                let field = match &args[1].expr {
                    Expr::Literal(LiteralValue::String(s)) => s.inner().to_string(),
                    _ => return Ty::Dyn,
                };
                Ty::Optional(Box::new(self.field(&operand, &field)))
            }
            ("@in", 2) => {
                self.expr(&args[0]);
                let container = self.expr(&args[1]);
                if !matches!(container.category(), None | Some("list") | Some("map")) {
                    self.error(format!(
                        "`in` needs a list or a map, not {}",
                        container.display()
                    ));
                }
                Ty::Bool
            }
            _ => self.function(call),
        }
    }

    fn want_bool(&mut self, ty: &Ty<'a>, what: &str) {
        if !matches!(ty, Ty::Bool | Ty::Dyn) {
            self.error(format!("{what} needs a bool, not {}", ty.display()));
        }
    }

    fn arithmetic(&mut self, op: &str, a: Ty<'a>, b: Ty<'a>) -> Ty<'a> {
        let (x, y) = match (a.category(), b.category()) {
            (Some(x), Some(y)) => (x, y),
            _ => return Ty::Dyn,
        };
        let result = match (op, x, y) {
            (_, "number", "number") => {
                if a.kind() == b.kind() {
                    Some(a.clone())
                } else {
                    Some(Ty::Dyn)
                }
            }
            ("+", "string", "string") => Some(Ty::String),
            ("+", "bytes", "bytes") => Some(Ty::Bytes),
            ("+", "list", "list") => Some(Ty::List(Box::new(Ty::Dyn))),
            ("+", "timestamp", "duration") | ("+", "duration", "timestamp") => Some(Ty::Timestamp),
            ("+" | "-", "duration", "duration") => Some(Ty::Duration),
            ("-", "timestamp", "timestamp") => Some(Ty::Duration),
            ("-", "timestamp", "duration") => Some(Ty::Timestamp),
            _ => None,
        };
        result.unwrap_or_else(|| {
            self.error(format!(
                "`{op}` is not defined for {} and {}",
                a.display(),
                b.display()
            ))
        })
    }

    fn index(&mut self, container: Ty<'a>, key: Ty<'a>) -> Ty<'a> {
        match container {
            Ty::Dyn | Ty::Object(..) | Ty::Meta => Ty::Dyn,
            Ty::List(elem) => {
                if !matches!(key.category(), None | Some("number")) {
                    self.error(format!(
                        "a list is indexed by an int, not {}",
                        key.display()
                    ));
                }
                *elem
            }
            Ty::Map(_, value) => *value,
            other => self.error(format!(
                "a value of type {} cannot be indexed",
                other.display()
            )),
        }
    }

    fn join_all(&mut self, types: &[Ty<'a>], what: &str) -> Ty<'a> {
        let mut known = types.iter().filter(|t| t.category().is_some());
        let Some(first) = known.next() else {
            return types.first().cloned().unwrap_or(Ty::Dyn);
        };
        let category = first.category();
        if let Some(other) = known.clone().find(|t| t.category() != category) {
            return self.error(format!(
                "{what} mix {} and {}; CEL wants one type",
                first.display(),
                other.display()
            ));
        }
        let same = types.iter().all(|t| t.kind() == first.kind())
            && !matches!(first, Ty::List(_) | Ty::Map(..));
        if same || types.len() == 1 {
            first.clone()
        } else {
            Ty::Dyn
        }
    }

    fn function(&mut self, call: &CallExpr) -> Ty<'a> {
        let name = call.func_name.as_str();
        // `ns.fn(...)` where `ns` is no variable: a qualified global (`sets.contains`).
        let (shown, candidates, receiver) = match &call.target {
            Some(target) => match &target.expr {
                Expr::Ident(ns) if !self.is_variable(ns) => {
                    let qualified = format!("{ns}.{name}");
                    let candidates: Vec<&Function> = functions::global(&qualified).collect();
                    (qualified, candidates, None)
                }
                _ => {
                    let receiver = self.expr(target);
                    (
                        name.to_string(),
                        functions::methods(name).collect(),
                        Some(receiver),
                    )
                }
            },
            None => (name.to_string(), functions::global(name).collect(), None),
        };
        if candidates.is_empty() {
            // Its arguments may bind variables (a macro lint's runtime lacks): not typed.
            let macro_ = matches!(
                name,
                "all" | "exists" | "exists_one" | "existsOne" | "map" | "filter"
            );
            if macro_ {
                let form = format!("`{shown}` with {} arguments", call.args.len());
                self.unsupported.insert(form);
            } else if functions::SERVER_ONLY.contains(&name) {
                self.unsupported.insert(format!("`{shown}`"));
            } else {
                return self.error(format!(
                    "`{shown}` is not a function of the API server's CEL environment"
                ));
            }
            return Ty::Dyn;
        }
        let args: Vec<Ty<'a>> = call.args.iter().map(|a| self.expr(a)).collect();
        self.check_regex_literal(name, call);
        self.apply(&shown, &candidates, receiver, &args)
    }

    /// Kubernetes validates regular expressions given as literals when it compiles a rule.
    fn check_regex_literal(&mut self, name: &str, call: &CallExpr) {
        if !matches!(name, "matches" | "find" | "findAll") {
            return;
        }
        let arg = match (name, call.target.is_some()) {
            ("matches", false) => call.args.get(1),
            _ => call.args.first(),
        };
        let pattern = arg.and_then(|a| match &a.expr {
            Expr::Literal(LiteralValue::String(s)) => Some(s.inner().to_string()),
            _ => None,
        });
        if let Some(pattern) = pattern
            && let Err(e) = regex::Regex::new(&pattern)
        {
            let first = e
                .to_string()
                .lines()
                .last()
                .unwrap_or_default()
                .trim()
                .to_string();
            self.error(format!("invalid regular expression {pattern:?}: {first}"));
        }
    }

    fn apply(
        &mut self,
        name: &str,
        candidates: &[&Function],
        receiver: Option<Ty<'a>>,
        args: &[Ty<'a>],
    ) -> Ty<'a> {
        let by_arity: Vec<&Function> = candidates
            .iter()
            .copied()
            .filter(|f| f.arity.is_none_or(|a| a.contains(&args.len())))
            .collect();
        if by_arity.is_empty() {
            self.unsupported
                .insert(format!("`{name}` with {} argument(s)", args.len()));
            return Ty::Dyn;
        }
        let chosen = match &receiver {
            Some(recv) if !recv.is_dyn() => {
                let kind = recv.kind();
                match by_arity.iter().find(|f| f.receivers.contains(&kind)) {
                    Some(f) => *f,
                    None => {
                        return self.error(format!(
                            "no method `{name}` on a value of type {}",
                            recv.display()
                        ));
                    }
                }
            }
            _ => by_arity[0],
        };
        let recv = receiver.unwrap_or(Ty::Dyn);
        let receiver_kind = chosen.method.then(|| recv.kind());
        if let Some(params) = functions::params(name, receiver_kind) {
            for (arg, kinds) in args.iter().zip(params) {
                if !arg.is_dyn() && !kinds.contains(&arg.kind()) {
                    let on = receiver_kind.map_or(String::new(), |k| format!("{k}."));
                    return self.error(format!(
                        "no overload of `{on}{name}` takes {} where it wants {}",
                        arg.display(),
                        kinds.join(" or ")
                    ));
                }
            }
        }
        let elem = match &recv {
            Ty::List(e) => (**e).clone(),
            _ => Ty::Dyn,
        };
        match chosen.ret {
            Ret::Bool => Ty::Bool,
            Ret::Int => Ty::Int,
            Ret::Double => Ty::Double,
            Ret::String => Ty::String,
            Ret::Bytes => Ty::Bytes,
            Ret::Duration => Ty::Duration,
            Ret::Timestamp => Ty::Timestamp,
            Ret::Dyn => Ty::Dyn,
            Ret::Recv => recv,
            Ret::Elem => elem,
            Ret::OptElem => Ty::Optional(Box::new(elem)),
            Ret::ListString => Ty::List(Box::new(Ty::String)),
            Ret::ListInt => Ty::List(Box::new(Ty::Int)),
            Ret::ListDyn => Ty::List(Box::new(Ty::Dyn)),
            Ret::MapStringListString => Ty::Map(
                Box::new(Ty::String),
                Box::new(Ty::List(Box::new(Ty::String))),
            ),
            Ret::Inner => unwrap_optional(recv),
            Ret::OptArg => Ty::Optional(Box::new(args.first().cloned().unwrap_or(Ty::Dyn))),
            Ret::OptDyn => Ty::Optional(Box::new(Ty::Dyn)),
            Ret::Opaque(kind) => Ty::Opaque(kind),
            Ret::OptOpaque(kind) => Ty::Optional(Box::new(Ty::Opaque(kind))),
            Ret::OptListString => Ty::Optional(Box::new(Ty::List(Box::new(Ty::String)))),
        }
    }

    fn comprehension(&mut self, c: &ComprehensionExpr) -> Ty<'a> {
        let range = self.expr(&c.iter_range);
        if c.iter_var2.is_some() {
            self.unsupported
                .insert("two-variable comprehensions".into());
        }
        let var = match &range {
            Ty::List(elem) => (**elem).clone(),
            Ty::Map(key, _) => (**key).clone(),
            Ty::Dyn => Ty::Dyn,
            other => self.error(format!(
                "a value of type {} cannot be the range of a comprehension (a list or a map can)",
                other.display()
            )),
        };
        let accu = match self.expr(&c.accu_init) {
            Ty::List(_) => Ty::List(Box::new(Ty::Dyn)),
            other => other,
        };
        self.scopes.push((c.accu_var.clone(), accu));
        self.scopes.push((c.iter_var.clone(), var));
        self.expr(&c.loop_cond);
        self.expr(&c.loop_step);
        self.scopes.pop();
        let result = self.expr(&c.result);
        self.scopes.pop();
        result
    }
}

fn unwrap_optional(ty: Ty<'_>) -> Ty<'_> {
    match ty {
        Ty::Optional(inner) => *inner,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_cel::cel::Program;
    use serde_json::json;

    fn check_rule(schema: &serde_json::Value, rule: &str) -> (String, Vec<String>, Vec<String>) {
        check_with(schema, rule, false)
    }

    fn check_with(
        schema: &serde_json::Value,
        rule: &str,
        optional_old_self: bool,
    ) -> (String, Vec<String>, Vec<String>) {
        let expr = kube_cel::cel::parser::Parser::new()
            .enable_optional_syntax(true)
            .parse(rule)
            .unwrap();
        let outcome = check(&expr, Ty::of(Schema(schema)), optional_old_self);
        (
            outcome.ty.display(),
            outcome.errors,
            outcome.unsupported.into_iter().collect(),
        )
    }

    fn spec() -> serde_json::Value {
        json!({"type": "object", "properties": {
            "replicas": {"type": "integer"},
            "name": {"type": "string"},
            "dash-name": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "until": {"type": "string", "format": "date-time"},
            "port": {"x-kubernetes-int-or-string": true},
            "backend": {"type": "object", "properties": {"host": {"type": "string"}}},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "snake_name": {"type": "string"},
        }})
    }

    #[test]
    fn well_typed_rules_pass() {
        for rule in [
            "self.replicas >= 0 && self.name.startsWith('a')",
            "self.tags.all(t, t.size() < 10)",
            "self.tags.map(t, t.upperAscii()).exists(t, t == 'A')",
            "has(self.name) ? self.name != '' : true",
            "self.labels.all(k, self.labels[k].size() > 0)",
            "self.dash__dash__name == 'x'",
            "self.until > timestamp('2024-01-01T00:00:00Z')",
            "self.port == 80 || self.port == 'http'",
            "quantity('1Gi').isGreaterThan(quantity('1Mi'))",
            "self.?name.orValue('') == ''",
            "!format.dns1123Label().validate(self.name).hasValue()",
            "sets.contains(self.tags, ['a'])",
            "self.name.matches('^[a-z]+$')",
            "self.?backend.host.orValue('') == ''",
            "self.tags.reverse() == self.tags",
            "has(self.free)",
        ] {
            let (ty, errors, unsupported) = check_rule(&spec(), rule);
            assert_eq!(
                (ty.as_str(), errors, unsupported),
                ("bool", vec![], vec![]),
                "{rule}"
            );
        }
    }

    #[test]
    fn the_errors_the_api_server_reports_are_found() {
        for (rule, wanted) in [
            ("self.replicsa > 0", "undefined field `replicsa`"),
            ("self.replicas == 'three'", "compares int with string"),
            ("self.name > 3", "cannot order string and"),
            (
                "self.replicas.startsWith('a')",
                "no method `startsWith` on a value of type int",
            ),
            ("self.tags.all(t, t.size())", "needs a bool, not int"),
            ("other.name == 'a'", "undeclared reference to `other`"),
            ("self.name.foo == 1", "has no fields"),
            (
                "self.name + 1 == 'a'",
                "`+` is not defined for string and int",
            ),
            ("self.name.matches('[')", "invalid regular expression"),
            ("[1, 'a'].size() == 2", "mix int and string"),
            // What the API server refused in tests/api_server_lint.rs.
            ("size(self) > 0", "takes object where it wants"),
            (
                "self.all(k, k != '')",
                "cannot be the range of a comprehension",
            ),
            ("self.name.contains(1)", "takes int where it wants string"),
            (
                "'abc'.reverse() == 'cba'",
                "no method `reverse` on a value of type string",
            ),
            ("math.abs(-1) == 1", "`math.abs` is not a function"),
            (
                "base64.encode(b'a') == 'YQ=='",
                "`base64.encode` is not a function",
            ),
            (
                "cel.bind(x, self.name, x == 'a')",
                "`cel.bind` is not a function",
            ),
            ("self.free.anything == 1", "undefined field `anything`"),
        ] {
            let (_, errors, _) = check_rule(&spec(), rule);
            assert!(
                errors.iter().any(|e| e.contains(wanted)),
                "{rule}: {errors:?}"
            );
        }
    }

    #[test]
    fn what_cannot_be_evaluated_is_unsupported_not_passed() {
        for (rule, wanted) in [
            ("self.tags.sortBy(t, t) == self.tags", "`sortBy`"),
            ("self.tags.all(i, t, t != '')", "`all` with 3 arguments"),
            ("type(self.port) == int", "`type`"),
            ("[2, 1].sortBy(x, x) == [1, 2]", "`sortBy`"),
            ("self.snake_name == 'a'", "`snake_name`"),
        ] {
            let (_, _, unsupported) = check_rule(&spec(), rule);
            assert!(
                unsupported.iter().any(|u| u.contains(wanted)),
                "{rule}: {unsupported:?}"
            );
        }
    }

    #[test]
    fn old_self_is_optional_under_optional_old_self() {
        let rule = "oldSelf.hasValue() ? oldSelf.value().name == self.name : true";
        assert_eq!(check_with(&spec(), rule, true).1, Vec::<String>::new());
        let (_, errors, _) = check_with(&spec(), rule, false);
        assert!(
            errors.iter().any(|e| e.contains("no method `hasValue`")),
            "{errors:?}"
        );
    }

    #[test]
    fn only_name_and_generate_name_of_root_metadata_are_visible() {
        let root = json!({"type": "object", "properties": {"metadata": {"type": "object"}, "spec": spec()}});
        let program =
            Program::compile("self.metadata.name.size() < 20 && self.spec.replicas > 0").unwrap();
        let ok = check(program.expression(), Ty::Object(Schema(&root), true), false);
        assert!(ok.errors.is_empty(), "{:?}", ok.errors);
        let program = Program::compile("self.metadata.labels.size() > 0").unwrap();
        let bad = check(program.expression(), Ty::Object(Schema(&root), true), false);
        assert_eq!(bad.errors.len(), 1, "{:?}", bad.errors);
    }

    #[test]
    fn escaping_follows_kubernetes() {
        assert_eq!(escape("foo-bar").as_deref(), Some("foo__dash__bar"));
        assert_eq!(escape("a.b/c").as_deref(), Some("a__dot__b__slash__c"));
        assert_eq!(
            escape("my__field").as_deref(),
            Some("my__underscores__field")
        );
        assert_eq!(escape("namespace").as_deref(), Some("__namespace__"));
        assert_eq!(escape("1abc"), None);
    }
}
