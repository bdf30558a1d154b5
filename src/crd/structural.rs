//! Kubernetes' structural-schema rules (apiextensions `ValidateStructural`), checked on the
//! final `JSONSchemaProps` of every version before anything is written:
//!
//! - every node has a `type`, unless it is `x-kubernetes-int-or-string` or
//!   `x-kubernetes-preserve-unknown-fields`;
//! - inside `allOf`/`anyOf`/`oneOf`/`not`: no `type`, `description`, `default`, `nullable`,
//!   `additionalProperties`, `title` or `x-kubernetes-preserve-unknown-fields` (but for the
//!   int-or-string pattern, `anyOf: [{type: integer}, {type: string}]`);
//! - not both `properties` and `additionalProperties`;
//! - `items` is one schema, not a list;
//! - no `patternProperties` (not structural-schema rules, but the API server refuses it);
//! - at the root: `type: object`, and `metadata` may only restrict `name`/`generateName`.
//!
//! The storage-version rule is checked where versions are merged.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};

/// Every violation in a CRD, each prefixed with its path
/// (`spec.versions[v1].schema.openAPIV3Schema.properties[spec]...`).
pub fn check(crd: &CustomResourceDefinition) -> Vec<String> {
    let mut out = Vec::new();
    for v in &crd.spec.versions {
        let Some(schema) = v
            .schema
            .as_ref()
            .and_then(|s| s.open_api_v3_schema.as_ref())
        else {
            continue;
        };
        let base = format!("spec.versions[{}].schema.openAPIV3Schema", v.name);
        check_root(schema, &base, &mut out);
    }
    out
}

/// Checks one version's root schema.
pub fn check_root(schema: &JSONSchemaProps, base: &str, out: &mut Vec<String>) {
    if schema.type_.as_deref() != Some("object") {
        out.push(format!("{base}: the root must have type \"object\""));
    }
    if let Some(meta) = schema.properties.as_ref().and_then(|p| p.get("metadata")) {
        let allowed = meta
            .properties
            .as_ref()
            .is_none_or(|p| p.keys().all(|k| k == "name" || k == "generateName"));
        if !allowed {
            out.push(format!(
                "{base}.properties[metadata]: only `name` and `generateName` may be restricted"
            ));
        }
    }
    node(schema, At::Root(base), false, out);
}

/// Where a node is: written out only for a message, which few nodes have.
#[derive(Clone, Copy)]
enum At<'p> {
    Root(&'p str),
    /// Below `parent`, then `.` and this step.
    Below(&'p At<'p>, Step<'p>),
}

#[derive(Clone, Copy)]
enum Step<'p> {
    Property(&'p str),
    Field(&'static str),
    Entry(&'static str, usize),
}

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::Root(base) => f.write_str(base),
            At::Below(parent, Step::Property(k)) => write!(f, "{parent}.properties[{k}]"),
            At::Below(parent, Step::Field(name)) => write!(f, "{parent}.{name}"),
            At::Below(parent, Step::Entry(key, i)) => write!(f, "{parent}.{key}[{i}]"),
        }
    }
}

fn node(s: &JSONSchemaProps, path: At<'_>, in_junctor: bool, out: &mut Vec<String>) {
    // A sealed Kubernetes subschema, outside any junctor (`sealed::intact`): the tests
    // check that every one is structural.
    if super::sealed::placeholder(s).is_some() {
        return;
    }
    let int_or_string = s.x_kubernetes_int_or_string == Some(true);
    let preserve = s.x_kubernetes_preserve_unknown_fields == Some(true);
    if in_junctor {
        let forbidden = [
            ("type", s.type_.is_some()),
            ("description", s.description.is_some()),
            ("default", s.default.is_some()),
            ("nullable", s.nullable.is_some()),
            ("additionalProperties", s.additional_properties.is_some()),
            ("title", s.title.is_some()),
            (
                "x-kubernetes-preserve-unknown-fields",
                s.x_kubernetes_preserve_unknown_fields.is_some(),
            ),
        ];
        for (key, present) in forbidden {
            if present {
                out.push(format!(
                    "{path}: `{key}` must not be set inside allOf/anyOf/oneOf/not"
                ));
            }
        }
    } else if s.type_.as_deref().is_none_or(str::is_empty) && !int_or_string && !preserve {
        out.push(format!("{path}: must have a `type` (or x-kubernetes-int-or-string / x-kubernetes-preserve-unknown-fields)"));
    }
    // apiextensions' ValidateCustomResourceDefinitionOpenAPISchema: "patternProperties is
    // not supported". schemars writes it for map keys that are integers or have a pattern.
    if s.pattern_properties.as_ref().is_some_and(|p| !p.is_empty()) {
        out.push(format!(
            "{path}: `patternProperties` is not supported in CRDs (schemars writes it for map keys that are integers or have a pattern; key the map by `String` or a unit enum)"
        ));
    }
    if s.properties.as_ref().is_some_and(|p| !p.is_empty()) && s.additional_properties.is_some() {
        out.push(format!(
            "{path}: `properties` and `additionalProperties` must not both be set"
        ));
    }
    if let Some(props) = &s.properties {
        for (k, v) in props {
            node(v, At::Below(&path, Step::Property(k)), in_junctor, out);
        }
    }
    match &s.items {
        Some(JSONSchemaPropsOrArray::Schema(items)) => node(
            items,
            At::Below(&path, Step::Field("items")),
            in_junctor,
            out,
        ),
        Some(JSONSchemaPropsOrArray::Schemas(_)) => {
            out.push(format!("{path}.items: must be a single schema, not a list"))
        }
        None => {}
    }
    if let Some(JSONSchemaPropsOrBool::Schema(ap)) = &s.additional_properties {
        let at = At::Below(&path, Step::Field("additionalProperties"));
        node(ap, at, in_junctor, out);
    }
    for (key, list) in [
        ("allOf", &s.all_of),
        ("anyOf", &s.any_of),
        ("oneOf", &s.one_of),
    ] {
        for (i, sub) in list.iter().flatten().enumerate() {
            // The one place `type` may appear below a junctor.
            let pattern = match key {
                "anyOf" => s.any_of.as_deref().is_some_and(is_int_or_string_pair),
                "allOf" => is_int_or_string_entry(sub),
                _ => false,
            };
            if !(int_or_string && pattern) {
                node(sub, At::Below(&path, Step::Entry(key, i)), true, out);
            }
        }
    }
    if let Some(not) = &s.not {
        node(not, At::Below(&path, Step::Field("not")), true, out);
    }
}

