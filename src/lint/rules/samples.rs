//! Samples against their CRD: every document of config/samples is validated against its
//! version's structural schema as the API server would — after pruning nulls and applying
//! defaults — and every field the schema does not know is reported, since the API server
//! prunes it (and `kubectl apply`, which validates strictly by default, refuses it).
//!
//! The contract: "Validation" and "Defaulting and Nullable" in the Kubernetes docs'
//! "Extend the Kubernetes API with CustomResourceDefinitions", and the OpenAPI v3.0
//! keywords a structural schema may use.
//!
//! Why one file: pruning, defaulting and validating a sample are one walk of the schema in
//! the API server's order, each step over the value the one before left; it passes 600
//! lines with the tests of those steps.

use serde_json::Value;

use super::{find_version, metadata};
use crate::lint::check::Check;
use crate::lint::finding::{Finding, RuleId, Severity};
use crate::lint::input::{Inputs, Sample};
use crate::lint::schema::Schema;
use crate::lint::yaml::{Kind, Segment, display_path};

pub static SAMPLE_KIND: RuleId = RuleId {
    id: "sample-kind",
    severity: Severity::Error,
    summary: "a sample's apiVersion and kind name a served version of a CRD of the project",
};
pub static SAMPLE_SCHEMA: RuleId = RuleId {
    id: "sample-schema",
    severity: Severity::Error,
    summary: "every sample validates against its CRD version's schema, defaults applied",
};
pub static SAMPLE_UNKNOWN_FIELD: RuleId = RuleId {
    id: "sample-unknown-field",
    severity: Severity::Error,
    summary: "a sample sets no field its schema lacks (the API server would prune it)",
};

pub static CHECK: Check = Check {
    name: "samples",
    rules: &[&SAMPLE_KIND, &SAMPLE_SCHEMA, &SAMPLE_UNKNOWN_FIELD],
    run,
};

fn run(inputs: &Inputs, out: &mut Vec<Finding>) {
    let crds = inputs.crds();
    for sample in inputs.samples() {
        let version = match find_version(&crds, &sample) {
            Ok(found) => found.1,
            Err(problem) => {
                out.push(
                    SAMPLE_KIND
                        .at(&sample.file.path, sample.doc.pos, problem.message)
                        .hint(problem.hint),
                );
                continue;
            }
        };
        let schema = Schema(&version.schema_json);
        let mut problems = validate_object(schema, &version.as_created(&sample));
        if version.status_subresource {
            // Strict decoding reads the whole object before the create strategy drops its
            // status: an unknown field there is refused all the same.
            let decoded = sample.doc.to_json();
            let in_status =
                |p: &Problem| p.unknown && p.path.first() == Some(&Segment::Key("status".into()));
            problems.extend(
                validate_object(schema, &decoded)
                    .into_iter()
                    .filter(in_status),
            );
        }
        for problem in problems {
            out.push(finding(&sample, problem));
        }
    }
}

fn finding(sample: &Sample<'_>, problem: Problem) -> Finding {
    // A wrong value is shown at the value; anything else at its key.
    let pos = match sample.doc.resolve(&problem.path) {
        Some(node) if !problem.unknown && !matches!(node.kind, Kind::Map(_) | Kind::Seq(_)) => {
            node.pos
        }
        _ => sample.doc.pos_of(&problem.path),
    };
    let field = display_path(&problem.path);
    if problem.unknown {
        SAMPLE_UNKNOWN_FIELD
            .at(
                &sample.file.path,
                pos,
                format!("`{field}` is not a field of {} {}", sample.kind, sample.version),
            )
            .hint(
                "the API server prunes fields its schema does not declare (and `kubectl apply` \
                 refuses them); fix the name, or add the field to the Rust type and run `make manifests`",
            )
    } else {
        let at = if field.is_empty() {
            String::new()
        } else {
            format!("`{field}`: ")
        };
        SAMPLE_SCHEMA.at(&sample.file.path, pos, format!("{at}{}", problem.message))
    }
}

/// One way a value breaks its schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub path: Vec<Segment>,
    pub message: String,
    /// A field the schema does not declare.
    pub unknown: bool,
}

