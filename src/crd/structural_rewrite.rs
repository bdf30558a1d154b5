//! kube's `StructuralSchemaRewriter`, handed one node at a time.
//!
//! At every node, kube's rewriter first rewrites the children, then reads the node's whole
//! subtree into its own typed `SchemaObject` and writes it back: over a tree of n nodes and
//! depth d that is n·d work, and a CRD whose every nested object is a type of the sources
//! (kopium's style) is deep. For CloudNativePG's Pooler it was 380 of 920 million
//! instructions. Yet what the rewrite decides at a node comes from the node alone, unless
//! the node has `oneOf`/`anyOf` (whose variants' properties it hoists and compares):
//!
//! - below the node, the round trip through its typed form changes nothing, since every
//!   subschema has been through it already when its own node was rewritten (reading and
//!   writing back the typed form is the same on its own output);
//! - what the rewrite changes at the node (hoisting aside) is the node's own keys.
//!
//! So [`NodeByNode`] gives the real rewriter each node alone, every subschema object
//! replaced by `{}` and put back afterwards; a node with `oneOf`/`anyOf` is given whole, as
//! kube-derive gives it, and rewritten recursively by kube's code. One thing does cross the
//! cut: the rewriter leaves a node as it is when any part of its subtree does not read as
//! its typed form (a `maxItems` past `u32`, say), so whether a subtree reads is carried up.
//! A node it reads plainly is not even handed over: [`plain`] writes out what the rewrite
//! does to it. The tests compare both ways on every Kubernetes type and on random schemas.

use kube_core::schema::StructuralSchemaRewriter;
use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value};

// A path of its own: build.rs includes this file by path, where `mod plain;` would be
// looked for beside it.
#[path = "structural_rewrite/plain.rs"]
mod plain;

/// [`StructuralSchemaRewriter`], node by node (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct NodeByNode;

impl Transform for NodeByNode {
    fn transform(&mut self, schema: &mut Schema) {
        rewrite(schema);
    }
}

/// The keyword that shows whether kube's rewriter read a node: it removes `uniqueItems`
/// from every node it reads (Kubernetes rejects it), and touches nothing it cannot read.
const PROBE: &str = "uniqueItems";

/// Rewrites `schema` as kube's rewriter does, and says whether it reads as kube's typed
/// schema (a boolean does; an object when it and all its typed subschemas do).
fn rewrite(schema: &mut Schema) -> bool {
    let Some(obj) = schema.as_object() else {
        // The rewriter leaves a boolean schema alone, and reads it as `Schema::Bool`.
        return true;
    };
    if obj.contains_key("oneOf") || obj.contains_key("anyOf") {
        return probed(schema, |s| StructuralSchemaRewriter.transform(s));
    }
    let mut subtrees_read = true;
    let mut detached = Vec::new();
    let obj = schema.as_object_mut().expect("an object, checked above");
    for (at, value) in subschemas(obj) {
        let Ok(sub) = <&mut Schema>::try_from(&mut *value) else {
            // Not a schema: the rewriter does not visit it, and a typed position holding
            // it makes the node unreadable (the node's own read below says so).
            continue;
        };
        let read = rewrite(sub);
        subtrees_read &= read || !at.typed();
        if value.is_object() {
            detached.push((at, std::mem::replace(value, Value::Object(Map::new()))));
        }
    }
    let read = subtrees_read
        && (plain::rewrite(schema.as_object_mut().expect("an object, checked above"))
            || probed(schema, |s| StructuralSchemaRewriter.transform(s)));
    let obj = schema
        .as_object_mut()
        .expect("the rewriter writes an object back");
    for (at, value) in detached {
        let slot = at
            .find(obj)
            .expect("the rewriter keeps every subschema object in place");
        *slot = value;
    }
    read
}

