//! Printer columns and selectable fields, as the API server validates them when it accepts
//! a CRD ("Additional printer columns" and "Field selectors" in the CustomResourceDefinition
//! docs): a column has a name, a type and format the server knows and a `jsonPath` that
//! starts with `.` (the server checks no more: a path that reaches nothing is an always
//! empty column, a warning); a selectable field is a string, integer or boolean field
//! reached without passing through a list or into metadata, named once, at most eight of
//! them.

use std::collections::BTreeSet;

use crate::lint::check::Check;
use crate::lint::finding::{Finding, RuleId, Severity};
use crate::lint::input::{Crd, Inputs, Version, str_at};
use crate::lint::schema::Schema;
use crate::lint::yaml::{Node, Segment};

pub static PRINTER_COLUMN: RuleId = RuleId {
    id: "printer-column",
    severity: Severity::Error,
    summary: "every printer column has a name, a type and format the API server knows, and a jsonPath starting with `.`",
};
pub static PRINTER_COLUMN_PATH: RuleId = RuleId {
    id: "printer-column-path",
    severity: Severity::Warning,
    summary: "every printer column's jsonPath reaches a field of its version's schema (else the column is always empty)",
};
pub static SELECTABLE_FIELD: RuleId = RuleId {
    id: "selectable-field",
    severity: Severity::Error,
    summary: "every selectable field is a string, integer or boolean field of the schema, outside any list, named once",
};

pub static CHECK: Check = Check {
    name: "columns",
    rules: &[&PRINTER_COLUMN, &PRINTER_COLUMN_PATH, &SELECTABLE_FIELD],
    run,
};

/// The types and formats of printer columns the API server accepts.
const COLUMN_TYPES: &[&str] = &["integer", "number", "string", "boolean", "date"];
const COLUMN_FORMATS: &[&str] = &[
    "int32",
    "int64",
    "float",
    "double",
    "byte",
    "date",
    "date-time",
    "password",
];

/// At most this many selectable fields per version (apiextensions' MaxSelectableFields).
const MAX_SELECTABLE_FIELDS: usize = 8;

/// ObjectMeta's fields that columns point at, and whether each is a map.
const METADATA: &[(&str, bool)] = &[
    ("name", false),
    ("generateName", false),
    ("namespace", false),
    ("uid", false),
    ("resourceVersion", false),
    ("generation", false),
    ("creationTimestamp", false),
    ("deletionTimestamp", false),
    ("deletionGracePeriodSeconds", false),
    ("labels", true),
    ("annotations", true),
    ("ownerReferences", false),
    ("finalizers", false),
];

const HINT: &str = "fix the column or field in `#[kube(printcolumn(...))]` or `#[kube(selectable = ...)]` \
    of the Rust type and run `make manifests`";

fn run(inputs: &Inputs, out: &mut Vec<Finding>) {
    for crd in inputs.crds() {
        for version in &crd.versions {
            let Some(_) = version.schema else { continue };
            let report = |rule: &'static RuleId, entry: &Node, path: &str, problem: String| {
                let pos = entry.pos_of(&[Segment::Key("jsonPath".into())]);
                let (file, pos) = inputs
                    .rust_literal(path)
                    .unwrap_or((crd.file.path.clone(), pos));
                rule.at(file, pos, problem).hint(HINT)
            };
            let where_ = format!("{} {}", crd.kind, version_name(version));
            for entry in entries(version, "additionalPrinterColumns") {
                let path = str_at(entry, &["jsonPath"]);
                let name = str_at(entry, &["name"]);
                let what = format!("printer column `{name}` of {where_}");
                for problem in column_problems(entry) {
                    let message = format!("{what}: {problem}");
                    out.push(report(&PRINTER_COLUMN, entry, path, message));
                }
                if path.starts_with('.')
                    && let Err(problem) = resolve(Schema(&version.schema_json), path)
                {
                    let message =
                        format!("{what}: `{path}` {problem}, so the column is always empty");
                    out.push(report(&PRINTER_COLUMN_PATH, entry, path, message));
                }
            }
            let mut named = BTreeSet::new();
            let selectable = entries(version, "selectableFields");
            for (i, entry) in selectable.iter().enumerate() {
                let path = str_at(entry, &["jsonPath"]);
                let problem = selectable_field(Schema(&version.schema_json), path)
                    .err()
                    .or_else(|| (!named.insert(path)).then(|| "is named twice".to_string()));
                if let Some(problem) = problem {
                    let message =
                        format!("selectable field {} of {where_}: `{path}` {problem}", i + 1);
                    out.push(report(&SELECTABLE_FIELD, entry, path, message));
                }
            }
            if let Some(entry) = selectable.first() {
                let path = str_at(entry, &["jsonPath"]);
                if named.len() > MAX_SELECTABLE_FIELDS {
                    let message = format!(
                        "{where_} has {} selectable fields, at most {MAX_SELECTABLE_FIELDS} are allowed",
                        named.len()
                    );
                    out.push(report(&SELECTABLE_FIELD, entry, path, message));
                }
                if let Some(problem) = shared_schema_problem(&crd) {
                    let message = format!("selectable fields of {where_}: {problem}");
                    out.push(report(&SELECTABLE_FIELD, entry, path, message));
                }
            }
        }
    }
}

