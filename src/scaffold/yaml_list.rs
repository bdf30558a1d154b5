//! Entries added to the lists of a kustomization file (`resources`, `patches`,
//! `replacements`, a replacement's `targets`), as a YAML document: never a second
//! `patches:` key, whose entries kustomize would silently drop together with the first.
//!
//! Where the file has the list's scaffold marker, the entries go above it as text, exactly
//! as for any marker (comments, order and layout kept). Where it does not, for a file the
//! user rewrote, the entries are appended to the existing list (or the list is created)
//! through `yaml_edit`, which keeps everything else of the file as it was. Either way the
//! result is parsed again and must be the old document with exactly those entries added;
//! anything else is an error and nothing is written.

use anyhow::{Context, Result, anyhow, bail};
use serde_yaml::{Mapping, Value};
use yaml_edit::{Document, Sequence};

use super::insert_before_marker;
use crate::yaml;

/// Where a list is in a kustomization.
#[derive(Debug, Clone, PartialEq)]
pub enum ListAt {
    /// A top-level key.
    Key(String),
    /// The `field` list of the entry of the top-level list `key` whose `select` field
    /// equals `value` (the `targets` of the replacement with a given `source`).
    Within {
        key: String,
        select: String,
        value: Value,
        field: String,
    },
}

/// Entries to add to a list unless it has them.
#[derive(Debug, Clone, PartialEq)]
pub struct ListEntries {
    pub list: ListAt,
    /// The scaffold marker that sits at the end of the list in scaffolded files.
    pub marker: String,
    /// The entries as a YAML block sequence, the way they are written above the marker.
    pub fragment: String,
    /// The field that tells two entries apart (a patch's `path`, a replacement's
    /// `source`); whole entries are compared when `None` or when an entry lacks it.
    pub identity: Option<String>,
}

impl ListAt {
    fn describe(&self) -> String {
        match self {
            ListAt::Key(key) => format!("`{key}`"),
            ListAt::Within {
                key, select, field, ..
            } => format!("the `{field}` of an entry of `{key}` (by its `{select}`)"),
        }
    }
}

impl ListEntries {
    /// Entries (`fragment`) of the top-level list `key`, whose scaffold marker is `marker`.
    pub fn new(key: &str, marker: &str, fragment: impl Into<String>) -> Self {
        Self {
            list: ListAt::Key(key.into()),
            marker: marker.into(),
            fragment: fragment.into(),
            identity: None,
        }
    }

    /// Tells entries apart by their `field`.
    pub fn by(self, field: &str) -> Self {
        Self {
            identity: Some(field.into()),
            ..self
        }
    }

    /// `text` with the entries the list lacks; `text` itself when it has them all.
    pub fn apply(&self, text: &str) -> Result<String> {
        let old = parse(text).map_err(|e| anyhow!("it is not valid YAML: {e}"))?;
        let entries = match parse(&self.fragment)? {
            Value::Sequence(entries) => entries,
            _ => bail!("the entries to add are not a YAML list"),
        };
        let current = self.find(&old)?.cloned().unwrap_or_default();
        let mut missing: Vec<Value> = Vec::new();
        for entry in entries {
            if !current.iter().chain(&missing).any(|e| self.same(e, &entry)) {
                missing.push(entry);
            }
        }
        if missing.is_empty() {
            return Ok(text.to_string());
        }
        let expected = self.extended(old, &missing)?;
        let whole = missing.len() == self.entry_count()?;
        if whole
            && let Some(inserted) = insert_before_marker(text, &self.marker, &self.fragment)
                .ok()
                .flatten()
            && parse(&inserted).is_ok_and(|v| v == expected)
        {
            return Ok(inserted);
        }
        let edited = self.append(text, &missing)?;
        if parse(&edited).is_ok_and(|v| v == expected) {
            return Ok(edited);
        }
        bail!(
            "cannot add to {} without changing the rest of the file; add by hand:\n{}",
            self.list.describe(),
            self.fragment.trim_end()
        )
    }

    fn entry_count(&self) -> Result<usize> {
        Ok(parse(&self.fragment)?.as_sequence().map_or(0, Vec::len))
    }

