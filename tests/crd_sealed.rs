//! Sealed Kubernetes subschemas (`src/crd/sealed/`): for every precomputed Kubernetes type,
//! in every place a user's type can put it, `generate crds` writes the very bytes it writes
//! when the type's schema is built, transformed and serialized in full.

use std::path::PathBuf;

use rsbuilder::crd::{SourceFile, generate, k8s_types, sealed};

/// A resource embedding `ty` as a field, `Option` (documented), `Vec` with a default, map
/// value, externally tagged and untagged enum variants, and flattened into the status.
fn probe(ty: &str) -> Vec<SourceFile> {
    let text = format!(
        r#"
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{{Deserialize, Serialize}};
use std::collections::BTreeMap;

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "seal.example.com", version = "v1", kind = "Probe", namespaced, status = "ProbeStatus")]
#[serde(rename_all = "camelCase")]
pub struct ProbeSpec {{
    pub plain: {ty},
    /// Documented, and optional.
    pub optional: Option<{ty}>,
    #[serde(default)]
    pub list: Vec<{ty}>,
    pub map: BTreeMap<String, {ty}>,
    pub choice: Choice,
    pub tagged: Tagged,
}}

/// One of two.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Choice {{
    /// The first.
    One({ty}),
    Two {{ inner: Option<{ty}> }},
}}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Tagged {{
    /// Carries the type.
    With({ty}),
    Named {{ probe_label: String }},
}}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct ProbeStatus {{
    #[serde(flatten)]
    pub inner: {ty},
    pub extra: Option<i32>,
}}
"#
    );
    vec![SourceFile {
        path: PathBuf::from("src/api/probe.rs"),
        text,
    }]
}

fn both(sources: &[SourceFile]) -> (String, String) {
    let show = |r: Result<_, _>| match r {
        Ok(files) => format!("{files:#?}"),
        Err(d) => format!("error: {d}"),
    };
    let fast = show(generate(sources));
    let real = show(k8s_types::unsealed(|| generate(sources)));
    (fast, real)
}

#[test]
fn every_precomputed_type_is_written_as_in_full() {
    let (mut differ, mut refused) = (Vec::new(), Vec::new());
    let mut n = 0;
    for path in sealed::precomputed() {
        let (fast, real) = both(&probe(path));
        if real.starts_with("error") {
            refused.push(path);
        }
        if fast != real {
            differ.push(path);
        }
        n += 1;
    }
    assert!(n > 200, "only {n} types are precomputed");
    assert!(differ.is_empty(), "sealed output differs for {differ:?}");
    // A refusal is compared too, but the point is the YAML: nearly all must be accepted.
    assert!(refused.len() < n / 10, "refused in full: {refused:?}");
}