/// Validates a whole object: `apiVersion`, `kind` and `metadata` as the API server does
/// for every object, the rest against `root`.
pub fn validate_object(root: Schema<'_>, value: &Value) -> Vec<Problem> {
    let mut v = Validator::default();
    let Some(object) = value.as_object() else {
        v.fail(vec![], "a sample must be a YAML mapping".into());
        return v.problems;
    };
    for (key, field) in object {
        let path = vec![Segment::Key(key.clone())];
        match key.as_str() {
            "apiVersion" | "kind" => {}
            "metadata" => {
                for (sub, message, unknown) in metadata::check(field) {
                    let mut path = path.clone();
                    path.extend(sub);
                    v.problems.push(Problem {
                        path,
                        message,
                        unknown,
                    });
                }
            }
            _ => match root.property(key) {
                Some(schema) => v.value(schema, field, path),
                None if root.open() => {}
                None => v.unknown(path),
            },
        }
    }
    for key in root.required() {
        if !object.contains_key(key) && key != "metadata" {
            v.fail(vec![], format!("required field `{key}` is missing"));
        }
    }
    v.problems
}

#[derive(Default)]
struct Validator {
    problems: Vec<Problem>,
}

impl Validator {
    fn fail(&mut self, path: Vec<Segment>, message: String) {
        self.problems.push(Problem {
            path,
            message,
            unknown: false,
        });
    }

    fn unknown(&mut self, path: Vec<Segment>) {
        self.problems.push(Problem {
            path,
            message: String::new(),
            unknown: true,
        });
    }

    fn value(&mut self, s: Schema<'_>, value: &Value, path: Vec<Segment>) {
        if value.is_null() {
            if !s.nullable() {
                self.fail(
                    path,
                    format!(
                        "null is not allowed here (the field is {}, not nullable)",
                        s.describe()
                    ),
                );
            } else if s.get("enum").is_some() {
                // kube-openapi checks a null against the enum too, and skips an enum's null
                // entries when it compares: a null never matches, even where it is listed.
                self.fail(
                    path,
                    "null is not allowed here: the field has an enum, and the API server \
                     matches no null against one"
                        .into(),
                );
            }
            return;
        }
        if s.int_or_string() {
            if !(value.is_i64() || value.is_u64() || value.is_string()) {
                self.fail(
                    path,
                    format!("{} is not an integer or a string", show(value)),
                );
                return;
            }
        } else if !type_matches(s.type_(), value) {
            self.fail(
                path,
                format!(
                    "{} is {}, the schema wants {}",
                    show(value),
                    json_type(value),
                    s.describe()
                ),
            );
            return;
        }
        self.keywords(s, value, &path);
        match value {
            Value::Object(object) => self.object(s, object, &path),
            Value::Array(items) => self.array(s, items, &path),
            _ => {}
        }
    }

    fn object(&mut self, s: Schema<'_>, object: &serde_json::Map<String, Value>, path: &[Segment]) {
        let embedded = s.embedded_resource();
        for (key, field) in object {
            let mut child = path.to_vec();
            child.push(Segment::Key(key.clone()));
            if let Some(property) = s.property(key) {
                self.value(property, field, child);
            } else if let Some(values) = s.additional_properties() {
                self.value(values, field, child);
            } else if embedded && matches!(key.as_str(), "apiVersion" | "kind" | "metadata") {
            } else if !s.open() {
                self.unknown(child);
            }
        }
        for key in s.required() {
            if !object.contains_key(key) {
                self.fail(path.to_vec(), format!("required field `{key}` is missing"));
            }
        }
        let count = object.len() as f64;
        if let Some(min) = number(s, "minProperties")
            && count < min
        {
            self.fail(
                path.to_vec(),
                format!("has {count} properties, fewer than minProperties {min}"),
            );
        }
        if let Some(max) = number(s, "maxProperties")
            && count > max
        {
            self.fail(
                path.to_vec(),
                format!("has {count} properties, more than maxProperties {max}"),
            );
        }
    }

