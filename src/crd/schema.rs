//! From the syn model to the schema schemars 1.2's `#[derive(JsonSchema)]` would build,
//! *before* any transform. Each function mirrors one function of schemars_derive's
//! `schema_exprs.rs` (named in its doc) and uses schemars' own helpers
//! (`schemars::_private::*`) wherever the derive's generated code calls them, so only the
//! per-type control flow is re-written here. kube's `KubeSchema` (`#[x_kube]`) is applied
//! on top, as kube-derive's generated `json_schema` does.
//!
//! Anything that cannot be reproduced exactly becomes a diagnostic and the result `None`.
//!
//! Why one file: it mirrors schemars_derive's `schema_exprs.rs`, itself one file, function
//! for function, so that the two can be read side by side.

use proc_macro2::Span;
use schemars::{Schema, json_schema};
use serde_json::Value;
use syn::Fields;

use super::attrs::schemars::{Common, SchemarsAttrs, Validation};
use super::attrs::serde::{
    DefaultAttr, RenameRule, SerdeContainer, SerdeField, field_name, transparent_field, unraw,
};
use super::attrs::{self, kube::XKube};
use super::builder::{Builder, Ctx, MAX_INLINED, too_many_instances};
use super::consts;
use super::defaults::Defaults;
use super::diagnostics::{Diagnostic, Unsupported, span_of};
use super::model::{TypeItem, derives};
use super::resolve::{ItemRef, MAX_TYPE_NESTING, Resolver, Shape, bindings_of};
use super::typeops::{
    Op, Slot, Wrapper, apply, with_option_slot, with_slot, with_slot2, with_stand_in,
};

impl<'i, 'a> Builder<'i, 'a> {
    /// The literal schema of a `#[schemars(schema_with = "f")]` (`Some(None)` without one;
    /// `None`, refused, when `f` computes its schema).
    fn schema_with(&mut self, ctx: &Ctx, sa: &SchemarsAttrs) -> Option<Option<Schema>> {
        let Some((path, span)) = &sa.schema_with else {
            return Some(None);
        };
        match consts::literal_schema(self.index, &ctx.module, path) {
            Ok(s) => Some(Some(s)),
            Err(why) => {
                let why = format!("the schema is produced by user code ({why})");
                self.refuse(
                    ctx,
                    Unsupported::new(*span, "`#[schemars(schema_with = ...)]`", why),
                );
                None
            }
        }
    }

    /// `ValidationAttrs::add_mutators`: the keywords in schemars' order, each value
    /// decided from the sources (`None`, refused, when one is computed).
    fn add_validation(&mut self, ctx: &Ctx, schema: &mut Schema, v: &Validation) -> Option<()> {
        use schemars::_private::insert_validation_property as insert;
        let index = self.index;
        // A bound may name a const parameter of the type being built (`range(max = MAX)`).
        let number = |b: &mut Self, e: &syn::Expr| {
            let bindings = b.scopes.last().cloned().unwrap_or_default();
            match Resolver::with_bindings(index, bindings).const_value(&ctx.module, e) {
                Ok(n) => Some(n),
                Err(why) => {
                    b.refuse(
                        ctx,
                        Unsupported::new(span_of(e), "this validation bound", why),
                    );
                    None
                }
            }
        };
        if let Some(len) = &v.length {
            for (ty, suffix) in [("string", "Length"), ("array", "Items")] {
                if let Some(min) = &len.min {
                    insert(schema, ty, &format!("min{suffix}"), number(self, min)?);
                }
                if let Some(max) = &len.max {
                    insert(schema, ty, &format!("max{suffix}"), number(self, max)?);
                }
            }
        }
        if let Some(range) = &v.range {
            if let Some(min) = &range.min {
                insert(schema, "number", "minimum", number(self, min)?);
            }
            if let Some(max) = &range.max {
                insert(schema, "number", "maximum", number(self, max)?);
            }
        }
        let text =
            |b: &mut Self, e: &syn::Expr, what: &str| match consts::text(index, &ctx.module, e) {
                Ok(t) => Some(t),
                Err(why) => {
                    b.refuse(
                        ctx,
                        Unsupported::new(span_of(e), format!("this validation {what}"), why),
                    );
                    None
                }
            };
        if let Some(pattern) = &v.pattern {
            let p = text(self, pattern, "pattern")?;
            insert(schema, "string", "pattern", p);
        }
        if let Some(contains) = &v.contains {
            let c = text(self, contains, "`contains` value")?;
            schemars::_private::must_contain(schema, &c);
        }
        if let Some(format) = v.format {
            schema.insert("format".into(), format.into());
        }
        if let Some(inner) = &v.inner
            && !inner.is_default()
        {
            // `apply_inner_validation`: only an array's `items` schema is changed.
            if let Some(items) = schema
                .get_mut("items")
                .and_then(|i| <&mut Schema>::try_from(i).ok())
            {
                self.add_validation(ctx, items, inner)?;
            }
        }
        Some(())
    }