fn entries<'n>(version: &'n Version<'_>, list: &str) -> Vec<&'n Node> {
    version
        .node
        .get(list)
        .map(|n| n.as_seq())
        .unwrap_or_default()
        .iter()
        .collect()
}

/// What the API server refuses in a printer column.
fn column_problems(entry: &Node) -> Vec<String> {
    let mut problems = Vec::new();
    if str_at(entry, &["name"]).is_empty() {
        problems.push("it has no name".to_string());
    }
    let ty = str_at(entry, &["type"]);
    if !COLUMN_TYPES.contains(&ty) {
        problems.push(format!(
            "its type `{ty}` is none of {}",
            COLUMN_TYPES.join(", ")
        ));
    }
    let format = str_at(entry, &["format"]);
    if !format.is_empty() && !COLUMN_FORMATS.contains(&format) {
        let known = COLUMN_FORMATS.join(", ");
        problems.push(format!("its format `{format}` is none of {known}"));
    }
    let path = str_at(entry, &["jsonPath"]);
    if !path.starts_with('.') {
        problems.push(format!(
            "its jsonPath `{path}` must be a simple JSONPath starting with `.` (no `{{...}}`)"
        ));
    }
    problems
}

/// When every version has the same schema, the API server keeps one schema for all of them,
/// and then accepts selectable fields only where every version has the same ones
/// (apiextensions' conversion moves identical per-version fields to the top level, and
/// per-version selectable fields without a per-version schema are refused).
fn shared_schema_problem(crd: &Crd<'_>) -> Option<String> {
    let first = crd.versions.first()?;
    let same_schema = crd
        .versions
        .iter()
        .all(|v| v.schema_json == first.schema_json);
    let fields = |v: &Version<'_>| v.node.get("selectableFields").map(Node::to_json);
    let same_fields = crd.versions.iter().all(|v| fields(v) == fields(first));
    (crd.versions.len() > 1 && same_schema && !same_fields).then(|| {
        "the versions share one schema but not their selectable fields; the API server then \
         refuses them (\"may only be set when `version.schema.openAPIV3Schema` is not \
         included\"): give every version the same selectable fields"
            .to_string()
    })
}

fn version_name<'a>(v: &'a Version<'_>) -> &'a str {
    &v.name
}

/// One step of a JSONPath as printer columns use them.
#[derive(Debug, PartialEq)]
enum Step {
    Field(String),
    /// `[0]`, `[*]` or `[?(@.x == ...)]`, with the fields the filter reads.
    Items(Vec<String>),
}

fn steps(path: &str) -> Result<Vec<Step>, String> {
    let path = path.trim();
    let path = path
        .strip_prefix('{')
        .and_then(|p| p.strip_suffix('}'))
        .unwrap_or(path);
    let Some(mut rest) = path.strip_prefix('.') else {
        return Err("is not a JSONPath: it must start with `.`".into());
    };
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(bracket) = rest.strip_prefix('[') {
            let end = bracket
                .find(']')
                .ok_or_else(|| "has an unclosed `[`".to_string())?;
            let inner = &bracket[..end];
            rest = &bracket[end + 1..];
            if let Some(key) = inner.strip_prefix('\'').and_then(|k| k.strip_suffix('\'')) {
                steps.push(Step::Field(key.to_string()));
            } else if let Some(filter) = inner.strip_prefix("?(").and_then(|f| f.strip_suffix(')'))
            {
                let reads = filter
                    .split("@.")
                    .skip(1)
                    .map(|r| {
                        r.chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
                            .collect()
                    })
                    .collect();
                steps.push(Step::Items(reads));
            } else if inner == "*" || inner.parse::<i64>().is_ok() {
                steps.push(Step::Items(Vec::new()));
            } else {
                return Err(format!(
                    "has a subscript `[{inner}]` lint does not understand"
                ));
            }
            rest = rest.strip_prefix('.').unwrap_or(rest);
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            if end == 0 {
                return Err("has an empty field name".into());
            }
            steps.push(Step::Field(rest[..end].to_string()));
            rest = &rest[end..];
            rest = rest.strip_prefix('.').unwrap_or(rest);
        }
    }
    Ok(steps)
}

/// What the path reaches: a schema node, or somewhere the schema leaves open.
enum Reached<'a> {
    Node(Schema<'a>, bool),
    Open,
}