    fn array(&mut self, s: Schema<'_>, items: &[Value], path: &[Segment]) {
        if let Some(item_schema) = s.items() {
            for (i, item) in items.iter().enumerate() {
                let mut child = path.to_vec();
                child.push(Segment::Index(i));
                self.value(item_schema, item, child);
            }
        }
        let count = items.len() as f64;
        if let Some(min) = number(s, "minItems")
            && count < min
        {
            self.fail(
                path.to_vec(),
                format!("has {count} items, fewer than minItems {min}"),
            );
        }
        if let Some(max) = number(s, "maxItems")
            && count > max
        {
            self.fail(
                path.to_vec(),
                format!("has {count} items, more than maxItems {max}"),
            );
        }
        match s.list_type() {
            "set" => {
                for (i, item) in items.iter().enumerate() {
                    if items[..i].contains(item) {
                        let mut child = path.to_vec();
                        child.push(Segment::Index(i));
                        self.fail(
                            child,
                            format!("duplicate entry {} in a list of type set", show(item)),
                        );
                    }
                }
            }
            "map" => {
                let keys: Vec<&str> = s
                    .get("x-kubernetes-list-map-keys")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                let key_of = |item: &Value| -> Vec<Value> {
                    keys.iter()
                        .map(|k| item.get(*k).cloned().unwrap_or(Value::Null))
                        .collect()
                };
                for (i, item) in items.iter().enumerate() {
                    let key = key_of(item);
                    if items[..i].iter().any(|earlier| key_of(earlier) == key) {
                        let mut child = path.to_vec();
                        child.push(Segment::Index(i));
                        self.fail(
                            child,
                            format!(
                                "duplicate entry for key ({}) in a list of type map",
                                keys.join(", ")
                            ),
                        );
                    }
                }
            }
            _ => {}
        }
    }

    /// enum, string, number and combinator keywords.
    fn keywords(&mut self, s: Schema<'_>, value: &Value, path: &[Segment]) {
        if let Some(choices) = s.get("enum").and_then(Value::as_array)
            && !choices.iter().any(|c| same(c, value))
        {
            let listed: Vec<String> = choices.iter().map(show).collect();
            self.fail(
                path.to_vec(),
                format!("{} is not one of {}", show(value), listed.join(", ")),
            );
        }
        if let Some(text) = value.as_str() {
            let length = text.chars().count() as f64;
            if let Some(max) = number(s, "maxLength")
                && length > max
            {
                self.fail(
                    path.to_vec(),
                    format!("is {length} characters long, more than maxLength {max}"),
                );
            }
            if let Some(min) = number(s, "minLength")
                && length < min
            {
                self.fail(
                    path.to_vec(),
                    format!("is {length} characters long, fewer than minLength {min}"),
                );
            }
            if let Some(pattern) = s.get("pattern").and_then(Value::as_str)
                && let Ok(re) = regex::Regex::new(pattern)
                && !re.is_match(text)
            {
                self.fail(
                    path.to_vec(),
                    format!("{} does not match the pattern `{pattern}`", show(value)),
                );
            }
            if let Some(problem) = super::formats::check(s.format(), text) {
                self.fail(
                    path.to_vec(),
                    format!("{} is not a valid {}: {problem}", show(value), s.format()),
                );
            }
        }
        if let Some(n) = value.as_f64() {
            self.bounds(s, n, value, path);
        }
        self.combinators(s, value, path);
    }

