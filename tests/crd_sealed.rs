//! Sealed Kubernetes subschemas (`src/crd/sealed/`): for every precomputed Kubernetes type,
//! in every place a user's type can put it, `generate crds` writes the very bytes it writes
//! when the type's schema is built, transformed and serialized in full.

use std::path::PathBuf;

use rsbuilder::crd::{SourceFile, emit, generate, generate_crds, k8s_types, sealed};

/// A resource embedding `ty` as a field, `Option` (documented), `Vec` with a default, map
/// value, externally tagged and untagged enum variants, flattened as an `Option` (which
/// drops its `required`) and flattened into the status.
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
    pub maybe: Maybe,
}}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Maybe {{
    #[serde(flatten)]
    pub inner: Option<{ty}>,
    pub note: Option<String>,
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

/// How many sealed placeholders the CRDs of `sources` kept (0 when the fast path was
/// given up for the real one, or the sources are refused).
fn sealed_count(sources: &[SourceFile]) -> usize {
    generate_crds(sources).map_or(0, |crds| crds.iter().map(sealed::count).sum())
}

/// Compares both paths for every precomputed type `which` selects (the tests split the
/// types, to run in parallel). Equal bytes alone would also hold if the fast path were
/// always given up, which is the slow path again: each accepted type must stay sealed.
fn compare(which: impl Fn(&str) -> bool) {
    let (mut differ, mut refused, mut unsealed) = (Vec::new(), Vec::new(), Vec::new());
    let mut n = 0;
    for path in sealed::precomputed().filter(|p| which(p)) {
        let sources = probe(path);
        let (fast, real) = both(&sources);
        if real.starts_with("error") {
            refused.push(path);
        } else if sealed_count(&sources) == 0 {
            unsealed.push(path);
        }
        if fast != real {
            differ.push(path);
        }
        n += 1;
    }
    assert!(n > 0, "no precomputed type selected");
    assert!(differ.is_empty(), "sealed output differs for {differ:?}");
    assert!(
        unsealed.is_empty(),
        "written in full, not sealed: {unsealed:?}"
    );
    // A refusal is compared too, but the point is the YAML: nearly all must be accepted.
    assert!(refused.len() <= n / 10, "refused in full: {refused:?}");
}

const APPS: &str = "k8s_openapi::api::apps::";
const BATCH: &str = "k8s_openapi::api::batch::";
const CORE: &str = "k8s_openapi::api::core::v1::";

#[test]
fn apps_types_are_written_as_in_full() {
    compare(|p| p.starts_with(APPS));
}

#[test]
fn batch_types_are_written_as_in_full() {
    compare(|p| p.starts_with(BATCH));
}

#[test]
fn core_types_a_to_o_are_written_as_in_full() {
    compare(|p| p.strip_prefix(CORE).is_some_and(|name| name < "P"));
}

#[test]
fn core_types_p_to_z_are_written_as_in_full() {
    compare(|p| p.strip_prefix(CORE).is_some_and(|name| name >= "P"));
}

#[test]
fn every_other_type_is_written_as_in_full() {
    compare(|p| ![APPS, BATCH, CORE].iter().any(|g| p.starts_with(g)));
}

#[test]
fn most_kubernetes_types_are_precomputed() {
    let n = sealed::precomputed().count();
    assert!(n > 200, "only {n} types are precomputed");
}

#[test]
fn expanded_crds_are_the_full_schemas() {
    let sources = probe("k8s_openapi::api::apps::v1::StatefulSetSpec");
    let mut crds = generate_crds(&sources).unwrap();
    let real = k8s_types::unsealed(|| generate(&sources)).unwrap();
    assert!(crds.iter().map(sealed::count).sum::<usize>() > 0);
    for crd in &mut crds {
        sealed::expand(crd);
        assert_eq!(sealed::count(crd), 0);
        let yaml = serde_yaml::to_string(crd).unwrap();
        assert_eq!(
            format!("{}{yaml}", emit::HEADER),
            real[&emit::file_name(crd)]
        );
    }
}
