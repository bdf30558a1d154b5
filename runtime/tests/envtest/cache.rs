//! What a controller's cache holds. Server-side apply keeps `metadata.managedFields` on
//! every object (https://kubernetes.io/docs/reference/using-api/server-side-apply/#field-management),
//! often the largest part of a small object, and no reconciliation reads it; nor the
//! copy of the whole object that `kubectl apply` keeps in an annotation
//! (https://kubernetes.io/docs/tasks/manage-kubernetes-objects/declarative-config/). The
//! [`Reconciler`]'s watch drops both before the cache stores the object, so a manager with
//! N objects cached holds what it reads and no more (`testing::scale` measures it).

use k8s_openapi::api::core::v1::ConfigMap;
use kube::ResourceExt as _;
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::reflector::ObjectRef;
use serde_json::json;

use rsbuilder_runtime::controller::{LAST_APPLIED, Reconciler};
use rsbuilder_runtime::server::Health;

use crate::context::{Ctx, run_reporting};
use crate::control_plane;

static RECONCILER: Reconciler = Reconciler::new("cache-test");

#[tokio::test]
#[ignore = "needs kube-apiserver and etcd (KUBEBUILDER_ASSETS)"]
async fn the_cache_holds_objects_without_managed_fields_or_the_last_applied_copy() {
    let namespace = control_plane().namespace("cache").await;
    let client = control_plane().admin().await;
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), &namespace);
    let config_map = json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "cached",
            "labels": {"app": "cache-test"},
            "annotations": {LAST_APPLIED: "{\"kind\":\"ConfigMap\"}", "team": "a"},
        },
        "data": {"key": "value"},
    });
    let served = api
        .patch(
            "cached",
            &PatchParams::apply("a-writer"),
            &Patch::Apply(&config_map),
        )
        .await
        .expect("the ConfigMap");
    assert!(
        !served.managed_fields().is_empty(),
        "the API server keeps managedFields, or this test shows nothing"
    );

    let ctx = Ctx::new(client, "cache-test");
    let synced = Health::default().part("cache-test");
    let controller = RECONCILER.controller(api, &ctx, synced);
    let store = controller.store();
    let mut received = run_reporting(controller, ctx);

    let object = tokio::time::timeout(std::time::Duration::from_secs(30), received.recv())
        .await
        .expect("a reconciliation within 30 s")
        .expect("the reconciled object");
    assert_eq!(object.name_any(), "cached");
    assert!(
        object.managed_fields().is_empty(),
        "reconciled with {:?}",
        object.managed_fields()
    );
    let cached = store
        .get(&ObjectRef::new("cached").within(&namespace))
        .expect("the cached ConfigMap")
        .object()
        .expect("read back from the cache");
    assert!(
        cached.managed_fields().is_empty(),
        "cached with {:?}",
        cached.managed_fields()
    );
    let annotations: Vec<&String> = cached.annotations().keys().collect();
    assert_eq!(annotations, ["team"], "the last-applied copy is not cached");
    assert_eq!(
        cached.data, served.data,
        "the rest of the object is cached whole"
    );
}
