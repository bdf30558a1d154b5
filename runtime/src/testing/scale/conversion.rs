//! Conversion under load: the webhooks of a manager that caches nothing, while the API
//! server converts every object.

use std::time::Duration;

use anyhow::Context as _;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, Patch, PatchParams};
use serde_json::json;

use super::apiserver;
use super::process::Manager;
use super::report::Conversion;
use super::workload::{self, Pages};
use super::{Bench, OPERATOR};

/// How many times the conversion reads every object, for enough pages to take a p99 of.
const READS: usize = 3;

/// What conversion costs where the API server asks for it. kube-apiserver keeps a watch
/// cache for each served version of a CRD and serves reads from it; it converts an object
/// when it stores its new version in each cache, and when it fills the caches again,
/// which it does when it starts and whenever the CRD's spec changes: one object a review
/// either way (1.37). So the CRD's spec changes, and every object is read at `version`
/// in pages, [`READS`] times, while the API server fills its caches through the webhooks
/// of `manager`; then as many times at the storage version, for the latency beside.
pub async fn measure(
    bench: &Bench,
    version: &str,
    manager: &Manager,
) -> anyhow::Result<Conversion> {
    let (admin, kind, namespace, page) = (&bench.admin, &bench.kind, &bench.namespace, bench.page);
    let converted_api = kind.api(admin, namespace, version);
    let stored_api = kind.api(admin, namespace, &kind.storage);
    let crds: Api<CustomResourceDefinition> = Api::all(admin.clone());
    manager.reset_peak()?;
    let rss = manager.memory()?.rss;
    let before = apiserver::reviews(admin).await?;
    // The API server builds its caches of a CRD again when its spec changes. Listing a
    // second review version changes nothing else: it sends the first, v1.
    let reload = json!({"spec": {"conversion": {"webhook": {
        "conversionReviewVersions": ["v1", "v1beta1"],
    }}}});
    crds.patch(
        &kind.crd_name(),
        &PatchParams::default(),
        &Patch::Merge(&reload),
    )
    .await
    .context("cannot change the CRD")?;
    let mut converted: Vec<Pages> = Vec::new();
    for _ in 0..READS {
        converted.push(workload::read(&converted_api, kind, version, OPERATOR, page).await?);
    }
    // Caches of other versions may still be filling.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let peak = manager.memory()?.peak;
    let reviews = apiserver::reviews(admin).await?.since(&before);
    anyhow::ensure!(
        reviews.count > 0,
        "the API server sent no conversion review after the CRD's spec changed"
    );
    let mut stored = Vec::new();
    for _ in 0..READS {
        let pages = workload::read(&stored_api, kind, &kind.storage, OPERATOR, page).await?;
        stored.extend(pages.latencies);
    }
    let (page_bytes, page_objects) = converted
        .iter()
        .map(|p| p.largest_page)
        .max()
        .unwrap_or_default();
    Ok(Conversion {
        version: version.into(),
        storage: kind.storage.clone(),
        page_objects,
        page_bytes,
        rss,
        peak,
        reviews,
        converted: converted.into_iter().flat_map(|p| p.latencies).collect(),
        stored,
    })
}
