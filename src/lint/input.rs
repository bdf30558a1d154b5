//! What `lint` reads, each file once: the CRDs, the samples, every manifest under
//! `config/`, the controllers' sources and PROJECT. The rules only look at this.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, anyhow};
use serde_json::Value;

use crate::lint::schema::{Schema, apply_defaults};

use super::finding::{Finding, RuleId, Severity};
use super::yaml::{self, Node, Pos};
use crate::crd::SourceFile;
use crate::project::Project;

pub static YAML_SYNTAX: RuleId = RuleId {
    id: "yaml-syntax",
    severity: Severity::Error,
    summary: "a manifest or sample under config/ is not valid YAML",
};

/// Where to look. In a project every field has its default; outside one, the user names
/// the directories.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    pub crds: Option<PathBuf>,
    pub samples: Option<PathBuf>,
}

/// One YAML file, parsed once.
#[derive(Debug)]
pub struct YamlFile {
    /// As shown in findings: relative to the directory lint runs in.
    pub path: PathBuf,
    pub text: String,
    pub docs: Vec<Node>,
}

/// One CustomResourceDefinition document.
#[derive(Debug)]
pub struct Crd<'a> {
    pub file: &'a YamlFile,
    pub doc: &'a Node,
    pub name: String,
    pub group: String,
    pub kind: String,
    pub plural: String,
    pub versions: Vec<Version<'a>>,
    /// Whether the CRD converts through a webhook: its own `spec.conversion`, or a
    /// kustomize patch of the same CRD under config/ that sets it.
    pub webhook_conversion: bool,
}

#[derive(Debug)]
pub struct Version<'a> {
    pub name: String,
    pub served: bool,
    pub storage: bool,
    /// The version's entry in `spec.versions`.
    pub node: &'a Node,
    /// `schema.openAPIV3Schema`, when present.
    pub schema: Option<&'a Node>,
    pub schema_json: Value,
    /// Whether any node of the schema has `x-kubernetes-validations`.
    pub has_rules: bool,
    /// Whether `status` is a subresource: then creating an object cannot set it.
    pub status_subresource: bool,
}

impl Version<'_> {
    /// A sample as the API server validates it when `kubectl apply` creates it: non-nullable
    /// nulls pruned and defaults applied (apiextensions-apiserver does both while decoding
    /// the request), and without `status` where it is a subresource (the create strategy
    /// drops it: https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#status-subresource).
    pub fn as_created(&self, sample: &Sample<'_>) -> Value {
        let mut value = sample.doc.to_json();
        apply_defaults(Schema(&self.schema_json), &mut value);
        if self.status_subresource
            && let Some(object) = value.as_object_mut()
        {
            object.remove("status");
        }
        value
    }
}

/// One document of config/samples.
#[derive(Debug)]
pub struct Sample<'a> {
    pub file: &'a YamlFile,
    pub doc: &'a Node,
    pub group: String,
    pub version: String,
    pub kind: String,
    pub name: String,
}

#[derive(Debug, Default)]
pub struct Inputs {
    files: BTreeMap<PathBuf, YamlFile>,
    crd_files: Vec<PathBuf>,
    sample_files: Vec<PathBuf>,
    /// Every YAML file under config/ (or the directories given), for the manifest rules.
    manifest_files: Vec<PathBuf>,
    /// `src/**.rs`, in a project: the controllers are read with syn, the rest for markers.
    pub sources: Vec<SourceFile>,
    pub project: Option<Project>,
    /// The project directory (or where lint runs), to read more files below it.
    pub root: PathBuf,
    /// Files that are not YAML: reported, and left out of every rule.
    pub syntax: Vec<Finding>,
}

impl Inputs {
    /// Reads everything below `root` that the rules look at.
    pub fn load(root: &Path, sources: &Sources) -> Result<Self> {
        let project = if root.join("PROJECT").is_file() {
            Some(Project::load(root)?)
        } else if sources.crds.is_none() && sources.samples.is_none() {
            return Err(anyhow!(
                "{} is not an rsbuilder project (no PROJECT file); run lint in a project, \
                 or name the manifests with --crds DIR and --samples DIR",
                root.display()
            ));
        } else {
            None
        };
        let mut inputs = Inputs {
            project,
            root: root.to_path_buf(),
            ..Default::default()
        };
        let in_project = inputs.project.is_some();
        let crds = sources
            .crds
            .clone()
            .unwrap_or_else(|| "config/crd/bases".into());
        let samples = sources
            .samples
            .clone()
            .unwrap_or_else(|| "config/samples".into());
        inputs.crd_files = inputs.read_dir(&crds, sources.crds.is_some())?;
        inputs.sample_files = inputs.read_dir(&samples, sources.samples.is_some())?;
        inputs.manifest_files = if in_project {
            inputs.read_dir(Path::new("config"), false)?
        } else {
            let mut all = inputs.crd_files.clone();
            all.extend(inputs.sample_files.iter().cloned());
            all.sort();
            all.dedup();
            all
        };
        if in_project && root.join("src").is_dir() {
            inputs.sources = crate::crd::collect_sources_in(root, &[PathBuf::from("src")])?;
        }
        Ok(inputs)
    }

