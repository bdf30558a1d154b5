//! Objects made from a CRD version's schema, for the differential tests that show them to
//! `lint` and to the API server: one object that sets every field with the simplest value
//! its schema allows, and variations of it that each change one thing the server checks.
//! Whether a variation is valid is not decided here: the server decides it.

use serde_json::{Map, Value, json};

/// Deeper than this, an object is left empty: the corpus' schemas are far shallower.
const MAX_DEPTH: usize = 24;

/// A value for `schema` that sets every property (defaults where the schema has them).
pub fn full(schema: &Value) -> Value {
    value(schema, 0)
}

fn value(schema: &Value, depth: usize) -> Value {
    if let Some(default) = schema.get("default") {
        return default.clone();
    }
    if schema["x-kubernetes-int-or-string"] == true {
        return json!(1);
    }
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    match schema["type"].as_str() {
        Some("object") => object(schema, depth),
        Some("array") => {
            let count = schema["minItems"].as_u64().unwrap_or(1).max(1) as usize;
            let item = value(&schema["items"], depth + 1);
            let items: Vec<Value> = (0..count).map(|n| distinct(&item, n)).collect();
            Value::Array(items)
        }
        Some("string") => string(schema),
        Some("integer") => {
            let low = schema["minimum"].as_i64().unwrap_or(1);
            json!(
                low.max(1)
                    .min(schema["maximum"].as_i64().unwrap_or(i64::MAX))
            )
        }
        Some("number") => json!(schema["minimum"].as_f64().unwrap_or(1.5)),
        Some("boolean") => json!(true),
        _ if schema["x-kubernetes-preserve-unknown-fields"] == true => json!({"free": {"a": [1]}}),
        _ => Value::Null,
    }
}

fn object(schema: &Value, depth: usize) -> Value {
    let mut out = Map::new();
    if depth >= MAX_DEPTH {
        return Value::Object(out);
    }
    if let Some(properties) = schema["properties"].as_object() {
        for (name, property) in properties {
            let field = value(property, depth + 1);
            if !field.is_null() {
                out.insert(name.clone(), field);
            }
        }
    }
    if schema["additionalProperties"].is_object() {
        out.insert(
            "key".into(),
            value(&schema["additionalProperties"], depth + 1),
        );
    }
    if out.is_empty() && schema["x-kubernetes-preserve-unknown-fields"] == true {
        out.insert("free".into(), json!({"a": [1]}));
    }
    Value::Object(out)
}

fn string(schema: &Value) -> Value {
    let at_least = schema["minLength"].as_u64().unwrap_or(1).max(1) as usize;
    let text = match schema["format"].as_str() {
        Some("date-time") => "2026-01-02T03:04:05Z".to_string(),
        Some("date") => "2026-01-02".to_string(),
        Some("byte") => "YQ==".to_string(),
        Some("duration") => "1s".to_string(),
        Some("uuid") => "9f8d1a6e-0b7c-4c43-9e8c-5b4a3f2e1d0c".to_string(),
        _ => "a".repeat(at_least),
    };
    Value::String(text)
}

/// The `n`th of several items made from one: scalars differ so that sets and list-map
/// keys stay unique.
fn distinct(item: &Value, n: usize) -> Value {
    if n == 0 {
        return item.clone();
    }
    match item {
        Value::String(s) => Value::String(format!("{s}{}", "b".repeat(n))),
        Value::Number(v) => json!(v.as_i64().unwrap_or(1) + n as i64),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), distinct(v, n)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// One variation of an object: what it changes, and the object.
pub struct Variation {
    pub what: String,
    pub object: Value,
}

/// Every variation of `object` (valid for `schema` or not) that changes one field in one
/// way the API server checks: its type, an enum, a bound, a format, a pattern, an unknown
/// or missing field, nullness, and list uniqueness.
pub fn variations(schema: &Value, object: &Value) -> Vec<Variation> {
    let mut out = Vec::new();
    walk(schema, object, &mut Vec::new(), &mut out);
    out
}

#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn shown(path: &[Step]) -> String {
    path.iter()
        .map(|s| match s {
            Step::Key(k) => format!(".{k}"),
            Step::Index(i) => format!("[{i}]"),
        })
        .collect()
}