    fn bounds(&mut self, s: Schema<'_>, n: f64, value: &Value, path: &[Segment]) {
        // kube-openapi's number validator refuses any value of an integer node whose bound
        // is not a whole number ("Minimum boundary value must be of type integer"): such a
        // CRD is accepted, and then no object with the field is.
        if s.get("type").and_then(Value::as_str) == Some("integer") {
            for key in ["minimum", "maximum"] {
                if let Some(bound) = number(s, key)
                    && bound.fract() != 0.0
                {
                    self.fail(
                        path.to_vec(),
                        format!(
                            "the schema's {key} {} is not a whole number: the API server \
                             refuses every value of this integer field",
                            fmt_num(bound)
                        ),
                    );
                }
            }
        }
        let exclusive = |key: &str| s.get(key).and_then(Value::as_bool) == Some(true);
        if let Some(min) = number(s, "minimum") {
            let low = if exclusive("exclusiveMinimum") {
                n <= min
            } else {
                n < min
            };
            if low {
                self.fail(
                    path.to_vec(),
                    format!("{} is less than the minimum {}", show(value), fmt_num(min)),
                );
            }
        }
        if let Some(max) = number(s, "maximum") {
            let high = if exclusive("exclusiveMaximum") {
                n >= max
            } else {
                n > max
            };
            if high {
                self.fail(
                    path.to_vec(),
                    format!("{} is more than the maximum {}", show(value), fmt_num(max)),
                );
            }
        }
        if let Some(step) = number(s, "multipleOf")
            && step != 0.0
            && ((n / step).round() - n / step).abs() > 1e-9
        {
            self.fail(
                path.to_vec(),
                format!("{} is not a multiple of {}", show(value), fmt_num(step)),
            );
        }
        match s.format() {
            "int32" if value.as_i64().is_some_and(|i| i32::try_from(i).is_err()) => {
                self.fail(
                    path.to_vec(),
                    format!("{} does not fit in an int32", show(value)),
                );
            }
            _ => {}
        }
    }

