//! What one schema build carries: the index it reads, the generator, the diagnostics so
//! far and the instances inlined against [`MAX_INLINED`]. Its own module, below `defaults`
//! and `schema`: a field's schema asks `defaults` for its `"default"`, and `defaults` counts
//! and refuses on the same build; the schemas themselves are `schema`'s `impl Builder`.

use std::path::Path;

use proc_macro2::Span;
use schemars::SchemaGenerator;
use syn::Ident;

use super::diagnostics::{Diagnostic, Unsupported};
use super::model::Index;
use super::resolve::Shape;

/// Builds schemas for one CRD version with one generator (kube-derive's settings).
pub struct Builder<'i, 'a> {
    pub index: &'i Index<'a>,
    pub generator: SchemaGenerator,
    pub diags: Vec<Diagnostic>,
    /// Items being built, to refuse recursive types (schemars would emit a `$ref`).
    pub(super) stack: Vec<String>,
    /// The type parameters of the items being built, innermost last.
    pub(super) scopes: Vec<Vec<(String, Shape<'a>)>>,
    /// Struct and enum instances inlined so far (schemas and defaults), against
    /// [`MAX_INLINED`].
    pub inlined: usize,
}

/// schemars inlines every use of a type, so types that use the same type twice double it
/// at every level: 13 levels of two fields make a 4.6 MB CRD. Real CRDs inline a few
/// hundred instances; past this many rsbuilder refuses rather than spend minutes building
/// megabytes of schema.
pub const MAX_INLINED: usize = 10_000;

/// Where a field or variant lives: its module and file.
#[derive(Clone)]
pub struct Ctx {
    pub module: Vec<String>,
    pub file: usize,
}

impl<'i, 'a> Builder<'i, 'a> {
    pub fn new(index: &'i Index<'a>, generator: SchemaGenerator) -> Self {
        Self {
            index,
            generator,
            diags: Vec::new(),
            stack: Vec::new(),
            scopes: Vec::new(),
            inlined: 0,
        }
    }

    pub fn path(&self, ctx: &Ctx) -> &'a Path {
        self.index.path_of(ctx.file)
    }

    pub fn refuse(&mut self, ctx: &Ctx, u: Unsupported) {
        let path = self.index.path_at(ctx.file, u.span);
        let d = Diagnostic::not_static(path, u.span, u.what, u.why);
        self.diags.push(d);
    }
}

/// The refusal for a schema or default that inlines more than [`MAX_INLINED`] types.
pub fn too_many_instances(span: Span, ident: &Ident) -> Unsupported {
    Unsupported::new(
        span,
        format!("type `{ident}`"),
        format!(
            "kube-derive inlines more than {MAX_INLINED} struct or enum instances here (a type used twice is written twice, at every level), a CRD of many megabytes"
        ),
    )
}
