//! Structural edits of files the user owns: `Cargo.toml` through toml_edit (comments,
//! order and formatting of everything else survive), and kustomization lists as YAML
//! ([`yaml_list`](super::yaml_list)). Every edit is idempotent.

use anyhow::{Context, Result, anyhow, bail};
use toml_edit::{Array, ArrayOfTables, DocumentMut, Item, Table, Value, value};

use super::has_marker;
use super::yaml_list::{ListAt, ListEntries};
use crate::yaml;

#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// A dependency in `section` (`dependencies`, `dev-dependencies`), unless present;
    /// `spec` is its TOML value, e.g. `"4"` or `{ version = "1", features = ["x"] }`.
    CargoDependency {
        section: String,
        name: String,
        spec: String,
    },
    /// Where an existing dependency comes from, in `[dependencies]` and, when it is there,
    /// `[dev-dependencies]`: a path or a registry version replaces the other, and the rest
    /// of the entry (its features) stays.
    CargoDependencySource {
        name: String,
        source: DependencySource,
    },
    /// Features of a `[dependencies]` entry, each added unless listed.
    CargoFeatures { name: String, features: Vec<String> },
    /// A `[[bench]]` target with `harness = false`, unless one has the name.
    CargoBench { name: String },
    /// Top-level YAML lists (`block`, which carries the scaffold marker `marker`) for a
    /// kustomization scaffolded without them: appended as written when the file has none
    /// of the block's keys, else their entries merged into the file's lists.
    YamlSection { marker: String, block: String },
    /// Entries of a kustomization list, at its marker or merged into it as YAML.
    YamlList(ListEntries),
}

/// Where a dependency comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum DependencySource {
    Path(String),
    Version(String),
}

impl DependencySource {
    fn key(&self) -> (&'static str, &str) {
        match self {
            Self::Path(path) => ("path", path),
            Self::Version(version) => ("version", version),
        }
    }
}

impl Edit {
    /// What the edit is for, to explain a missing file.
    pub fn purpose(&self) -> &'static str {
        match self {
            Edit::CargoDependency { .. } | Edit::CargoFeatures { .. } => "add a dependency",
            Edit::CargoDependencySource { .. } => "choose where a dependency comes from",
            Edit::CargoBench { .. } => "register a benchmark",
            Edit::YamlSection { .. } | Edit::YamlList(_) => "register new code",
        }
    }

    pub fn apply(&self, text: &str) -> Result<String> {
        match self {
            Edit::YamlSection { marker, block } => yaml_section(text, marker, block),
            Edit::YamlList(entries) => entries.apply(text),
            Edit::CargoDependency {
                section,
                name,
                spec,
            } => {
                let mut doc = parse(text)?;
                let table = doc
                    .entry(section)
                    .or_insert_with(|| Item::Table(Table::new()))
                    .as_table_mut()
                    .with_context(|| format!("[{section}] is not a table"))?;
                if table.contains_key(name) {
                    return Ok(text.to_string());
                }
                let parsed: DocumentMut = format!("dependency = {spec}")
                    .parse()
                    .with_context(|| format!("invalid dependency spec {spec}"))?;
                let item = parsed["dependency"].clone();
                let sorted = is_sorted(table);
                table.insert(name, item);
                if sorted {
                    table.sort_values();
                }
                Ok(doc.to_string())
            }
            Edit::CargoDependencySource { name, source } => {
                let mut doc = parse(text)?;
                let mut changed = false;
                for section in ["dependencies", "dev-dependencies"] {
                    let entry = doc
                        .get_mut(section)
                        .and_then(Item::as_table_like_mut)
                        .and_then(|t| t.get_mut(name));
                    match entry {
                        Some(entry) => changed |= set_source(entry, source),
                        None if section == "dependencies" => bail!(
                            "it does not depend on {name}; a project from before the \
                             runtime crate moves to it as rsbuilder's README says (Moving a \
                             project to rsbuilder-runtime)"
                        ),
                        None => {}
                    }
                }
                Ok(if changed {
                    doc.to_string()
                } else {
                    text.to_string()
                })
            }
            Edit::CargoFeatures { name, features } => {
                let mut doc = parse(text)?;
                let Some(entry) = doc
                    .get_mut("dependencies")
                    .and_then(Item::as_table_mut)
                    .and_then(|t| t.get_mut(name))
                else {
                    bail!("[dependencies] has no {name}");
                };
                if let Some(version) = entry.as_str().map(str::to_string) {
                    let mut inline = toml_edit::InlineTable::new();
                    inline.insert("version", version.into());
                    *entry = Item::Value(Value::InlineTable(inline));
                }
                let list = match entry {
                    Item::Value(Value::InlineTable(t)) => {
                        if !t.contains_key("features") {
                            // The space before `}` stays there, not before the new key's comma.
                            if let Some((_, last)) = t.iter_mut().last() {
                                last.decor_mut().set_suffix("");
                            }
                            t.insert("features", Value::Array(Array::new()));
                        }
                        t.get_mut("features").and_then(Value::as_array_mut)
                    }
                    Item::Table(t) => {
                        if !t.contains_key("features") {
                            t.insert("features", value(Array::new()));
                        }
                        t.get_mut("features").and_then(Item::as_array_mut)
                    }
                    _ => None,
                }
                .with_context(|| format!("the features of {name} are not a list"))?;
                for feature in features {
                    if !list.iter().any(|f| f.as_str() == Some(feature)) {
                        list.push(feature.as_str());
                    }
                }
                Ok(doc.to_string())
            }
            Edit::CargoBench { name } => {
                let mut doc = parse(text)?;
                let benches = doc
                    .entry("bench")
                    .or_insert_with(|| Item::ArrayOfTables(ArrayOfTables::new()))
                    .as_array_of_tables_mut()
                    .context("`bench` is not a list of [[bench]] tables")?;
                if benches
                    .iter()
                    .any(|b| b.get("name").and_then(Item::as_str) == Some(name))
                {
                    return Ok(text.to_string());
                }
                let mut bench = Table::new();
                bench.insert("name", value(name.as_str()));
                bench.insert("harness", value(false));
                benches.push(bench);
                Ok(doc.to_string())
            }
        }
    }
}

