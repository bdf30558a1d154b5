//! Versions of one kind, compared. With conversion strategy `None` the API server only
//! rewrites `apiVersion` ("Versions in CustomResourceDefinitions", Kubernetes docs), so a
//! field one served version has and another lacks is pruned when an object passes
//! through the other, and a field whose type changed cannot be read back. With a
//! conversion webhook, the conversion code must map or stash what differs: a spoke whose
//! conversion implements the runtime's `Spoke` is stashed by the runtime
//! (`rsbuilder_runtime::webhook::conversion`, as projects from before the runtime stashed
//! with their own `lossless`); hand-written ones are read for the field.
//!
//! A storage version that moved since the last commit (when the project is a git
//! repository) without a conversion webhook is an error: objects already stored in the
//! old version are then served through `None` conversion.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::lint::check::Check;
use crate::lint::finding::{Finding, RuleId, Severity};
use crate::lint::input::{Crd, Inputs, Version, YamlFile, str_at};
use crate::lint::schema::Schema;
use crate::lint::yaml::{self, Node, Segment};
use crate::names::version_order;

pub static VERSION_FIELD_DROPPED: RuleId = RuleId {
    id: "version-field-dropped",
    severity: Severity::Warning,
    summary: "a field one served version has and another lacks is converted or stashed, not pruned",
};
pub static VERSION_TYPE_CHANGED: RuleId = RuleId {
    id: "version-type-changed",
    severity: Severity::Error,
    summary: "a field keeps its type across served versions, unless a conversion webhook converts it",
};
pub static STORAGE_VERSION_CHANGED: RuleId = RuleId {
    id: "storage-version-changed",
    severity: Severity::Error,
    summary: "the storage version changes only with a conversion webhook",
};

pub static CHECK: Check = Check {
    name: "versions",
    rules: &[
        &VERSION_FIELD_DROPPED,
        &VERSION_TYPE_CHANGED,
        &STORAGE_VERSION_CHANGED,
    ],
    run,
};

fn run(inputs: &Inputs, out: &mut Vec<Finding>) {
    let crds = inputs.crds();
    for crd in &crds {
        let mut served: Vec<&Version<'_>> = crd
            .versions
            .iter()
            .filter(|v| v.served && v.schema.is_some())
            .collect();
        served.sort_by_key(|v| std::cmp::Reverse(version_order(&v.name)));
        if served.len() < 2 {
            continue;
        }
        let conversion = Conversion::of(inputs, crd);
        let fields: Vec<BTreeMap<String, String>> = served
            .iter()
            .map(|v| flatten(Schema(&v.schema_json)))
            .collect();
        for (i, a) in served.iter().enumerate() {
            for (j, b) in served.iter().enumerate() {
                if i == j {
                    continue;
                }
                compare(
                    crd,
                    (a, &fields[i]),
                    (b, &fields[j]),
                    &conversion,
                    i < j,
                    out,
                );
            }
        }
    }
    storage_changes(inputs, &crds, out);
}

/// Every field of a schema, as `.spec.items[].name` → its type in words.
fn flatten(root: Schema<'_>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    fn walk(s: Schema<'_>, path: String, out: &mut BTreeMap<String, String>, depth: usize) {
        if depth > 64 {
            return;
        }
        if !path.is_empty() {
            out.insert(path.clone(), s.describe());
        }
        if let Some(properties) = s.properties() {
            for (name, p) in properties {
                if path.is_empty() && matches!(name.as_str(), "apiVersion" | "kind" | "metadata") {
                    continue;
                }
                walk(Schema(p), format!("{path}.{name}"), out, depth + 1);
            }
        }
        if let Some(items) = s.items() {
            walk(items, format!("{path}[]"), out, depth + 1);
        }
        if let Some(values) = s.additional_properties() {
            walk(values, format!("{path}{{}}"), out, depth + 1);
        }
    }
    walk(root, String::new(), &mut out, 0);
    out
}

/// The schema path, in the CRD's YAML, of a flattened field.
fn schema_path(field: &str) -> Vec<Segment> {
    let mut path = Vec::new();
    let mut rest = field;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("[]") {
            path.push(Segment::Key("items".into()));
            rest = r;
        } else if let Some(r) = rest.strip_prefix("{}") {
            path.push(Segment::Key("additionalProperties".into()));
            rest = r;
        } else if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[', '{']).unwrap_or(r.len());
            path.push(Segment::Key("properties".into()));
            path.push(Segment::Key(r[..end].to_string()));
            rest = &r[end..];
        } else {
            break;
        }
    }
    path
}

/// The field a flattened field is part of (`.spec.tags[].name` → `.spec.tags[]`).
fn parent(field: &str) -> &str {
    if let Some(map) = field.strip_suffix("{}") {
        return map;
    }
    &field[..field.rfind(['.', '[']).unwrap_or(0)]
}

