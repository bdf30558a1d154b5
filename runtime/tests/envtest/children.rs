//! A controller woken by its children (`controller::children::owned`): a change of a child
//! reconciles the object that controls it, named by the child's owner reference with
//! `controller: true`
//! (https://kubernetes.io/docs/concepts/overview/working-with-objects/owners-dependents/),
//! through a watch of the children's metadata only.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::{Resource as _, ResourceExt as _};
use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;

use rsbuilder_runtime::controller::{Reconciler, children};
use rsbuilder_runtime::server::Health;

use crate::context::{Ctx, run_reporting};
use crate::control_plane;

static RECONCILER: Reconciler = Reconciler::new("children-test");

/// Waits until `name` is reconciled, for at most 30 seconds; names of others go by.
async fn reconciled(objects: &mut UnboundedReceiver<Arc<ConfigMap>>, name: &str) {
    let wait = async {
        while let Some(reconciled) = objects.recv().await {
            if reconciled.name_any() == name {
                return;
            }
        }
        panic!("the controller stopped");
    };
    tokio::time::timeout(Duration::from_secs(30), wait)
        .await
        .unwrap_or_else(|_| panic!("{name} is not reconciled within 30 s"));
}

#[tokio::test]
#[ignore = "needs kube-apiserver and etcd (KUBEBUILDER_ASSETS)"]
async fn a_change_of_a_child_reconciles_the_object_that_controls_it() {
    let namespace = control_plane().namespace("children").await;
    let client = control_plane().admin().await;
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), &namespace);
    let create = |value| serde_json::from_value::<ConfigMap>(value).expect("a ConfigMap");
    let owner = api
        .create(
            &PostParams::default(),
            &create(json!({"metadata": {"name": "owner"}})),
        )
        .await
        .expect("the owner");
    let reference = owner.controller_owner_ref(&()).expect("an owner reference");
    let child = json!({
        "metadata": {"name": "child", "ownerReferences": [reference]},
        "data": {"generation": "1"},
    });
    api.create(&PostParams::default(), &create(child))
        .await
        .expect("the child");

    let ctx_client = client.clone();
    let ctx = Ctx::new(client, "children-test");
    let synced = Health::default().part("children-test");
    let watch = RECONCILER.controller(api.clone(), &ctx, synced);
    let watch = children::owned::<ConfigMap, _>(watch, ctx_client, Some(&namespace));
    let mut objects = run_reporting(watch, ctx);
    reconciled(&mut objects, "owner").await;
    // Whatever the first watch events brought in has been reconciled by now.
    tokio::time::sleep(Duration::from_secs(1)).await;
    while objects.try_recv().is_ok() {}

    let change = json!({"data": {"generation": "2"}});
    api.patch("child", &PatchParams::default(), &Patch::Merge(&change))
        .await
        .expect("the child changed");
    reconciled(&mut objects, "owner").await;
}