/// Runs `rewrite` on `schema` and says whether it read the node, by the [`PROBE`] it
/// removes; the probe is taken out again where the node was not read.
fn probed(schema: &mut Schema, rewrite: impl FnOnce(&mut Schema)) -> bool {
    let had_probe = schema.get(PROBE).is_some();
    if !had_probe {
        schema.insert(PROBE.into(), true.into());
    }
    rewrite(schema);
    let read = schema.get(PROBE).is_none();
    if !read && !had_probe {
        schema.remove(PROBE);
    }
    read
}

/// Where a subschema sits in its parent.
#[derive(Debug, Clone, PartialEq, Eq)]
enum At {
    /// `"not": {...}`
    Key(String),
    /// `"allOf": [..., {...}]`
    Index(String, usize),
    /// `"properties": {"name": {...}}`
    Entry(String, String),
}

impl At {
    fn keyword(&self) -> &str {
        match self {
            At::Key(k) | At::Index(k, _) | At::Entry(k, _) => k,
        }
    }

    /// Whether kube's typed form reads the subschema as a schema (elsewhere it keeps the
    /// JSON as it is).
    fn typed(&self) -> bool {
        matches!(
            self.keyword(),
            "anyOf"
                | "oneOf"
                | "items"
                | "additionalItems"
                | "contains"
                | "properties"
                | "patternProperties"
                | "additionalProperties"
                | "propertyNames"
        )
    }

    fn find<'m>(&self, obj: &'m mut Map<String, Value>) -> Option<&'m mut Value> {
        let value = obj.get_mut(self.keyword())?;
        match self {
            At::Key(_) => Some(value),
            At::Index(_, i) => value.as_array_mut()?.get_mut(*i),
            At::Entry(_, name) => value.as_object_mut()?.get_mut(name),
        }
    }
}

