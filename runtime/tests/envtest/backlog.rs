//! The order in which objects waiting for a worker are reconciled: the order in which they
//! woke, as client-go's work queue hands them out ("a work queue ... with FIFO
//! semantics", https://pkg.go.dev/k8s.io/client-go/util/workqueue#Type), which
//! controller-runtime's controllers use. The [`Reconciler`] keeps waiting objects in its
//! backlog, in order, and hands kube's queue only [`Reconciler::QUEUED`] at a time, which
//! it takes in any order; kube's queue alone holds all the objects that wait for a worker
//! in a hash set, and takes them in its order.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::ResourceExt as _;
use kube::api::Api;
use kube::runtime::controller::Action;

use rsbuilder_runtime::controller::Reconciler;
use rsbuilder_runtime::server::Health;
use rsbuilder_runtime::shutdown::Shutdown;

use crate::context::{Ctx, create_config_maps};
use crate::control_plane;

static RECONCILER: Reconciler = Reconciler::new("backlog-test").concurrency(1);
const OBJECTS: usize = 4 * Reconciler::QUEUED;

#[tokio::test]
#[ignore = "needs kube-apiserver and etcd (KUBEBUILDER_ASSETS)"]
async fn objects_that_wait_for_a_worker_are_reconciled_about_in_the_order_they_woke() {
    let namespace = control_plane().namespace("backlog").await;
    let client = control_plane().admin().await;
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), &namespace);
    // Listed in this order (by name) when the controller starts: all wake at once, and one
    // worker takes them one at a time.
    let names: Vec<String> = (0..OBJECTS).map(|n| format!("object-{n:04}")).collect();
    create_config_maps(&api, names.iter().map(String::as_str)).await;

    let ctx = Ctx::new(client, "backlog-test");
    let controller = RECONCILER.controller(api, &ctx, Health::default().part("backlog-test"));
    let (sender, mut reconciled) = tokio::sync::mpsc::unbounded_channel();
    let (stop, shutdown) = Shutdown::channel();
    let running = tokio::spawn(RECONCILER.run(
        controller,
        move |object: Arc<ConfigMap>, _ctx| {
            let _ = sender.send(object.name_any());
            async { Ok::<_, kube::Error>(Action::await_change()) }
        },
        |_, _, _| Action::await_change(),
        ctx,
        shutdown,
    ));

    let mut order = Vec::new();
    while order.len() < OBJECTS {
        let name = tokio::time::timeout(Duration::from_secs(30), reconciled.recv())
            .await
            .unwrap_or_else(|_| panic!("only {order:?} reconciled within 30 s"))
            .expect("the controller runs");
        order.push(name);
    }
    for (ran, name) in order.iter().enumerate() {
        let woke = names
            .iter()
            .position(|woke| woke == name)
            .expect("a name listed");
        assert!(
            ran.abs_diff(woke) <= Reconciler::QUEUED,
            "{name} woke at {woke} and ran at {ran}: {order:?}"
        );
    }
    stop.fire();
    running.await.expect("the controller stops");
}
