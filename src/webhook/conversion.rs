//! Conversion code between two versions of a kind, generated from their Rust types (read
//! with syn, resolved with `crd::resolve`): `to_hub`/`from_hub` functions that copy every
//! field whose serialized name and type match, recursively through nested structs and
//! enums of the same shape, and mark every other field `TODO(rsbuilder)` with a value that
//! compiles. Also sample objects with a value in every field, for the generated tests.
//!
//! Pure: sources in, text out. The layout follows rustfmt through [`super::emit`].
//!
//! Why one file: `Gen` is one walk over two versions' resolved types, and its parts call
//! one another: a pair of structs converts field by field, a field without a counterpart
//! gets a default value, and samples and defaults resolve types the same way; split, they
//! would share `Gen`'s state through an interface as wide as the struct.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context, Result, anyhow, bail};
use heck::ToSnakeCase;
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::{Fields, Type};

use super::emit::{self, Expr, Field, atom, call, chain, vec_of};
use crate::crd::assemble;
use crate::crd::attrs::serde as serde_attrs;
use crate::crd::k8s_types::K8sType;
use crate::crd::model::{self, Index, TypeItem};
use crate::crd::modules::module_path_for;
use crate::crd::resolve::{ItemRef, MAX_TYPE_NESTING, Resolver, Shape};
use crate::crd::sources::ParsedFile;
use crate::crd::typeops::{Prim, Wrapper};
use crate::crd::{Diagnostic, SourceFile};

/// The generated parts of a spoke's conversion file.
#[derive(Debug, Clone, PartialEq)]
pub struct SpokeCode {
    /// `to_hub`, `from_hub` and their helpers.
    pub functions: String,
    /// Whether the functions call `map_values` (to import it).
    pub uses_map_values: bool,
    /// `pub fn sample()` for the spoke, and its helpers.
    pub sample: String,
}

/// One version of a kind as the generator sees it.
#[derive(Clone)]
struct Side<'a> {
    version: String,
    /// The name the generated file gives the kind's module: `spoke`, `hub`, `kind`.
    alias: String,
    /// The `#[derive(CustomResource)]` struct (the spec).
    spec: ItemRef<'a>,
    status: Option<Type>,
    namespaced: bool,
}

/// Parses `sources` (the project's `src/api` files) once for the generators below.
pub struct Sources {
    files: Vec<ParsedFile>,
    /// Conversions are generated for scaffolded types, read without a manifest.
    krate: crate::crd::Crate,
}

impl Sources {
    pub fn parse(sources: &[SourceFile]) -> Result<Self> {
        let mut files = Vec::new();
        for src in sources {
            let ast = crate::syntax::parse_file(&src.text).map_err(|e| {
                anyhow::Error::new(Diagnostic::at(
                    &src.path,
                    e.span(),
                    format!("cannot parse Rust: {e}"),
                ))
            })?;
            files.push(ParsedFile {
                module: module_path_for(&src.path, std::path::Path::new("")),
                path: src.path.clone(),
                ast,
            });
        }
        Ok(Self {
            files,
            krate: crate::crd::Crate::default(),
        })
    }
}

fn find_side<'a>(
    index: &Index<'a>,
    api_group: &str,
    kind: &str,
    version: &str,
    alias: &str,
) -> Result<Side<'a>> {
    let mut diags = Vec::new();
    let found = assemble::find_resources(index, &mut diags)
        .into_iter()
        .find(|r| r.kube.group == api_group && r.kube.kind == kind && r.kube.version == version)
        .with_context(|| {
            format!("no #[derive(CustomResource)] for {kind} {api_group}/{version} under src/api")
        })?;
    let status = match &found.kube.status {
        Some(path) => Some(
            crate::syntax::parse_str::<Type>(&path.to_token_stream().to_string())
                .map_err(|e| anyhow!("the status type of {kind} {version}: {e}"))?,
        ),
        None => None,
    };
    Ok(Side {
        version: version.into(),
        alias: alias.into(),
        spec: found.item,
        status,
        namespaced: found.kube.namespaced,
    })
}

/// Generates the conversion of `kind` between `spoke` and `hub`.
pub fn spoke_code(
    sources: &Sources,
    api_group: &str,
    kind: &str,
    spoke: &str,
    hub: &str,
) -> Result<SpokeCode> {
    let index = Index::build(&sources.files, &sources.krate, Default::default());
    let spoke_side = find_side(&index, api_group, kind, spoke, "spoke")?;
    let hub_side = find_side(&index, api_group, kind, hub, "hub")?;
    let mut g = Gen::new(&index, vec![spoke_side.clone(), hub_side.clone()], kind);
    let functions = g.conversions(&spoke_side, &hub_side)?;
    let uses_map_values = g.uses_map_values;
    let mut s = Gen::new(&index, vec![spoke_side.clone()], kind);
    let sample = s.sample_section(&spoke_side, "pub ", &sample_doc(spoke, kind))?;
    Ok(SpokeCode {
        functions,
        uses_map_values,
        sample,
    })
}

/// `pub fn sample()` (with `visibility`) for `version` of `kind`, its types named through
/// the module alias `alias`, and the helpers it needs.
pub fn sample_code(
    sources: &Sources,
    api_group: &str,
    kind: &str,
    version: &str,
    alias: &str,
    visibility: &str,
    indent: usize,
) -> Result<String> {
    let index = Index::build(&sources.files, &sources.krate, Default::default());
    let side = find_side(&index, api_group, kind, version, alias)?;
    let mut g = Gen::new(&index, vec![side.clone()], kind);
    g.indent = indent;
    g.sample_section(&side, visibility, &sample_doc(version, kind))
}