fn compare(
    crd: &Crd<'_>,
    (a, a_fields): (&Version<'_>, &BTreeMap<String, String>),
    (b, b_fields): (&Version<'_>, &BTreeMap<String, String>),
    conversion: &Conversion,
    report_types: bool,
    out: &mut Vec<Finding>,
) {
    let schema = a.schema.expect("served versions compared have a schema");
    for (field, ty) in a_fields {
        let at = schema.pos_of(&schema_path(field));
        match b_fields.get(field) {
            None => {
                let parent = parent(field);
                // Only the topmost missing field: its children go with it.
                if !parent.is_empty() && !b_fields.contains_key(parent) {
                    continue;
                }
                if let Some(problem) = conversion.drops(a, b, field) {
                    out.push(
                        VERSION_FIELD_DROPPED
                            .at(
                                &crd.file.path,
                                at,
                                format!(
                                    "{} {} has `{field}`, {} has not: {problem}",
                                    crd.kind, a.name, b.name
                                ),
                            )
                            .hint(conversion.hint()),
                    );
                }
            }
            Some(other) if report_types && other != ty => {
                let finding = VERSION_TYPE_CHANGED.at(
                    &crd.file.path,
                    at,
                    format!(
                        "`{field}` of {} is {ty} in {} but {other} in {}",
                        crd.kind, a.name, b.name
                    ),
                );
                out.push(if conversion.webhook {
                    finding
                        .severity(Severity::Warning)
                        .hint("make sure the conversion webhook converts it both ways")
                } else {
                    finding.hint(
                        "with conversion strategy None the stored value cannot be read as the other type; \
                         add a conversion webhook (`rsbuilder create webhook --conversion`) or keep the type",
                    )
                });
            }
            Some(_) => {}
        }
    }
}

/// How a kind converts between its versions.
struct Conversion {
    webhook: bool,
    /// Conversion source per version (rsbuilder's `<kind>_conversion.rs` beside the
    /// version's types), when the project has one.
    code: BTreeMap<String, Option<String>>,
    hub: String,
}

impl Conversion {
    fn of(inputs: &Inputs, crd: &Crd<'_>) -> Self {
        let hub = crd
            .versions
            .iter()
            .find(|v| v.storage)
            .map(|v| v.name.clone())
            .unwrap_or_default();
        let mut code = BTreeMap::new();
        if let Some(project) = &inputs.project {
            for r in &project.resources {
                let group = if r.domain.is_empty() {
                    r.group.clone()
                } else {
                    format!("{}.{}", r.group, r.domain)
                };
                if group != crd.group || r.kind != crd.kind {
                    continue;
                }
                let Some(path) = &r.path else { continue };
                let file = Path::new(path).with_file_name(format!(
                    "{}_conversion.rs",
                    Path::new(path)
                        .file_stem()
                        .unwrap_or_default()
                        .to_string_lossy()
                ));
                code.insert(
                    r.version.clone(),
                    std::fs::read_to_string(inputs.root.join(file)).ok(),
                );
            }
        }
        Conversion {
            webhook: crd.webhook_conversion,
            code,
            hub,
        }
    }

    /// Why `field` of `from` is lost on its way to `to`, or None when it is not.
    fn drops(&self, from: &Version<'_>, to: &Version<'_>, field: &str) -> Option<String> {
        if !self.webhook {
            return Some(format!(
                "conversion strategy None prunes it from objects read or written as {}",
                to.name
            ));
        }
        // Conversions go through the hub: each spoke's code handles the difference.
        let spokes: Vec<&str> = [from.name.as_str(), to.name.as_str()]
            .into_iter()
            .filter(|v| *v != self.hub)
            .collect();
        let name = field
            .rsplit(['.', '[', '{'])
            .next()
            .unwrap_or(field)
            .trim_end_matches([']', '}']);
        for spoke in spokes {
            match self.code.get(spoke) {
                None => {
                    if self.code.is_empty() {
                        return None; // no project: the webhook is someone else's
                    }
                    return Some(format!("no conversion code for {spoke} was found"));
                }
                Some(None) => {
                    return Some(format!(
                        "{spoke} has no `_conversion.rs` beside its types to map or stash it"
                    ));
                }
                Some(Some(text)) => {
                    let stashes =
                        text.contains("impl Spoke for") || text.matches("lossless(").count() >= 2;
                    let snake = heck::ToSnakeCase::to_snake_case(name);
                    if !stashes && !text.contains(name) && !text.contains(&snake) {
                        return Some(format!(
                            "the conversion of {spoke} neither maps nor stashes it"
                        ));
                    }
                }
            }
        }
        None
    }

    fn hint(&self) -> &'static str {
        if self.webhook {
            "map the field in the version's conversion, or keep its generated `impl Spoke`, through which the runtime stashes what a version cannot hold"
        } else {
            "add the field to every served version, or a conversion webhook (`rsbuilder create webhook --conversion`)"
        }
    }
}

/// CRDs whose storage version differs from the last commit's, without a webhook.
fn storage_changes(inputs: &Inputs, crds: &[Crd<'_>], out: &mut Vec<Finding>) {
    let candidates: Vec<&Crd<'_>> = crds
        .iter()
        .filter(|c| c.versions.len() > 1 && !c.webhook_conversion)
        .collect();
    if candidates.is_empty() || !inputs.root.join(".git").exists() {
        return;
    }
    let mut files: Vec<&YamlFile> = candidates.iter().map(|c| c.file).collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files.dedup_by(|a, b| a.path == b.path);
    let committed = committed_files(&inputs.root, &files);
    for crd in candidates {
        let Some(Some(text)) = committed.get(&crd.file.path) else {
            continue;
        };
        let Ok(docs) = yaml::parse(text) else {
            continue;
        };
        let Some(old) = docs
            .iter()
            .find(|d| str_at(d, &["metadata", "name"]) == crd.name)
        else {
            continue;
        };
        let old_storage = storage_of(old);
        let Some(new) = crd.versions.iter().find(|v| v.storage) else {
            continue;
        };
        if let Some(old_storage) = old_storage
            && old_storage != new.name
        {
            out.push(
                STORAGE_VERSION_CHANGED
                    .at(
                        &crd.file.path,
                        new.node.pos_of(&[Segment::Key("storage".into())]),
                        format!(
                            "the storage version of {} moved from {old_storage} (last commit) to {} without a conversion webhook",
                            crd.kind, new.name
                        ),
                    )
                    .hint(
                        "objects stored as the old version are then served by changing only their apiVersion; \
                         add a conversion webhook (`rsbuilder create webhook --conversion`) first",
                    ),
            );
        }
    }
}

fn storage_of(doc: &Node) -> Option<String> {
    doc.at(&["spec", "versions"])?
        .as_seq()
        .iter()
        .find(|v| v.get("storage").map(Node::to_json) == Some(serde_json::Value::Bool(true)))
        .map(|v| str_at(v, &["name"]).to_string())
}

/// The last commit's text of `files`, read with one `git cat-file --batch`.
fn committed_files(
    root: &Path,
    files: &[&YamlFile],
) -> BTreeMap<std::path::PathBuf, Option<String>> {
    let mut result = BTreeMap::new();
    let child = Command::new("git")
        .args(["cat-file", "--batch"])
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return result;
    };
    if let Some(mut stdin) = child.stdin.take() {
        for f in files {
            let _ = writeln!(stdin, "HEAD:{}", f.path.display());
        }
    }
    let Ok(output) = child.wait_with_output() else {
        return result;
    };
    let mut rest: &[u8] = &output.stdout;
    for f in files {
        let Some(eol) = rest.iter().position(|b| *b == b'\n') else {
            break;
        };
        let header = String::from_utf8_lossy(&rest[..eol]).to_string();
        rest = &rest[eol + 1..];
        let size = header
            .split(' ')
            .nth(2)
            .and_then(|s| s.parse::<usize>().ok());
        match size {
            Some(size) if header.split(' ').nth(1) == Some("blob") && rest.len() > size => {
                result.insert(
                    f.path.clone(),
                    Some(String::from_utf8_lossy(&rest[..size]).to_string()),
                );
                rest = &rest[size + 1..];
            }
            _ => {
                result.insert(f.path.clone(), None);
            }
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_flatten_with_their_types_and_map_back_to_schema_paths() {
        let schema = json!({"type": "object", "properties": {
            "metadata": {"type": "object"},
            "spec": {"type": "object", "properties": {
                "tags": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            }},
        }});
        let fields = flatten(Schema(&schema));
        let keys: Vec<&str> = fields.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                ".spec",
                ".spec.labels",
                ".spec.labels{}",
                ".spec.tags",
                ".spec.tags[]",
                ".spec.tags[].name"
            ]
        );
        assert_eq!(parent(".spec.tags[].name"), ".spec.tags[]");
        assert_eq!(parent(".spec.tags[]"), ".spec.tags");
        assert_eq!(parent(".spec.labels{}"), ".spec.labels");
        assert_eq!(parent(".spec"), "");
        assert_eq!(
            schema_path(".spec.tags[].name"),
            [
                "properties",
                "spec",
                "properties",
                "tags",
                "items",
                "properties",
                "name"
            ]
            .map(|k| Segment::Key(k.into()))
        );
    }
}