/// Kubernetes' int-or-string pattern, allowed below a node with
/// `x-kubernetes-int-or-string: true`: `anyOf: [{type: integer}, {type: string}]`.
fn is_int_or_string_pair(any_of: &[JSONSchemaProps]) -> bool {
    let only_type = |s: &JSONSchemaProps, t: &str| {
        *s == JSONSchemaProps {
            type_: Some(t.to_string()),
            ..JSONSchemaProps::default()
        }
    };
    matches!(any_of, [a, b] if only_type(a, "integer") && only_type(b, "string"))
}

/// The same pattern as an `allOf` entry: `{anyOf: [{type: integer}, {type: string}]}`.
fn is_int_or_string_entry(entry: &JSONSchemaProps) -> bool {
    let only_any_of = *entry
        == JSONSchemaProps {
            any_of: entry.any_of.clone(),
            ..JSONSchemaProps::default()
        };
    only_any_of && entry.any_of.as_deref().is_some_and(is_int_or_string_pair)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn violations(v: serde_json::Value) -> Vec<String> {
        let s: JSONSchemaProps = serde_json::from_value(v).unwrap();
        let mut out = Vec::new();
        check_root(&s, "root", &mut out);
        out
    }

    #[test]
    fn untyped_node_before_and_after() {
        let before = serde_json::json!({"type": "object", "properties": {"x": {}}});
        assert_eq!(
            violations(before),
            [
                "root.properties[x]: must have a `type` (or x-kubernetes-int-or-string / x-kubernetes-preserve-unknown-fields)"
            ]
        );
        let after = serde_json::json!({"type": "object", "properties": {"x": {"x-kubernetes-preserve-unknown-fields": true}}});
        assert!(violations(after).is_empty());
    }

    #[test]
    fn junctor_metadata_before_and_after() {
        let before = serde_json::json!({"type": "object", "properties": {"a": {"type": "string"}},
            "oneOf": [{"required": ["a"], "description": "x"}]});
        assert_eq!(
            violations(before),
            ["root.oneOf[0]: `description` must not be set inside allOf/anyOf/oneOf/not"]
        );
        let after = serde_json::json!({"type": "object", "properties": {"a": {"type": "string"}}, "oneOf": [{"required": ["a"]}]});
        assert!(violations(after).is_empty());
    }

    #[test]
    fn properties_and_additional_properties_before_and_after() {
        let before = serde_json::json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}});
        assert_eq!(violations(before).len(), 1);
        let after =
            serde_json::json!({"type": "object", "additionalProperties": {"type": "string"}});
        assert!(violations(after).is_empty());
    }

    #[test]
    fn items_list_and_metadata_before_and_after() {
        let before = serde_json::json!({"type": "object", "properties": {
            "l": {"type": "array", "items": [{"type": "string"}]},
            "metadata": {"type": "object", "properties": {"labels": {"type": "object"}}}}});
        assert_eq!(violations(before).len(), 2);
        let after = serde_json::json!({"type": "object", "properties": {
            "l": {"type": "array", "items": {"type": "string"}},
            "metadata": {"type": "object", "properties": {"name": {"type": "string"}}}}});
        assert!(violations(after).is_empty());
    }

    /// Kubernetes allows `type` inside `anyOf` in one place: the int-or-string pattern
    /// (`anyOf: [{type: integer}, {type: string}]`, alone or as an `allOf` entry) on a node
    /// with `x-kubernetes-int-or-string: true`, which controller-gen writes for every
    /// IntOrString field. See "IntOrString" under
    /// https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#intorstring
    #[test]
    fn the_int_or_string_pattern_before_and_after() {
        let pattern = serde_json::json!([{"type": "integer"}, {"type": "string"}]);
        let alone = serde_json::json!({"type": "object", "properties": {"port": {
            "x-kubernetes-int-or-string": true, "anyOf": pattern}}});
        assert!(violations(alone).is_empty());
        let in_all_of = serde_json::json!({"type": "object", "properties": {"port": {
            "x-kubernetes-int-or-string": true,
            "allOf": [{"anyOf": pattern}, {"pattern": "^[0-9a-z]+$"}]}}});
        assert!(violations(in_all_of).is_empty());
        // Anywhere else, and with any other type, `type` stays forbidden there.
        let without_flag = serde_json::json!({"type": "object", "properties": {"port": {
            "type": "string", "anyOf": pattern}}});
        assert_eq!(violations(without_flag).len(), 2);
        let other_type = serde_json::json!({"type": "object", "properties": {"port": {
            "x-kubernetes-int-or-string": true,
            "anyOf": [{"type": "integer"}, {"type": "boolean"}]}}});
        assert_eq!(violations(other_type).len(), 2);
    }

    #[test]
    fn root_must_be_object() {
        assert_eq!(violations(serde_json::json!({"type": "string"})).len(), 1);
    }
}
