//! Rust types from the OpenAPI v3 schema of a CustomResourceDefinition version, for kinds
//! a project uses but does not own (`create api --from-crd`).
//!
//! kopium, kube-rs' generator, would do this, but its releases pin kube and k8s-openapi
//! versions older than the ones rsbuilder generates for, so this is a small generator of
//! our own that follows kopium's naming: `build` turns the schema into items (`model`)
//! named by `naming`, documented by `docs`, and `emit` lays them out as rustfmt would.
//!
//! What the types cannot hold is reported, not hidden: see [`Generated::untyped`].

mod build;
mod docs;
mod emit;
mod model;
mod naming;
mod probe;

use anyhow::{Context, Result, bail};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionVersion, JSONSchemaProps,
};

use emit::Arg;
use model::{Item, Ty};

/// Keys at the top of every object that kube-derive's root struct handles itself.
const ROOT_KEYS: &[&str] = &["apiVersion", "kind", "metadata"];

/// A types file and what it leaves out.
#[derive(Debug, Clone, PartialEq)]
pub struct Generated {
    pub text: String,
    /// JSON paths of the values the types drop when they read an object: kube-derive's
    /// root struct has only `metadata`, `spec` and `status`.
    pub untyped: Vec<String>,
}

/// The keys below `spec` of a field of `version` of `crd` whose values an enum lists, that an
/// object can set alone (see [`probe`]).
pub fn enum_field(crd: &CustomResourceDefinition, version: &str) -> Option<Vec<String>> {
    let v = crd.spec.versions.iter().find(|v| v.name == version)?;
    probe::enum_field(v.schema.as_ref()?.open_api_v3_schema.as_ref()?)
}

/// The types of `version` of `crd`: the file's text after `boilerplate` and the module
/// doc lines `about` (without `//!`).
pub fn rust_types(
    crd: &CustomResourceDefinition,
    version: &str,
    boilerplate: &str,
    about: &[String],
) -> Result<Generated> {
    let names = &crd.spec.names;
    let v = crd
        .spec
        .versions
        .iter()
        .find(|v| v.name == version)
        .with_context(|| format!("the CRD has no version {version}"))?;
    let root = v
        .schema
        .as_ref()
        .and_then(|s| s.open_api_v3_schema.as_ref())
        .with_context(|| format!("version {version} of the CRD has no openAPIV3Schema"))?;
    let kind = names.kind.as_str();
    let mut builder = build::Builder::new(
        kind,
        &[
            kind,
            "BTreeMap",
            "IntOrString",
            "CustomResource",
            "Serialize",
            "Deserialize",
        ],
    );
    let properties = root.properties.clone().unwrap_or_default();
    let mut untyped: Vec<String> = properties
        .keys()
        .filter(|k| !ROOT_KEYS.contains(&k.as_str()) && *k != "spec" && *k != "status")
        .filter(|_| properties.contains_key("spec"))
        .map(|k| format!(".{k}"))
        .collect();
    let root_place = build::Place::root();
    let spec_name = naming::type_name(kind, &["spec".to_string()]);
    let no_spec = !properties.contains_key("spec");
    let spec = match properties.get("spec") {
        Some(spec) => builder.root_struct(spec_name, spec, &root_place.key("spec"))?,
        None => {
            // kube-derive's `no_spec`: the object's own fields are the spec, flattened.
            if root.x_kubernetes_preserve_unknown_fields == Some(true) {
                untyped.push("the fields the schema does not name".into());
            }
            builder.root_struct(spec_name, &top_level_fields(root), &root_place)?
        }
    };
    let status = match properties.get("status") {
        Some(status) => Some(builder.root_struct(
            naming::type_name(kind, &["status".to_string()]),
            status,
            &root_place.key("status"),
        )?),
        None => None,
    };
    let items = builder.finish();
    let kube = kube_args(crd, v, status.as_deref(), no_spec);

    let mut lines: Vec<String> = about
        .iter()
        .map(|l| {
            if l.is_empty() {
                "//!".into()
            } else {
                format!("//! {l}")
            }
        })
        .collect();
    lines.push(String::new());
    lines.extend(imports(&items));
    for item in &items {
        lines.push(String::new());
        let args = (item.name() == spec).then_some(kube.as_slice());
        lines.extend(emit::item(item, args));
    }
    let mut text = boilerplate.to_string();
    for line in lines {
        text.push_str(&line);
        text.push('\n');
    }
    Ok(Generated { text, untyped })
}

