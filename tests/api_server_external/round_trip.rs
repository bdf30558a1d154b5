//! Copied into a working copy of `testdata/project-external` as `examples/round_trip.rs` by
//! rsbuilder's `tests/api_server_external.rs`; not part of what users get. It does what an
//! operator built on the generated types of the external kinds does with objects it finds:
//! reads each through `kube::Api` of its type, and writes it back by server-side apply.
//!
//! `round_trip TARGETS READ`: reads the objects to handle from the JSON file TARGETS,
//! `[{"kind", "namespace", "name", "status"}]` (`status`: the kind has a status
//! subresource), and writes each as it read it, serialized again from its Rust type, into
//! READ as a JSON array. KUBECONFIG names the cluster.

use std::fmt::Debug;

use kube::api::{Api, ObjectMeta, Patch, PatchParams};
use kube::{Client, Resource};
use project_external::api::external::argoproj_io::v1alpha1::rollout::Rollout;
use project_external::api::external::cert_manager_io::v1::certificate::Certificate;
use project_external::api::external::gateway_networking_k8s_io::v1beta1::http_route::HTTPRoute;
use project_external::api::external::monitoring_coreos_com::v1::service_monitor::ServiceMonitor;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

#[derive(serde::Deserialize)]
struct Target {
    kind: String,
    namespace: Option<String>,
    name: String,
    status: bool,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(targets), Some(output)) = (args.next(), args.next()) else {
        anyhow::bail!("usage: round_trip TARGETS READ");
    };
    let targets: Vec<Target> = serde_json::from_slice(&std::fs::read(targets)?)?;
    let client = Client::try_default().await?;
    let mut read = Vec::new();
    for target in &targets {
        let ns = target.namespace.as_deref().unwrap_or_default();
        let typed = match target.kind.as_str() {
            "Certificate" => round_trip(Api::<Certificate>::namespaced(client.clone(), ns), target).await,
            "HTTPRoute" => round_trip(Api::<HTTPRoute>::namespaced(client.clone(), ns), target).await,
            "Rollout" => round_trip(Api::<Rollout>::namespaced(client.clone(), ns), target).await,
            "ServiceMonitor" => round_trip(Api::<ServiceMonitor>::all(client.clone()), target).await,
            other => anyhow::bail!("no type for the kind {other}"),
        };
        read.push(typed.map_err(|e| anyhow::anyhow!("{} {}: {e:#}", target.kind, target.name))?);
    }
    std::fs::write(output, serde_json::to_vec(&read)?)?;
    Ok(())
}

/// Reads the object through its type and applies it back, as the manager `round-trip`
/// that created it; returns what it read, serialized from the type.
async fn round_trip<K>(api: Api<K>, target: &Target) -> anyhow::Result<Value>
where
    K: Resource + Clone + Debug + Serialize + DeserializeOwned,
{
    let object = api.get(&target.name).await?;
    let read = serde_json::to_value(&object)?;
    // An apply request carries no managedFields ("metadata.managedFields must be nil",
    // https://kubernetes.io/docs/reference/using-api/server-side-apply/#field-management),
    // and no resourceVersion: an apply is not an update of one version.
    let mut applied = object;
    let meta = applied.meta_mut();
    *meta = ObjectMeta {
        name: meta.name.take(),
        namespace: meta.namespace.take(),
        labels: meta.labels.take(),
        annotations: meta.annotations.take(),
        ..ObjectMeta::default()
    };
    let params = PatchParams::apply("round-trip").force();
    api.patch(&target.name, &params, &Patch::Apply(&applied)).await?;
    if target.status {
        // The status subresource ignores the rest, and the main resource the status
        // (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#status-subresource).
        api.patch_status(&target.name, &params, &Patch::Apply(&applied)).await?;
    }
    Ok(read)
}