/// Whether the spec of `version` of `kind` has the field `field: Option<String>`, under
/// its own name: the field `create api` scaffolds (`foo`), which the admission webhooks'
/// example rules use while the user has not replaced it.
pub fn has_optional_string(
    sources: &Sources,
    api_group: &str,
    kind: &str,
    version: &str,
    field: &str,
) -> Result<bool> {
    let index = Index::build(&sources.files, &sources.krate, Default::default());
    let side = find_side(&index, api_group, kind, version, "kind")?;
    let g = Gen::new(&index, vec![side.clone()], kind);
    Ok(g.fields(&side.spec).iter().any(|f| {
        f.ident == field
            && f.key == field
            && !f.skipped
            && f.ty.to_token_stream().to_string().replace(' ', "") == "Option<String>"
    }))
}

/// The version of `kind` the API server stores: the one without `storage = false`.
pub fn storage_version(sources: &Sources, api_group: &str, kind: &str) -> Result<String> {
    let index = Index::build(&sources.files, &sources.krate, Default::default());
    let mut diags = Vec::new();
    let stored: Vec<String> = assemble::find_resources(&index, &mut diags)
        .into_iter()
        .filter(|r| r.kube.group == api_group && r.kube.kind == kind && r.kube.storage)
        .map(|r| r.kube.version)
        .collect();
    match stored.as_slice() {
        [one] => Ok(one.clone()),
        [] => bail!(
            "no version of {kind} ({api_group}) under src/api is stored; exactly one must lack `storage = false`"
        ),
        many => bail!(
            "several versions of {kind} ({api_group}) are stored ({}); all but one need `storage = false`",
            many.join(", ")
        ),
    }
}

fn sample_doc(version: &str, kind: &str) -> String {
    format!(
        "A {version} {kind} with a value in every field and two items in every list, for the \
         tests and the benchmark."
    )
}

