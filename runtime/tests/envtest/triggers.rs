//! What wakes a controller. The API server increments `metadata.generation` at each change
//! of an object's spec, and not at changes of its status or metadata
//! (https://kubernetes.io/docs/reference/using-api/api-concepts/#generation, and for
//! custom resources with a status subresource
//! https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#status-subresource).
//! The [`Reconciler`]'s watch wakes the controller for a new object, a new generation and,
//! with a finalizer, a change of finalizers: never for a status write, its own included.
//! A Deployment stands in for a custom resource: envtest runs no controller that writes
//! its status.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, Patch, PatchParams};
use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;

use rsbuilder_runtime::controller::Reconciler;
use rsbuilder_runtime::server::Health;

use crate::context::{Ctx, run_reporting};
use crate::control_plane;

const FINALIZER: &str = "triggers.example.com/finalizer";
static RECONCILER: Reconciler = Reconciler::new("triggers-test").finalizer(FINALIZER);

/// The generation of the next object reconciled, within 30 seconds.
async fn next(reconciled: &mut UnboundedReceiver<Arc<Deployment>>) -> Option<i64> {
    tokio::time::timeout(Duration::from_secs(30), reconciled.recv())
        .await
        .expect("a reconciliation within 30 s")
        .expect("the controller runs")
        .metadata
        .generation
}

/// Fails if anything is reconciled within 2 seconds: the watch event of a change arrives
/// within milliseconds on an idle control plane.
async fn none(reconciled: &mut UnboundedReceiver<Arc<Deployment>>, after: &str) {
    tokio::time::sleep(Duration::from_secs(2)).await;
    if let Ok(object) = reconciled.try_recv() {
        let generation = object.metadata.generation;
        panic!("{after} woke the controller (generation {generation:?})");
    }
}

/// Merges `patch` into the Deployment.
async fn merge(api: &Api<Deployment>, patch: serde_json::Value) {
    api.patch("woken", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap_or_else(|error| panic!("{patch} refused: {error}"));
}

#[tokio::test]
#[ignore = "needs kube-apiserver and etcd (KUBEBUILDER_ASSETS)"]
async fn spec_and_finalizer_changes_wake_the_controller_status_and_labels_do_not() {
    let namespace = control_plane().namespace("triggers").await;
    let client = control_plane().admin().await;
    let api: Api<Deployment> = Api::namespaced(client.clone(), &namespace);
    let deployment = json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "woken"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "woken"}},
            "template": {
                "metadata": {"labels": {"app": "woken"}},
                "spec": {"containers": [{"name": "app", "image": "example.com/app:1"}]},
            },
        },
    });
    let params = PatchParams::apply("triggers-test");
    api.patch("woken", &params, &Patch::Apply(&deployment))
        .await
        .expect("the Deployment");

    let ctx = Ctx::new(client, "triggers-test");
    let synced = Health::default().part("triggers-test");
    let controller = RECONCILER.controller(api.clone(), &ctx, synced);
    let mut reconciled = run_reporting(controller, ctx);
    assert_eq!(
        next(&mut reconciled).await,
        Some(1),
        "a new object wakes it"
    );
    none(&mut reconciled, "nothing").await;

    let status = json!({"status": {"observedGeneration": 1, "replicas": 1}});
    api.patch_status("woken", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .expect("the status written");
    none(&mut reconciled, "a status write").await;

    merge(&api, json!({"metadata": {"labels": {"team": "a"}}})).await;
    none(&mut reconciled, "a new label").await;

    merge(&api, json!({"spec": {"replicas": 2}})).await;
    assert_eq!(
        next(&mut reconciled).await,
        Some(2),
        "a spec change wakes it"
    );

    merge(&api, json!({"metadata": {"finalizers": [FINALIZER]}})).await;
    assert_eq!(
        next(&mut reconciled).await,
        Some(2),
        "a finalizer change wakes it, at the same generation"
    );
}
