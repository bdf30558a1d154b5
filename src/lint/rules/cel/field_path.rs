//! The `fieldPath` of a validation rule: a path of field names (`.a.b`) and quoted keys
//! (`['a.b']`) from the node the rule sits on, which the API server resolves in the schema
//! when it accepts the CRD ("must be a valid path"). List indexes are not part of it.

use crate::lint::schema::Schema;

/// Resolves `path` below `node`; why not where it does not resolve.
pub fn resolve(node: Schema<'_>, path: &str) -> Result<(), String> {
    if path.trim().is_empty() {
        return Err("must be non-empty if specified".into());
    }
    if path.contains(['\n', '\r']) {
        return Err("must not contain line breaks".into());
    }
    let mut node = node;
    let mut rest = path;
    while !rest.is_empty() {
        let name = if let Some(after) = rest.strip_prefix("['") {
            let end = quoted_end(after).ok_or("has an unclosed quoted key")?;
            let key = after[..end].replace("\\'", "'");
            rest = after[end + 1..]
                .strip_prefix(']')
                .ok_or("has a quoted key without its `]`")?;
            key
        } else if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[', ']']).unwrap_or(after.len());
            rest = &after[end..];
            after[..end].to_string()
        } else {
            return Err("must be made of `.field` and `['key']` steps".into());
        };
        node = step(node, &name).ok_or_else(|| format!("does not resolve: no field `{name}`"))?;
    }
    Ok(())
}

/// Where a quoted key's closing quote is (a quote not escaped by a backslash).
fn quoted_end(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    (0..bytes.len()).find(|&i| bytes[i] == b'\'' && (i == 0 || bytes[i - 1] != b'\\'))
}

/// The node `name` leads to: a property of an object, or the values of a map.
fn step<'a>(node: Schema<'a>, name: &str) -> Option<Schema<'a>> {
    if node.properties().is_some() {
        node.property(name)
    } else {
        node.additional_properties()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_resolve_as_the_api_server_resolves_them() {
        let spec = json!({"type": "object", "properties": {
            "name": {"type": "string"},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "ports": {"type": "array", "items": {"type": "object", "properties": {
                "port": {"type": "integer"}}}},
            "a.b": {"type": "object", "properties": {"c": {"type": "string"}}},
        }});
        for good in [
            ".name",
            ".labels.anything",
            ".labels['x.y']",
            "['a.b'].c",
            ".ports",
        ] {
            assert_eq!(resolve(Schema(&spec), good), Ok(()), "{good}");
        }
        for (bad, wanted) in [
            (".nmae", "no field `nmae`"),
            (".ports[0]", "must be made of"),
            (".ports.port", "no field `port`"),
            ("name", "must be made of"),
            ("  ", "non-empty"),
            (".name.x", "no field `x`"),
        ] {
            let err = resolve(Schema(&spec), bad).unwrap_err();
            assert!(err.contains(wanted), "{bad}: {err}");
        }
    }
}