/// Resolves `path` in the version's schema; `bool` of the result: whether a list was
/// crossed.
fn walk<'a>(root: Schema<'a>, path: &str) -> Result<Reached<'a>, String> {
    let steps = steps(path)?;
    if let Some(Step::Field(first)) = steps.first()
        && first == "metadata"
    {
        return match steps.get(1) {
            None => Ok(Reached::Open),
            Some(Step::Field(field)) => match METADATA.iter().find(|(f, _)| f == field) {
                Some((_, true)) if steps.len() <= 3 => Ok(Reached::Open),
                Some(_) => Ok(Reached::Open),
                None => Err(format!(
                    "points at metadata.{field}, which ObjectMeta does not have"
                )),
            },
            Some(Step::Items(_)) => Err("indexes metadata, which is no list".into()),
        };
    }
    let mut node = root;
    let mut crossed_list = false;
    let mut walked = String::new();
    for step in &steps {
        if node.preserves_unknown_fields() && node.properties().is_none_or(|p| p.is_empty()) {
            return Ok(Reached::Open);
        }
        match step {
            Step::Field(field) => {
                walked.push('.');
                walked.push_str(field);
                if let Some(next) = node.property(field) {
                    node = next;
                } else if let Some(values) = node.additional_properties() {
                    node = values;
                } else if node.preserves_unknown_fields() {
                    return Ok(Reached::Open);
                } else {
                    return Err(format!("does not resolve: the schema has no `{walked}`"));
                }
            }
            Step::Items(reads) => {
                let Some(items) = node.items() else {
                    return Err(format!(
                        "indexes `{}`, which is {}, not a list",
                        if walked.is_empty() { "." } else { &walked },
                        node.describe()
                    ));
                };
                for read in reads {
                    if items.property(read).is_none() && !items.open() {
                        return Err(format!(
                            "filters on `{read}`, which the items of `{walked}` do not have"
                        ));
                    }
                }
                walked.push_str("[]");
                crossed_list = true;
                node = items;
            }
        }
    }
    Ok(Reached::Node(node, crossed_list))
}

fn resolve(root: Schema<'_>, path: &str) -> Result<(), String> {
    walk(root, path).map(|_| ())
}

fn selectable_field(root: Schema<'_>, path: &str) -> Result<(), String> {
    if path.contains('[') {
        return Err("must be a plain field path, without subscripts".into());
    }
    match walk(root, path)? {
        Reached::Open => {
            if path.starts_with(".metadata") {
                Err("points into metadata, which CRDs cannot select on (metadata.name and metadata.namespace are always selectable)".into())
            } else {
                Err("reaches a part of the schema that is not typed".into())
            }
        }
        Reached::Node(_, true) => Err("passes through a list; selectable fields must not".into()),
        Reached::Node(node, false) => {
            if node.int_or_string() {
                return Err(
                    "is int-or-string; selectable fields are string, integer or boolean".into(),
                );
            }
            match node.type_() {
                "string" | "integer" | "boolean" => Ok(()),
                other => Err(format!(
                    "is {}; selectable fields are string, integer or boolean",
                    if other.is_empty() { "untyped" } else { other }
                )),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> serde_json::Value {
        json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "replicas": {"type": "integer"},
                "mode": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            }},
            "status": {"type": "object", "properties": {
                "conditions": {"type": "array", "items": {"type": "object", "properties": {
                    "type": {"type": "string"}, "status": {"type": "string"}}}},
            }},
        }})
    }

    #[test]
    fn printer_columns_resolve_or_say_where_they_stop() {
        let s = schema();
        for good in [
            ".spec.replicas",
            ".status.conditions[?(@.type==\"Ready\")].status",
            ".metadata.creationTimestamp",
            ".metadata.labels.app",
            ".spec.tags[0]",
            ".spec.extra.anything.below",
        ] {
            assert!(resolve(Schema(&s), good).is_ok(), "{good}");
        }
        for (bad, wanted) in [
            (".spec.replicsa", "no `.spec.replicsa`"),
            (
                ".status.conditions[?(@.kind==\"Ready\")].status",
                "filters on `kind`",
            ),
            (".spec.mode[0]", "not a list"),
            ("spec.mode", "must start with `.`"),
            (".metadata.nmae", "ObjectMeta does not have"),
        ] {
            let err = resolve(Schema(&s), bad).unwrap_err();
            assert!(err.contains(wanted), "{bad}: {err}");
        }
    }

    #[test]
    fn selectable_fields_are_scalars_outside_lists() {
        let s = schema();
        assert!(selectable_field(Schema(&s), ".spec.mode").is_ok());
        assert!(selectable_field(Schema(&s), ".spec.replicas").is_ok());
        for bad in [
            ".spec",
            ".spec.tags",
            ".spec.tags[0]",
            ".spec.extra.x",
            ".spec.nothing",
        ] {
            assert!(selectable_field(Schema(&s), bad).is_err(), "{bad}");
        }
    }
}
