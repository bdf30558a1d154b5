//! A sample object of a kind, from its CRD's schema.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, JSONSchemaProps,
};

/// A sample `spec` for `version` of `crd`: the example field when the schema still has it,
/// and a zero value for every required field.
pub fn sample_spec(crd: &CustomResourceDefinition, version: &str, kind: &str) -> String {
    let spec = crd
        .spec
        .versions
        .iter()
        .find(|v| v.name == version)
        .and_then(|v| v.schema.as_ref())
        .and_then(|s| s.open_api_v3_schema.as_ref())
        .and_then(|s| s.properties.as_ref())
        .and_then(|p| p.get("spec"));
    let Some(spec) = spec else {
        return "spec: {}".into();
    };
    let mut fields = serde_yaml::Mapping::new();
    for name in spec.required.iter().flatten() {
        if let Some(prop) = spec.properties.as_ref().and_then(|p| p.get(name)) {
            fields.insert(name.clone().into(), zero(prop));
        }
    }
    let example = spec
        .properties
        .as_ref()
        .and_then(|p| p.get("foo"))
        .is_some_and(|p| p.type_.as_deref() == Some("string"));
    if example {
        fields.insert("foo".into(), format!("an example {kind}").into());
    }
    if fields.is_empty() {
        return format!("# TODO(user): the fields of a {kind}.\nspec: {{}}");
    }
    let body = crate::yaml::to_string(&fields).unwrap_or_default();
    let indented: String = body.lines().map(|l| format!("  {l}\n")).collect();
    format!(
        "spec:\n  # TODO(user): describe the {kind} you want.\n{}",
        indented.trim_end()
    )
}

fn zero(prop: &JSONSchemaProps) -> serde_yaml::Value {
    match prop.type_.as_deref() {
        Some("string") => "".into(),
        Some("integer") | Some("number") => 0.into(),
        Some("boolean") => false.into(),
        Some("array") => serde_yaml::Value::Sequence(Vec::new()),
        _ => serde_yaml::Value::Mapping(serde_yaml::Mapping::new()),
    }
}
