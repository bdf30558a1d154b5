// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The CRD manifests under `config/crd/bases` (written by `rsbuilder generate crds`,
//! which reads the Rust types statically) must equal what kube-derive builds from the
//! same types at runtime. When this fails, run `make manifests`.

use std::collections::BTreeMap;
use std::path::Path;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::ResourceExt;

type Crds = BTreeMap<String, serde_json::Value>;

fn manifests_on_disk() -> Result<Crds, Box<dyn std::error::Error>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/crd/bases");
    let mut crds = Crds::new();
    if !dir.is_dir() {
        return Ok(crds);
    }
    for entry in std::fs::read_dir(&dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|ext| ext == "yaml") {
            let crd: CustomResourceDefinition =
                serde_saphyr::from_str(&std::fs::read_to_string(&path)?)?;
            crds.insert(crd.name_any(), serde_json::to_value(&crd)?);
        }
    }
    Ok(crds)
}

#[test]
fn crd_manifests_equal_what_kube_derive_builds() -> Result<(), Box<dyn std::error::Error>> {
    let mut built = Crds::new();
    for crd in project_certs::api::crds()? {
        built.insert(crd.name_any(), serde_json::to_value(&crd)?);
    }
    let on_disk = manifests_on_disk()?;
    assert_eq!(
        on_disk.keys().collect::<Vec<_>>(),
        built.keys().collect::<Vec<_>>(),
        "config/crd/bases holds other CRDs than the types define; run `make manifests`"
    );
    for (name, crd) in &built {
        assert_eq!(
            &on_disk[name], crd,
            "config/crd/bases: {name} is stale; run `make manifests`"
        );
    }
    Ok(())
}
