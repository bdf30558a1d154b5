//! Values for `"default"`: what `serde_json::to_value(<default expr>)` gives, computed
//! without running user code. Accepted: `Default` of std and k8s-openapi types (the latter
//! by calling their real `Default`), derived `Default` of structs/enums in the sources, and
//! `#[serde(default = "f")]` where `f`'s body is a single literal-like expression.
//! Everything else is refused.
//!
//! Why one file: it is one recursive evaluator (`eval`) whose cases (literals, paths,
//! calls, struct and enum expressions, `Default` impls) call one another.

use proc_macro2::Span;
use serde_json::{Map, Value};
use syn::punctuated::Punctuated;
use syn::{Expr, ExprCall, ExprPath, Fields, Stmt, Token};

use super::attrs;
use super::attrs::kube::string_expr;
use super::attrs::serde::{
    DefaultAttr, RenameRule, SerdeField, SkipIf, field_name, transparent_field, unraw,
};
use super::builder::{Builder, Ctx, MAX_INLINED, too_many_instances};
use super::diagnostics::{Unsupported, span_of};
use super::literals::{lit_bool, lit_number};
use super::model::{TypeItem, derives};
use super::resolve::{ItemRef, MAX_TYPE_NESTING, Shape};
use super::std_types::DefaultOf;
use super::typeops::{Prim, Wrapper};

pub struct Defaults<'b, 'i, 'a> {
    builder: &'b mut Builder<'i, 'a>,
    /// Derived `Default`s being evaluated, innermost last (a struct's default is its
    /// fields' defaults).
    nesting: usize,
    /// Why the last expression could not be evaluated, when a part of it said why.
    why: Option<Unsupported>,
    /// The function whose body is being evaluated: where its paths are looked up.
    scope: Option<FnScope>,
}

/// Where a function body was written: its module, and the type `Self` names there.
#[derive(Clone)]
struct FnScope {
    module: Vec<String>,
    self_ty: Option<String>,
}

/// `Err` carries the refusal; the caller turns it into a diagnostic.
type R<T> = Result<T, Unsupported>;

impl<'b, 'i, 'a> Defaults<'b, 'i, 'a> {
    pub fn new(builder: &'b mut Builder<'i, 'a>) -> Self {
        Self {
            builder,
            nesting: 0,
            why: None,
            scope: None,
        }
    }

    /// The `"default"` of a field: `Some(None)` when `skip_serializing_if` drops it,
    /// `None` after reporting a refusal.
    pub fn field_default(
        &mut self,
        ctx: &Ctx,
        sf: &SerdeField,
        shape: &Shape<'a>,
        span: Span,
    ) -> Option<Option<Value>> {
        let r = self.field_default_inner(ctx, sf, shape, span);
        self.reported(ctx, r)
    }

    /// The value, or `None` with the reason kept for [`Self::fn_default`].
    fn noted(&mut self, r: R<Value>) -> Option<Value> {
        r.map_err(|u| self.why = Some(u)).ok()
    }

    /// The value, or `None` with the refusal reported.
    fn reported<T>(&mut self, ctx: &Ctx, r: R<T>) -> Option<T> {
        r.map_err(|u| self.builder.refuse(ctx, u)).ok()
    }

    fn field_default_inner(
        &mut self,
        ctx: &Ctx,
        sf: &SerdeField,
        shape: &Shape<'a>,
        span: Span,
    ) -> R<Option<Value>> {
        let value = match &sf.default {
            DefaultAttr::None | DefaultAttr::Default(_) => self.type_default(shape, span)?,
            DefaultAttr::Path(path, span) => self.fn_default(ctx, path, shape, *span)?,
        };
        // schemars asks `skip_serializing_if` about the default itself; only a default it
        // keeps goes through the `serialize_with` function.
        match &sf.skip_serializing_if {
            Some(p) if skip_if(p, &value)? => Ok(None),
            _ if sf.serialize_with => Err(Unsupported::new(
                span,
                "a default on a field with `serialize_with`",
                "the default is serialized by user code",
            )),
            _ => Ok(Some(value)),
        }
    }

