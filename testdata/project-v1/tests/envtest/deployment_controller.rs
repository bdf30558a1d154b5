// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The Deployment controller against a real API server, running as a user bound to the
//! manager's role and nothing else. Deployment is a built-in kind whose objects need fields
//! only you know: the test here needs none.

use std::sync::Arc;

use rsbuilder_runtime::metrics::Metrics;
use rsbuilder_runtime::server::Readiness;
use rsbuilder_runtime::shutdown::Shutdown;

use project_v1::controllers::{Context, deployment as controller};

use crate::control_plane::{control_plane, eventually, manager_user};

/// The metadata-only watch (`controller::Watched`) is one the API server serves, to what
/// the role grants (list and watch,
/// https://kubernetes.io/docs/reference/access-authn-authz/rbac/#referring-to-resources):
/// the controller's cache syncs.
#[tokio::test]
async fn the_watch_of_the_manager_syncs() {
    let namespace = control_plane().namespace("deployment-sync").await;
    let user = manager_user(&namespace);
    control_plane()
        .grant_manager_role(&user, &namespace, |_| {})
        .await;
    let client = control_plane().client(&user, &[]).await;
    let ctx = Context::new(client, Arc::new(Metrics::default()), Some(namespace));
    let (stop, shutdown) = Shutdown::channel();
    let synced = Readiness::default();
    let controller = tokio::spawn(controller::run(ctx, synced.clone(), shutdown));
    eventually("the controller's cache syncs", || async {
        synced.get().then_some(())
    })
    .await;
    stop.fire();
    controller.await.expect("a controller that stops");
}
