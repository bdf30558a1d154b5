//! Reading the CustomResourceDefinition of an external kind: a manifest of one or several
//! YAML documents (or a `kind: List`, as `kubectl get -o yaml` prints several), the one
//! CRD it is about, the version to type, and the copy the project keeps.

use std::io::Read as _;
use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_yaml::Value;

use crate::names;

const API_VERSION: &str = "apiextensions.k8s.io/v1";
const KIND: &str = "CustomResourceDefinition";

/// One CRD of a manifest: typed, and as written (for the copy).
#[derive(Debug, Clone)]
pub struct Crd {
    pub crd: CustomResourceDefinition,
    pub document: Value,
}

impl Crd {
    pub fn kind(&self) -> &str {
        &self.crd.spec.names.kind
    }

    pub fn group(&self) -> &str {
        &self.crd.spec.group
    }

    pub fn plural(&self) -> &str {
        &self.crd.spec.names.plural
    }

    pub fn namespaced(&self) -> bool {
        self.crd.spec.scope == "Namespaced"
    }
}

/// The text of `path`, or of stdin for `-`; `origin` names it in messages.
pub fn read(path: &Path) -> Result<String> {
    if path == Path::new("-") {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read the CRD from stdin")?;
        return Ok(text);
    }
    std::fs::read_to_string(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => anyhow!("--from-crd {}: no such file", path.display()),
        std::io::ErrorKind::InvalidData => {
            anyhow!(
                "--from-crd {}: not UTF-8 text; a CRD manifest is YAML",
                path.display()
            )
        }
        _ => anyhow!("--from-crd {}: cannot read it: {e}", path.display()),
    })
}

/// Every CRD of the manifest `text`, in order. Documents of other kinds are passed over,
/// but a manifest without any CRD is an error that says what it holds.
pub fn parse(text: &str, origin: &str) -> Result<Vec<Crd>> {
    let mut objects = Vec::new();
    let documents = crate::yaml::read::documents(text)
        .map_err(|e| anyhow!("{origin} is not valid YAML: {e}"))?;
    for value in documents {
        match value {
            Value::Null => {}
            Value::Mapping(_) if kind_of(&value) == Some("List") => {
                let items = value.get("items").and_then(Value::as_sequence);
                objects.extend(items.into_iter().flatten().cloned());
            }
            other => objects.push(other),
        }
    }
    let mut crds = Vec::new();
    let mut others = Vec::new();
    for object in objects {
        if kind_of(&object) != Some(KIND) {
            others.push(
                kind_of(&object)
                    .unwrap_or("an object without a kind")
                    .to_string(),
            );
            continue;
        }
        let api_version = object
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        if api_version != API_VERSION {
            bail!(
                "{origin}: a CustomResourceDefinition of {api_version:?}; rsbuilder reads {API_VERSION}, \
                 which every Kubernetes since 1.16 serves (kubectl get crd <name> -o yaml prints it)"
            );
        }
        let name = object
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string();
        let crd: CustomResourceDefinition =
            serde_yaml::from_value(object.clone()).map_err(|e| {
                anyhow!("{origin}: the CustomResourceDefinition {name} is malformed: {e}")
            })?;
        crds.push(Crd {
            crd,
            document: object,
        });
    }
    if crds.is_empty() {
        others.dedup();
        let held = if others.is_empty() {
            "nothing".to_string()
        } else {
            others.join(", ")
        };
        bail!(
            "{origin} holds no CustomResourceDefinition (it holds {held}); pass the CRD of the kind to type"
        );
    }
    Ok(crds)
}

fn kind_of(value: &Value) -> Option<&str> {
    value.get("kind").and_then(Value::as_str)
}