    /// `serde_json::to_value(<T as Default>::default())`.
    pub fn type_default(&mut self, shape: &Shape<'a>, span: Span) -> R<Value> {
        match shape {
            Shape::Prim(p) => match p {
                Prim::String | Prim::Str | Prim::PathBuf => Ok(Value::from("")),
                Prim::Char => Ok(Value::from(char::default().to_string())),
                Prim::Bool => Ok(Value::from(false)),
                Prim::F32 => Ok(Value::from(0f32)),
                Prim::F64 => Ok(Value::from(0f64)),
                Prim::JsonValue | Prim::Unit => Ok(Value::Null),
                p if p.is_integer() => Ok(Value::from(0u8)),
                _ => Err(Unsupported::new(
                    span,
                    "the default of this type",
                    "its serialized default is not known to rsbuilder",
                )),
            },
            Shape::K8s(k) => (k.default)().ok_or_else(|| {
                Unsupported::new(
                    span,
                    format!("the default of `{}`", k.path),
                    "it failed to serialize",
                )
            }),
            Shape::Wrap(w, inner) => match w {
                Wrapper::Option => Ok(Value::Null),
                Wrapper::Vec | Wrapper::VecDeque | Wrapper::BTreeSet | Wrapper::HashSet => {
                    Ok(Value::Array(Vec::new()))
                }
                Wrapper::BTreeMap | Wrapper::HashMap => Ok(Value::Object(Map::new())),
                Wrapper::Box | Wrapper::Arc | Wrapper::Rc | Wrapper::Cow => {
                    self.type_default(inner, span)
                }
            },
            Shape::Map(..) => Ok(Value::Object(Map::new())),
            Shape::Const(_) => unreachable!("`resolve` refuses a const parameter used as a type"),
            Shape::User(item) => self.user_default(item, span),
            Shape::Ext(t, params) => match t.default {
                DefaultOf::Value(f) => f().ok_or_else(|| unknown_default(t.path, span)),
                DefaultOf::EmptyArray => Ok(Value::Array(Vec::new())),
                DefaultOf::EmptyObject => Ok(Value::Object(Map::new())),
                DefaultOf::Inner => match params.as_slice() {
                    [inner] => self.type_default(inner, span),
                    _ => Err(unknown_default(t.path, span)),
                },
                DefaultOf::Unknown => Err(unknown_default(t.path, span)),
            },
            Shape::Array(len, inner) => {
                let one = self.type_default(inner, span)?;
                Ok(Value::Array(vec![one; *len]))
            }
        }
    }

    /// A derived `Default` of a struct or enum from the sources, serialized.
    fn user_default(&mut self, item: &ItemRef<'a>, span: Span) -> R<Value> {
        if self.nesting >= MAX_TYPE_NESTING {
            return Err(Unsupported::new(
                span,
                format!("the default of `{}`", item.item.ident()),
                format!(
                    "it is made of defaults nested more than {MAX_TYPE_NESTING} types deep (or of itself)"
                ),
            ));
        }
        self.builder.inlined += 1;
        if self.builder.inlined > MAX_INLINED {
            return Err(too_many_instances(span, item.item.ident()));
        }
        self.nesting += 1;
        let value = self.derived_default(item, span);
        self.nesting -= 1;
        value
    }

    fn derived_default(&mut self, item: &ItemRef<'a>, span: Span) -> R<Value> {
        let ident = item.item.ident();
        if !derives(item.item.attrs(), "Default") {
            return self.written_default(item, span);
        }
        match item.item {
            TypeItem::Struct(_) => {
                self.struct_value(item, span, |d, _, shape| d.type_default(shape, span))
            }
            TypeItem::Enum(e) => {
                let Some(v) = e
                    .variants
                    .iter()
                    .find(|v| v.attrs.iter().any(|a| a.path().is_ident("default")))
                else {
                    return Err(Unsupported::new(
                        span,
                        format!("the default of `{ident}`"),
                        "no `#[default]` variant",
                    ));
                };
                self.variant_value(item, &v.ident, Content::Unit, span)
            }
            TypeItem::Alias(_) => Err(Unsupported::new(
                span,
                format!("the default of `{ident}`"),
                "type aliases are resolved before defaults",
            )),
        }
    }

