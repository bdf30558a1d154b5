//! From `#[derive(CustomResource)]` structs to `CustomResourceDefinition`s: the root object
//! kube-derive generates, the transform pipeline, the CRD exactly as the generated
//! `crd()` builds it, and `merge_crds` over the versions of each group/kind.

use std::collections::BTreeMap;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionNames,
    CustomResourceDefinitionSpec, CustomResourceDefinitionVersion, CustomResourceSubresourceScale,
    CustomResourceSubresourceStatus, CustomResourceSubresources, CustomResourceValidation,
    JSONSchemaProps, SelectableField,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use proc_macro2::Span;
use schemars::{Schema, json_schema};

use super::attrs::kube::SchemaMode;
use super::builder::{Builder, Ctx};
use super::diagnostics::{Diagnostic, Unsupported, span_of};
use super::model::{Index, TypeItem, derives};
use super::resolve::ItemRef;
use super::resource::Resource;
use super::schema::{add_common, add_post};
use super::typeops::{Op, Slot, apply, with_slot};
use super::{k8s_types, sealed, transforms};

/// Finds every `#[derive(CustomResource)]` struct; malformed `#[kube]` attributes become
/// diagnostics.
pub fn find_resources<'a>(index: &Index<'a>, diags: &mut Vec<Diagnostic>) -> Vec<Resource<'a>> {
    let mut out = Vec::new();
    for (module, m) in &index.modules {
        // A dependency's kinds are its own CRDs, not this crate's.
        if super::deps::is_dependency(module) {
            continue;
        }
        for item in m.types.values() {
            let TypeItem::Struct(s) = item else { continue };
            if !derives(&s.attrs, "CustomResource") {
                continue;
            }
            let path = index.path_of(m.file);
            if let Some((at, u)) = index.undecided_module(module) {
                diags.push(Diagnostic::not_static(
                    path,
                    s.ident.span(),
                    format!("custom resource `{}`", s.ident),
                    format!(
                        "its module is declared under {} ({}:{}), and {}",
                        u.what,
                        at.display(),
                        u.span.start().line,
                        u.why
                    ),
                ));
                continue;
            }
            let mut root = ItemRef {
                module: module.clone(),
                item: *item,
                file: m.file,
                args: Vec::new(),
            };
            if !s.generics.params.is_empty() {
                // kube-derive's root names the spec without arguments (`spec: FooSpec`):
                // its parameters take their defaults.
                let ty = syn::Type::Path(syn::TypePath {
                    qself: None,
                    path: s.ident.clone().into(),
                });
                match super::resolve::Resolver::new(index).resolve(module, &ty) {
                    Ok(super::resolve::Shape::User(instantiated)) => root = instantiated,
                    Ok(_) => {}
                    Err(u) => {
                        diags.push(Diagnostic::not_static(path, u.span, u.what, u.why));
                        continue;
                    }
                }
            }
            match super::attrs::kube::read(&s.attrs, s.ident.span()) {
                Ok(kube) => out.push(Resource { item: root, kube }),
                Err(e) => diags.push(Diagnostic::at(
                    path,
                    e.span(),
                    format!("invalid #[kube] attribute: {e}"),
                )),
            }
        }
    }
    out
}

