//! kube's rewrite of one node, written out for the nodes it reads plainly.
//!
//! kube's rewriter reads each node into its typed `SchemaObject` and writes it back, about
//! ten thousand instructions a node, and a quarter of what `generate crds` spent on a
//! kopium-style CRD. For a node with nothing to hoist (no `oneOf`/`anyOf`), whose
//! subschema objects are detached (`{}`, as [`super::rewrite`] hands it over) and whose
//! keywords all read as the typed form expects, what that round trip does is short:
//!
//! - `uniqueItems` goes (Kubernetes rejects it);
//! - `required` is a `BTreeSet`: sorted, without repeats, gone when empty;
//! - `properties` and `patternProperties` are `BTreeMap`s: gone when empty;
//! - with properties, `additionalProperties: true` becomes
//!   `x-kubernetes-preserve-unknown-fields: true`, and `additionalProperties: false` goes;
//! - every other keyword is kept as it is (kube's model keeps it, or keeps it among its
//!   extensions).
//!
//! Any other node (a `null` where the model wants a string, which reads as absent; a
//! `maxItems` past `u32`; an unknown `type`) is left to kube's own code. The tests compare
//! this with kube's rewriter on random nodes.

use serde_json::{Map, Value};

/// Rewrites `node` as kube's rewriter does and returns `true`, when every keyword of it
/// reads plainly; otherwise leaves it untouched and returns `false`.
pub(super) fn rewrite(node: &mut Map<String, Value>) -> bool {
    if !node.iter().all(|(key, value)| reads_plainly(key, value)) {
        return false;
    }
    node.remove("uniqueItems");
    if let Some(Value::Array(required)) = node.get_mut("required") {
        required.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
        required.dedup();
    }
    for set in ["required", "properties", "patternProperties"] {
        if node.get(set).is_some_and(is_empty) {
            node.remove(set);
        }
    }
    if node.contains_key("properties")
        && let Some(&Value::Bool(open)) = node.get("additionalProperties")
    {
        node.remove("additionalProperties");
        if open {
            node.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
        }
    }
    true
}

/// Whether kube's `SchemaObject` reads `value` under `key` as written, with nothing to
/// hoist: a keyword of its model holding the JSON type the model has for it, or any other
/// key (kept among the extensions whatever it holds).
fn reads_plainly(key: &str, value: &Value) -> bool {
    match key {
        "anyOf" | "oneOf" => false,
        "description" | "format" => value.is_string(),
        "default" => true,
        "enum" => value.is_array(),
        "type" => match value {
            Value::Array(types) => types.iter().all(|t| t.as_str().is_some_and(instance_type)),
            t => t.as_str().is_some_and(instance_type),
        },
        "items" => match value {
            Value::Array(items) => items.iter().all(is_schema),
            item => is_schema(item),
        },
        "additionalItems" | "contains" | "additionalProperties" | "propertyNames" => {
            is_schema(value)
        }
        "maxItems" | "minItems" | "maxProperties" | "minProperties" => {
            value.as_u64().is_some_and(|n| u32::try_from(n).is_ok())
        }
        "uniqueItems" => value.is_boolean(),
        "required" => value
            .as_array()
            .is_some_and(|names| names.iter().all(Value::is_string)),
        "properties" | "patternProperties" => value
            .as_object()
            .is_some_and(|entries| entries.values().all(is_schema)),
        _ => true,
    }
}

/// kube's `InstanceType`.
fn instance_type(name: &str) -> bool {
    matches!(
        name,
        "null" | "boolean" | "object" | "array" | "number" | "string" | "integer"
    )
}

