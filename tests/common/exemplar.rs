//! Objects that fill every field a CRD's schema names, for the round-trip test of the types
//! `create api --from-crd` generates: variant `n` picks the `n`-th enum value (wrapping),
//! an integer or a string for int-or-string fields by parity, integral or fractional
//! numbers by parity, and adds keys the schema does not name where it keeps them
//! (`x-kubernetes-preserve-unknown-fields`). Arrays hold two items (variants `n`, `n + 1`).

use serde_json::{Value, json};

/// An object of `kind` at `api_version` whose spec and status fill the schema
/// `open_api_v3_schema` (a JSON value), variant `n`.
pub fn object(api_version: &str, kind: &str, schema: &Value, n: usize) -> Value {
    let mut object = match fill(schema, n, 0) {
        Value::Object(map) => map,
        _ => panic!("the root schema of {kind} is not an object"),
    };
    object.insert("apiVersion".into(), json!(api_version));
    object.insert("kind".into(), json!(kind));
    object.insert(
        "metadata".into(),
        json!({"name": format!("exemplar-{n}"), "labels": {"variant": n.to_string()}}),
    );
    Value::Object(object)
}

fn fill(schema: &Value, n: usize, depth: usize) -> Value {
    assert!(depth < 64, "the schema nests too deep");
    let keeps_unknown = schema["x-kubernetes-preserve-unknown-fields"] == json!(true);
    if schema["x-kubernetes-int-or-string"] == json!(true) {
        return if n.is_multiple_of(2) {
            json!(8080)
        } else {
            json!("http")
        };
    }
    if let Some(values) = schema["enum"].as_array() {
        let values: Vec<&Value> = values.iter().filter(|v| !v.is_null()).collect();
        return values[n % values.len()].clone();
    }
    match schema["type"].as_str() {
        Some("object") => {
            let mut map = serde_json::Map::new();
            if let Some(properties) = schema["properties"].as_object() {
                for (key, property) in properties {
                    // kube-derive's root struct holds these itself.
                    if depth == 0 && ["apiVersion", "kind", "metadata"].contains(&key.as_str()) {
                        continue;
                    }
                    map.insert(key.clone(), fill(property, n, depth + 1));
                }
            } else if schema["additionalProperties"].is_object() {
                for (i, key) in ["first", "second"].iter().enumerate() {
                    map.insert(
                        format!("{key}-{n}"),
                        fill(&schema["additionalProperties"], n + i, depth + 1),
                    );
                }
            }
            if keeps_unknown || schema["additionalProperties"] == json!(true) {
                map.insert(
                    "notInTheSchema".into(),
                    json!({"kept": [1, "two", {"three": null}], "as": "is"}),
                );
            }
            Value::Object(map)
        }
        Some("array") => Value::Array(
            (0..2)
                .map(|i| match schema.get("items") {
                    Some(items) if items.is_object() => fill(items, n + i, depth + 1),
                    _ => json!({"any": i}),
                })
                .collect(),
        ),
        Some("string") if schema["format"] == json!("date-time") => {
            json!(format!("2026-0{}-0{}T03:04:05Z", 1 + n % 9, 1 + n % 9))
        }
        Some("string") => json!(format!("text-{n}")),
        Some("integer") => json!(schema["minimum"].as_i64().unwrap_or(0).max(3) + n as i64),
        // Both forms of a JSON number: integral, which a Rust f64 writes back as `2.0`.
        Some("number") => {
            if n.is_multiple_of(2) {
                json!(2)
            } else {
                json!(0.25)
            }
        }
        Some("boolean") => json!(n.is_multiple_of(2)),
        _ => json!({"free": [n, "form", {"nested": true}]}),
    }
}