/// The CRD `Kind::crd()` returns for one resource, or `None` after reporting diagnostics.
pub fn crd_for(
    index: &Index<'_>,
    r: &Resource<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Option<CustomResourceDefinition> {
    let k = &r.kube;
    let ctx = r.ctx();
    let path = index.path_of(r.item.file);
    let ident = r.item.item.ident();
    let root_name = k.root.clone().unwrap_or_else(|| k.kind.clone());
    if *ident == root_name {
        diags.push(Diagnostic::at(path, ident.span(), "#[derive(CustomResource)] `kind = \"...\"` must not equal the struct name (this is generated)"));
        return None;
    }
    if !k.unsupported.is_empty() {
        for u in &k.unsupported {
            diags.push(Diagnostic::not_static(path, u.span, &u.what, &u.why));
        }
        return None;
    }
    let schema = match k.schema {
        SchemaMode::Disabled => {
            diags.push(Diagnostic::at(
                path,
                k.span,
                "`#[kube(schema = \"disabled\")]` leaves the CRD without a schema, and the API \
                 server rejects a CustomResourceDefinition without one; drop it to have the \
                 schema generated from the types",
            ));
            return None;
        }
        SchemaMode::Manual => {
            diags.push(Diagnostic::not_static(
                path,
                k.span,
                "`#[kube(schema = \"manual\")]`",
                "the schema is set by user code",
            ));
            return None;
        }
        // Kubernetes types come sealed (see `sealed`): a fast path whose result is kept only
        // when it is clean; anything else is redone with the real schemas, whose
        // diagnostics are the ones reported.
        SchemaMode::Derived => {
            let mut fast = Vec::new();
            match derived_schema(index, r, &ctx, &root_name, &mut fast) {
                Some(props) if fast.is_empty() && sealed::intact(&props) => Some(props),
                _ => Some(k8s_types::unsealed(|| {
                    derived_schema(index, r, &ctx, &root_name, diags)
                })?),
            }
        }
    };
    Some(build_crd(r, schema))
}

/// The schema of a derived resource, through the transforms, as `JSONSchemaProps`; `None`
/// after reporting diagnostics.
fn derived_schema(
    index: &Index<'_>,
    r: &Resource<'_>,
    ctx: &Ctx,
    root_name: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<JSONSchemaProps> {
    let path = index.path_of(r.item.file);
    let ident = r.item.item.ident();
    let mut b = Builder::new(index, transforms::generator());
    let schema = root_schema(&mut b, ctx, r, root_name);
    diags.append(&mut b.diags);
    let mut schema = schema?;
    if !b.generator.definitions().is_empty() {
        diags.push(Diagnostic::not_static(
            path,
            ident.span(),
            format!("`{ident}`"),
            "a type needs a `$ref` definition (recursive Kubernetes type)",
        ));
        return None;
    }
    if let Err(msg) = transforms::apply(&mut b.generator, &mut schema) {
        // Name the field whose own schema kube's rewrite rejects, in the schema as it was
        // before the transforms: built again, as it is rarely needed and costly to keep.
        let mut again = Builder::new(index, transforms::generator());
        let at = root_schema(&mut again, ctx, r, root_name)
            .map(|before| rejected_path(&mut b.generator, &before, String::new()))
            .unwrap_or_default();
        let d = match super::locate::field_at(index, r, &at) {
            Some(f) => Diagnostic::at(
                index.path_of(f.file),
                f.span,
                format!(
                    "field `{}` makes a schema kube-derive rejects (`{root_name}::crd()` panics): {msg}",
                    f.name
                ),
            ),
            None => Diagnostic::at(
                path,
                ident.span(),
                format!("kube-derive rejects the schema of `{root_name}`: {msg}"),
            ),
        };
        diags.push(d);
        return None;
    }
    match serde_json::from_value::<JSONSchemaProps>(schema.to_value()) {
        Ok(props) => Some(props),
        Err(e) => {
            diags.push(Diagnostic::at(
                path,
                ident.span(),
                format!("the schema of `{root_name}` is not a valid JSONSchemaProps: {e}"),
            ));
            None
        }
    }
}

/// The root struct kube-derive generates (`Kind { metadata, spec, status }`, camelCase,
/// `metadata` skipped), built like schemars' derive builds it, plus `into_root_schema_for`'s
/// title.
fn root_schema<'a>(
    b: &mut Builder<'_, 'a>,
    ctx: &Ctx,
    r: &Resource<'a>,
    root_name: &str,
) -> Option<Schema> {
    let k = &r.kube;
    let spec = b.item_schema(&r.item);
    let mut schema = json_schema!({"type": "object"});
    let spec = spec?;
    if k.no_spec {
        let g = &mut b.generator;
        let flat = with_slot(spec, || apply::<Slot>(Op::Flatten { required: false }, g));
        schemars::_private::flatten(&mut schema, flat);
    } else {
        schemars::_private::insert_object_property(&mut schema, "spec", false, spec);
    }
    if let Some(status) = &k.status {
        let ty: syn::Type = syn::parse_quote!(Option<#status>);
        let resolver = super::resolve::Resolver::new(b.index);
        let shape = match resolver.resolve(&ctx.module, &ty) {
            Ok(s) => s,
            Err(mut u) => {
                // The span of a synthesized type is meaningless: point at the attribute.
                u.span = span_of(status);
                if u.span.start().line == 0 {
                    u.span = k.span;
                }
                b.refuse(ctx, u);
                return None;
            }
        };
        let s = b.shape_schema(&shape, Op::Subschema)?;
        // `#[serde(skip_serializing_if = "Option::is_none")]` without a default: optional as an `Option`.
        schemars::_private::insert_object_property(&mut schema, "status", true, s);
    }
    let doc = k.doc.clone().unwrap_or_else(|| {
        format!(
            " Auto-generated derived type for {} via `CustomResource`",
            r.item.item.ident()
        )
    });
    let common = super::attrs::schemars::Common {
        doc: Some(doc.strip_prefix(' ').map(str::to_string).unwrap_or(doc)),
        ..Default::default()
    };
    add_common(&mut schema, &common);
    add_post(&mut schema, &common);
    for rule in &k.validations {
        if let Err(e) = kube_core::validate(&mut schema, rule.clone()) {
            b.error(ctx, k.span, format!("invalid CEL rule: {e}"));
        }
    }
    schema
        .ensure_object()
        .entry("title")
        .or_insert_with(|| root_name.into());
    Some(schema)
}

fn opt<T>(v: Vec<T>) -> Option<Vec<T>> {
    (!v.is_empty()).then_some(v)
}

fn build_crd(r: &Resource<'_>, schema: Option<JSONSchemaProps>) -> CustomResourceDefinition {
    let k = &r.kube;
    let plural = r.plural();
    let kv = |pairs: &[(String, String)]| {
        (!pairs.is_empty()).then(|| pairs.iter().cloned().collect::<BTreeMap<_, _>>())
    };
    let printer_columns = opt(k
        .printcolumns
        .iter()
        .map(|p| CustomResourceColumnDefinition {
            description: p.description.clone(),
            format: p.format.clone(),
            json_path: p.json_path.clone(),
            name: p.name.clone(),
            priority: p.priority,
            type_: p.type_.clone(),
        })
        .collect());
    let scale = k.scale.as_ref().map(|s| CustomResourceSubresourceScale {
        label_selector_path: s.label_selector_path.clone(),
        spec_replicas_path: s.spec_replicas_path.clone(),
        status_replicas_path: s.status_replicas_path.clone(),
    });
    // kube-derive only emits subresources (and so `scale`) when there is a status.
    let subresources = k.status.is_some().then(|| CustomResourceSubresources {
        scale,
        status: Some(CustomResourceSubresourceStatus(serde_json::json!({}))),
    });
    let (deprecated, deprecation_warning) = match &k.deprecated {
        None => (None, None),
        Some(w) => (Some(true), w.clone()),
    };
    CustomResourceDefinition {
        metadata: ObjectMeta {
            annotations: kv(&k.annotations),
            labels: kv(&k.labels),
            name: Some(format!("{plural}.{}", k.group)),
            ..Default::default()
        },
        spec: CustomResourceDefinitionSpec {
            group: k.group.clone(),
            names: CustomResourceDefinitionNames {
                categories: opt(k.categories.clone()),
                kind: k.kind.clone(),
                plural,
                short_names: opt(k.shortnames.clone()),
                singular: Some(r.singular()),
                ..Default::default()
            },
            scope: if k.namespaced {
                "Namespaced"
            } else {
                "Cluster"
            }
            .into(),
            versions: vec![CustomResourceDefinitionVersion {
                additional_printer_columns: printer_columns,
                deprecated,
                deprecation_warning,
                name: k.version.clone(),
                schema: Some(CustomResourceValidation {
                    open_api_v3_schema: schema,
                }),
                selectable_fields: opt(k
                    .selectable
                    .iter()
                    .map(|p| SelectableField {
                        json_path: p.clone(),
                    })
                    .collect()),
                served: k.served,
                storage: k.storage,
                subresources,
            }],
            ..Default::default()
        },
        ..Default::default()
    }
}

/// One version of a kind, ready to merge.
pub struct Built {
    pub crd: CustomResourceDefinition,
    pub path: std::path::PathBuf,
    pub span: Span,
    pub storage_span: Span,
}

/// Merges the versions of each group/kind like
/// `merge_crds(vec![versions in ascending merge_order], storage_version)`.
pub fn merge(built: Vec<Built>, diags: &mut Vec<Diagnostic>) -> Vec<CustomResourceDefinition> {
    let mut groups: BTreeMap<(String, String), Vec<Built>> = BTreeMap::new();
    for b in built {
        groups
            .entry((b.crd.spec.group.clone(), b.crd.spec.names.kind.clone()))
            .or_default()
            .push(b);
    }
    let mut out = Vec::new();
    for ((group, kind), mut versions) in groups {
        let mut ok = true;
        versions.sort_by_key(|v| merge_order(&v.crd.spec.versions[0].name));
        for pair in versions.windows(2) {
            if pair[0].crd.spec.versions[0].name == pair[1].crd.spec.versions[0].name {
                let name = &pair[1].crd.spec.versions[0].name;
                diags.push(Diagnostic::at(
                    &pair[1].path,
                    pair[1].span,
                    format!("{kind}.{group} version {name} is defined twice"),
                ));
                ok = false;
            }
        }
        let storage: Vec<&Built> = versions
            .iter()
            .filter(|v| v.crd.spec.versions[0].storage)
            .collect();
        match storage.as_slice() {
            [_] => {}
            [] => {
                let first = &versions[0];
                diags.push(Diagnostic::at(&first.path, first.span, format!(
                    "{kind}.{group} has no storage version: exactly one version must not have `#[kube(storage = false)]`"
                )));
                ok = false;
            }
            many => {
                let names: Vec<&str> = many
                    .iter()
                    .map(|v| v.crd.spec.versions[0].name.as_str())
                    .collect();
                for v in many {
                    diags.push(Diagnostic::at(&v.path, v.storage_span, format!(
                        "{kind}.{group} has {} storage versions ({}): mark all but one with `#[kube(storage = false)]`",
                        many.len(),
                        names.join(", ")
                    )));
                }
                ok = false;
            }
        }
        if !ok {
            continue;
        }
        // `merge_crds` checks group, kind and scope, and keeps the storage version's names
        // without a word: a plural only another version has would be lost (and that
        // version's `Api` would ask the API server for a resource it does not serve).
        // Short names and categories given on one version only are common and harmless.
        let stored = storage[0];
        let plural = &stored.crd.spec.names.plural;
        for v in versions
            .iter()
            .filter(|v| &v.crd.spec.names.plural != plural)
        {
            diags.push(Diagnostic::at(
                &v.path,
                v.span,
                format!(
                    "{kind}.{group} version {} has the plural {:?} where version {} (the storage \
                 version) has {plural:?}: all versions of a kind are served under one plural, \
                 and merge_crds would keep only the storage version's (kube's clients of this \
                 version would ask for the other); give every version the same plural",
                    v.crd.spec.versions[0].name,
                    v.crd.spec.names.plural,
                    stored.crd.spec.versions[0].name,
                ),
            ));
            ok = false;
        }
        if !ok {
            continue;
        }
        let storage_name = stored.crd.spec.versions[0].name.clone();
        let first = (versions[0].path.clone(), versions[0].span);
        let crds: Vec<CustomResourceDefinition> = versions.into_iter().map(|v| v.crd).collect();
        match kube_core::crd::v1::merge_crds(crds, &storage_name) {
            Ok(crd) => out.push(crd),
            Err(e) => diags.push(Diagnostic::at(
                &first.0,
                first.1,
                format!("the versions of {kind}.{group} cannot be merged: {e}"),
            )),
        }
    }
    out
}

/// The order versions are handed to `merge_crds` in, ascending. `merge_crds` keeps the
/// order it is given (the storage version first, the others reversed), so the order is the
/// one kube itself offers for versions: kube-core's `Version::priority`, which reads
/// `v1alpha` (no number) as an alpha where the API server's priority
/// (`names::version_order`, for what the server prefers) reads it as any other name.
/// Equal priorities (`v1`, `v01`) by name, so a version defined twice sorts next to itself.
fn merge_order(version: &str) -> (impl Ord + use<>, String) {
    (
        kube_core::Version::parse(version).priority(),
        version.to_string(),
    )
}

/// Kept for diagnostics about a resource as a whole.
pub fn refuse(path: &std::path::Path, u: Unsupported) -> Diagnostic {
    Diagnostic::not_static(path, u.span, u.what, u.why)
}

/// The path (`properties[spec].properties[a].items`) of the deepest subschema of `schema`
/// that kube's transforms reject on its own.
fn rejected_path(g: &mut schemars::SchemaGenerator, schema: &Schema, path: String) -> String {
    let Some(obj) = schema.as_object() else {
        return path;
    };
    let mut subs: Vec<(String, &serde_json::Value)> = Vec::new();
    if let Some(serde_json::Value::Object(props)) = obj.get("properties") {
        subs.extend(
            props
                .iter()
                .map(|(k, v)| (format!("{path}.properties[{k}]"), v)),
        );
    }
    for key in ["items", "additionalProperties"] {
        if let Some(v) = obj.get(key) {
            subs.push((format!("{path}.{key}"), v));
        }
    }
    for (sub_path, v) in subs {
        let Ok(sub) = Schema::try_from(v.clone()) else {
            continue;
        };
        if transforms::apply(g, &mut sub.clone()).is_err() {
            return rejected_path(g, &sub, sub_path);
        }
    }
    path
}