    pub fn error(&mut self, ctx: &Ctx, span: Span, message: impl Into<String>) {
        let d = Diagnostic::at(self.index.path_at(ctx.file, span), span, message);
        self.diags.push(d);
    }

    /// Refuses a field, variant or type whose `#[cfg]`/`#[cfg_attr]` the source does not
    /// decide (it may not exist, or carry attributes that are not known); `true` if so.
    /// `what` names it, written out only then: every field is asked.
    fn undecided(
        &mut self,
        ctx: &Ctx,
        what: impl FnOnce() -> String,
        attrs: &[syn::Attribute],
    ) -> bool {
        let Some(u) = super::cfg::undecided(&self.index.krate.cfg, attrs) else {
            return false;
        };
        let why = format!("it is under {}, and {}", u.what, u.why);
        self.refuse(ctx, Unsupported::new(u.span, what(), why));
        true
    }

    fn refuse_all(&mut self, ctx: &Ctx, list: Vec<Unsupported>) -> bool {
        let any = !list.is_empty();
        for u in list {
            self.refuse(ctx, u);
        }
        any
    }

    pub fn resolve(&mut self, ctx: &Ctx, ty: &syn::Type) -> Option<Shape<'a>> {
        let bindings = self.scopes.last().cloned().unwrap_or_default();
        let resolver = Resolver::with_bindings(self.index, bindings);
        match resolver.resolve(&ctx.module, ty) {
            Ok(s) => Some(s),
            Err(u) => {
                self.refuse(ctx, u);
                None
            }
        }
    }

    /// `op` applied to a resolved type.
    pub fn shape_schema(&mut self, shape: &Shape<'a>, op: Op) -> Option<Schema> {
        match shape {
            Shape::Prim(p) => Some(p.apply()(op, &mut self.generator)),
            Shape::K8s(k) => Some(k.schema(op, &mut self.generator)),
            Shape::User(item) => {
                let s = self.item_schema(item)?;
                if op == Op::Subschema {
                    // `subschema_for` an inlined type is its `json_schema` as it is: through
                    // the slot it would be copied whole (and the original dropped), at every
                    // level of a deep tree of user types.
                    return Some(s);
                }
                let non_optional = self.non_optional_for(shape, op)?;
                let g = &mut self.generator;
                Some(with_option_slot(s, non_optional, || apply::<Slot>(op, g)))
            }
            Shape::Wrap(w, inner) => {
                let s = self.shape_schema(inner, Op::Subschema)?;
                let non_optional = self.non_optional_for(inner, op)?;
                let g = &mut self.generator;
                let f = w.apply();
                if w.places_whole() {
                    return Some(with_stand_in(s, non_optional, || f(op, g)));
                }
                Some(with_option_slot(s, non_optional, || f(op, g)))
            }
            Shape::Map(w, key, value) => {
                let k = self.shape_schema(key, Op::Subschema)?;
                let v = self.shape_schema(value, Op::Subschema)?;
                let f = w.apply_keyed()?;
                let g = &mut self.generator;
                Some(with_slot(k, || with_slot2(v, || f(op, g))))
            }
            Shape::Ext(t, params) => {
                let mut schemas = Vec::new();
                for p in params {
                    schemas.push(self.shape_schema(p, Op::Subschema)?);
                }
                let g = &mut self.generator;
                let mut schemas = schemas.into_iter();
                Some(match (schemas.next(), schemas.next()) {
                    (None, _) => (t.apply)(op, g),
                    (Some(a), None) => with_slot(a, || (t.apply)(op, g)),
                    (Some(a), Some(b)) => with_slot(a, || with_slot2(b, || (t.apply)(op, g))),
                })
            }
            Shape::Array(len, inner) => {
                let s = self.shape_schema(inner, Op::Subschema)?;
                let f = super::std_types::array(*len)?;
                let g = &mut self.generator;
                Some(with_slot(s, || f(op, g)))
            }
            Shape::Const(_) => unreachable!("`resolve` refuses a const parameter used as a type"),
        }
    }

    /// [`Self::option_inner`] where `op` asks for it: `subschema_for` never does, and
    /// building the schema again at every `Option` would double the work per level.
    fn non_optional_for(&mut self, shape: &Shape<'a>, op: Op) -> Option<Option<Schema>> {
        match op {
            Op::Subschema => Some(None),
            Op::NonOptional | Op::Flatten { .. } => self.option_inner(shape),
        }
    }

    /// schemars' `_schemars_private_is_option`.
    pub fn is_option(&mut self, shape: &Shape<'a>) -> Option<bool> {
        Some(self.option_of(shape)?.is_some())
    }

    /// What schemars' `_schemars_private_non_optional_json_schema` gives for a type it
    /// treats as an `Option`; `Some(None)` for every other type.
    pub fn option_inner(&mut self, shape: &Shape<'a>) -> Option<Option<Schema>> {
        match self.option_of(shape)? {
            Some(inner) => Some(Some(self.shape_schema(&inner, Op::NonOptional)?)),
            None => Some(None),
        }
    }

    /// The `T` of a type schemars treats as `Option<T>` (`_schemars_private_is_option`):
    /// `Option` itself, the wrappers that forward to it, and fully transparent newtypes of
    /// those. `Some(None)` for every other type.
    fn option_of(&mut self, shape: &Shape<'a>) -> Option<Option<Shape<'a>>> {
        match shape {
            Shape::Wrap(Wrapper::Option, inner) => Some(Some((**inner).clone())),
            Shape::Wrap(w, inner) if w.forwards() => self.option_of(inner),
            Shape::User(item) => match self.transparent_target(item)? {
                Some(target) => self.option_of(&target),
                None => Some(None),
            },
            _ => Some(None),
        }
    }

    /// The type a derived `JsonSchema` impl forwards everything to (schemars'
    /// `get_transparent_type`): a container `#[schemars(with = "T")]`, or the field of a
    /// `#[serde(transparent)]` struct, when neither carries metadata of its own (a doc
    /// comment counts).
    fn transparent_target(&mut self, item: &ItemRef<'a>) -> Option<Option<Shape<'a>>> {
        let attrs = item.item.attrs();
        if !derives(attrs, "JsonSchema") {
            return Some(None);
        }
        let ctx = Ctx {
            module: item.module.clone(),
            file: item.file,
        };
        let sch = self.read(&ctx, attrs::schemars::read(attrs))?;
        if !sch.common.is_default() {
            return Some(None);
        }
        let ty = match (&sch.with, item.item) {
            (Some(with), _) => with.clone(),
            (None, TypeItem::Struct(s)) => {
                let serde = self.read(&ctx, attrs::serde::container(attrs))?;
                let Some(field) = serde.transparent.then(|| transparent_field(s)).flatten() else {
                    return Some(None);
                };
                let fa = self.read(&ctx, attrs::schemars::read(&field.attrs))?;
                if !fa.common.is_default()
                    || !fa.validation.is_default()
                    || fa.with.is_some()
                    || fa.schema_with.is_some()
                {
                    return Some(None);
                }
                field.ty.clone()
            }
            (None, _) => return Some(None),
        };
        self.scopes.push(bindings_of(item));
        let target = self.resolve(&ctx, &ty);
        self.scopes.pop();
        Some(Some(target?))
    }

    /// `T::json_schema(generator)` for a struct or enum from the sources
    /// (`expr_for_container`).
    pub fn item_schema(&mut self, item: &ItemRef<'a>) -> Option<Schema> {
        let ctx = Ctx {
            module: item.module.clone(),
            file: item.file,
        };
        let ident = item.item.ident();
        let attrs = item.item.attrs();
        let key = item.key();
        if self.stack.contains(&key) {
            self.refuse(
                &ctx,
                Unsupported::new(
                    ident.span(),
                    format!("recursive type `{ident}`"),
                    "schemars would emit a `$ref`, which CRDs do not allow",
                ),
            );
            return None;
        }
        if self.stack.len() >= MAX_TYPE_NESTING {
            self.refuse(
                &ctx,
                Unsupported::new(
                    ident.span(),
                    format!("type `{ident}`"),
                    format!("it is nested more than {MAX_TYPE_NESTING} types deep"),
                ),
            );
            return None;
        }
        self.inlined += 1;
        if self.inlined > MAX_INLINED {
            // Reported once; every use after it fails silently.
            if self.inlined == MAX_INLINED + 1 {
                self.refuse(&ctx, too_many_instances(ident.span(), ident));
            }
            return None;
        }
        let kube_schema = derives(attrs, "KubeSchema");
        if !derives(attrs, "JsonSchema") && !kube_schema {
            let manual = self
                .index
                .module(&item.module)
                .is_some_and(|m| m.manual_json_schema.contains(&ident.to_string()));
            let why = if manual {
                "it has a hand-written `impl JsonSchema`"
            } else {
                "it does not derive `JsonSchema` (its schema comes from elsewhere)"
            };
            self.refuse(
                &ctx,
                Unsupported::new(ident.span(), format!("type `{ident}`"), why),
            );
            return None;
        }
        self.stack.push(key);
        self.scopes.push(bindings_of(item));
        let out = self.container_schema(&ctx, item, kube_schema);
        self.scopes.pop();
        self.stack.pop();
        out
    }

    fn container_schema(
        &mut self,
        ctx: &Ctx,
        item: &ItemRef<'a>,
        kube_schema: bool,
    ) -> Option<Schema> {
        let attrs = item.item.attrs();
        if self.undecided(ctx, || format!("type `{}`", item.item.ident()), attrs) {
            return None;
        }
        let serde = self.read(ctx, attrs::serde::container(attrs))?;
        let mut sch = self.read(ctx, attrs::schemars::read(attrs))?;
        if kube_schema {
            // KubeSchema re-derives a copy of the struct keeping only serde/schemars/doc/validate attributes.
            sch.common.deprecated = false;
        }
        let mut refused = self.refuse_all(ctx, serde.unsupported.clone());
        refused |= self.refuse_all(ctx, std::mem::take(&mut sch.unsupported));
        if !sch.validation.is_default() {
            refused = true;
            self.refuse(
                ctx,
                Unsupported::new(
                    item.item.ident().span(),
                    "validation attributes on a container",
                    "schemars ignores or rejects them there",
                ),
            );
        }
        if refused {
            return None;
        }
        let mut schema = if let Some(s) = self.schema_with(ctx, &sch)? {
            s
        } else if let Some(with) = &sch.with {
            let shape = self.resolve(ctx, with)?;
            self.shape_schema(&shape, Op::Subschema)?
        } else if let Some(from) = serde.from.as_ref().filter(|_| !serde.transparent) {
            // kube-derive generates under the deserialize contract, where schemars takes
            // the schema of the `from`/`try_from` type (`into` only counts when serializing).
            let shape = self.resolve(ctx, from)?;
            self.shape_schema(&shape, Op::Subschema)?
        } else {
            match item.item {
                TypeItem::Struct(s) => self.struct_data(ctx, item, s, &serde, kube_schema)?,
                TypeItem::Enum(e) => self.enum_schema(ctx, e, &serde)?,
                TypeItem::Alias(_) => return None,
            }
        };
        add_common(&mut schema, &sch.common);
        add_post(&mut schema, &sch.common);
        Some(schema)
    }

    fn struct_data(
        &mut self,
        ctx: &Ctx,
        item: &ItemRef<'a>,
        s: &syn::ItemStruct,
        serde: &SerdeContainer,
        kube_schema: bool,
    ) -> Option<Schema> {
        match &s.fields {
            // `#[serde(transparent)]` takes the schema of the field it stands for.
            _ if serde.transparent => match transparent_field(s) {
                Some(field) => self.field_expr(ctx, field),
                None => {
                    self.error(
                        ctx,
                        s.ident.span(),
                        "`#[serde(transparent)]` needs exactly one field that is deserialized",
                    );
                    None
                }
            },
            Fields::Named(named) => {
                let fields: Vec<&syn::Field> = named.named.iter().collect();
                let container_default = match &serde.default {
                    DefaultAttr::None => None,
                    attr => Some(self.container_default(ctx, item, attr)?),
                };
                let mut schema = self.struct_schema(
                    ctx,
                    &fields,
                    serde.rename_all,
                    container_default.as_ref(),
                    serde.deny_unknown_fields,
                    kube_schema,
                )?;
                if kube_schema {
                    self.apply_kube_schema(ctx, s, &mut schema, serde.rename_all)?;
                }
                Some(schema)
            }
            Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                // Newtype structs (and `#[serde(transparent)]`) take the inner field's schema.
                self.field_expr(ctx, &u.unnamed[0])
            }
            Fields::Unit => Some(apply::<()>(Op::Subschema, &mut self.generator)),
            Fields::Unnamed(_) => {
                self.refuse(
                    ctx,
                    Unsupported::new(
                        s.ident.span(),
                        format!("tuple struct `{}`", s.ident),
                        "tuple schemas (`prefixItems`) are not structural",
                    ),
                );
                None
            }
        }
    }

    /// Where the fields of a struct with a container `#[serde(default)]` (derived or
    /// hand-written `Default`) or `#[serde(default = "f")]` take their defaults from.
    fn container_default(
        &mut self,
        ctx: &Ctx,
        item: &ItemRef<'a>,
        attr: &DefaultAttr,
    ) -> Option<ContainerDefault> {
        let ident = item.item.ident();
        let (value, span, what, why) = match attr {
            DefaultAttr::None => return None,
            DefaultAttr::Default(_) if derives(item.item.attrs(), "Default") => {
                return Some(ContainerDefault::Derived);
            }
            DefaultAttr::Default(span) => (
                Defaults::new(self).written_value(ctx, item, *span)?,
                *span,
                format!("`#[serde(default)]` on `{ident}`"),
                "its `Default` value does not serialize as an object",
            ),
            DefaultAttr::Path(path, span) => (
                Defaults::new(self).fn_value(ctx, path, &Shape::User(item.clone()), *span)?,
                *span,
                "`#[serde(default = \"...\")]` on a struct".to_string(),
                "its value does not serialize as an object",
            ),
        };
        match value {
            Value::Object(map) => Some(ContainerDefault::Value(map)),
            _ => {
                self.refuse(ctx, Unsupported::new(span, what, why));
                None
            }
        }
    }

    /// `expr_for_struct`.
    fn struct_schema(
        &mut self,
        ctx: &Ctx,
        fields: &[&syn::Field],
        rename_all: Option<RenameRule>,
        container_default: Option<&ContainerDefault>,
        deny_unknown_fields: bool,
        kube_schema: bool,
    ) -> Option<Schema> {
        let mut schema = if deny_unknown_fields {
            json_schema!({"type": "object", "additionalProperties": false})
        } else {
            json_schema!({"type": "object"})
        };
        let mut ok = true;
        for field in fields {
            ok &= self
                .struct_field(
                    ctx,
                    &mut schema,
                    field,
                    rename_all,
                    container_default,
                    kube_schema,
                )
                .is_some();
        }
        ok.then_some(schema)
    }

    fn struct_field(
        &mut self,
        ctx: &Ctx,
        schema: &mut Schema,
        field: &syn::Field,
        rename_all: Option<RenameRule>,
        container_default: Option<&ContainerDefault>,
        kube_schema: bool,
    ) -> Option<()> {
        if self.undecided(ctx, || field_what(field), &field.attrs) {
            return None;
        }
        let sf = self.read(ctx, attrs::serde::field(&field.attrs))?;
        let sa = if kube_schema {
            // KubeSchema re-derives a copy of the struct keeping only serde, schemars, doc
            // and validate attributes: `#[deprecated]` and `#[garde]` never reach schemars.
            let kept: Vec<syn::Attribute> = field
                .attrs
                .iter()
                .filter(|a| {
                    crate::syntax::is_kept_doc(a)
                        || ["serde", "schemars", "doc", "validate"]
                            .iter()
                            .any(|k| a.path().is_ident(k))
                })
                .cloned()
                .collect();
            attrs::schemars::read(&kept)
        } else {
            attrs::schemars::read(&field.attrs)
        };
        let mut sa = self.read(ctx, sa)?;
        let mut refused = self.refuse_all(ctx, sf.unsupported.clone());
        refused |= self.refuse_all(ctx, std::mem::take(&mut sa.unsupported));
        if refused {
            return None;
        }
        // Deserialize contract: fields serde never reads are not in the schema.
        if sf.skip_deserializing {
            return Some(());
        }
        let name = field_name(field.ident.as_ref(), &sf, rename_all);
        // The schema may come from another type (`with`), the default never does.
        let (ty, overridden) = self.field_type(ctx, field, &sa, &sf)?;
        let required = sa.validation.required;
        let has_default = container_default.is_some() || !sf.default.is_none();
        let literal = self.schema_with(ctx, &sa)?;
        // With `schema_with` the field's own type only gives its default value.
        let shape = if literal.is_none() || (has_default && !sf.skip_serializing) {
            Some(self.resolve(ctx, ty)?)
        } else {
            None
        };
        let op = match (sf.flatten, required) {
            (true, _) => Op::Flatten { required },
            (false, true) => Op::NonOptional,
            (false, false) => Op::Subschema,
        };
        let is_option = match (&literal, &shape) {
            (None, Some(shape)) => self.is_option(shape)?,
            _ => false,
        };
        let mut sub = match literal {
            Some(s) => s,
            None => self.shape_schema(shape.as_ref()?, op)?,
        };
        if sf.flatten {
            schemars::_private::flatten(schema, sub);
            return Some(());
        }
        add_common(&mut sub, &sa.common);
        self.add_validation(ctx, &mut sub, &sa.validation)?;
        if sf.skip_serializing {
            sub.insert("writeOnly".into(), true.into());
        }
        if has_default && !sf.skip_serializing {
            let span = match &sf.default {
                DefaultAttr::Default(s) | DefaultAttr::Path(_, s) => *s,
                DefaultAttr::None => span_of(field),
            };
            let value = match (container_default, &sf.default) {
                (Some(ContainerDefault::Value(map)), DefaultAttr::None) => map.get(&name).cloned(),
                _ if overridden => {
                    let own = self.resolve(ctx, &field.ty)?;
                    Defaults::new(self).field_default(ctx, &sf, &own, span)?
                }
                _ => Defaults::new(self).field_default(ctx, &sf, shape.as_ref()?, span)?,
            };
            if let Some(v) = value {
                sub.insert("default".into(), v);
            }
        }
        add_post(&mut sub, &sa.common);
        let is_optional = has_default || (!required && is_option);
        schemars::_private::insert_object_property(schema, &name, is_optional, sub);
        Some(())
    }

    /// The type whose schema a field takes (schemars' `type_for_field_schema`), and whether
    /// it is another type than the field's: `#[schemars(with)]`, else serde's `with` read
    /// as a type, else the field's own type. A `schema_with` function wins over serde's
    /// `with` (the field type then only gives the default).
    fn field_type<'f>(
        &mut self,
        ctx: &Ctx,
        field: &'f syn::Field,
        sa: &'f SchemarsAttrs,
        sf: &'f SerdeField,
    ) -> Option<(&'f syn::Type, bool)> {
        if let Some(with) = &sa.with {
            return Some((with, true));
        }
        let Some((with, span)) = sf.with.as_ref().filter(|_| sa.schema_with.is_none()) else {
            return Some((&field.ty, false));
        };
        let bindings = self.scopes.last().cloned().unwrap_or_default();
        if let Err(u) = Resolver::with_bindings(self.index, bindings).resolve(&ctx.module, with) {
            let shown = quote::ToTokens::to_token_stream(with)
                .to_string()
                .replace(' ', "");
            let why = format!(
                "schemars reads `with` as a type, and {}: {}; if `{shown}` is a module, add `#[schemars(with = \"T\")]` naming the type the field is serialized as",
                u.what, u.why
            );
            let what = format!("`#[serde(with = \"{shown}\")]`");
            self.refuse(ctx, Unsupported::new(*span, what, why));
            return None;
        }
        Some((with, true))
    }

    /// `expr_for_field` for a newtype struct or variant's single field.
    fn field_expr(&mut self, ctx: &Ctx, field: &syn::Field) -> Option<Schema> {
        if self.undecided(ctx, || field_what(field), &field.attrs) {
            return None;
        }
        let mut sa = self.read(ctx, attrs::schemars::read(&field.attrs))?;
        let sf = self.read(ctx, attrs::serde::field(&field.attrs))?;
        let mut refused = self.refuse_all(ctx, sf.unsupported.clone());
        refused |= self.refuse_all(ctx, std::mem::take(&mut sa.unsupported));
        if refused {
            return None;
        }
        let (ty, _) = self.field_type(ctx, field, &sa, &sf)?;
        let op = if sa.validation.required {
            Op::NonOptional
        } else {
            Op::Subschema
        };
        let mut s = match self.schema_with(ctx, &sa)? {
            Some(s) => s,
            None => {
                let shape = self.resolve(ctx, ty)?;
                self.shape_schema(&shape, op)?
            }
        };
        add_common(&mut s, &sa.common);
        self.add_validation(ctx, &mut s, &sa.validation)?;
        if sf.skip_serializing {
            s.insert("writeOnly".into(), true.into());
        }
        add_post(&mut s, &sa.common);
        Some(s)
    }

    /// `expr_for_enum`: externally tagged and untagged enums. Internally and adjacently
    /// tagged enums are refused: kube's structural rewrite panics on their shared tag.
    fn enum_schema(
        &mut self,
        ctx: &Ctx,
        e: &syn::ItemEnum,
        serde: &SerdeContainer,
    ) -> Option<Schema> {
        if serde.tag.is_some() {
            let why = if serde.content.is_some() {
                "adjacently tagged"
            } else {
                "internally tagged"
            };
            self.refuse(
                ctx,
                Unsupported::new(e.ident.span(), format!("{why} enum `{}`", e.ident), "kube-derive's structural rewrite cannot merge the variants' shared tag property (it panics at run time)"),
            );
            return None;
        }
        if e.variants.is_empty() {
            return Some(Schema::from(false));
        }
        let mut variants = Vec::new();
        let mut ok = true;
        for v in &e.variants {
            match self.variant(ctx, v, serde) {
                Some(Some(info)) => variants.push(info),
                Some(None) => {}
                None => ok = false,
            }
        }
        if !ok {
            return None;
        }
        if serde.untagged {
            let mut schemas = Vec::new();
            for v in &variants {
                let mut s = self.untagged_variant(ctx, v, serde)?;
                add_common(&mut s, &v.attrs.common);
                add_post(&mut s, &v.attrs.common);
                schemas.push(s.to_value());
            }
            return Some(json_schema!({ "anyOf": schemas }));
        }
        // expr_for_external_tagged_enum
        let (units, complex): (Vec<&VariantInfo>, Vec<&VariantInfo>) =
            variants.iter().partition(|v| {
                v.is_unit() && v.attrs.common.is_default() && !v.has_with() && !v.untagged
            });
        let unit_names: Vec<Value> = units.iter().map(|v| Value::from(v.name.clone())).collect();
        let unit_schema = json_schema!({"type": "string", "enum": unit_names});
        if complex.is_empty() {
            return Some(unit_schema);
        }
        let mut schemas = Vec::new();
        if !units.is_empty() {
            schemas.push(unit_schema.to_value());
        }
        let mut unique = true;
        for v in complex {
            if v.untagged {
                unique = false;
                let mut s = self.untagged_variant(ctx, v, serde)?;
                add_common(&mut s, &v.attrs.common);
                add_post(&mut s, &v.attrs.common);
                schemas.push(s.to_value());
                continue;
            }
            let mut s = if v.is_unit() && !v.has_with() {
                schemars::_private::new_unit_enum_variant(&v.name)
            } else {
                let sub = self.untagged_variant(ctx, v, serde)?;
                schemars::_private::new_externally_tagged_enum_variant(&v.name, sub)
            };
            add_common(&mut s, &v.attrs.common);
            add_post(&mut s, &v.attrs.common);
            schemas.push(s.to_value());
        }
        let keyword = if unique { "oneOf" } else { "anyOf" };
        let mut map = serde_json::Map::new();
        map.insert(keyword.into(), Value::Array(schemas));
        Some(Schema::from(map))
    }

    /// Reads a variant; `Some(None)` when the deserialize contract skips it.
    fn variant<'v>(
        &mut self,
        ctx: &Ctx,
        v: &'v syn::Variant,
        serde: &SerdeContainer,
    ) -> Option<Option<VariantInfo<'v>>> {
        if self.undecided(ctx, || format!("variant `{}`", v.ident), &v.attrs) {
            return None;
        }
        let sv = self.read(ctx, attrs::serde::variant(&v.attrs))?;
        let mut sa = self.read(ctx, attrs::schemars::read(&v.attrs))?;
        if self.refuse_all(ctx, std::mem::take(&mut sa.unsupported)) {
            return None;
        }
        // schemars reads `#[schemars]` first: its `with`/`schema_with` win over serde's `with`.
        if sa.with.is_none() && sa.schema_with.is_none() {
            sa.with = sv.with.map(|(ty, _)| ty);
        }
        if sv.skip_deserializing {
            return Some(None);
        }
        let ident = unraw(&v.ident);
        let name = sv.rename.clone().unwrap_or_else(|| match serde.rename_all {
            Some(rule) => rule.apply_to_variant(&ident),
            None => ident.clone(),
        });
        // `V()` serializes as `[]` and `V(a, b)` as a list: both are tuple schemas.
        if let Fields::Unnamed(u) = &v.fields
            && u.unnamed.len() != 1
        {
            self.refuse(
                ctx,
                Unsupported::new(
                    v.ident.span(),
                    format!("tuple variant `{}`", v.ident),
                    "tuple schemas (`prefixItems`) are not structural",
                ),
            );
            return None;
        }
        Some(Some(VariantInfo {
            variant: v,
            name,
            untagged: sv.untagged,
            rename_all: sv.rename_all.or(serde.rename_all_fields),
            attrs: sa,
        }))
    }

    /// `expr_for_untagged_enum_variant` without the variant's own mutators (the callers add
    /// them where the derive does).
    fn untagged_variant(
        &mut self,
        ctx: &Ctx,
        v: &VariantInfo<'_>,
        serde: &SerdeContainer,
    ) -> Option<Schema> {
        if let Some(schema) = self.schema_with(ctx, &v.attrs)? {
            return Some(schema);
        }
        if let Some(with) = &v.attrs.with {
            let shape = self.resolve(ctx, with)?;
            return self.shape_schema(&shape, Op::Subschema);
        }
        match &v.variant.fields {
            Fields::Unit => Some(apply::<()>(Op::Subschema, &mut self.generator)),
            Fields::Unnamed(u) => self.field_expr(ctx, &u.unnamed[0]),
            Fields::Named(n) => {
                let fields: Vec<&syn::Field> = n.named.iter().collect();
                self.struct_schema(
                    ctx,
                    &fields,
                    v.rename_all,
                    None,
                    serde.deny_unknown_fields,
                    false,
                )
            }
        }
    }

    /// kube-derive's `KubeSchema`: struct-level `validate`, then per field
    /// `validate_property`/`merge_strategy_property` + `merge_properties`.
    fn apply_kube_schema(
        &mut self,
        ctx: &Ctx,
        s: &syn::ItemStruct,
        schema: &mut Schema,
        rename_all: Option<RenameRule>,
    ) -> Option<()> {
        let x = self.read(ctx, attrs::kube::read_x_kube(&s.attrs))?;
        if self.refuse_all(ctx, x.unsupported.clone()) {
            return None;
        }
        for rule in x.validations {
            if let Err(e) = kube_core::validate(schema, rule) {
                self.error(ctx, s.ident.span(), format!("invalid CEL rule: {e}"));
            }
        }
        let Fields::Named(named) = &s.fields else {
            return Some(());
        };
        for field in &named.named {
            let x: XKube = self.read(ctx, attrs::kube::read_x_kube(&field.attrs))?;
            if self.refuse_all(ctx, x.unsupported.clone()) || x.is_empty() {
                continue;
            }
            let sf = self.read(ctx, attrs::serde::field(&field.attrs))?;
            if sf.flatten && self.index.krate.json_preserves_order {
                self.refuse(
                    ctx,
                    Unsupported::new(
                        span_of(field),
                        "`#[x_kube]` on a flattened field",
                        "kube applies it to the first property the field brings, and with serde_json's `preserve_order` on (Cargo.toml or Cargo.lock) that order is the build's",
                    ),
                );
                continue;
            }
            // KubeSchema derives a copy of the struct holding only this field, changes the
            // copy's first property (in serde_json's key order: for a flattened field, the
            // first of the properties it brings) and copies all its properties over.
            let Some(mut merge) = self.struct_schema(ctx, &[field], rename_all, None, false, true)
            else {
                continue;
            };
            for rule in &x.validations {
                if let Err(e) = kube_core::validate_property(&mut merge, 0, rule.clone()) {
                    self.error(ctx, span_of(field), format!("invalid CEL rule: {e}"));
                }
            }
            if let Some(strategy) = x.merge_strategy.clone()
                && let Err(e) = kube_core::merge_strategy_property(&mut merge, 0, strategy)
            {
                self.error(ctx, span_of(field), format!("invalid merge strategy: {e}"));
            }
            kube_core::merge_properties(schema, &mut merge);
        }
        Some(())
    }

    /// Turns an attribute parse error into a diagnostic.
    pub fn read<T>(&mut self, ctx: &Ctx, r: syn::Result<T>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                self.error(ctx, e.span(), format!("invalid attribute: {e}"));
                None
            }
        }
    }
}