fn with(object: &Value, path: &[Step], change: impl FnOnce(&mut Value)) -> Value {
    let mut out = object.clone();
    let mut at = &mut out;
    for step in path {
        at = match step {
            Step::Key(k) => &mut at[k.as_str()],
            Step::Index(i) => &mut at[*i],
        };
    }
    change(at);
    out
}

fn at<'a>(root: &'a Value, path: &[Step]) -> &'a Value {
    path.iter().fold(root, |v, step| match step {
        Step::Key(k) => &v[k.as_str()],
        Step::Index(i) => &v[*i],
    })
}

/// The variations of the field at `path` of `root`, whose schema is `schema`, then of the
/// fields inside it.
fn walk(schema: &Value, root: &Value, path: &mut Vec<Step>, out: &mut Vec<Variation>) {
    let value = at(root, path).clone();
    let mut vary = |what: String, new: Value| {
        out.push(Variation {
            what: format!("{}: {what}", shown(path)),
            object: with(root, path, |v| *v = new),
        });
    };
    let wrong_type = match schema["type"].as_str() {
        Some("string") => json!(7),
        Some("integer") | Some("number") => json!("seven"),
        Some("boolean") => json!("yes"),
        Some("object") | Some("array") => json!("text"),
        _ => Value::Null,
    };
    if !wrong_type.is_null() && schema["x-kubernetes-int-or-string"] != true {
        vary("wrong type".into(), wrong_type);
    }
    vary("null".into(), Value::Null);
    if schema["enum"].is_array() {
        vary("not in enum".into(), json!("NotInTheEnum"));
    }
    if let Some(max) = schema["maxLength"].as_u64() {
        vary(
            "one over maxLength".into(),
            json!("a".repeat(max as usize + 1)),
        );
        vary("at maxLength".into(), json!("a".repeat(max as usize)));
    }
    if let Some(min) = schema["minLength"].as_u64().filter(|m| *m > 0) {
        vary(
            "one under minLength".into(),
            json!("a".repeat(min as usize - 1)),
        );
    }
    if schema["pattern"].is_string() {
        vary("against the pattern".into(), json!("Not A Match!"));
    }
    for (bound, step) in [("maximum", 1), ("minimum", -1)] {
        if let Some(limit) = schema[bound].as_i64() {
            vary(format!("beyond {bound}"), json!(limit + step));
            vary(format!("at {bound}"), json!(limit));
        }
    }
    match schema["format"].as_str() {
        Some("int32") => vary("over int32".into(), json!(i64::from(i32::MAX) + 1)),
        Some("date-time") => vary("not a date-time".into(), json!("yesterday")),
        Some("byte") => vary("not base64".into(), json!("%%%")),
        Some("uint8") => vary("over uint8".into(), json!(256)),
        _ => {}
    }
    match &value {
        Value::Object(fields) => {
            if schema["x-kubernetes-preserve-unknown-fields"] != true
                && !schema["additionalProperties"].is_object()
            {
                let mut grown = fields.clone();
                grown.insert("zzUnknown".into(), json!(1));
                vary("an unknown field".into(), Value::Object(grown));
            }
            for required in schema["required"].as_array().into_iter().flatten() {
                let Some(name) = required.as_str() else {
                    continue;
                };
                let mut cut = fields.clone();
                if cut.remove(name).is_some() {
                    vary(format!("without required {name}"), Value::Object(cut));
                }
            }
            for (name, property) in schema["properties"].as_object().into_iter().flatten() {
                if fields.contains_key(name) {
                    path.push(Step::Key(name.clone()));
                    walk(property, root, path, out);
                    path.pop();
                }
            }
        }
        Value::Array(items) if !items.is_empty() => {
            let mut doubled = items.clone();
            doubled.push(items[0].clone());
            vary("an item twice".into(), Value::Array(doubled));
            if let Some(max) = schema["maxItems"].as_u64() {
                let grown: Vec<Value> =
                    (0..=max as usize).map(|n| distinct(&items[0], n)).collect();
                vary("one over maxItems".into(), Value::Array(grown));
            }
            path.push(Step::Index(0));
            walk(&schema["items"], root, path, out);
            path.pop();
        }
        _ => {}
    }
}
