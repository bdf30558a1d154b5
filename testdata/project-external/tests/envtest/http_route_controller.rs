// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The HTTPRoute controller against a real API server. HTTPRoute is a kind this project uses
//! but does not own: its CRD (`config/external-crds`) is installed by the tests only, as
//! its owner installs it in a cluster. The controller runs as a user bound to the manager's
//! role and nothing else.

use std::sync::Arc;

use kube::api::{Api, PostParams};

use rsbuilder_runtime::metrics::Metrics;
use rsbuilder_runtime::server::Readiness;
use rsbuilder_runtime::shutdown::Shutdown;

use project_external::api::external::gateway_networking_k8s_io::v1beta1::http_route::HTTPRoute;
use project_external::controllers::{Context, http_route as controller};

use crate::control_plane::{control_plane, counter, eventually, manager_user};

const KIND: &str = "HTTPRoute";

/// How many reconciliations, or failures, `metrics` counted.
fn count(metrics: &Metrics, metric: &str) -> u64 {
    let text = metrics.encode().expect("metrics");
    counter(&text, metric, controller::NAME)
}

#[tokio::test]
async fn the_controller_reconciles_a_new_http_route() {
    let namespace = control_plane().namespace(KIND).await;
    let user = manager_user(&namespace);
    control_plane()
        .grant_manager_role(&user, &namespace, |_| {})
        .await;
    let client = control_plane().client(&user, &[]).await;
    let metrics = Arc::new(Metrics::default());
    let ctx = Context::new(client, metrics.clone(), Some(namespace.clone()));
    let (stop, shutdown) = Shutdown::channel();
    tokio::spawn(controller::run(ctx, Readiness::default(), shutdown));

    let api: Api<HTTPRoute> = Api::namespaced(control_plane().admin().await, &namespace);
    let name = "watched".to_string();
    let object = HTTPRoute::new(&name, Default::default());
    api.create(&PostParams::default(), &object)
        .await
        .expect("the API server accepts a HTTPRoute with a default spec");
    eventually("a reconciliation of the new object", || async {
        (count(&metrics, "controller_reconcile_total") > 0).then_some(())
    })
    .await;
    assert_eq!(count(&metrics, "controller_reconcile_errors_total"), 0);
    stop.fire();
}