/// The subschemas of a node, where schemars' `transform_subschemas` visits them.
fn subschemas(obj: &mut Map<String, Value>) -> Vec<(At, &mut Value)> {
    let mut out = Vec::new();
    for (key, value) in obj.iter_mut() {
        match (key.as_str(), value) {
            (
                "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "additionalProperties"
                | "propertyNames"
                | "additionalItems",
                value,
            ) => out.push((At::Key(key.clone()), value)),
            ("allOf" | "anyOf" | "oneOf" | "prefixItems" | "items", Value::Array(items)) => out
                .extend(
                    items
                        .iter_mut()
                        .enumerate()
                        .map(|(i, v)| (At::Index(key.clone(), i), v)),
                ),
            ("items", value) => out.push((At::Key(key.clone()), value)),
            (
                "properties" | "patternProperties" | "$defs" | "definitions",
                Value::Object(entries),
            ) => out.extend(
                entries
                    .iter_mut()
                    .map(|(name, v)| (At::Entry(key.clone(), name.clone()), v)),
            ),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn both(v: Value) -> (Value, Value) {
        let mut real: Schema = serde_json::from_value(v.clone()).unwrap();
        StructuralSchemaRewriter.transform(&mut real);
        let mut ours: Schema = serde_json::from_value(v).unwrap();
        NodeByNode.transform(&mut ours);
        (real.to_value(), ours.to_value())
    }

    fn same(v: Value) {
        let (real, ours) = both(v.clone());
        assert_eq!(ours, real, "input: {v}");
    }

    #[test]
    fn nested_objects_are_rewritten_as_kube_does() {
        same(json!({"type": "object", "properties": {
            "a": {"type": "object", "additionalProperties": true,
                  "properties": {"b": {"type": "array", "uniqueItems": true, "items": {"type": "string"}}}},
            "c": {"type": "object", "additionalProperties": false, "properties": {"d": {"type": "integer"}}},
            "m": {"type": "object", "additionalProperties": {"type": "object", "properties": {"x": true}}}},
            "required": ["c", "a", "c"]}));
    }

    #[test]
    fn variants_are_hoisted_as_kube_does() {
        same(json!({"type": "object", "properties": {"e": {"oneOf": [
            {"type": "object", "description": "A", "properties": {"a": {"type": "object", "properties": {"n": {"type": "string", "uniqueItems": false}}}}, "required": ["a"], "additionalProperties": false},
            {"type": "object", "properties": {"b": {"type": "array", "items": {"type": "object", "additionalProperties": true, "properties": {"x": {"type": "string"}}}}}, "required": ["b"]}
        ]}}}));
    }

    /// kube's rewriter leaves every node above a subschema it cannot read as it was; so
    /// does this one, and it drops none of its probes.
    #[test]
    fn a_subtree_kube_cannot_read_keeps_its_ancestors_as_they_were() {
        let unreadable =
            json!({"type": "array", "maxItems": 5_000_000_000u64, "uniqueItems": true});
        for v in [
            json!({"type": "object", "additionalProperties": true, "properties": {"deep": {"type": "object", "properties": {"x": unreadable}}}}),
            json!({"type": "object", "additionalProperties": true, "allOf": [unreadable], "properties": {"y": {"type": "string"}}}),
            json!({"type": "object", "additionalProperties": true, "properties": {"z": {"type": 5}}}),
            json!({"type": "object", "additionalProperties": true, "properties": {"z": 5}}),
            json!({"type": "object", "additionalProperties": true, "properties": {"y": {"type": "string"}}, "items": [unreadable, {"type": "string", "uniqueItems": true}]}),
        ] {
            same(v);
        }
    }

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(json!({"type": "string"})),
            Just(json!({"type": "integer", "format": "int32"})),
            Just(json!({"type": "string", "enum": ["a", "b"], "description": "d"})),
            Just(json!({"type": "array", "uniqueItems": true, "items": {"type": "string"}})),
            Just(json!({"x-kubernetes-int-or-string": true})),
            Just(json!({"type": "array", "maxItems": 5_000_000_000u64})),
            Just(json!({"default": null, "nullable": true})),
            Just(json!(true)),
        ]
    }

    fn schema() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(6, 64, 4, |inner| {
            let props = proptest::collection::btree_map("[a-c]", inner.clone(), 0..4);
            prop_oneof![
                (props.clone(), proptest::option::of(any::<bool>())).prop_map(|(p, extra)| {
                    let mut o = json!({"type": "object", "properties": p});
                    if let Some(b) = extra {
                        o["additionalProperties"] = b.into();
                    }
                    o
                }),
                inner.clone().prop_map(|i| json!({"type": "array", "items": i})),
                inner
                    .clone()
                    .prop_map(|i| json!({"type": "object", "additionalProperties": i})),
                (inner.clone(), props.clone())
                    .prop_map(|(i, p)| json!({"type": "object", "properties": p, "allOf": [i]})),
                proptest::collection::vec(props.clone(), 1..3).prop_map(|vs| {
                    let variants: Vec<Value> = vs
                        .into_iter()
                        .enumerate()
                        .map(|(n, p)| {
                            let only = json!({ format!("v{n}"): {"type": "object", "properties": p} });
                            json!({"type": "object", "properties": only, "required": [format!("v{n}")]})
                        })
                        .collect();
                    json!({"oneOf": variants})
                }),
                proptest::collection::vec(inner, 1..3).prop_map(|vs| {
                    // Untagged variants with properties of their own names: kube panics
                    // when two variants define one property differently.
                    let variants: Vec<Value> = vs
                        .into_iter()
                        .enumerate()
                        .map(|(n, v)| json!({"type": "object", "properties": { format!("u{n}"): v }}))
                        .collect();
                    json!({"anyOf": variants})
                }),
            ]
        })
    }

    proptest! {
        #[test]
        fn node_by_node_equals_kube_on_random_schemas(v in schema()) {
            let (real, ours) = both(v);
            prop_assert_eq!(ours, real);
        }
    }
}