    fn same(&self, a: &Value, b: &Value) -> bool {
        match &self.identity {
            Some(field) => match (a.get(field), b.get(field)) {
                (Some(x), Some(y)) => x == y,
                _ => a == b,
            },
            None => a == b,
        }
    }

    /// The list in `doc`; `None` when absent or null (it is then created).
    fn find<'v>(&self, doc: &'v Value) -> Result<Option<&'v Vec<Value>>> {
        let (holder, field) = match &self.list {
            ListAt::Key(key) => (doc, key),
            ListAt::Within {
                key,
                select,
                value,
                field,
            } => {
                let index = self.owner(doc)?;
                let Some(index) = index else {
                    bail!("`{key}` has no entry whose `{select}` is {}", inline(value));
                };
                (&doc[key.as_str()][index], field)
            }
        };
        match holder.get(field.as_str()) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Sequence(list)) => Ok(Some(list)),
            Some(_) => bail!("`{field}` is not a list"),
        }
    }

    /// For [`ListAt::Within`]: the index of the entry that holds the list.
    fn owner(&self, doc: &Value) -> Result<Option<usize>> {
        let ListAt::Within {
            key, select, value, ..
        } = &self.list
        else {
            return Ok(None);
        };
        match doc.get(key.as_str()) {
            Some(Value::Sequence(list)) => Ok(list
                .iter()
                .position(|e| e.get(select.as_str()) == Some(value))),
            None | Some(Value::Null) => Ok(None),
            Some(_) => bail!("`{key}` is not a list"),
        }
    }

    /// `doc` with `missing` appended to the list (created when absent).
    fn extended(&self, mut doc: Value, missing: &[Value]) -> Result<Value> {
        if doc.is_null() {
            doc = Value::Mapping(Mapping::new());
        }
        let holder = match &self.list {
            ListAt::Key(_) => &mut doc,
            ListAt::Within { key, .. } => {
                let index = self.owner(&doc)?.context("no entry holds the list")?;
                &mut doc[key.as_str()][index]
            }
        };
        let field = match &self.list {
            ListAt::Key(key) => key,
            ListAt::Within { field, .. } => field,
        };
        let map = holder
            .as_mapping_mut()
            .context("the list's holder is not a mapping")?;
        let list = map
            .entry(Value::from(field.as_str()))
            .or_insert(Value::Null);
        if list.is_null() {
            *list = Value::Sequence(Vec::new());
        }
        list.as_sequence_mut()
            .context("not a list")?
            .extend(missing.iter().cloned());
        Ok(doc)
    }

    /// `text` with `missing` appended through `yaml_edit`, everything else kept.
    fn append(&self, text: &str, missing: &[Value]) -> Result<String> {
        let doc: Document = yaml::read::edit(text)?;
        let root = doc.as_mapping().context("the file is not a YAML mapping")?;
        let (holder, field) = match &self.list {
            ListAt::Key(key) => (root, key),
            ListAt::Within { key, field, .. } => {
                let index = self
                    .owner(&parse(text)?)?
                    .context("no entry holds the list")?;
                let entry = root
                    .get(key.as_str())
                    .and_then(|list| list.as_sequence().and_then(|s| s.get(index)))
                    .and_then(|e| e.as_mapping().cloned())
                    .context("the list's holder is not a mapping")?;
                (entry, field)
            }
        };
        let list = match holder
            .get(field.as_str())
            .and_then(|v| v.as_sequence().cloned())
        {
            Some(list) => list,
            None => {
                holder.set(field.as_str(), Sequence::new());
                holder
                    .get(field.as_str())
                    .and_then(|v| v.as_sequence().cloned())
                    .context("the new list is not a list")?
            }
        };
        for entry in missing {
            match entry {
                Value::String(s) => list.push(s.as_str()),
                other => {
                    let node: Document = yaml::read::edit(&serde_yaml::to_string(other)?)?;
                    match node.as_mapping() {
                        Some(mapping) => list.push(mapping),
                        None => bail!("cannot add the entry {}", inline(other)),
                    }
                }
            }
        }
        Ok(doc.to_string())
    }
}