/// A resolved field type.
#[derive(Clone)]
enum Ty<'a> {
    Prim(Prim),
    K8s(&'static K8sType),
    Struct(ItemRef<'a>),
    Enum(ItemRef<'a>),
    /// A tuple or unit struct.
    Other(ItemRef<'a>),
    Wrap(Wrapper, Box<Ty<'a>>),
    /// A type outside the sources that rsbuilder does not know; its text.
    Unknown(String),
}

/// How a value of one type becomes a value of the other.
#[derive(Clone, Debug, PartialEq)]
enum Conv {
    Move,
    /// A generated function of one argument.
    Func(String),
    /// A container whose items go through a function (a name or a closure).
    Wrapped(Wrapper, String),
}

/// A field of a struct, keyed by its serialized name.
struct FieldInfo<'a> {
    ident: String,
    key: String,
    ty: &'a Type,
    skipped: bool,
}

/// Which way a conversion goes.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Dir {
    ToHub,
    FromHub,
}

impl Dir {
    fn suffix(self) -> &'static str {
        match self {
            Dir::ToHub => "to_hub",
            Dir::FromHub => "from_hub",
        }
    }
}

struct Gen<'i, 'a> {
    index: &'i Index<'a>,
    sides: Vec<Side<'a>>,
    kind: String,
    /// Function names by (spoke item, hub item).
    pairs: BTreeMap<(String, String), String>,
    /// Pairs still to generate, in discovery order: (spoke item, hub item, base name).
    queue: Vec<(ItemRef<'a>, ItemRef<'a>, String)>,
    taken: BTreeSet<String>,
    /// Helpers written after the pairs (containers in containers, defaults).
    helpers: Vec<Vec<String>>,
    helper_names: BTreeSet<String>,
    uses_map_values: bool,
    /// Structs whose sample is being built (to stop at recursive types).
    sampling: Vec<String>,
    /// Sample helper names by struct.
    sample_names: BTreeMap<String, String>,
    /// Columns every generated line is indented by (4 inside a `mod tests`).
    indent: usize,
    /// Structs whose sample or default is being built, innermost last.
    nesting: usize,
    /// The first struct found nested more than [`MAX_TYPE_NESTING`] deep; the code
    /// generated for it is a placeholder, so the generator fails.
    too_deep: Option<String>,
}

impl<'i, 'a> Gen<'i, 'a> {
    fn new(index: &'i Index<'a>, sides: Vec<Side<'a>>, kind: &str) -> Self {
        let mut taken = BTreeSet::new();
        for reserved in ["to_hub", "from_hub", "sample", "map_values", "lossless"] {
            taken.insert(reserved.to_string());
        }
        Self {
            index,
            sides,
            kind: kind.into(),
            pairs: BTreeMap::new(),
            queue: Vec::new(),
            taken,
            helpers: Vec::new(),
            helper_names: BTreeSet::new(),
            uses_map_values: false,
            sampling: Vec::new(),
            sample_names: BTreeMap::new(),
            indent: 0,
            nesting: 0,
            too_deep: None,
        }
    }

    /// `fn name(param) -> ret { body }` at the generator's indentation; `body` is an
    /// expression, or (`Err`) ready lines at no indentation.
    fn function(
        &self,
        visibility: &str,
        name: &str,
        param: Option<(&str, &str)>,
        ret: &str,
        body: std::result::Result<&Expr, Vec<String>>,
    ) -> Vec<String> {
        let pad = " ".repeat(self.indent);
        let body = match body {
            Ok(expr) => expr.render(self.indent + 4, "", ""),
            Err(lines) => lines.into_iter().map(|l| format!("{pad}{l}")).collect(),
        };
        let params: Vec<(&str, &str)> = param.into_iter().collect();
        let mut lines: Vec<String> =
            emit::signature(self.indent, visibility, name, &params, Some(ret))
                .lines()
                .map(str::to_string)
                .collect();
        lines.extend(body);
        lines.push(format!("{pad}}}"));
        lines
    }

    fn resolver(&self) -> Resolver<'i, 'a> {
        Resolver::new(self.index)
    }

    // ---- types --------------------------------------------------------------------------

    fn resolve(&self, module: &[String], ty: &Type) -> Ty<'a> {
        match self.resolver().resolve(module, ty) {
            Ok(shape) => self.ty_of(shape),
            Err(_) => Ty::Unknown(type_text(ty)),
        }
    }

    fn ty_of(&self, shape: Shape<'a>) -> Ty<'a> {
        match shape {
            Shape::Prim(p) => Ty::Prim(p),
            Shape::K8s(k) => Ty::K8s(k),
            // Borrowed data is moved as it is when both sides name the same type.
            Shape::Wrap(Wrapper::Cow, inner) => {
                let inner = self.ty_text(&self.ty_of(*inner));
                Ty::Unknown(format!("std::borrow::Cow<'static, {inner}>"))
            }
            Shape::Wrap(w, inner) => Ty::Wrap(w, Box::new(self.ty_of(*inner))),
            Shape::Const(v) => Ty::Unknown(v.to_string()),
            Shape::Map(w, key, value) => {
                let key = self.ty_text(&self.ty_of(*key));
                let value = self.ty_text(&self.ty_of(*value));
                let map = match w {
                    Wrapper::HashMap => "std::collections::HashMap",
                    _ => "std::collections::BTreeMap",
                };
                Ty::Unknown(format!("{map}<{key}, {value}>"))
            }
            // A generic type instantiated: named as a path, moved when both sides agree.
            Shape::User(item) if !item.args.is_empty() => Ty::Unknown(item.key()),
            Shape::User(item) => match item.item {
                TypeItem::Struct(s) if matches!(s.fields, Fields::Named(_)) => Ty::Struct(item),
                TypeItem::Enum(_) => Ty::Enum(item),
                _ => Ty::Other(item),
            },
            // Moved as they are when both sides name the same type; otherwise a TODO.
            Shape::Ext(t, params) => {
                let params: Vec<String> = params
                    .into_iter()
                    .map(|p| self.ty_text(&self.ty_of(p)))
                    .collect();
                Ty::Unknown(match t.params {
                    // `DateTime<Tz>`: the parameter is not known here, so never "the same".
                    crate::crd::std_types::Params::Ignored => format!("{}<_>", t.path),
                    _ if params.is_empty() => t.path.to_string(),
                    _ => format!("{}<{}>", t.path, params.join(", ")),
                })
            }
            Shape::Array(len, inner) => {
                Ty::Unknown(format!("[{}; {len}]", self.ty_text(&self.ty_of(*inner))))
            }
        }
    }

    /// How generated code names a type of the sources.
    fn item_path(&self, item: &ItemRef<'a>) -> String {
        let ident = item.item.ident().to_string();
        for side in &self.sides {
            if side.spec.module == item.module {
                return format!("{}::{ident}", side.alias);
            }
        }
        format!("crate::{}::{ident}", item.module.join("::"))
    }

    fn k8s_path(k: &K8sType) -> String {
        k.path.trim_end_matches("::").to_string()
    }

    /// The type as generated code writes it.
    fn ty_text(&self, ty: &Ty<'a>) -> String {
        match ty {
            Ty::Prim(p) => prim_text(*p).to_string(),
            Ty::K8s(k) => Self::k8s_path(k),
            Ty::Struct(i) | Ty::Enum(i) | Ty::Other(i) => self.item_path(i),
            Ty::Unknown(text) => text.clone(),
            Ty::Wrap(w, inner) => {
                let inner = self.ty_text(inner);
                match w {
                    Wrapper::Option => format!("Option<{inner}>"),
                    Wrapper::Vec => format!("Vec<{inner}>"),
                    Wrapper::Box => format!("Box<{inner}>"),
                    Wrapper::VecDeque => format!("std::collections::VecDeque<{inner}>"),
                    Wrapper::Arc => format!("std::sync::Arc<{inner}>"),
                    Wrapper::Rc => format!("std::rc::Rc<{inner}>"),
                    Wrapper::Cow => format!("std::borrow::Cow<'static, {inner}>"),
                    Wrapper::BTreeSet => format!("std::collections::BTreeSet<{inner}>"),
                    Wrapper::HashSet => format!("std::collections::HashSet<{inner}>"),
                    Wrapper::BTreeMap => format!("std::collections::BTreeMap<String, {inner}>"),
                    Wrapper::HashMap => format!("std::collections::HashMap<String, {inner}>"),
                }
            }
        }
    }

    fn fields(&self, item: &ItemRef<'a>) -> Vec<FieldInfo<'a>> {
        let TypeItem::Struct(s) = item.item else {
            return Vec::new();
        };
        let Fields::Named(named) = &s.fields else {
            return Vec::new();
        };
        let rename_all = serde_attrs::container(&s.attrs)
            .ok()
            .and_then(|c| c.rename_all);
        named
            .named
            .iter()
            .filter_map(|f| {
                let ident = f.ident.as_ref()?;
                let plain = ident.unraw().to_string();
                let attrs = serde_attrs::field(&f.attrs).unwrap_or_default();
                let skipped = attrs.skip_serializing && attrs.skip_deserializing;
                let key = if attrs.flatten || skipped {
                    format!("#{plain}")
                } else if let Some(rename) = attrs.rename {
                    rename
                } else {
                    rename_all.map_or(plain.clone(), |r| r.apply_to_field(&plain))
                };
                Some(FieldInfo {
                    ident: ident.to_string(),
                    key,
                    ty: &f.ty,
                    skipped,
                })
            })
            .collect()
    }

    fn has_default(&self, item: &ItemRef<'a>) -> bool {
        model::derives(item.item.attrs(), "Default")
            || self
                .index
                .module(&item.module)
                .is_some_and(|m| m.manual_default.contains(&item.item.ident().to_string()))
    }

    fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut n = 2;
        while self.taken.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.taken.insert(name.clone());
        name
    }

    // ---- conversions --------------------------------------------------------------------

    /// `to_hub`, `from_hub` and every helper they need, as text.
    fn conversions(&mut self, spoke: &Side<'a>, hub: &Side<'a>) -> Result<String> {
        let to = self.root(spoke, hub, Dir::ToHub)?;
        let from = self.root(hub, spoke, Dir::FromHub)?;
        let mut blocks = vec![to, from];
        let mut done = 0;
        while done < self.queue.len() {
            let (s, h, name) = self.queue[done].clone();
            done += 1;
            blocks.push(self.pair_fn(&s, &h, &name, Dir::ToHub));
            blocks.push(self.pair_fn(&h, &s, &name, Dir::FromHub));
        }
        blocks.append(&mut self.helpers);
        self.finish(join_blocks(&blocks))
    }

    /// `text`, unless a type nested too deeply left a placeholder in it.
    fn finish(&self, text: String) -> Result<String> {
        match &self.too_deep {
            Some(name) => bail!(
                "the type `{name}` of {} is nested more than {MAX_TYPE_NESTING} types deep; \
                 rsbuilder generates conversion code for types up to that depth",
                self.kind
            ),
            None => Ok(text),
        }
    }

    /// Runs `f` one struct deeper, or returns `Default::default()` (and fails the whole
    /// generator) beyond [`MAX_TYPE_NESTING`].
    fn nested(&mut self, item: &ItemRef<'a>, f: impl FnOnce(&mut Self) -> Expr) -> Expr {
        if self.nesting >= MAX_TYPE_NESTING {
            self.too_deep
                .get_or_insert_with(|| item.item.ident().to_string());
            return atom("Default::default()");
        }
        self.nesting += 1;
        let expr = f(self);
        self.nesting -= 1;
        expr
    }

    fn root(&mut self, src: &Side<'a>, dst: &Side<'a>, dir: Dir) -> Result<Vec<String>> {
        let kind = self.kind.clone();
        let (s, h) = match dir {
            Dir::ToHub => (src.spec.clone(), dst.spec.clone()),
            Dir::FromHub => (dst.spec.clone(), src.spec.clone()),
        };
        let spec_fn = self.pair(&s, &h);
        let mut fields = vec![
            Field {
                comments: Vec::new(),
                name: "metadata".into(),
                value: atom("src.metadata"),
            },
            Field {
                comments: Vec::new(),
                name: "spec".into(),
                value: call(
                    format!("{spec_fn}_{}", dir.suffix()),
                    vec![atom("src.spec")],
                ),
            },
        ];
        let mut trailing = Vec::new();
        match (&src.status, &dst.status) {
            (Some(src_status), Some(dst_status)) => {
                let a = Ty::Wrap(
                    Wrapper::Option,
                    Box::new(self.resolve(&src.spec.module, src_status)),
                );
                let b = Ty::Wrap(
                    Wrapper::Option,
                    Box::new(self.resolve(&dst.spec.module, dst_status)),
                );
                let (comments, value) = self.field_value(&a, &b, dir, "status", "src", "status");
                fields.push(Field {
                    comments,
                    name: "status".into(),
                    value,
                });
            }
            (None, Some(_)) => fields.push(Field {
                comments: emit::wrap(
                    &format!(
                        "TODO(rsbuilder): {} has a status and {} has none; set it from the {} fields.",
                        dst.version, src.version, src.version
                    ),
                    8,
                ),
                name: "status".into(),
                value: atom("None"),
            }),
            (Some(_), None) => trailing.extend(emit::wrap(
                &format!(
                    "TODO(rsbuilder): {}'s status has no counterpart in {}; the annotation keeps it.",
                    src.version, dst.version
                ),
                8,
            )),
            (None, None) => {}
        }
        let literal = Expr::Struct {
            path: format!("{}::{kind}", dst.alias),
            fields,
            rest: None,
            trailing,
        };
        let mut lines = vec![format!(
            "/// {} to {}, field by field.",
            src.version, dst.version
        )];
        lines.extend(self.function(
            "pub ",
            dir.suffix(),
            Some(("src", &format!("{}::{kind}", src.alias))),
            &format!("{}::{kind}", dst.alias),
            Ok(&literal),
        ));
        Ok(lines)
    }

    /// The base name (`<type>`) of the functions converting the pair, queued on first use.
    fn pair(&mut self, spoke: &ItemRef<'a>, hub: &ItemRef<'a>) -> String {
        let key = (spoke.key(), hub.key());
        if let Some(name) = self.pairs.get(&key) {
            return name.clone();
        }
        let base = spoke.item.ident().to_string().to_snake_case();
        let mut name = base.clone();
        let mut n = 2;
        while self.taken.contains(&format!("{name}_to_hub")) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.taken.insert(format!("{name}_to_hub"));
        self.taken.insert(format!("{name}_from_hub"));
        self.pairs.insert(key, name.clone());
        self.queue.push((spoke.clone(), hub.clone(), name.clone()));
        name
    }

    /// How a `src` value becomes a `dst` value, or `None` when the types do not match.
    fn compat(&mut self, src: &Ty<'a>, dst: &Ty<'a>, dir: Dir) -> Option<Conv> {
        match (src, dst) {
            (Ty::Prim(a), Ty::Prim(b)) => (a == b).then_some(Conv::Move),
            (Ty::K8s(a), Ty::K8s(b)) => (a.path == b.path).then_some(Conv::Move),
            (Ty::Unknown(a), Ty::Unknown(b)) => (a == b).then_some(Conv::Move),
            (Ty::Struct(a), Ty::Struct(b))
            | (Ty::Enum(a), Ty::Enum(b))
            | (Ty::Other(a), Ty::Other(b))
                if a.key() == b.key() =>
            {
                Some(Conv::Move)
            }
            (Ty::Struct(a), Ty::Struct(b)) => {
                let (s, h) = spoke_hub(a, b, dir);
                let name = self.pair(&s, &h);
                Some(Conv::Func(format!("{name}_{}", dir.suffix())))
            }
            (Ty::Enum(a), Ty::Enum(b)) => {
                if !same_unit_variants(a, b) {
                    return None;
                }
                let (s, h) = spoke_hub(a, b, dir);
                let name = self.pair(&s, &h);
                Some(Conv::Func(format!("{name}_{}", dir.suffix())))
            }
            (Ty::Wrap(wa, a), Ty::Wrap(wb, b)) if wa == wb => {
                let inner = self.compat(a, b, dir)?;
                match inner {
                    Conv::Move => Some(Conv::Move),
                    Conv::Func(f) if !matches!(wa, Wrapper::Arc | Wrapper::Rc) => {
                        if wa.is_map() {
                            self.uses_map_values = true;
                        }
                        Some(Conv::Wrapped(*wa, f))
                    }
                    Conv::Wrapped(Wrapper::Box, f)
                        if !matches!(wa, Wrapper::Arc | Wrapper::Rc | Wrapper::Box) =>
                    {
                        // Boxes in a container: a closure, since a function taking a
                        // `Box` by value is a lint.
                        if wa.is_map() {
                            self.uses_map_values = true;
                        }
                        Some(Conv::Wrapped(*wa, format!("|item| Box::new({f}(*item))")))
                    }
                    Conv::Wrapped(w, f) if !matches!(wa, Wrapper::Arc | Wrapper::Rc) => {
                        // A container in a container: the inner one gets a function.
                        let name = format!("{}_{f}", wrapper_name(w));
                        if self.helper_names.insert(name.clone()) {
                            self.taken.insert(name.clone());
                            let body = apply(&Conv::Wrapped(w, f), "src", None);
                            let lines = self.function(
                                "",
                                &name,
                                Some(("src", &self.ty_text(a))),
                                &self.ty_text(b),
                                Ok(&body),
                            );
                            self.helpers.push(lines);
                        }
                        if wa.is_map() {
                            self.uses_map_values = true;
                        }
                        Some(Conv::Wrapped(*wa, name))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The comment lines and value of the `dst` field `name`, from `src_base.src_field`.
    fn field_value(
        &mut self,
        src: &Ty<'a>,
        dst: &Ty<'a>,
        dir: Dir,
        name: &str,
        src_base: &str,
        src_field: &str,
    ) -> (Vec<String>, Expr) {
        match self.compat(src, dst, dir) {
            Some(conv) => (Vec::new(), apply(&conv, src_base, Some(src_field))),
            None => {
                let (from, to) = self.versions(dir);
                let comment = format!(
                    "TODO(rsbuilder): `{name}` is `{}` in {from} and `{}` in {to}; convert it.",
                    self.ty_text(src),
                    self.ty_text(dst)
                );
                (emit::wrap(&comment, 8), self.default_expr(dst))
            }
        }
    }

    fn versions(&self, dir: Dir) -> (String, String) {
        let spoke = self.sides[0].version.clone();
        let hub = self
            .sides
            .get(1)
            .map_or(spoke.clone(), |s| s.version.clone());
        match dir {
            Dir::ToHub => (spoke, hub),
            Dir::FromHub => (hub, spoke),
        }
    }

    /// `fn <name>_<dir>(src: Src) -> Dst` for a struct or enum pair.
    fn pair_fn(
        &mut self,
        src: &ItemRef<'a>,
        dst: &ItemRef<'a>,
        name: &str,
        dir: Dir,
    ) -> Vec<String> {
        let fn_name = format!("{name}_{}", dir.suffix());
        let src_path = self.item_path(src);
        let dst_path = self.item_path(dst);
        if let (TypeItem::Enum(_), TypeItem::Enum(_)) = (src.item, dst.item) {
            let dst_variants = unit_variants(dst);
            let mut body = vec!["    match src {".to_string()];
            for (ident, key) in unit_variants(src) {
                let target = dst_variants
                    .iter()
                    .find(|(_, k)| *k == key)
                    .map(|(i, _)| i.clone())
                    .unwrap_or_default();
                body.push(format!(
                    "        {src_path}::{ident} => {dst_path}::{target},"
                ));
            }
            body.push("    }".into());
            return self.function("", &fn_name, Some(("src", &src_path)), &dst_path, Err(body));
        }
        let (from, to) = self.versions(dir);
        let src_fields = self.fields(src);
        let dst_fields = self.fields(dst);
        let mut used = BTreeSet::new();
        let mut fields = Vec::new();
        for d in &dst_fields {
            let dst_ty = self.resolve(&dst.module, d.ty);
            let matching = src_fields.iter().find(|s| s.key == d.key);
            let (comments, value) = match matching {
                Some(s) => {
                    used.insert(s.ident.clone());
                    let src_ty = self.resolve(&src.module, s.ty);
                    self.field_value(&src_ty, &dst_ty, dir, &d.ident, "src", &s.ident)
                }
                None => {
                    let comment = format!(
                        "TODO(rsbuilder): `{}` is new in {to}; set it from the {from} fields.",
                        d.ident
                    );
                    (emit::wrap(&comment, 8), self.default_expr(&dst_ty))
                }
            };
            fields.push(Field {
                comments,
                name: d.ident.clone(),
                value,
            });
        }
        let mut trailing = Vec::new();
        for s in src_fields.iter().filter(|s| !used.contains(&s.ident)) {
            let comment = if s.skipped {
                format!(
                    "TODO(rsbuilder): {from}'s `{}` (not serialized) has no counterpart in {to}.",
                    s.ident
                )
            } else {
                format!(
                    "TODO(rsbuilder): {from}'s `{}` has no counterpart in {to}; map it to a {to} \
                     field, or leave it to the annotation.",
                    s.ident
                )
            };
            trailing.extend(emit::wrap(&comment, 8));
        }
        let param = if used.is_empty() { "_src" } else { "src" };
        let literal = Expr::Struct {
            path: dst_path.clone(),
            fields,
            rest: None,
            trailing,
        };
        self.function(
            "",
            &fn_name,
            Some((param, &src_path)),
            &dst_path,
            Ok(&literal),
        )
    }

    // ---- values -------------------------------------------------------------------------

    /// A value of `ty` that compiles, for a field nothing converts into.
    fn default_expr(&mut self, ty: &Ty<'a>) -> Expr {
        match ty {
            Ty::Prim(Prim::Bool) => atom("false"),
            Ty::Prim(p) if p.is_integer() => atom("0"),
            Ty::Prim(Prim::F32 | Prim::F64) => atom("0.0"),
            Ty::Prim(Prim::String) => atom("String::new()"),
            Ty::Wrap(Wrapper::Option, _) => atom("None"),
            Ty::Wrap(Wrapper::Vec, _) => atom("Vec::new()"),
            Ty::Wrap(w @ (Wrapper::Box | Wrapper::Arc | Wrapper::Rc), inner) => {
                if self.is_default(inner) {
                    atom("Default::default()")
                } else {
                    let inner = self.default_expr(inner);
                    call(format!("{}::new", wrapper_path(*w)), vec![inner])
                }
            }
            Ty::K8s(k) => self.k8s_value(k, false),
            Ty::Struct(item) if !self.has_default(item) => {
                let name = format!(
                    "default_{}",
                    self.item_path(item).replace("::", "_").to_snake_case()
                );
                if self.helper_names.insert(name.clone()) {
                    self.taken.insert(name.clone());
                    let slot = self.helpers.len();
                    self.helpers.push(Vec::new());
                    let path = self.item_path(item);
                    let literal = self.nested(item, |g| {
                        let mut fields = Vec::new();
                        for f in g.fields(item) {
                            let ty = g.resolve(&item.module, f.ty);
                            fields.push(Field {
                                comments: Vec::new(),
                                name: f.ident,
                                value: g.default_expr(&ty),
                            });
                        }
                        Expr::Struct {
                            path: path.clone(),
                            fields,
                            rest: None,
                            trailing: Vec::new(),
                        }
                    });
                    self.helpers[slot] = self.function("", &name, None, &path, Ok(&literal));
                }
                call(name, Vec::new())
            }
            Ty::Enum(item) if !self.has_default(item) => match unit_variants(item).first() {
                Some((ident, _)) => atom(format!("{}::{ident}", self.item_path(item))),
                None => atom("Default::default()"),
            },
            _ => atom("Default::default()"),
        }
    }

    fn is_default(&self, ty: &Ty<'a>) -> bool {
        match ty {
            Ty::Struct(item) | Ty::Enum(item) | Ty::Other(item) => self.has_default(item),
            Ty::K8s(k) => (k.default)().is_some(),
            Ty::Wrap(Wrapper::Box | Wrapper::Arc | Wrapper::Rc, inner) => self.is_default(inner),
            _ => true,
        }
    }

    /// A value of a Kubernetes type: its `Default`, or for the few types without one, a
    /// hand-made value (`sample` picks values that show in a round trip).
    fn k8s_value(&mut self, k: &K8sType, sample: bool) -> Expr {
        let path = Self::k8s_path(k);
        let name = path.rsplit("::").next().unwrap_or_default().to_string();
        match name.as_str() {
            "Time" | "MicroTime" => call(path, vec![atom("Default::default()")]),
            "Condition" => {
                let helper = if sample {
                    "sample_condition"
                } else {
                    "default_condition"
                };
                if self.helper_names.insert(helper.to_string()) {
                    self.taken.insert(helper.to_string());
                    let time = path.replace("Condition", "Time");
                    let text = |s: &str| {
                        if sample {
                            atom(format!("{s:?}.into()"))
                        } else {
                            atom("String::new()")
                        }
                    };
                    let field = |name: &str, value: Expr| Field {
                        comments: Vec::new(),
                        name: name.into(),
                        value,
                    };
                    let literal = Expr::Struct {
                        path: path.clone(),
                        fields: vec![
                            field(
                                "last_transition_time",
                                call(time, vec![atom("Default::default()")]),
                            ),
                            field("message", text("message")),
                            field(
                                "observed_generation",
                                atom(if sample { "Some(1)" } else { "None" }),
                            ),
                            field("reason", text("Reason")),
                            field("status", text("True")),
                            field("type_", text("Ready")),
                        ],
                        rest: None,
                        trailing: Vec::new(),
                    };
                    let lines = self.function("", helper, None, &path, Ok(&literal));
                    self.helpers.push(lines);
                }
                call(helper, Vec::new())
            }
            _ => atom("Default::default()"),
        }
    }

    /// `pub fn sample() -> <alias>::<Kind>` and its helpers.
    fn sample_section(&mut self, side: &Side<'a>, visibility: &str, doc: &str) -> Result<String> {
        let kind = self.kind.clone();
        let mut meta = vec![field_of("name", atom("Some(\"sample\".into())"))];
        if side.namespaced {
            meta.push(field_of("namespace", atom("Some(\"default\".into())")));
        }
        meta.push(field_of(
            "uid",
            atom("Some(\"9d1f2c3e-0000-4000-8000-000000000001\".into())"),
        ));
        let metadata = Expr::Struct {
            path: "kube::core::ObjectMeta".into(),
            fields: meta,
            rest: Some("Default::default()".into()),
            trailing: Vec::new(),
        };
        let spec = self.struct_sample(&side.spec);
        let mut fields = vec![field_of("metadata", metadata), field_of("spec", spec)];
        if let Some(status) = &side.status {
            let ty = Ty::Wrap(
                Wrapper::Option,
                Box::new(self.resolve(&side.spec.module, status)),
            );
            fields.push(field_of("status", self.sample_expr(&ty, "status")));
        }
        let literal = Expr::Struct {
            path: format!("{}::{kind}", side.alias),
            fields,
            rest: None,
            trailing: Vec::new(),
        };
        let pad = " ".repeat(self.indent);
        let mut main = emit::wrap(doc, self.indent)
            .into_iter()
            .map(|l| format!("{pad}/// {l}"))
            .collect::<Vec<_>>();
        main.extend(self.function(
            visibility,
            "sample",
            None,
            &format!("{}::{kind}", side.alias),
            Ok(&literal),
        ));
        let mut blocks = vec![main];
        blocks.append(&mut self.helpers);
        self.finish(join_blocks(&blocks))
    }

    /// A struct literal with a sample value in every field.
    fn struct_sample(&mut self, item: &ItemRef<'a>) -> Expr {
        self.nested(item, |g| g.struct_sample_fields(item))
    }

    fn struct_sample_fields(&mut self, item: &ItemRef<'a>) -> Expr {
        self.sampling.push(item.key());
        let mut fields = Vec::new();
        for f in self.fields(item) {
            let ty = self.resolve(&item.module, f.ty);
            let value = if f.skipped {
                self.default_expr(&ty)
            } else {
                self.sample_expr(&ty, &f.key)
            };
            fields.push(field_of(&f.ident, value));
        }
        self.sampling.pop();
        Expr::Struct {
            path: self.item_path(item),
            fields,
            rest: None,
            trailing: Vec::new(),
        }
    }

    /// A value of `ty` that is not its default, so that a round trip shows it.
    fn sample_expr(&mut self, ty: &Ty<'a>, hint: &str) -> Expr {
        match ty {
            Ty::Prim(Prim::String | Prim::JsonValue | Prim::PathBuf) => {
                atom(format!("{hint:?}.into()"))
            }
            Ty::Prim(Prim::Bool) => atom("true"),
            Ty::Prim(Prim::F32 | Prim::F64) => atom("1.5"),
            Ty::Prim(Prim::Char) => atom("'x'"),
            Ty::Prim(Prim::Unit) => atom("()"),
            Ty::Prim(_) => atom("1"),
            Ty::K8s(k) => self.k8s_value(k, true),
            Ty::Unknown(_) | Ty::Other(_) => atom("Default::default()"),
            Ty::Enum(item) => {
                let variants = unit_variants(item);
                match variants.last() {
                    Some((ident, _)) => atom(format!("{}::{ident}", self.item_path(item))),
                    None => self.default_expr(ty),
                }
            }
            Ty::Struct(item) => {
                if self.sampling.contains(&item.key()) {
                    return self.default_expr(ty);
                }
                let name = format!("sample_{}", item.item.ident().to_string().to_snake_case());
                let key = format!("{name}#{}", item.key());
                if !self.helper_names.contains(&key) {
                    self.helper_names.insert(key);
                    let name = self.fresh(&name);
                    self.sample_names.insert(item.key(), name.clone());
                    // The helper goes before the helpers it calls.
                    let slot = self.helpers.len();
                    self.helpers.push(Vec::new());
                    let path = self.item_path(item);
                    let literal = self.struct_sample(item);
                    self.helpers[slot] = self.function("", &name, None, &path, Ok(&literal));
                }
                call(self.sample_names[&item.key()].clone(), Vec::new())
            }
            Ty::Wrap(w, inner) => {
                let recursive =
                    matches!(&**inner, Ty::Struct(i) if self.sampling.contains(&i.key()));
                if recursive {
                    return self.default_expr(ty);
                }
                let value = self.sample_expr(inner, hint);
                match w {
                    Wrapper::Option => call("Some", vec![value]),
                    // Two items, so that a conversion that keeps only one shows.
                    Wrapper::Vec => vec_of(vec![value.clone(), value]),
                    Wrapper::Box | Wrapper::Arc | Wrapper::Rc => {
                        call(format!("{}::new", wrapper_path(*w)), vec![value])
                    }
                    Wrapper::Cow => call("std::borrow::Cow::Owned", vec![value]),
                    Wrapper::VecDeque | Wrapper::BTreeSet | Wrapper::HashSet => {
                        match value.flat() {
                            Some(flat) => chain(format!("[{flat}]"), &[".into()"]),
                            None => atom("Default::default()"),
                        }
                    }
                    Wrapper::BTreeMap | Wrapper::HashMap => match value.flat() {
                        Some(flat) => chain(format!("[(\"key\".into(), {flat})]"), &[".into()"]),
                        None => atom("Default::default()"),
                    },
                }
            }
        }
    }
}

fn field_of(name: &str, value: Expr) -> Field {
    Field {
        comments: Vec::new(),
        name: name.into(),
        value,
    }
}

/// (spoke, hub) from (src, dst) in direction `dir`.
fn spoke_hub<'a>(src: &ItemRef<'a>, dst: &ItemRef<'a>, dir: Dir) -> (ItemRef<'a>, ItemRef<'a>) {
    match dir {
        Dir::ToHub => (src.clone(), dst.clone()),
        Dir::FromHub => (dst.clone(), src.clone()),
    }
}

/// The value expression for a field converted with `conv`.
fn apply(conv: &Conv, base: &str, field: Option<&str>) -> Expr {
    let access = match field {
        Some(f) => format!("{base}.{f}"),
        None => base.to_string(),
    };
    let mut links: Vec<String> = field.map(|f| format!(".{f}")).into_iter().collect();
    match conv {
        Conv::Move => atom(access),
        Conv::Func(f) => call(f.clone(), vec![atom(access)]),
        Conv::Wrapped(Wrapper::Option, f) => {
            links.push(format!(".map({f})"));
            Expr::Chain {
                base: base.into(),
                links,
            }
        }
        Conv::Wrapped(Wrapper::Box, f) => call(
            "Box::new",
            vec![call(f.clone(), vec![atom(format!("*{access}"))])],
        ),
        Conv::Wrapped(w, f) if w.is_map() => {
            call("map_values", vec![atom(access), atom(f.clone())])
        }
        Conv::Wrapped(_, f) => {
            links.extend([
                ".into_iter()".to_string(),
                format!(".map({f})"),
                ".collect()".to_string(),
            ]);
            Expr::Chain {
                base: base.into(),
                links,
            }
        }
    }
}

fn wrapper_name(w: Wrapper) -> &'static str {
    match w {
        Wrapper::Option => "option",
        Wrapper::Vec => "vec",
        Wrapper::VecDeque => "deque",
        Wrapper::Box => "boxed",
        Wrapper::Arc => "arc",
        Wrapper::Rc => "rc",
        Wrapper::Cow => "cow",
        Wrapper::BTreeSet | Wrapper::HashSet => "set",
        Wrapper::BTreeMap | Wrapper::HashMap => "map",
    }
}

fn wrapper_path(w: Wrapper) -> &'static str {
    match w {
        Wrapper::Box => "Box",
        Wrapper::Arc => "std::sync::Arc",
        Wrapper::Rc => "std::rc::Rc",
        _ => "Default",
    }
}

fn prim_text(p: Prim) -> &'static str {
    match p {
        Prim::String => "String",
        Prim::Str => "str",
        Prim::Bool => "bool",
        Prim::Char => "char",
        Prim::U8 => "u8",
        Prim::U16 => "u16",
        Prim::U32 => "u32",
        Prim::U64 => "u64",
        Prim::U128 => "u128",
        Prim::Usize => "usize",
        Prim::I8 => "i8",
        Prim::I16 => "i16",
        Prim::I32 => "i32",
        Prim::I64 => "i64",
        Prim::I128 => "i128",
        Prim::Isize => "isize",
        Prim::F32 => "f32",
        Prim::F64 => "f64",
        Prim::JsonValue => "serde_json::Value",
        Prim::PathBuf => "std::path::PathBuf",
        Prim::Unit => "()",
    }
}

/// The unit variants of an enum with their serialized names; empty when any variant
/// carries data.
fn unit_variants(item: &ItemRef<'_>) -> Vec<(String, String)> {
    let TypeItem::Enum(e) = item.item else {
        return Vec::new();
    };
    let rename_all = serde_attrs::container(&e.attrs)
        .ok()
        .and_then(|c| c.rename_all);
    let mut out = Vec::new();
    for v in &e.variants {
        if !matches!(v.fields, Fields::Unit) {
            return Vec::new();
        }
        let attrs = serde_attrs::variant(&v.attrs).unwrap_or_default();
        let plain = v.ident.unraw().to_string();
        let key = attrs
            .rename
            .unwrap_or_else(|| rename_all.map_or(plain.clone(), |r| r.apply_to_variant(&plain)));
        out.push((v.ident.to_string(), key));
    }
    out
}

fn same_unit_variants(a: &ItemRef<'_>, b: &ItemRef<'_>) -> bool {
    let keys = |i| {
        unit_variants(i)
            .into_iter()
            .map(|(_, k)| k)
            .collect::<BTreeSet<_>>()
    };
    let (ka, kb) = (keys(a), keys(b));
    !ka.is_empty() && ka == kb
}

/// A type as written, without token spacing: `Option < i64 >` → `Option<i64>`.
fn type_text(ty: &Type) -> String {
    let raw = ty.to_token_stream().to_string();
    raw.replace(" :: ", "::")
        .replace(":: ", "::")
        .replace(" < ", "<")
        .replace("< ", "<")
        .replace(" <", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace("& ", "&")
}

fn join_blocks(blocks: &[Vec<String>]) -> String {
    blocks
        .iter()
        .map(|b| b.join("\n"))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Fails with the file and a reason when `kind` has no conversion-ready types.
pub fn check_kind(sources: &Sources, api_group: &str, kind: &str, version: &str) -> Result<()> {
    let index = Index::build(&sources.files, &sources.krate, Default::default());
    let side = find_side(&index, api_group, kind, version, "kind")?;
    if !matches!(side.spec.item, TypeItem::Struct(s) if matches!(s.fields, Fields::Named(_))) {
        bail!("the spec of {kind} {version} is not a struct with named fields");
    }
    Ok(())
}