/// The object's own fields, as the schema of a spec (`no_spec`).
fn top_level_fields(root: &JSONSchemaProps) -> JSONSchemaProps {
    let own = |key: &String| !ROOT_KEYS.contains(&key.as_str()) && key != "status";
    JSONSchemaProps {
        type_: Some("object".into()),
        properties: Some(
            root.properties
                .iter()
                .flatten()
                .filter(|(k, _)| own(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        required: root
            .required
            .as_ref()
            .map(|r| r.iter().filter(|k| own(k)).cloned().collect()),
        ..JSONSchemaProps::default()
    }
}

/// The `use` lines the items need, in rustfmt's order.
fn imports(items: &[Item]) -> Vec<String> {
    let fields = || {
        items.iter().flat_map(|item| match item {
            Item::Struct(s) => s.fields.as_slice(),
            Item::Enum(_) => &[],
        })
    };
    let mut lines = Vec::new();
    if fields().any(|f| f.ty.uses_map()) {
        lines.push("use std::collections::BTreeMap;".to_string());
        lines.push(String::new());
    }
    if fields().any(|f| f.ty.uses(&Ty::IntOrString)) {
        lines.push("use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;".into());
    }
    lines.push("use kube::CustomResource;".into());
    lines.push("use serde::{Deserialize, Serialize};".into());
    lines
}

/// `#[kube(...)]`: what the CRD says of the kind and of this version, so that the type
/// names the same resource the API server serves. The schema is the CRD's, not one derived
/// from these types (`schema = "disabled"`): this project never installs the CRD.
fn kube_args(
    crd: &CustomResourceDefinition,
    v: &CustomResourceDefinitionVersion,
    status: Option<&str>,
    no_spec: bool,
) -> Vec<Arg> {
    let names = &crd.spec.names;
    let mut args = vec![
        Arg::string("group", &crd.spec.group),
        Arg::string("version", &v.name),
        Arg::string("kind", &names.kind),
        Arg::string("plural", &names.plural),
    ];
    if let Some(singular) = &names.singular
        && *singular != names.kind.to_ascii_lowercase()
    {
        args.push(Arg::string("singular", singular));
    }
    if crd.spec.scope == "Namespaced" {
        args.push(Arg::Flat("namespaced".into()));
    }
    if let Some(status) = status {
        args.push(Arg::string("status", status));
    }
    if let Some(scale) = v.subresources.as_ref().and_then(|s| s.scale.as_ref()) {
        let mut paths = vec![
            Arg::string("spec_replicas_path", &scale.spec_replicas_path),
            Arg::string("status_replicas_path", &scale.status_replicas_path),
        ];
        if let Some(selector) = &scale.label_selector_path {
            paths.push(Arg::string("label_selector_path", selector));
        }
        args.push(Arg::List("scale".into(), paths));
    }
    for name in names.short_names.iter().flatten() {
        args.push(Arg::string("shortname", name));
    }
    for category in names.categories.iter().flatten() {
        args.push(Arg::string("category", category));
    }
    // As JSON, one string each: clippy's `duplicated_attributes` would take the same
    // `type_ = "string"` in two `printcolumn(...)` lists for a mistake.
    for column in v.additional_printer_columns.iter().flatten() {
        let json = serde_json::to_string(column).expect("a printer column serializes");
        args.push(Arg::Flat(format!(
            "printcolumn = {}",
            emit::raw_literal(&json)
        )));
    }
    for field in v.selectable_fields.iter().flatten() {
        args.push(Arg::string("selectable", &field.json_path));
    }
    if !v.storage {
        args.push(Arg::Flat("storage = false".into()));
    }
    if v.deprecated == Some(true) {
        args.push(match &v.deprecation_warning {
            Some(warning) => Arg::string("deprecated", warning),
            None => Arg::Flat("deprecated".into()),
        });
    }
    if no_spec {
        args.push(Arg::Flat("no_spec".into()));
    }
    args.push(Arg::string("schema", "disabled"));
    args.push(Arg::string("derive", "Default"));
    args.push(Arg::string("derive", "PartialEq"));
    args
}

/// Fails unless `kind` can name the kind's struct in a file that imports what the
/// generated files import.
pub fn check_kind(kind: &str) -> Result<()> {
    if [
        "BTreeMap",
        "IntOrString",
        "CustomResource",
        "Serialize",
        "Deserialize",
    ]
    .contains(&kind)
    {
        bail!(
            "the kind {kind:?} has the name of a type its Rust file imports; rsbuilder cannot generate types for it"
        );
    }
    Ok(())
}