    /// allOf, anyOf, oneOf and not: value validations only (structural schemas keep
    /// types and properties out of them).
    fn combinators(&mut self, s: Schema<'_>, value: &Value, path: &[Segment]) {
        let passes = |sub: &Value| {
            let mut v = Validator::default();
            v.keywords(Schema(sub), value, path);
            if let (Value::Object(o), Some(props)) = (value, Schema(sub).properties()) {
                for (k, p) in props {
                    if let Some(field) = o.get(k) {
                        let mut child = path.to_vec();
                        child.push(Segment::Key(k.clone()));
                        v.value(Schema(p), field, child);
                    }
                }
            }
            for key in Schema(sub).required() {
                if value.get(key).is_none() {
                    v.fail(path.to_vec(), String::new());
                }
            }
            v.problems.is_empty()
        };
        let list = |key: &str| {
            s.get(key)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        let all_of = list("allOf");
        if all_of.iter().any(|sub| !passes(sub)) {
            self.fail(
                path.to_vec(),
                "does not satisfy every schema of allOf".into(),
            );
        }
        let any_of = list("anyOf");
        if !any_of.is_empty() && !any_of.iter().any(passes) {
            self.fail(
                path.to_vec(),
                "satisfies none of the schemas of anyOf".into(),
            );
        }
        let one_of = list("oneOf");
        if !one_of.is_empty() {
            let count = one_of.iter().filter(|sub| passes(sub)).count();
            if count != 1 {
                self.fail(
                    path.to_vec(),
                    format!("satisfies {count} schemas of oneOf, not exactly one"),
                );
            }
        }
        if let Some(not) = s.get("not")
            && passes(not)
        {
            self.fail(path.to_vec(), "satisfies the schema under `not`".into());
        }
    }
}

fn number(s: Schema<'_>, key: &str) -> Option<f64> {
    s.get(key).and_then(Value::as_f64)
}

fn fmt_num(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

/// JSON equality with 1 and 1.0 equal, as in JSON Schema.
fn same(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

fn type_matches(type_: &str, value: &Value) -> bool {
    match type_ {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        _ => true,
    }
}

pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// A value as it would be written in the sample, short.
pub fn show(value: &Value) -> String {
    let text = match value {
        Value::Array(_) => "[...]".to_string(),
        Value::Object(_) => "{...}".to_string(),
        other => other.to_string(),
    };
    if text.chars().count() > 60 {
        format!("{}...", text.chars().take(57).collect::<String>())
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::schema;
    use serde_json::json;

    fn problems(schema: Value, object: Value) -> Vec<(String, String, bool)> {
        let mut object = object;
        schema::apply_defaults(Schema(&schema), &mut object);
        validate_object(Schema(&schema), &object)
            .into_iter()
            .map(|p| (display_path(&p.path), p.message, p.unknown))
            .collect()
    }

    fn spec(properties: Value) -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": properties}}})
    }

    fn meta() -> Value {
        json!({"name": "sample"})
    }

    #[test]
    fn types_bounds_enums_and_patterns_are_checked() {
        let schema = spec(json!({
            "replicas": {"type": "integer", "minimum": 0, "maximum": 10},
            "mode": {"type": "string", "enum": ["Fast", "Slow"]},
            "name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 5},
            "port": {"x-kubernetes-int-or-string": true},
        }));
        let bad = problems(
            schema.clone(),
            json!({"metadata": meta(), "spec": {"replicas": -1, "mode": "Medium", "name": "Abcdefg", "port": true}}),
        );
        let paths: Vec<&str> = bad.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(
            paths,
            [
                "spec.mode",
                "spec.name",
                "spec.name",
                "spec.port",
                "spec.replicas"
            ],
            "{bad:?}"
        );
        assert!(bad[4].1.contains("less than the minimum 0"), "{bad:?}");
        let good = problems(
            schema,
            json!({"metadata": meta(), "spec": {"replicas": 3, "mode": "Fast", "name": "abc", "port": "http"}}),
        );
        assert_eq!(good, []);
    }

    #[test]
    fn an_integer_bound_that_is_not_whole_refuses_every_value_as_the_server_does() {
        let schema = spec(json!({
            "from": {"type": "integer", "minimum": -1.5},
            "to": {"type": "integer", "maximum": 1000000.0},
            "ratio": {"type": "number", "minimum": 0.5},
        }));
        let bad = problems(
            schema,
            json!({"metadata": meta(), "spec": {"from": 3, "to": 3, "ratio": 0.75}}),
        );
        assert_eq!(bad.len(), 1, "{bad:?}");
        assert_eq!(bad[0].0, "spec.from");
        assert!(
            bad[0].1.contains("minimum -1.5 is not a whole number"),
            "{bad:?}"
        );
    }

    #[test]
    fn unknown_fields_are_reported_unless_the_schema_keeps_them() {
        let schema = spec(json!({
            "known": {"type": "string"},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        }));
        let found = problems(
            schema,
            json!({"metadata": meta(), "spec": {"knwon": "x", "free": {"a": 1}, "labels": {"a": "b"}}}),
        );
        assert_eq!(found, [("spec.knwon".into(), String::new(), true)]);
    }

    #[test]
    fn defaults_are_applied_before_required_is_checked() {
        let schema = json!({"type": "object", "properties": {"spec": {
            "type": "object", "required": ["size", "name"],
            "properties": {"size": {"type": "integer", "default": 1}, "name": {"type": "string"}}
        }}});
        let found = problems(schema, json!({"metadata": meta(), "spec": {}}));
        assert_eq!(
            found,
            [(
                "spec".into(),
                "required field `name` is missing".into(),
                false
            )]
        );
    }

    #[test]
    fn nullable_and_formats() {
        let schema = spec(json!({
            "maybe": {"type": "string", "nullable": true},
            "when": {"type": "string", "format": "date-time"},
            "small": {"type": "integer", "format": "int32"},
            // kube's OptionalEnum lists null, and the API server still refuses a null.
            "mode": {"type": "string", "nullable": true, "enum": ["Fast", null]},
        }));
        let found = problems(
            schema.clone(),
            json!({"metadata": meta(), "spec": {"maybe": null, "when": "yesterday", "small": 3_000_000_000_i64, "mode": null}}),
        );
        let paths: Vec<&str> = found.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(paths, ["spec.mode", "spec.small", "spec.when"], "{found:?}");
        let ok = problems(
            schema,
            json!({"metadata": meta(), "spec": {"when": "2024-01-02T03:04:05Z", "small": 3}}),
        );
        assert_eq!(ok, []);
    }

    #[test]
    fn list_types_set_and_map_reject_duplicates() {
        let schema = spec(json!({
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                      "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
        }));
        let found = problems(
            schema,
            json!({"metadata": meta(), "spec": {"tags": ["a", "a"], "ports": [{"name": "x"}, {"name": "x"}]}}),
        );
        let paths: Vec<&str> = found.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(paths, ["spec.ports[1]", "spec.tags[1]"], "{found:?}");
    }
}