/// Where the fields of a struct with a container `#[serde(default)]` get their defaults.
pub enum ContainerDefault {
    /// The struct derives `Default`: `Self::default().field` is the field type's default.
    Derived,
    /// `#[serde(default = "f")]`: the serialized value of `f()`, by property name.
    Value(serde_json::Map<String, Value>),
}

pub struct VariantInfo<'v> {
    pub variant: &'v syn::Variant,
    pub name: String,
    pub untagged: bool,
    pub rename_all: Option<RenameRule>,
    pub attrs: SchemarsAttrs,
}

impl VariantInfo<'_> {
    fn is_unit(&self) -> bool {
        matches!(self.variant.fields, Fields::Unit)
    }

    /// schemars' `variant.attrs.with.is_some()`: a `with` type or a `schema_with` function.
    fn has_with(&self) -> bool {
        self.attrs.with.is_some() || self.attrs.schema_with.is_some()
    }
}

/// How a field is named in messages.
pub fn field_what(field: &syn::Field) -> String {
    match &field.ident {
        Some(i) => format!("field `{}`", unraw(i)),
        None => "this field".to_string(),
    }
}

/// `CommonAttrs::add_mutators` (the part applied before validation and defaults).
pub fn add_common(schema: &mut Schema, c: &Common) {
    let (doc_title, doc_description) = match &c.doc {
        Some(doc) => {
            let (t, d) = schemars::_private::get_title_and_description(doc);
            (Some(t.to_string()), Some(d.to_string()))
        }
        None => (None, None),
    };
    if let Some(title) = c.title.clone().or(doc_title) {
        schemars::_private::insert_metadata_property_if_nonempty(schema, "title", title);
    }
    if let Some(description) = c.description.clone().or(doc_description) {
        schemars::_private::insert_metadata_property_if_nonempty(
            schema,
            "description",
            description,
        );
    }
    if c.deprecated {
        schema.insert("deprecated".into(), true.into());
    }
    if !c.examples.is_empty() {
        schema.insert("examples".into(), Value::Array(c.examples.clone()));
    }
}

/// The post-mutators: `extend(...)` entries, applied after everything else.
pub fn add_post(schema: &mut Schema, c: &Common) {
    for (k, v) in &c.extensions {
        schema.insert(k.clone(), v.clone());
    }
}