    /// Reads every `.yaml`/`.yml` file below `dir`, sorted, each parsed once; returns their
    /// paths. A missing directory is an error only when the user named it.
    fn read_dir(&mut self, dir: &Path, named: bool) -> Result<Vec<PathBuf>> {
        let full = self.root.join(dir);
        if !full.is_dir() {
            if named {
                return Err(anyhow!("{}: no such directory", dir.display()));
            }
            return Ok(Vec::new());
        }
        let mut found = Vec::new();
        collect_yaml(&self.root, dir, &mut found)
            .with_context(|| format!("cannot read {}", dir.display()))?;
        found.sort();
        for path in &found {
            if self.files.contains_key(path) {
                continue;
            }
            let text = std::fs::read_to_string(self.root.join(path))
                .with_context(|| format!("cannot read {}", path.display()))?;
            let docs = match yaml::parse(&text) {
                Ok(docs) => docs,
                Err(e) => {
                    self.syntax.push(YAML_SYNTAX.at(
                        path,
                        e.pos,
                        format!("not valid YAML: {}", e.message),
                    ));
                    Vec::new()
                }
            };
            self.files.insert(
                path.clone(),
                YamlFile {
                    path: path.clone(),
                    text,
                    docs,
                },
            );
        }
        Ok(found)
    }

    fn files_of<'a>(&'a self, paths: &'a [PathBuf]) -> impl Iterator<Item = &'a YamlFile> + 'a {
        paths.iter().filter_map(|p| self.files.get(p))
    }

    /// Every document of every manifest, with its file.
    pub fn manifests(&self) -> impl Iterator<Item = (&YamlFile, &Node)> {
        self.files_of(&self.manifest_files)
            .flat_map(|f| f.docs.iter().map(move |d| (f, d)))
    }

    /// Where the Rust source spells `text` as a string literal, when exactly one place
    /// does: CRD rules, printer columns and selectable fields come from attributes of the
    /// types, and the finding is clearer there than in the generated YAML.
    pub fn rust_literal(&self, text: &str) -> Option<(PathBuf, Pos)> {
        let needle = format!("{text:?}");
        let mut found = self.sources.iter().flat_map(|source| {
            source
                .text
                .match_indices(&needle)
                .map(move |(offset, _)| (source, offset))
        });
        let (source, offset) = found.next()?;
        if found.next().is_some() {
            return None;
        }
        let before = &source.text[..offset];
        let line = before.matches('\n').count() + 1;
        let column = before
            .rsplit('\n')
            .next()
            .unwrap_or_default()
            .chars()
            .count()
            + 1;
        Some((source.path.clone(), Pos { line, column }))
    }

    /// The CRDs of the CRD directory.
    pub fn crds(&self) -> Vec<Crd<'_>> {
        let mut crds: Vec<Crd<'_>> = self
            .files_of(&self.crd_files)
            .flat_map(|f| f.docs.iter().map(move |d| (f, d)))
            .filter(|(_, d)| is_crd(d))
            .map(|(file, doc)| Crd::read(file, doc))
            .collect();
        for crd in &mut crds {
            crd.webhook_conversion |= self
                .manifests()
                .any(|(_, d)| is_crd(d) && name_of(d) == crd.name && converts_by_webhook(d));
        }
        crds
    }

    /// The documents of the samples directory, but its kustomization.
    pub fn samples(&self) -> Vec<Sample<'_>> {
        self.files_of(&self.sample_files)
            .flat_map(|f| f.docs.iter().map(move |d| (f, d)))
            .filter_map(|(file, doc)| {
                let kind = str_at(doc, &["kind"]);
                if kind == "Kustomization" || kind.is_empty() {
                    return None;
                }
                let api_version = str_at(doc, &["apiVersion"]);
                let (group, version) = match api_version.split_once('/') {
                    Some((g, v)) => (g.to_string(), v.to_string()),
                    None => (String::new(), api_version.to_string()),
                };
                Some(Sample {
                    file,
                    doc,
                    group,
                    version,
                    kind: kind.to_string(),
                    name: str_at(doc, &["metadata", "name"]).to_string(),
                })
            })
            .collect()
    }
}

fn collect_yaml(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(root.join(rel))? {
        let entry = entry?;
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let path = rel.join(&name);
        if entry.file_type()?.is_dir() {
            collect_yaml(root, &path, out)?;
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
    Ok(())
}

/// The text at `keys`, or "".
pub fn str_at<'a>(node: &'a Node, keys: &[&str]) -> &'a str {
    node.at(keys).and_then(Node::as_str).unwrap_or_default()
}

fn is_crd(doc: &Node) -> bool {
    str_at(doc, &["kind"]) == "CustomResourceDefinition"
        && str_at(doc, &["apiVersion"]).starts_with("apiextensions.k8s.io/")
}

fn name_of(doc: &Node) -> &str {
    str_at(doc, &["metadata", "name"])
}

fn converts_by_webhook(doc: &Node) -> bool {
    str_at(doc, &["spec", "conversion", "strategy"]) == "Webhook"
}

impl<'a> Crd<'a> {
    fn read(file: &'a YamlFile, doc: &'a Node) -> Self {
        let versions = doc
            .at(&["spec", "versions"])
            .map(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .map(|v| {
                let schema = v.at(&["schema", "openAPIV3Schema"]);
                Version {
                    name: str_at(v, &["name"]).to_string(),
                    served: v.get("served").map(Node::to_json) == Some(Value::Bool(true)),
                    storage: v.get("storage").map(Node::to_json) == Some(Value::Bool(true)),
                    node: v,
                    schema,
                    schema_json: schema.map(Node::to_json).unwrap_or(Value::Null),
                    has_rules: v.has_key("x-kubernetes-validations"),
                    status_subresource: v.at(&["subresources", "status"]).is_some(),
                }
            })
            .collect();
        Crd {
            file,
            doc,
            name: name_of(doc).to_string(),
            group: str_at(doc, &["spec", "group"]).to_string(),
            kind: str_at(doc, &["spec", "names", "kind"]).to_string(),
            plural: str_at(doc, &["spec", "names", "plural"]).to_string(),
            versions,
            webhook_conversion: converts_by_webhook(doc),
        }
    }

    pub fn version(&self, name: &str) -> Option<&Version<'a>> {
        self.versions.iter().find(|v| v.name == name)
    }
}
