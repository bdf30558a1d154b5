// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The Deployment reconciler against a mocked API server (`rsbuilder_runtime::testing::mock`) that fails the
//! test on any request it does not expect.

use std::sync::Arc;
use std::time::Duration;

use http::Method;
use k8s_openapi::api::apps::v1::Deployment;
use kube::Resource;
use kube::core::{ObjectMeta, PartialObjectMetaExt, Status};
use kube::runtime::controller::Action;

use rsbuilder_runtime::metrics::Metrics;
use rsbuilder_runtime::server::Readiness;
use rsbuilder_runtime::shutdown::Shutdown;
use rsbuilder_runtime::testing::mock::{self, ApiServer, finish};

use project_v1::controllers::Context;
use project_v1::controllers::deployment::{self as controller, Error};

#[tokio::test]
async fn an_object_from_the_cache_needs_no_request() {
    let (ctx, server) = context();
    let server = tokio::spawn(server.expect_no_more());
    let object = Arc::new(deployment("web"));
    let result = controller::reconcile(object, ctx).await;
    finish(server).await;
    assert_eq!(result.expect("reconcile succeeds"), Action::await_change());
}

#[tokio::test]
async fn failures_are_retried_with_growing_backoff() {
    let (ctx, _server) = context();
    let object = Arc::new(deployment("flaky"));
    let status = Status::failure("etcdserver: request timed out", "InternalError").with_code(500);
    let error = Error::Kube(kube::Error::Api(Box::new(status)));
    let first = controller::error_policy(object.clone(), &error, ctx.clone());
    let second = controller::error_policy(object, &error, ctx.clone());
    assert_eq!(first, Action::requeue(Duration::from_secs(5)));
    assert_eq!(second, Action::requeue(Duration::from_secs(10)));
    let metrics = ctx.metrics.encode().expect("the metrics encode");
    let label = ["{controller=\"", controller::NAME, "\"}"].concat();
    let failures = format!("controller_reconcile_errors_total{label} 2");
    assert!(metrics.contains(&failures), "{metrics}");
}

/// The watch asks the API server for metadata only
/// (https://kubernetes.io/docs/reference/using-api/api-concepts/#alternate-representations-of-resources):
/// the scaffolded reconciler reads no more, and the cache of a busy cluster stays small.
#[tokio::test]
async fn the_watch_lists_metadata_only() {
    let (ctx, mut server) = context();
    let (_stop, shutdown) = Shutdown::channel();
    let run = controller::run((*ctx).clone(), Readiness::default(), shutdown);
    let controller = tokio::spawn(run);
    let path = Deployment::url_path(&(), None);
    let list = server.expect(Method::GET, &path).await;
    controller.abort();
    let accept = &list.accept;
    assert!(accept.contains("as=PartialObjectMetadataList"), "{accept}");
}

/// A Deployment as the controller's cache hands it over: its metadata.
fn deployment(name: &str) -> controller::Watched {
    let metadata = ObjectMeta {
        name: Some(name.into()),
        namespace: Some("default".into()),
        uid: Some(format!("{name}-uid")),
        generation: Some(1),
        ..ObjectMeta::default()
    };
    metadata.into_request_partial::<Deployment>()
}

/// A context whose client talks to the returned mocked API server.
fn context() -> (Arc<Context>, ApiServer) {
    let (client, server) = mock::client();
    let ctx = Context::new(client, Arc::new(Metrics::default()), None);
    (Arc::new(ctx), server)
}