/// Makes `entry` take its crate from `source`, keeping its other keys in their order
/// after the source; false when it already did.
fn set_source(entry: &mut Item, source: &DependencySource) -> bool {
    let (key, wanted) = source.key();
    let other = if key == "path" { "version" } else { "path" };
    let current = match entry {
        Item::Value(Value::String(version)) => {
            return if key == "version" && version.value() == wanted {
                false
            } else {
                *entry = Item::Value(Value::InlineTable(toml_edit::InlineTable::from_iter([(
                    key,
                    Value::from(wanted),
                )])));
                true
            };
        }
        Item::Value(Value::InlineTable(table)) => table.clone(),
        Item::Table(table) => table.clone().into_inline_table(),
        _ => toml_edit::InlineTable::new(),
    };
    if current.get(key).and_then(Value::as_str) == Some(wanted) && !current.contains_key(other) {
        return false;
    }
    let mut table = toml_edit::InlineTable::new();
    table.insert(key, wanted.into());
    for (k, v) in current.iter().filter(|(k, _)| *k != key && *k != other) {
        table.insert(k, v.clone());
    }
    match entry {
        Item::Table(old) => {
            let decor = old.decor().clone();
            let mut new = table.into_table();
            *new.decor_mut() = decor;
            *entry = Item::Table(new);
        }
        _ => *entry = Item::Value(Value::InlineTable(table)),
    }
    true
}

fn yaml_section(text: &str, marker: &str, block: &str) -> Result<String> {
    if has_marker(text, marker) {
        return Ok(text.to_string());
    }
    let lists: serde_yaml::Mapping = yaml::read::from_str(block)?;
    let doc: serde_yaml::Value =
        yaml::read::from_str(text).map_err(|e| anyhow!("it is not valid YAML: {e}"))?;
    if lists.keys().all(|key| doc.get(key).is_none()) {
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(block);
        if !out.ends_with('\n') {
            out.push('\n');
        }
        return Ok(out);
    }
    let mut out = text.to_string();
    for (key, entries) in &lists {
        let (Some(key), serde_yaml::Value::Sequence(entries)) = (key.as_str(), entries) else {
            continue;
        };
        out = ListEntries {
            list: ListAt::Key(key.to_string()),
            marker: marker.to_string(),
            fragment: serde_yaml::to_string(entries)?,
            identity: None,
        }
        .apply(&out)?;
    }
    Ok(out)
}

fn parse(text: &str) -> Result<DocumentMut> {
    text.parse().context("Cargo.toml is not valid TOML")
}