    /// [`Self::written_default`], reported when refused.
    pub fn written_value(&mut self, ctx: &Ctx, item: &ItemRef<'a>, span: Span) -> Option<Value> {
        let r = self.written_default(item, span);
        self.reported(ctx, r)
    }

    /// The value of a hand-written `impl Default for T` (beside `T`) whose `default()` is
    /// one literal-like expression.
    fn written_default(&mut self, item: &ItemRef<'a>, span: Span) -> R<Value> {
        let ident = item.item.ident();
        let refuse = |why: &str| {
            Unsupported::new(span, format!("the default of `{ident}`"), why.to_string())
        };
        let body = self
            .builder
            .index
            .module(&item.module)
            .and_then(|m| m.default_fns.get(&ident.to_string()).copied())
            .ok_or_else(|| refuse("it has no `Default` impl beside it, derived or written"))?;
        let expr = single_expr(body).ok_or_else(|| {
            refuse("its hand-written `Default` impl is not a single literal expression")
        })?;
        let scope = FnScope {
            module: item.module.clone(),
            self_ty: Some(ident.to_string()),
        };
        self.eval_in(scope, expr, &Shape::User(item.clone()))
            .ok_or_else(|| {
                refuse(
                    "its hand-written `Default` impl is not a literal value rsbuilder can evaluate",
                )
            })
    }

    /// A call, inside a function being evaluated, to a function without arguments whose
    /// body is one literal-like expression (`Self::default_port()`).
    fn call(&mut self, path: &syn::Path, shape: &Shape<'a>) -> Option<Value> {
        let scope = self.scope.clone()?;
        let path = with_self(path, scope.self_ty.as_deref());
        let (expr, scope) = self.function(&scope.module, &path).ok()?;
        if self.nesting >= MAX_TYPE_NESTING {
            return None;
        }
        self.nesting += 1;
        let value = self.eval_in(scope, expr, shape);
        self.nesting -= 1;
        value
    }