/// A YAML document; duplicate keys are an error (serde_yaml refuses them).
fn parse(text: &str) -> Result<Value> {
    yaml::read::from_str(text)
}

fn inline(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patches(fragment: &str) -> ListEntries {
        ListEntries {
            list: ListAt::Key("patches".into()),
            marker: "crd-patches".into(),
            fragment: fragment.into(),
            identity: Some("path".into()),
        }
    }

    #[test]
    fn at_the_marker_the_fragment_goes_in_as_text() {
        let text = "resources:\n- a.yaml\npatches:\n# +rsbuilder:scaffold:crd-patches\n";
        let out = patches("- path: p.yaml").apply(text).unwrap();
        assert_eq!(
            out,
            "resources:\n- a.yaml\npatches:\n- path: p.yaml\n# +rsbuilder:scaffold:crd-patches\n"
        );
        assert_eq!(patches("- path: p.yaml").apply(&out).unwrap(), out);
    }

    #[test]
    fn without_the_marker_entries_join_the_existing_list() {
        let text = "# mine\nresources:\n  - a.yaml\npatches:\n  # my own patch\n  - path: mine.yaml\n    target:\n      kind: Foo\n# the end\nconfigurations:\n- k.yaml\n";
        let out = patches("- path: p.yaml").apply(text).unwrap();
        assert_eq!(
            out,
            "# mine\nresources:\n  - a.yaml\npatches:\n  # my own patch\n  - path: mine.yaml\n    target:\n      kind: Foo\n  - path: p.yaml\n# the end\nconfigurations:\n- k.yaml\n"
        );
        assert_eq!(patches("- path: p.yaml").apply(&out).unwrap(), out);
    }

    #[test]
    fn a_missing_list_is_created_once() {
        let text = "resources:\n- a.yaml\n";
        let out = patches("- path: p.yaml").apply(text).unwrap();
        let doc: Value = yaml::read::from_str(&out).unwrap();
        assert_eq!(doc["patches"][0]["path"], "p.yaml");
        assert!(out.starts_with(text), "{out}");
        let null = patches("- path: p.yaml")
            .apply("patches:\nresources: []\n")
            .unwrap();
        let doc: Value = yaml::read::from_str(&null).unwrap();
        assert_eq!(doc["patches"][0]["path"], "p.yaml");
    }

    #[test]
    fn entries_are_matched_by_their_identity() {
        // The user added a target to our patch: it is still ours.
        let text = "patches:\n- path: p.yaml\n  target:\n    kind: X\n";
        assert_eq!(patches("- path: p.yaml").apply(text).unwrap(), text);
    }

    #[test]
    fn nested_lists_are_found_by_a_field_of_their_owner() {
        let text = "replacements:\n- source:\n    name: a\n  targets:\n  - select:\n      kind: A\n- source:\n    name: b\n  targets:\n  - select:\n      kind: B\n";
        let edit = ListEntries {
            list: ListAt::Within {
                key: "replacements".into(),
                select: "source".into(),
                value: yaml::read::from_str("name: b").unwrap(),
                field: "targets".into(),
            },
            marker: "none".into(),
            fragment: "- select:\n    kind: C\n".into(),
            identity: None,
        };
        let out = edit.apply(text).unwrap();
        let doc: Value = yaml::read::from_str(&out).unwrap();
        assert_eq!(doc["replacements"][1]["targets"][1]["select"]["kind"], "C");
        assert_eq!(
            doc["replacements"][0]["targets"]
                .as_sequence()
                .unwrap()
                .len(),
            1
        );
        assert_eq!(edit.apply(&out).unwrap(), out);
    }

    #[test]
    fn what_is_not_a_list_is_an_error() {
        let err = patches("- path: p.yaml").apply("patches: 3\n").unwrap_err();
        assert_eq!(err.to_string(), "`patches` is not a list");
        let err = patches("- path: p.yaml").apply("a: [\n").unwrap_err();
        assert!(err.to_string().starts_with("it is not valid YAML"), "{err}");
        let err = patches("- path: p.yaml")
            .apply("patches: []\npatches: []\n")
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("it is not valid YAML: duplicate entry with key \"patches\""),
            "{err}"
        );
    }
}