fn is_sorted(table: &Table) -> bool {
    let keys: Vec<&str> = table.iter().map(|(k, _)| k).collect();
    keys.windows(2).all(|w| w[0] <= w[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    const CARGO: &str = r#"[package]
name = "demo"

[dependencies]
anyhow = "1"
# a comment that stays with kube
kube = { version = "5.0", features = ["client", "ring"] }
tokio = "1"

[profile.release]
lto = "thin"
"#;

    fn dep(name: &str, spec: &str) -> Edit {
        Edit::CargoDependency {
            section: "dependencies".into(),
            name: name.into(),
            spec: spec.into(),
        }
    }

    #[test]
    fn dependencies_go_in_sorted_place_once() {
        let once = dep("json-patch", "\"4\"").apply(CARGO).unwrap();
        assert!(
            once.contains(
                "anyhow = \"1\"\njson-patch = \"4\"\n# a comment that stays with kube\nkube"
            ),
            "{once}"
        );
        assert_eq!(dep("json-patch", "\"9\"").apply(&once).unwrap(), once);
    }

    const RUNTIME: &str = r#"[dependencies]
# where the runtime comes from
rsbuilder-runtime = { path = "rsbuilder-runtime", features = ["webhooks"] }

[dev-dependencies]
rsbuilder-runtime = { path = "rsbuilder-runtime", features = ["testing"] }
"#;

    fn runtime_from(source: DependencySource) -> Edit {
        Edit::CargoDependencySource {
            name: "rsbuilder-runtime".into(),
            source,
        }
    }

    #[test]
    fn a_dependency_moves_between_path_and_registry_keeping_its_features() {
        let registry = runtime_from(DependencySource::Version("=0.2.0".into()))
            .apply(RUNTIME)
            .unwrap();
        assert_eq!(
            registry,
            RUNTIME.replace(r#"path = "rsbuilder-runtime""#, r#"version = "=0.2.0""#)
        );
        let back = runtime_from(DependencySource::Path("rsbuilder-runtime".into()))
            .apply(&registry)
            .unwrap();
        assert_eq!(back, RUNTIME);
        // Already there: the text is returned as it was, byte for byte.
        let again = runtime_from(DependencySource::Path("rsbuilder-runtime".into()));
        assert_eq!(again.apply(RUNTIME).unwrap(), RUNTIME);
    }

    #[test]
    fn a_dependency_source_replaces_a_bare_version_and_needs_the_dependency() {
        let bare = "[dependencies]\nrsbuilder-runtime = \"=0.1.0\"\n";
        let bumped = runtime_from(DependencySource::Version("=0.2.0".into()))
            .apply(bare)
            .unwrap();
        assert_eq!(
            bumped,
            "[dependencies]\nrsbuilder-runtime = { version = \"=0.2.0\" }\n"
        );
        let missing = runtime_from(DependencySource::Version("=0.2.0".into()))
            .apply("[dependencies]\n")
            .unwrap_err();
        assert!(
            missing
                .to_string()
                .contains("does not depend on rsbuilder-runtime")
        );
    }

    #[test]
    fn features_are_added_to_the_existing_list() {
        let edit = Edit::CargoFeatures {
            name: "kube".into(),
            features: vec!["admission".into(), "ring".into()],
        };
        let once = edit.apply(CARGO).unwrap();
        assert!(
            once.contains(
                r#"kube = { version = "5.0", features = ["client", "ring", "admission"] }"#
            ),
            "{once}"
        );
        assert_eq!(edit.apply(&once).unwrap(), once);
        let plain = Edit::CargoFeatures {
            name: "tokio".into(),
            features: vec!["io-util".into()],
        };
        assert!(
            plain
                .apply(CARGO)
                .unwrap()
                .contains(r#"tokio = { version = "1", features = ["io-util"] }"#)
        );
    }

    #[test]
    fn benches_are_added_once() {
        let edit = Edit::CargoBench {
            name: "conversion".into(),
        };
        let once = edit.apply(CARGO).unwrap();
        assert!(
            once.ends_with("[[bench]]\nname = \"conversion\"\nharness = false\n"),
            "{once}"
        );
        assert_eq!(edit.apply(&once).unwrap(), once);
    }

    const SECTION: &str =
        "patches:\n# +rsbuilder:scaffold:crd-patches\nconfigurations:\n- k.yaml\n";

    fn section() -> Edit {
        Edit::YamlSection {
            marker: "crd-patches".into(),
            block: SECTION.into(),
        }
    }

    #[test]
    fn sections_are_appended_unless_their_marker_is_there() {
        let once = section().apply("resources:\n- a.yaml").unwrap();
        assert_eq!(once, format!("resources:\n- a.yaml\n{SECTION}"));
        assert_eq!(section().apply(&once).unwrap(), once);
    }

    #[test]
    fn sections_merge_into_lists_the_file_has() {
        let text =
            "resources:\n- a.yaml\npatches:\n- path: mine.yaml\nconfigurations:\n- mine.yaml\n";
        let out = section().apply(text).unwrap();
        assert_eq!(
            out,
            "resources:\n- a.yaml\npatches:\n- path: mine.yaml\nconfigurations:\n- mine.yaml\n- k.yaml\n"
        );
        assert_eq!(section().apply(&out).unwrap(), out);
    }
}