    /// The function `path` names from `module`: the one expression its body is, and where
    /// that is written (inside `Type::f`, `Self` is `Type`).
    fn function(
        &self,
        module: &[String],
        path: &syn::Path,
    ) -> Result<(&'a Expr, FnScope), &'static str> {
        let (module, body) = super::consts::find_fn(self.builder.index, module, path)
            .ok_or("the function is not found in the given sources")?;
        let expr = single_expr(body).ok_or("its body is not a single literal expression")?;
        let segs = &path.segments;
        let self_ty = (segs.len() >= 2).then(|| segs[segs.len() - 2].ident.to_string());
        Ok((expr, FnScope { module, self_ty }))
    }

    /// [`Self::eval`] inside the body of a function written in `scope`.
    fn eval_in(&mut self, scope: FnScope, expr: &Expr, shape: &Shape<'a>) -> Option<Value> {
        let outer = self.scope.replace(scope);
        let value = self.eval(expr, shape);
        self.scope = outer;
        value
    }

    /// How serde serializes the struct `item` when `value_of` gives each field's value.
    fn struct_value(
        &mut self,
        item: &ItemRef<'a>,
        span: Span,
        mut value_of: impl FnMut(&mut Self, &syn::Field, &Shape<'a>) -> R<Value>,
    ) -> R<Value> {
        let ident = item.item.ident();
        let TypeItem::Struct(s) = item.item else {
            return Err(Unsupported::new(span, "this default", "not a struct"));
        };
        let ctx = Ctx {
            module: item.module.clone(),
            file: item.file,
        };
        let bindings = super::resolve::bindings_of(item);
        let attr_error = |e: syn::Error| Unsupported::new(e.span(), "attributes", e.to_string());
        let serde = attrs::serde::container(item.item.attrs()).map_err(attr_error)?;
        if serde.into {
            return Err(Unsupported::new(
                span,
                format!("the default of `{ident}`"),
                "serde writes it through `#[serde(into)]`, user code",
            ));
        }
        if serde.transparent {
            let field = transparent_field(s).ok_or_else(|| {
                Unsupported::new(
                    span,
                    format!("the default of `{ident}`"),
                    "no transparent field",
                )
            })?;
            let shape = self.resolve_in(&ctx, &bindings, &field.ty)?;
            return value_of(self, field, &shape);
        }
        match &s.fields {
            Fields::Named(named) => {
                let fields = FieldsOf {
                    ctx: &ctx,
                    bindings: &bindings,
                    owner: ident,
                    rename_all: serde.rename_all,
                };
                self.fields_value(&fields, &named.named, value_of)
            }
            Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                let field = &u.unnamed[0];
                let shape = self.resolve_in(&ctx, &bindings, &field.ty)?;
                value_of(self, field, &shape)
            }
            Fields::Unit => Ok(Value::Null),
            Fields::Unnamed(_) => Err(Unsupported::new(
                span,
                format!("the default of `{ident}`"),
                "tuple structs are not supported",
            )),
        }
    }

    /// How serde writes the named `fields` of a struct or struct variant when `value_of`
    /// gives each field's value.
    fn fields_value(
        &mut self,
        of: &FieldsOf<'_, 'a>,
        fields: &Punctuated<syn::Field, Token![,]>,
        mut value_of: impl FnMut(&mut Self, &syn::Field, &Shape<'a>) -> R<Value>,
    ) -> R<Value> {
        let ident = of.owner;
        let attr_error = |e: syn::Error| Unsupported::new(e.span(), "attributes", e.to_string());
        let mut obj = Map::new();
        for field in fields {
            if let Some(u) = super::cfg::undecided(&self.builder.index.krate.cfg, &field.attrs) {
                return Err(Unsupported::new(
                    u.span,
                    format!("the default of `{ident}`"),
                    format!("a field is under {}, and {}", u.what, u.why),
                ));
            }
            let sf = attrs::serde::field(&field.attrs).map_err(attr_error)?;
            if sf.skip_serializing {
                continue;
            }
            if sf.serialize_with {
                return Err(Unsupported::new(
                    span_of(field),
                    "a default including a `serialize_with` field",
                    "it is serialized by user code",
                ));
            }
            let shape = self.resolve_in(of.ctx, of.bindings, &field.ty)?;
            let v = value_of(self, field, &shape)?;
            if let Some(p) = &sf.skip_serializing_if
                && skip_if(p, &v)?
            {
                continue;
            }
            if sf.flatten {
                match v {
                    Value::Object(m) => obj.extend(m),
                    Value::Null => {}
                    _ => {
                        return Err(Unsupported::new(
                            span_of(field),
                            "a flattened non-struct default",
                            "serde's output is not known",
                        ));
                    }
                }
            } else {
                obj.insert(field_name(field.ident.as_ref(), &sf, of.rename_all), v);
            }
        }
        Ok(Value::Object(obj))
    }

    /// How serde writes variant `variant` of the enum `item` holding `content`.
    fn variant_value(
        &mut self,
        item: &ItemRef<'a>,
        variant: &syn::Ident,
        content: Content<'_>,
        span: Span,
    ) -> R<Value> {
        let TypeItem::Enum(e) = item.item else {
            return Err(Unsupported::new(span, "this default", "not an enum"));
        };
        let Some(v) = e.variants.iter().find(|v| v.ident == *variant) else {
            return Err(Unsupported::new(
                span,
                format!("variant `{variant}`"),
                "not found",
            ));
        };
        let attr_error = |e: syn::Error| Unsupported::new(e.span(), "attributes", e.to_string());
        let serde = attrs::serde::container(&e.attrs).map_err(attr_error)?;
        let sv = attrs::serde::variant(&v.attrs).map_err(attr_error)?;
        let refuse = |why: &str| {
            Unsupported::new(
                span,
                format!("the default variant `{variant}`"),
                why.to_string(),
            )
        };
        if sv.serialize_with || serde.into {
            return Err(refuse(
                "serde writes it with user code (`serialize_with`, `with` or `into`)",
            ));
        }
        if sv.skip_serializing {
            return Err(refuse("serde refuses to write a skipped variant"));
        }
        if serde.tag.is_some() {
            return Err(refuse(
                "defaults of internally or adjacently tagged enums are not mirrored (kube-derive rejects their schemas)",
            ));
        }
        let ctx = Ctx {
            module: item.module.clone(),
            file: item.file,
        };
        let bindings = super::resolve::bindings_of(item);
        let value = match (content, &v.fields) {
            (Content::Unit, Fields::Unit) => Value::Null,
            (Content::Newtype(arg), Fields::Unnamed(u)) if u.unnamed.len() == 1 => {
                let shape = self.resolve_in(&ctx, &bindings, &u.unnamed[0].ty)?;
                self.eval(arg, &shape).ok_or_else(|| not_literal(span))?
            }
            (Content::Struct(literal), Fields::Named(named)) if literal.rest.is_none() => {
                let given = given_fields(literal);
                let fields = FieldsOf {
                    ctx: &ctx,
                    bindings: &bindings,
                    owner: variant,
                    rename_all: sv.rename_all.or(serde.rename_all_fields),
                };
                self.fields_value(&fields, &named.named, |d, field, shape| {
                    let name = field.ident.as_ref().map(unraw).unwrap_or_default();
                    let (_, e) = given
                        .iter()
                        .find(|(n, _)| *n == name)
                        .ok_or_else(|| not_literal(span))?;
                    d.eval(e, shape).ok_or_else(|| not_literal(span))
                })?
            }
            _ => return Err(not_literal(span)),
        };
        if serde.untagged || sv.untagged {
            return Ok(value);
        }
        let raw = unraw(&v.ident);
        let name = sv.rename.unwrap_or_else(|| {
            serde
                .rename_all
                .map_or(raw.clone(), |r| r.apply_to_variant(&raw))
        });
        Ok(match value {
            Value::Null if matches!(v.fields, Fields::Unit) => Value::from(name),
            content => Value::Object(Map::from_iter([(name, content)])),
        })
    }

    /// `ty` as written in an item whose type parameters are `bindings`.
    fn resolve_in(
        &mut self,
        ctx: &Ctx,
        bindings: &[(String, Shape<'a>)],
        ty: &syn::Type,
    ) -> R<Shape<'a>> {
        let resolver =
            super::resolve::Resolver::with_bindings(self.builder.index, bindings.to_vec());
        resolver.resolve(&ctx.module, ty)
    }

    /// The serialized value `path()` returns, for a container `#[serde(default = "path")]`.
    pub fn fn_value(
        &mut self,
        ctx: &Ctx,
        path: &syn::Path,
        shape: &Shape<'a>,
        span: Span,
    ) -> Option<Value> {
        let r = self.fn_default(ctx, path, shape, span);
        self.reported(ctx, r)
    }

    /// `#[serde(default = "path")]`: the function's body, when it is one literal-like expression.
    fn fn_default(
        &mut self,
        ctx: &Ctx,
        path: &syn::Path,
        shape: &Shape<'a>,
        span: Span,
    ) -> R<Value> {
        let refuse = |why: &str| {
            Unsupported::new(
                span,
                format!(
                    "`#[serde(default = \"{}\")]`",
                    quote::ToTokens::to_token_stream(path)
                        .to_string()
                        .replace(' ', "")
                ),
                why.to_string(),
            )
        };
        let (expr, scope) = self.function(&ctx.module, path).map_err(refuse)?;
        self.why = None;
        self.eval_in(scope, expr, shape).ok_or_else(|| {
            self.why
                .take()
                .unwrap_or_else(|| refuse("its body is not a literal value rsbuilder can evaluate"))
        })
    }

    /// `Policy { max: 3, ..Default::default() }`: each field from its literal, the rest
    /// from a derived `Default`.
    fn struct_literal(&mut self, item: &ItemRef<'a>, literal: &syn::ExprStruct) -> Option<Value> {
        let rest_default = match &literal.rest {
            None => false,
            Some(rest) if is_default_call(rest) => derives(item.item.attrs(), "Default"),
            Some(_) => return None,
        };
        let given = given_fields(literal);
        let span = span_of(literal);
        let r = self.struct_value(item, span, |d, field, shape| {
            let name = field.ident.as_ref().map(unraw).unwrap_or_default();
            match given.iter().find(|(n, _)| *n == name) {
                Some((_, e)) => d.eval(e, shape).ok_or_else(|| not_literal(span)),
                None if rest_default => d.type_default(shape, span),
                None => Err(not_literal(span)),
            }
        });
        self.noted(r)
    }

    /// The Kubernetes types defaults are built from literals: `Quantity("8Gi".into())`,
    /// `IntOrString::Int(1)`, `IntOrString::String("25%".into())` (serde writes the value).
    fn eval_k8s(&self, path: &str, expr: &Expr) -> Option<Value> {
        let Expr::Call(ExprCall { func, args, .. }) = expr else {
            return None;
        };
        let [arg] = args.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        let Expr::Path(f) = &**func else {
            return None;
        };
        let ctor = f.path.segments.last()?.ident.to_string();
        let inner = match (path, ctor.as_str()) {
            ("k8s_openapi::apimachinery::pkg::api::resource::Quantity::", "Quantity")
            | ("k8s_openapi::apimachinery::pkg::util::intstr::IntOrString::", "String") => {
                Prim::String
            }
            ("k8s_openapi::apimachinery::pkg::util::intstr::IntOrString::", "Int") => Prim::I32,
            _ => return None,
        };
        self.eval_prim(inner, arg)
    }

    /// A literal of a std type, or a `const` whose value is one (`Self::PORT`,
    /// `limits::MAX.into()`) from the function being evaluated.
    fn eval_prim(&self, p: Prim, expr: &Expr) -> Option<Value> {
        if let Some(v) = literal_prim(p, expr) {
            return Some(v);
        }
        let scope = self.scope.as_ref()?;
        let path = const_path(expr, scope.self_ty.as_deref())?;
        let index = self.builder.index;
        match p {
            Prim::String | Prim::Str | Prim::PathBuf => {
                super::consts::text(index, &scope.module, &path)
                    .ok()
                    .map(Value::from)
            }
            p if p.is_integer() || matches!(p, Prim::F32 | Prim::F64) => {
                super::consts::number(index, &scope.module, &path).ok()
            }
            _ => None,
        }
    }

    /// Evaluates a literal-like expression of the given type.
    fn eval(&mut self, expr: &Expr, shape: &Shape<'a>) -> Option<Value> {
        match expr {
            Expr::Paren(p) => return self.eval(&p.expr, shape),
            Expr::Group(g) => return self.eval(&g.expr, shape),
            Expr::Block(b) if b.block.stmts.len() == 1 => {
                if let Stmt::Expr(e, None) = &b.block.stmts[0] {
                    return self.eval(e, shape);
                }
            }
            _ => {}
        }
        if is_default_call(expr) {
            return self.type_default(shape, span_of(expr)).ok();
        }
        if let Expr::Call(ExprCall { func, args, .. }) = expr
            && args.is_empty()
            && let Expr::Path(p) = &**func
            && let Some(value) = self.call(&p.path, shape)
        {
            return Some(value);
        }
        match shape {
            Shape::Prim(p) => self.eval_prim(*p, expr),
            Shape::Wrap(Wrapper::Option, inner) => match expr {
                Expr::Path(ExprPath { path, .. }) if path.is_ident("None") => Some(Value::Null),
                Expr::Call(ExprCall { func, args, .. })
                    if is_path(func, "Some") && args.len() == 1 =>
                {
                    self.eval(&args[0], inner)
                }
                _ => None,
            },
            Shape::Wrap(w, inner) if w.forwards() => match expr {
                Expr::Call(ExprCall { args, .. }) if args.len() == 1 => self.eval(&args[0], inner),
                _ => None,
            },
            Shape::Wrap(Wrapper::Vec | Wrapper::VecDeque, inner) => {
                match expr {
                    Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                        let items = m
                        .mac
                        .parse_body_with(syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated)
                        .ok()?;
                        items
                            .iter()
                            .map(|e| self.eval(e, inner))
                            .collect::<Option<Vec<_>>>()
                            .map(Value::Array)
                    }
                    Expr::Call(ExprCall { func, args, .. })
                        if args.is_empty() && path_last(func) == Some("new") =>
                    {
                        Some(Value::Array(Vec::new()))
                    }
                    _ => None,
                }
            }
            Shape::K8s(k) => self.eval_k8s(k.path, expr),
            Shape::User(item) => match expr {
                Expr::Path(ExprPath { path, .. }) if path.segments.len() >= 2 => {
                    let variant = &path.segments.last()?.ident;
                    let r = self.variant_value(item, variant, Content::Unit, span_of(expr));
                    self.noted(r)
                }
                Expr::Struct(literal) if matches!(item.item, TypeItem::Enum(_)) => {
                    let variant = &literal.path.segments.last()?.ident;
                    let content = Content::Struct(literal);
                    let r = self.variant_value(item, variant, content, span_of(expr));
                    self.noted(r)
                }
                Expr::Struct(literal) => self.struct_literal(item, literal),
                // `Source::Git(..)`: a newtype variant.
                Expr::Call(ExprCall { func, args, .. })
                    if args.len() == 1 && matches!(item.item, TypeItem::Enum(_)) =>
                {
                    let Expr::Path(p) = &**func else {
                        return None;
                    };
                    let variant = &p.path.segments.last()?.ident;
                    let content = Content::Newtype(&args[0]);
                    let r = self.variant_value(item, variant, content, span_of(expr));
                    self.noted(r)
                }
                // A newtype struct's constructor: `Replicas(3)` (not `Replicas::new(3)`).
                Expr::Call(ExprCall { func, args, .. })
                    if args.len() == 1
                        && matches!(&**func, Expr::Path(p)
                        if p.path.segments.last().is_some_and(|s| {
                            s.ident == "Self" || s.ident == *item.item.ident()
                        })) =>
                {
                    let arg = &args[0];
                    let span = span_of(expr);
                    let r = self.struct_value(item, span, |d, _, shape| {
                        d.eval(arg, shape).ok_or_else(|| not_literal(span))
                    });
                    self.noted(r)
                }
                _ => None,
            },
            _ => None,
        }
    }
}

/// What a variant holds in a default's expression.
#[derive(Clone, Copy)]
enum Content<'e> {
    Unit,
    /// `V(expr)`
    Newtype(&'e Expr),
    /// `V { field: expr, .. }`
    Struct(&'e syn::ExprStruct),
}

/// Where named fields are written: the item's module and type arguments, its name for
/// messages, and the rename rule for its fields.
struct FieldsOf<'c, 'a> {
    ctx: &'c Ctx,
    bindings: &'c [(String, Shape<'a>)],
    owner: &'c syn::Ident,
    rename_all: Option<RenameRule>,
}

/// The named fields a struct expression sets, with their expressions.
fn given_fields(literal: &syn::ExprStruct) -> Vec<(String, &Expr)> {
    literal
        .fields
        .iter()
        .filter_map(|f| match &f.member {
            syn::Member::Named(i) => Some((unraw(i), &f.expr)),
            syn::Member::Unnamed(_) => None,
        })
        .collect()
}

fn not_literal(span: Span) -> Unsupported {
    Unsupported::new(
        span,
        "this default",
        "it is not a literal value rsbuilder can evaluate",
    )
}

/// The path a value expression reads, through the conversions a default may wrap it in
/// (`.into()`, `.to_string()`, `.to_owned()`, `String::from(..)`), with `Self` named.
fn const_path(expr: &Expr, self_ty: Option<&str>) -> Option<Expr> {
    match expr {
        Expr::MethodCall(m)
            if m.args.is_empty()
                && ["into", "to_string", "to_owned"].contains(&&*m.method.to_string()) =>
        {
            const_path(&m.receiver, self_ty)
        }
        Expr::Call(ExprCall { func, args, .. })
            if args.len() == 1
                && matches!(&**func, Expr::Path(p) if p.path.segments.len() == 2
                    && p.path.segments[0].ident == "String"
                    && p.path.segments[1].ident == "from") =>
        {
            const_path(&args[0], self_ty)
        }
        Expr::Paren(p) => const_path(&p.expr, self_ty),
        Expr::Path(p) if p.qself.is_none() => Some(Expr::Path(syn::ExprPath {
            path: with_self(&p.path, self_ty),
            ..p.clone()
        })),
        _ => None,
    }
}

/// `path` with a leading `Self` replaced by the type it names there.
fn with_self(path: &syn::Path, self_ty: Option<&str>) -> syn::Path {
    let mut path = path.clone();
    if let (Some(first), Some(ty)) = (path.segments.first_mut(), self_ty)
        && first.ident == "Self"
    {
        first.ident = syn::Ident::new(ty, first.ident.span());
    }
    path
}

/// The one expression a function body is, if it is one.
fn single_expr(body: &syn::Block) -> Option<&Expr> {
    match body.stmts.as_slice() {
        [Stmt::Expr(expr, None)] => Some(expr),
        _ => None,
    }
}

fn literal_prim(p: Prim, expr: &Expr) -> Option<Value> {
    match p {
        Prim::String | Prim::PathBuf => string_expr(expr).map(Value::from),
        Prim::Bool => lit_bool(expr).ok().map(Value::from),
        Prim::F32 => lit_number(expr)?.as_f64().map(|f| Value::from(f as f32)),
        Prim::F64 => lit_number(expr)?.as_f64().map(Value::from),
        p if p.is_integer() => {
            let v = lit_number(expr)?;
            if v.is_i64() || v.is_u64() {
                Some(v)
            } else {
                None
            }
        }
        _ => None,
    }
}

fn unknown_default(path: &str, span: Span) -> Unsupported {
    Unsupported::new(
        span,
        format!("the default of `{path}`"),
        "it has no `Default`, or one whose serialized value rsbuilder does not know",
    )
}

/// `Default::default()`, `T::default()`, `<T>::default()`.
fn is_default_call(expr: &Expr) -> bool {
    matches!(expr, Expr::Call(ExprCall { func, args, .. }) if args.is_empty() && path_last(func) == Some("default"))
}

fn path_last(func: &Expr) -> Option<&str> {
    let Expr::Path(ExprPath { path, .. }) = func else {
        return None;
    };
    let last = path.segments.last()?;
    // `Box::new`, `Vec::new`, `T::default`: only the last segment matters here.
    Some(match last.ident.to_string().as_str() {
        "default" => "default",
        "new" => "new",
        _ => return None,
    })
}

fn is_path(func: &Expr, name: &str) -> bool {
    matches!(func, Expr::Path(ExprPath { path, .. }) if path.is_ident(name))
}

/// Evaluates `skip_serializing_if = "..."` for the std predicates serde users write.
fn skip_if(skip: &SkipIf, value: &Value) -> R<bool> {
    match skip.path.rsplit("::").next() {
        Some("is_none") => Ok(value.is_null()),
        Some("is_empty") => Ok(match value {
            Value::String(s) => s.is_empty(),
            Value::Array(a) => a.is_empty(),
            Value::Object(o) => o.is_empty(),
            _ => false,
        }),
        _ => Err(Unsupported::new(
            skip.span,
            format!("a default with `skip_serializing_if = \"{}\"`", skip.path),
            "whether the default is written depends on user code",
        )),
    }
}