fn is_schema(value: &Value) -> bool {
    value.is_boolean() || value.is_object()
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.is_empty(),
        Value::Object(entries) => entries.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_core::schema::StructuralSchemaRewriter;
    use proptest::prelude::*;
    use schemars::Schema;
    use schemars::transform::Transform;
    use serde_json::json;

    /// A value for `key`, mostly of the type kube's model has for it, sometimes not.
    fn value_for(key: &'static str) -> impl Strategy<Value = Value> {
        let any_value = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            prop_oneof![Just(5u64), Just(0), Just(5_000_000_000)].prop_map(Value::from),
            Just(json!(-1)),
            Just(json!(2.5)),
            Just(json!("string")),
            Just(json!("text")),
            Just(json!({})),
            Just(json!([])),
        ];
        let typed: BoxedStrategy<Value> = match key {
            "type" => prop_oneof![
                prop::sample::select(vec!["string", "object", "array", "integer", "kind"])
                    .prop_map(Value::from),
                prop::collection::vec(prop::sample::select(vec!["string", "null", "x"]), 0..3)
                    .prop_map(Value::from),
            ]
            .boxed(),
            "required" => prop::collection::vec(prop::sample::select(vec!["b", "a", "c"]), 0..4)
                .prop_map(Value::from)
                .boxed(),
            "properties" | "patternProperties" => prop::collection::btree_map(
                "[a-c]",
                prop_oneof![Just(json!({})), any::<bool>().prop_map(Value::from)],
                0..3,
            )
            .prop_map(|m| Value::Object(m.into_iter().collect()))
            .boxed(),
            "items" => prop_oneof![
                Just(json!({})),
                Just(json!(true)),
                Just(json!([{}, false])),
                Just(json!([{}, 5]))
            ]
            .boxed(),
            "oneOf" | "anyOf" => Just(json!([{"type": "object", "properties": {"a": {}}}])).boxed(),
            "enum" => Just(json!(["a", null, 1])).boxed(),
            _ => any_value.clone().boxed(),
        };
        prop_oneof![4 => typed, 1 => any_value]
    }

    fn node() -> impl Strategy<Value = Map<String, Value>> {
        let keys = prop::sample::subsequence(
            vec![
                "type",
                "description",
                "format",
                "default",
                "enum",
                "items",
                "additionalItems",
                "contains",
                "additionalProperties",
                "propertyNames",
                "maxItems",
                "minItems",
                "maxProperties",
                "minProperties",
                "uniqueItems",
                "required",
                "properties",
                "patternProperties",
                "oneOf",
                "nullable",
                "x-kubernetes-int-or-string",
                "title",
            ],
            0..8,
        );
        keys.prop_flat_map(|keys| {
            keys.into_iter()
                .map(|k| value_for(k).prop_map(move |v| (k.to_string(), v)))
                .collect::<Vec<_>>()
        })
        .prop_map(|entries| entries.into_iter().collect())
    }

    /// What kube's rewriter makes of `node` (already rewritten below), and whether it read it.
    fn kube(node: &Map<String, Value>) -> (Value, bool) {
        let mut schema = Schema::from(node.clone());
        schema.insert("uniqueItems".into(), true.into());
        let probe_kept = node.get("uniqueItems").is_none();
        StructuralSchemaRewriter.transform(&mut schema);
        let read = schema.get("uniqueItems").is_none();
        if !read && probe_kept {
            schema.remove("uniqueItems");
        }
        (schema.to_value(), read)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        #[test]
        fn a_node_is_rewritten_as_kube_rewrites_it(node in node()) {
            let mut ours = node.clone();
            if rewrite(&mut ours) {
                let (theirs, read) = kube(&node);
                prop_assert!(read, "kube does not read {node:?}");
                prop_assert_eq!(Value::Object(ours), theirs);
            } else {
                prop_assert_eq!(ours, node);
            }
        }
    }

    /// The shapes kopium's CRDs are made of all take the short way.
    #[test]
    fn kopium_shapes_read_plainly() {
        for node in [
            json!({"type": "object", "description": "d", "properties": {"a": {}}, "required": ["b", "a"]}),
            json!({"type": "array", "items": {}, "nullable": true}),
            json!({"type": "object", "additionalProperties": {}, "nullable": true}),
            json!({"type": "integer", "format": "int32", "default": 1}),
            json!({"x-kubernetes-int-or-string": true, "nullable": true}),
        ] {
            let Value::Object(mut node) = node else {
                unreachable!()
            };
            assert!(rewrite(&mut node), "{node:?}");
        }
    }
}
