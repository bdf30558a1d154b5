//! Reading a CRD version's structural schema (`openAPIV3Schema`, as JSON): its type, its
//! children, and the Kubernetes extensions that change what a value may be.

use serde_json::{Map, Value};

/// A node of a structural schema.
#[derive(Debug, Clone, Copy)]
pub struct Schema<'a>(pub &'a Value);

impl<'a> Schema<'a> {
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.0.get(key)
    }

    fn flag(&self, key: &str) -> bool {
        self.0.get(key).and_then(Value::as_bool) == Some(true)
    }

    /// `type`, or "" when the node has none.
    pub fn type_(&self) -> &'a str {
        self.0
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    pub fn format(&self) -> &'a str {
        self.0
            .get("format")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    pub fn nullable(&self) -> bool {
        self.flag("nullable")
    }

    pub fn int_or_string(&self) -> bool {
        self.flag("x-kubernetes-int-or-string")
    }

    pub fn preserves_unknown_fields(&self) -> bool {
        self.flag("x-kubernetes-preserve-unknown-fields")
    }

    pub fn embedded_resource(&self) -> bool {
        self.flag("x-kubernetes-embedded-resource")
    }

    pub fn properties(&self) -> Option<&'a Map<String, Value>> {
        self.0.get("properties").and_then(Value::as_object)
    }

    pub fn property(&self, name: &str) -> Option<Schema<'a>> {
        self.properties()?.get(name).map(Schema)
    }

    pub fn items(&self) -> Option<Schema<'a>> {
        self.0.get("items").filter(|i| i.is_object()).map(Schema)
    }

    /// `additionalProperties` when it is a schema (a map's values).
    pub fn additional_properties(&self) -> Option<Schema<'a>> {
        self.0
            .get("additionalProperties")
            .filter(|a| a.is_object())
            .map(Schema)
    }

    /// Whether an object accepts keys beyond its properties.
    pub fn open(&self) -> bool {
        self.preserves_unknown_fields()
            || self.additional_properties().is_some()
            || self.0.get("additionalProperties") == Some(&Value::Bool(true))
    }

    pub fn required(&self) -> impl Iterator<Item = &'a str> {
        self.0
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
    }

    pub fn list_type(&self) -> &'a str {
        self.0
            .get("x-kubernetes-list-type")
            .and_then(Value::as_str)
            .unwrap_or("atomic")
    }

    /// `x-kubernetes-validations`, each with its index.
    pub fn validations(&self) -> &'a [Value] {
        self.0
            .get("x-kubernetes-validations")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// The type a value of this node has, as one word for messages: `string`,
    /// `integer`, `int-or-string`, `object`, ...
    pub fn describe(&self) -> String {
        if self.int_or_string() {
            return "int-or-string".into();
        }
        match (self.type_(), self.format()) {
            ("", _) if self.preserves_unknown_fields() => "any".into(),
            ("", _) => "untyped".into(),
            ("array", _) => match self.items() {
                Some(items) => format!("array of {}", items.describe()),
                None => "array".into(),
            },
            ("object", _) if self.additional_properties().is_some() => format!(
                "map of {}",
                self.additional_properties()
                    .map(|a| a.describe())
                    .unwrap_or_default()
            ),
            (t, "") => t.into(),
            (t, f) => format!("{t} ({f})"),
        }
    }
}

/// The schema of a version's `openAPIV3Schema` at a path of property names, following
/// arrays' items and maps' values for the `[]`/`{}` steps.
pub fn descend<'a>(root: Schema<'a>, path: &[&str]) -> Option<Schema<'a>> {
    path.iter().try_fold(root, |s, step| match *step {
        "[]" => s.items(),
        "{}" => s.additional_properties(),
        name => s.property(name),
    })
}

/// `value` as the API server stores it: nulls in fields that are not `nullable` removed,
/// then every absent field with a `default` given it, at every level (CRD defaulting,
/// "Defaulting and Nullable" in the CustomResourceDefinition docs).
pub fn apply_defaults(schema: Schema<'_>, value: &mut Value) {
    match value {
        Value::Object(object) => {
            if let Some(properties) = schema.properties() {
                object.retain(|key, v| {
                    !(v.is_null() && properties.get(key).is_some_and(|p| !Schema(p).nullable()))
                });
                for (key, property) in properties {
                    if !object.contains_key(key)
                        && let Some(default) = property.get("default")
                    {
                        object.insert(key.clone(), default.clone());
                    }
                }
                for (key, v) in object.iter_mut() {
                    if let Some(property) = properties.get(key) {
                        apply_defaults(Schema(property), v);
                    }
                }
            } else if let Some(values) = schema.additional_properties() {
                for v in object.values_mut() {
                    apply_defaults(values, v);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.items() {
                for item in items {
                    apply_defaults(item_schema, item);
                }
            }
        }
        _ => {}
    }
}
