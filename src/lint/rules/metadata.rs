//! `metadata` of a sample, checked as the API server checks every custom resource's
//! ObjectMeta: a name (or generateName) that is a DNS-1123 subdomain, a DNS-1123 label for
//! the namespace, valid label keys and values, and only ObjectMeta's fields.

use serde_json::Value;

use crate::lint::yaml::Segment;
use crate::names::{is_label_value, is_qualified_name};

/// ObjectMeta's fields (k8s.io/apimachinery/pkg/apis/meta/v1, ObjectMeta).
const FIELDS: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];

/// Each problem: the path below `metadata`, the message, and whether it is an unknown field.
pub fn check(meta: &Value) -> Vec<(Vec<Segment>, String, bool)> {
    let mut out = Vec::new();
    let Some(meta) = meta.as_object() else {
        out.push((vec![], "metadata must be a mapping".into(), false));
        return out;
    };
    let key = |k: &str| vec![Segment::Key(k.to_string())];
    for field in meta.keys() {
        if !FIELDS.contains(&field.as_str()) {
            out.push((key(field), String::new(), true));
        }
    }
    match (
        meta.get("name").and_then(Value::as_str),
        meta.get("generateName"),
    ) {
        (Some(name), _) => {
            if !is_subdomain(name) {
                out.push((
                    key("name"),
                    format!("name {name:?} is not a DNS-1123 subdomain (lowercase letters, digits, '-' and '.')"),
                    false,
                ));
            }
        }
        (None, Some(_)) => {}
        (None, None) => out.push((
            vec![],
            "metadata.name is required (or generateName)".into(),
            false,
        )),
    }
    if let Some(ns) = meta.get("namespace").and_then(Value::as_str)
        && !is_label(ns)
    {
        out.push((
            key("namespace"),
            format!("namespace {ns:?} is not a DNS-1123 label"),
            false,
        ));
    }
    if let Some(labels) = meta.get("labels").and_then(Value::as_object) {
        for (k, v) in labels {
            let path = vec![Segment::Key("labels".into()), Segment::Key(k.clone())];
            if !is_qualified_name(k) {
                out.push((
                    path.clone(),
                    format!("label key {k:?} is not a qualified name"),
                    false,
                ));
            }
            match v.as_str() {
                Some(v) if is_label_value(v) => {}
                _ => out.push((path, format!("label value {v} is not a valid label value (63 characters at most: letters, digits, '-', '_', '.')"), false)),
            }
        }
    }
    out
}

fn is_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

fn is_subdomain(s: &str) -> bool {
    !s.is_empty() && s.len() <= 253 && s.split('.').all(is_label)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_labels_and_unknown_fields() {
        let bad = check(&json!({"name": "Bad_Name", "labels": {"a/b/c": "x"}, "nmae": "x"}));
        let messages: Vec<String> = bad.iter().map(|p| format!("{:?} {}", p.0, p.2)).collect();
        assert_eq!(bad.len(), 3, "{messages:?}");
        assert!(
            check(&json!({"name": "ok.name", "labels": {"app.kubernetes.io/name": "x"}}))
                .is_empty()
        );
        assert_eq!(check(&json!({"labels": {}})).len(), 1);
    }
}
