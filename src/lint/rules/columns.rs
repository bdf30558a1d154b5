//! Printer columns and selectable fields point somewhere: every `jsonPath` of
//! `additionalPrinterColumns` resolves in its version's schema (or in ObjectMeta), and
//! every selectable field is a scalar — string, integer or boolean — reached without
//! passing through a list, as the API server requires ("Field selectors" and
//! "Additional printer columns" in the CustomResourceDefinition docs).

use crate::lint::finding::{Finding, RuleId, Severity};
use crate::lint::input::{Inputs, Version, str_at};
use crate::lint::registry::Check;
use crate::lint::schema::Schema;
use crate::lint::yaml::Segment;

pub static PRINTER_COLUMN: RuleId = RuleId {
    id: "printer-column",
    severity: Severity::Error,
    summary: "every printer column's jsonPath resolves in its version's schema",
};
pub static SELECTABLE_FIELD: RuleId = RuleId {
    id: "selectable-field",
    severity: Severity::Error,
    summary: "every selectable field is a string, integer or boolean field of the schema, outside any list",
};

pub static CHECK: Check = Check {
    name: "columns",
    rules: &[&PRINTER_COLUMN, &SELECTABLE_FIELD],
    run,
};

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

fn run(inputs: &Inputs, out: &mut Vec<Finding>) {
    for crd in inputs.crds() {
        for version in &crd.versions {
            let Some(_) = version.schema else { continue };
            let root = Schema(&version.schema_json);
            for (list, rule) in [
                ("additionalPrinterColumns", &PRINTER_COLUMN),
                ("selectableFields", &SELECTABLE_FIELD),
            ] {
                for (i, entry) in version
                    .node
                    .get(list)
                    .map(|n| n.as_seq())
                    .unwrap_or_default()
                    .iter()
                    .enumerate()
                {
                    let path = str_at(entry, &["jsonPath"]);
                    let pos = entry.pos_of(&[Segment::Key("jsonPath".into())]);
                    let problem = if rule.id == PRINTER_COLUMN.id {
                        resolve(root, path).err()
                    } else {
                        selectable(root, path).err()
                    };
                    if let Some(problem) = problem {
                        let what = if rule.id == PRINTER_COLUMN.id {
                            format!("printer column `{}`", str_at(entry, &["name"]))
                        } else {
                            format!("selectable field {}", i + 1)
                        };
                        let (file, pos) = inputs
                            .rust_literal(path)
                            .unwrap_or((crd.file.path.clone(), pos));
                        out.push(
                            rule.at(
                                file,
                                pos,
                                format!(
                                    "{what} of {} {}: `{path}` {problem}",
                                    crd.kind,
                                    version_name(version)
                                ),
                            )
                            .hint(
                                "fix the path in `#[kube(printcolumn(...))]` or `#[kube(selectable = ...)]` \
                                 of the Rust type and run `make manifests`",
                            ),
                        );
                    }
                }
            }
        }
    }
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

fn selectable(root: Schema<'_>, path: &str) -> Result<(), String> {
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
        assert!(selectable(Schema(&s), ".spec.mode").is_ok());
        assert!(selectable(Schema(&s), ".spec.replicas").is_ok());
        for bad in [
            ".spec",
            ".spec.tags",
            ".spec.tags[0]",
            ".spec.extra.x",
            ".spec.nothing",
        ] {
            assert!(selectable(Schema(&s), bad).is_err(), "{bad}");
        }
    }
}
