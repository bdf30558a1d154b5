// SPDX-License-Identifier: Apache-2.0

//! The Frigate reconciler against a mocked API server (see `support`): each test lists
//! the requests one reconciliation must make, in order, and what Kubernetes answers.

mod support;

use std::sync::Arc;
use std::time::Duration;

use http::{Method, StatusCode};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use kube::runtime::controller::Action;
use kube::{Resource, ResourceExt};
use serde_json::{Value, json};

use lint_seeded::api::ship::frigate::Frigate;
use lint_seeded::controllers::frigate as controller;

use support::{EVENTS, context, failure, finish};

#[tokio::test]
async fn a_new_object_gets_the_finalizer_first() {
    let (ctx, mut server) = context();
    let object = frigate("fresh");
    let path = path_of(&object);
    let answer = finalized(object.clone());
    let server = tokio::spawn(async move {
        let patch = server.expect(Method::PATCH, &path).await;
        assert_eq!(
            patch.body,
            json!([
                { "op": "test", "path": "/metadata/finalizers", "value": null },
                { "op": "add", "path": "/metadata/finalizers", "value": [controller::FINALIZER] },
            ])
        );
        patch.respond(StatusCode::OK, json!(answer));
        server.expect_no_more().await;
    });
    let result = controller::reconcile(Arc::new(object), ctx).await;
    finish(server).await;
    // The patch itself triggers the next reconciliation.
    assert_eq!(result.expect("reconcile succeeds"), Action::await_change());
}

#[tokio::test]
async fn readiness_is_reported_through_the_status_subresource() {
    let (ctx, mut server) = context();
    let object = finalized(frigate("ready"));
    let path = format!("{}/status", path_of(&object));
    let answer = object.clone();
    let server = tokio::spawn(async move {
        let patch = server.expect(Method::PATCH, &path).await;
        assert!(
            patch.query.contains("fieldManager=") && patch.query.contains("force=true"),
            "a server-side apply: {}",
            patch.query
        );
        let api_version = Frigate::api_version(&());
        assert_eq!(patch.body["apiVersion"], api_version.as_ref());
        assert_eq!(patch.body["kind"], "Frigate");
        assert_eq!(patch.body["status"]["observedGeneration"], 1);
        assert_eq!(
            conditions(&patch.body),
            [
                ("Ready", "True"),
                ("Progressing", "False"),
                ("Degraded", "False")
            ]
        );
        patch.respond(StatusCode::OK, json!(answer));
        let event = server.expect(Method::POST, EVENTS).await;
        assert_eq!(event.body["reason"], "Reconciled");
        assert_eq!(event.body["regarding"]["name"], "ready");
        event.echo();
        server.expect_no_more().await;
    });
    let result = controller::reconcile(Arc::new(object), ctx).await;
    finish(server).await;
    assert_eq!(
        result.expect("reconcile succeeds"),
        Action::requeue(controller::RESYNC)
    );
}

#[tokio::test]
async fn an_up_to_date_object_needs_no_request() {
    // First pass: the reconciler writes the status.
    let (ctx, mut server) = context();
    let object = finalized(frigate("steady"));
    let path = format!("{}/status", path_of(&object));
    let answer = object.clone();
    let server = tokio::spawn(async move {
        let patch = server.expect(Method::PATCH, &path).await;
        let status = patch.body["status"].clone();
        patch.respond(StatusCode::OK, json!(answer));
        server.expect(Method::POST, EVENTS).await.echo();
        status
    });
    let result = controller::reconcile(Arc::new(object.clone()), ctx).await;
    let status = finish(server).await;
    result.expect("reconcile succeeds");

    // Second pass: the same Frigate, now carrying that status, needs no request at all:
    // no status write, no event.
    let (ctx, server) = context();
    let mut object = object;
    object.status = serde_json::from_value(status).expect("a valid status");
    let server = tokio::spawn(server.expect_no_more());
    let result = controller::reconcile(Arc::new(object), ctx).await;
    finish(server).await;
    assert_eq!(
        result.expect("reconcile succeeds"),
        Action::requeue(controller::RESYNC)
    );
}

#[tokio::test]
async fn deletion_runs_cleanup_before_the_finalizer_is_removed() {
    let (ctx, mut server) = context();
    let mut object = finalized(frigate("doomed"));
    object.meta_mut().deletion_timestamp = Some(Time(Timestamp::now()));
    let path = path_of(&object);
    let answer = frigate("doomed");
    let server = tokio::spawn(async move {
        let event = server.expect(Method::POST, EVENTS).await;
        assert_eq!(event.body["reason"], "CleanedUp");
        event.echo();
        let patch = server.expect(Method::PATCH, &path).await;
        assert_eq!(
            patch.body,
            json!([
                { "op": "test", "path": "/metadata/finalizers/0", "value": controller::FINALIZER },
                { "op": "remove", "path": "/metadata/finalizers/0" },
            ])
        );
        patch.respond(StatusCode::OK, json!(answer));
        server.expect_no_more().await;
    });
    let result = controller::reconcile(Arc::new(object), ctx).await;
    finish(server).await;
    assert_eq!(result.expect("reconcile succeeds"), Action::await_change());
}

#[tokio::test]
async fn an_api_error_is_retried_with_growing_backoff() {
    let (ctx, mut server) = context();
    let object = Arc::new(finalized(frigate("unlucky")));
    let path = format!("{}/status", path_of(&object));
    let server = tokio::spawn(async move {
        let patch = server.expect(Method::PATCH, &path).await;
        let code = StatusCode::INTERNAL_SERVER_ERROR;
        let message = "etcdserver: request timed out";
        patch.respond(code, failure(code, "InternalError", message));
    });
    let result = controller::reconcile(object.clone(), ctx.clone()).await;
    finish(server).await;
    let error = result.expect_err("a failed status write fails the reconciliation");
    assert!(error.to_string().contains("request timed out"), "{error}");
    let first = controller::error_policy(object.clone(), &error, ctx.clone());
    let second = controller::error_policy(object, &error, ctx.clone());
    assert_eq!(first, Action::requeue(Duration::from_secs(5)));
    assert_eq!(second, Action::requeue(Duration::from_secs(10)));
    let metrics = ctx.metrics.encode().expect("the metrics encode");
    let label = ["{controller=\"", controller::NAME, "\"}"].concat();
    let failures = format!("controller_reconcile_errors_total{label} 2");
    assert!(metrics.contains(&failures), "{metrics}");
}

/// A Frigate as the controller's cache hands it over: generation 1, no finalizer, no status.
fn frigate(name: &str) -> Frigate {
    let mut object = Frigate::new(name, Default::default());
    let meta = object.meta_mut();
    meta.namespace = Some("default".into());
    meta.uid = Some(format!("{name}-uid"));
    meta.generation = Some(1);
    object
}

fn finalized(mut object: Frigate) -> Frigate {
    object.finalizers_mut().push(controller::FINALIZER.into());
    object
}

/// The API path of `object`.
fn path_of(object: &Frigate) -> String {
    let namespace = object.namespace();
    format!(
        "{}/{}",
        Frigate::url_path(&(), namespace.as_deref()),
        object.name_any()
    )
}

/// The `(type, status)` of each condition of a status patch.
fn conditions(patch: &Value) -> Vec<(&str, &str)> {
    patch["status"]["conditions"]
        .as_array()
        .map(|conditions| {
            conditions
                .iter()
                .map(|c| {
                    let field = |name: &str| c[name].as_str().unwrap_or_default();
                    (field("type"), field("status"))
                })
                .collect()
        })
        .unwrap_or_default()
}
