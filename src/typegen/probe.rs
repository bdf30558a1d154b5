//! A field of a kind's spec whose values an enum lists and that an object can set alone:
//! the envtest test of an external kind lets the CRD allow one value more there, as a newer
//! CRD would, and reads an object that holds it through the generated types.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaProps;

/// The keys of the field below `spec`, e.g. `["privateKey", "algorithm"]`: the first by key
/// of the shallowest string enums that are reached through objects which require none of
/// their fields. Keys are plain (letters, digits, `-`, `_`, `.`), so that they read the same
/// in a JSON pointer and in a Rust string.
pub fn enum_field(root: &JSONSchemaProps) -> Option<Vec<String>> {
    let spec = root.properties.as_ref()?.get("spec")?;
    let mut level = vec![(Vec::new(), spec)];
    while !level.is_empty() {
        let mut next = Vec::new();
        for (path, schema) in level {
            for (key, field) in schema.properties.iter().flatten() {
                if !plain(key) {
                    continue;
                }
                let mut path: Vec<String> = path.clone();
                path.push(key.clone());
                if string_enum(field) {
                    return Some(path);
                }
                let requires_nothing = field.required.as_ref().is_none_or(Vec::is_empty);
                if field.type_.as_deref() == Some("object") && requires_nothing {
                    next.push((path, field));
                }
            }
        }
        level = next;
    }
    None
}

fn string_enum(field: &JSONSchemaProps) -> bool {
    let values = field.enum_.as_deref().unwrap_or_default();
    field.type_.as_deref() == Some("string")
        && !values.is_empty()
        && values.iter().all(|value| value.0.is_string())
}

fn plain(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn root(spec: serde_json::Value) -> JSONSchemaProps {
        serde_json::from_value(json!({"type": "object", "properties": {"spec": spec}}))
            .expect("a schema")
    }

    #[test]
    fn the_shallowest_enum_an_object_can_set_alone_is_chosen() {
        let string_enum = json!({"type": "string", "enum": ["A", "B"]});
        let spec = root(
            json!({"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string"},
                "needy": {"type": "object", "required": ["x"], "properties": {"mode": string_enum}},
                "list": {"type": "array", "items": string_enum},
                "numbers": {"type": "integer", "enum": [1, 2]},
                "open": {"type": "object", "properties": {
                    "deeper": {"type": "object", "properties": {"mode": string_enum}},
                    "mode": string_enum}},
                "we/ird": string_enum,
            }}),
        );
        assert_eq!(enum_field(&spec), Some(vec!["open".into(), "mode".into()]));
        let none = root(json!({"type": "object", "properties": {"name": {"type": "string"}}}));
        assert_eq!(enum_field(&none), None);
    }
}