/// The CRD of `kind`, or the only one when no kind is named.
pub fn choose(crds: Vec<Crd>, kind: Option<&str>, origin: &str) -> Result<Crd> {
    let kinds = || {
        crds.iter()
            .map(|c| c.kind().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match kind {
        Some(kind) => {
            let list = kinds();
            crds.into_iter()
                .find(|c| c.kind() == kind)
                .ok_or_else(|| anyhow!("{origin} has no CRD of the kind {kind}; it has {list}"))
        }
        None if crds.len() == 1 => Ok(crds.into_iter().next().expect("one CRD")),
        None => bail!(
            "{origin} holds {} CRDs ({}); name the one to type with --kind",
            crds.len(),
            kinds()
        ),
    }
}

/// The names a CRD gives its kind, checked as the API server checks them and as Rust needs
/// them, before they become paths and types.
pub fn check(crd: &Crd) -> Result<()> {
    let spec = &crd.crd.spec;
    let what = |e: anyhow::Error| anyhow!("the CRD of {}: {e}", spec.names.kind);
    names::crd_group(&spec.group).map_err(what)?;
    names::kind(&spec.names.kind).map_err(what)?;
    crate::typegen::check_kind(&spec.names.kind)?;
    names::plural(&spec.names.plural).map_err(what)?;
    if !matches!(spec.scope.as_str(), "Namespaced" | "Cluster") {
        bail!(
            "the CRD of {}: invalid scope {:?}; it must be Namespaced or Cluster",
            spec.names.kind,
            spec.scope
        );
    }
    for v in &spec.versions {
        names::served_version(&v.name).map_err(what)?;
    }
    Ok(())
}

/// The version to type: `wanted`, which the CRD must serve, or else its storage version.
pub fn version(crd: &Crd, wanted: Option<&str>) -> Result<String> {
    let spec = &crd.crd.spec;
    let served: Vec<&str> = spec
        .versions
        .iter()
        .filter(|v| v.served)
        .map(|v| v.name.as_str())
        .collect();
    let kind = crd.kind();
    let serves = if served.is_empty() {
        "it serves none".to_string()
    } else {
        format!("it serves {}", served.join(", "))
    };
    match wanted {
        Some(wanted) => match spec.versions.iter().find(|v| v.name == wanted) {
            Some(v) if v.served => Ok(v.name.clone()),
            Some(_) => bail!(
                "the CRD of {kind} has the version {wanted} but does not serve it; {serves}: pass one of those to --version"
            ),
            None => bail!("the CRD of {kind} has no version {wanted}; {serves}"),
        },
        None => match spec.versions.iter().find(|v| v.storage) {
            Some(v) if v.served => Ok(v.name.clone()),
            _ => bail!(
                "the storage version of the CRD of {kind} is not served; {serves}: pass one of those to --version"
            ),
        },
    }
}

/// The copy of the CRD the project keeps: the document as its owner wrote it, without what
/// the API server adds to the objects it returns (`status`, `metadata.uid`,
/// `managedFields`, `kubectl.kubernetes.io/last-applied-configuration`, ...), which
/// `kubectl apply` of the copy would trip over.
pub fn copy_text(crd: &Crd, types_path: &str) -> String {
    let mut document = crd.document.clone();
    if let Value::Mapping(map) = &mut document {
        map.remove("status");
        if let Some(Value::Mapping(meta)) = map.get_mut("metadata") {
            meta.retain(|k, _| matches!(k.as_str(), Some("name" | "labels" | "annotations")));
            if let Some(Value::Mapping(annotations)) = meta.get_mut("annotations") {
                annotations.remove("kubectl.kubernetes.io/last-applied-configuration");
                if annotations.is_empty() {
                    meta.remove("annotations");
                }
            }
        }
    }
    let body = crate::yaml::to_string(&document).expect("a YAML value serializes");
    format!(
        "# The CustomResourceDefinition of {kind} ({group}), which its owner installs: this\n\
         # project neither ships nor installs it (no kustomization lists it; only `make\n\
         # test-e2e` applies it to its Kind cluster). rsbuilder generated {types_path}\n\
         # from it; `rsbuilder create api --from-crd <newer CRD> --force` generates it again.\n\
         {body}",
        kind = crd.kind(),
        group = crd.group(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.io
  uid: 0b1c
  managedFields: []
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{}'
spec:
  group: example.io
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
  - {name: v1beta1, served: true, storage: false, schema: {openAPIV3Schema: {type: object}}}
  - {name: v1alpha1, served: false, storage: false, schema: {openAPIV3Schema: {type: object}}}
status:
  acceptedNames: {kind: Widget, plural: widgets}
";

    #[test]
    fn other_documents_and_lists_are_read_through() {
        let text = format!(
            "apiVersion: v1\nkind: Namespace\nmetadata: {{name: x}}\n---\n---\nkind: List\napiVersion: v1\nitems:\n- {}",
            CRD.replace('\n', "\n  ")
        );
        let crds = parse(&text, "x.yaml").unwrap();
        assert_eq!(crds.len(), 1);
        assert_eq!(crds[0].kind(), "Widget");
    }

    #[test]
    fn a_manifest_without_a_crd_says_what_it_holds() {
        let err = parse("apiVersion: v1\nkind: ConfigMap\n", "cm.yaml").unwrap_err();
        assert_eq!(
            err.to_string(),
            "cm.yaml holds no CustomResourceDefinition (it holds ConfigMap); pass the CRD of the kind to type"
        );
        let err = parse("apiextensions.k8s.io/v1beta1", "x.yaml").unwrap_err();
        assert!(
            err.to_string()
                .contains("it holds an object without a kind"),
            "{err}"
        );
        let v1beta1 = CRD.replace("apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1");
        let err = parse(&v1beta1, "old.yaml").unwrap_err();
        assert!(
            err.to_string()
                .contains("rsbuilder reads apiextensions.k8s.io/v1"),
            "{err}"
        );
    }

    #[test]
    fn versions_are_chosen_among_those_served() {
        let crd = choose(parse(CRD, "w.yaml").unwrap(), None, "w.yaml").unwrap();
        assert_eq!(version(&crd, None).unwrap(), "v1");
        assert_eq!(version(&crd, Some("v1beta1")).unwrap(), "v1beta1");
        assert_eq!(
            version(&crd, Some("v1alpha1")).unwrap_err().to_string(),
            "the CRD of Widget has the version v1alpha1 but does not serve it; it serves v1, v1beta1: pass one of those to --version"
        );
        assert_eq!(
            version(&crd, Some("v2")).unwrap_err().to_string(),
            "the CRD of Widget has no version v2; it serves v1, v1beta1"
        );
    }

    #[test]
    fn several_crds_need_a_kind() {
        let two = format!(
            "{CRD}---\n{}",
            CRD.replace("Widget", "Gadget")
                .replace("widgets", "gadgets")
        );
        let crds = parse(&two, "two.yaml").unwrap();
        let err = choose(crds.clone(), None, "two.yaml").unwrap_err();
        assert_eq!(
            err.to_string(),
            "two.yaml holds 2 CRDs (Widget, Gadget); name the one to type with --kind"
        );
        assert_eq!(
            choose(crds.clone(), Some("Gadget"), "two.yaml")
                .unwrap()
                .kind(),
            "Gadget"
        );
        let err = choose(crds, Some("Gizmo"), "two.yaml").unwrap_err();
        assert_eq!(
            err.to_string(),
            "two.yaml has no CRD of the kind Gizmo; it has Widget, Gadget"
        );
    }

    #[test]
    fn the_copy_drops_what_the_api_server_adds() {
        let crd = choose(parse(CRD, "w.yaml").unwrap(), None, "w.yaml").unwrap();
        let copy = copy_text(&crd, "src/api/external/example_io/v1/widget.rs");
        for gone in [
            "uid",
            "managedFields",
            "last-applied",
            "acceptedNames",
            "annotations",
        ] {
            assert!(!copy.contains(gone), "{gone} in:\n{copy}");
        }
        assert!(copy.contains("name: widgets.example.io"), "{copy}");
        // The copy reads back as the same CRD, and copies itself.
        let again = choose(parse(&copy, "copy").unwrap(), None, "copy").unwrap();
        assert_eq!(again.crd.spec, crd.crd.spec);
        assert_eq!(
            copy_text(&again, "src/api/external/example_io/v1/widget.rs"),
            copy
        );
    }

    #[test]
    fn names_are_checked() {
        let bad = CRD.replace("group: example.io", "group: example");
        let crd = choose(parse(&bad, "b.yaml").unwrap(), None, "b.yaml").unwrap();
        assert!(
            check(&crd)
                .unwrap_err()
                .to_string()
                .contains("at least one dot")
        );
        let bad = CRD.replace("kind: Widget", "kind: Serialize");
        let crd = choose(parse(&bad, "b.yaml").unwrap(), None, "b.yaml").unwrap();
        assert!(check(&crd).is_err());
    }
}
