// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The CronJob reconciler against a mocked API server (`rsbuilder_runtime::testing::mock`): each test lists
//! the requests one reconciliation must make, in order, and what Kubernetes answers.

use std::sync::Arc;
use std::time::Duration;

use http::{Method, StatusCode};
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as metav1;
use k8s_openapi::jiff::Timestamp;
use kube::runtime::controller::Action;
use kube::{Resource, ResourceExt};
use serde_json::{Value, json};

use rsbuilder_runtime::controller::children;
use rsbuilder_runtime::metrics::Metrics;
use rsbuilder_runtime::testing::mock::{
    self, APPLY_PATCH, ApiServer, events_path, failure, finish,
};

use project_v1::api::batch::cron_job::CronJob;
use project_v1::controllers::Context;
use project_v1::controllers::cron_job::{self as controller, Error};

/// The namespace of the test objects: not `default`, which can never be deleted.
const NAMESPACE: &str = "team-a";

/// When the conditions of a test object last changed.
const EARLIER: &str = "2020-01-01T00:00:00Z";

#[tokio::test]
async fn a_new_object_gets_the_finalizer_first() {
    let (ctx, mut server) = context();
    let object = cron_job("fresh");
    let path = path_of(&object);
    let answer = live("fresh");
    let server = tokio::spawn(async move {
        let patch = server.expect(Method::PATCH, &path).await;
        assert_eq!(patch.content_type, mock::JSON_PATCH);
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
    let object = live("ready");
    let path = format!("{}/status", path_of(&object));
    let events = events_of(&object);
    let answer = object.clone();
    let server = tokio::spawn(async move {
        let patch = server.expect(Method::PATCH, &path).await;
        // A server-side apply of the fields the controller owns.
        assert_eq!(patch.content_type, APPLY_PATCH);
        assert_eq!(patch.param("fieldManager"), Some(controller::FIELD_MANAGER));
        assert_eq!(patch.param("force"), Some("true"));
        let api_version = CronJob::api_version(&());
        assert_eq!(patch.body["apiVersion"], api_version.as_ref());
        assert_eq!(patch.body["kind"], "CronJob");
        assert_eq!(patch.body["status"]["observedGeneration"], 1);
        assert_eq!(
            statuses(&patch.body),
            [
                ("Ready", "True"),
                ("Progressing", "False"),
                ("Degraded", "False")
            ]
        );
        patch.respond(StatusCode::OK, json!(answer));
        let event = server.expect(Method::POST, &events).await;
        assert_eq!(event.body["type"], "Normal");
        assert_eq!(event.body["reason"], "Reconciled");
        assert_eq!(event.body["regarding"]["name"], "ready");
        event.echo();
        server.expect_no_more().await;
    });
    let result = controller::reconcile(Arc::new(object), ctx).await;
    finish(server).await;
    assert_eq!(result.expect("reconcile succeeds"), Action::await_change());
}

#[tokio::test]
async fn an_up_to_date_object_needs_no_request() {
    // First pass: the reconciler writes the status.
    let (ctx, mut server) = context();
    let object = live("steady");
    let path = format!("{}/status", path_of(&object));
    let events = events_of(&object);
    let answer = object.clone();
    let server = tokio::spawn(async move {
        let patch = server.expect(Method::PATCH, &path).await;
        let status = patch.body["status"].clone();
        patch.respond(StatusCode::OK, json!(answer));
        server.expect(Method::POST, &events).await.echo();
        status
    });
    let result = controller::reconcile(Arc::new(object.clone()), ctx).await;
    let status = finish(server).await;
    result.expect("reconcile succeeds");

    // Second pass: the same CronJob, now carrying that status, needs no request at all:
    // no status write, no event.
    let (ctx, server) = context();
    let mut object = object;
    object.status = serde_json::from_value(status).expect("a valid status");
    let server = tokio::spawn(server.expect_no_more());
    let result = controller::reconcile(Arc::new(object), ctx).await;
    finish(server).await;
    assert_eq!(result.expect("reconcile succeeds"), Action::await_change());
}

#[tokio::test]
async fn conditions_of_other_writers_are_left_to_them() {
    // Another controller added its own condition, which the API server keeps beside this
    // controller's ones (`conditions` is a list-map keyed by type): this controller's
    // conditions are up to date, so nothing is written.
    let (ctx, server) = context();
    let mut object = live("shared");
    object.status = with_conditions(&[
        ("Ready", "True", "Reconciled"),
        ("Backup", "False", "NotConfigured"),
        ("Progressing", "False", "Reconciled"),
        ("Degraded", "False", "Reconciled"),
    ]);
    let server = tokio::spawn(server.expect_no_more());
    let result = controller::reconcile(Arc::new(object), ctx).await;
    finish(server).await;
    assert_eq!(result.expect("reconcile succeeds"), Action::await_change());
}

#[tokio::test]
async fn a_condition_transition_changes_only_that_conditions_last_transition_time() {
    // The last reconciliation failed; this one succeeds. Ready and Degraded change,
    // Progressing stays False, and keeps the time it became False, as Kubernetes' API
    // conventions ask of `lastTransitionTime`.
    let (ctx, mut server) = context();
    let mut object = live("recovering");
    object.status = with_conditions(&[
        ("Ready", "False", "ReconcileFailed"),
        ("Progressing", "False", "ReconcileFailed"),
        ("Degraded", "True", "ReconcileFailed"),
    ]);
    let path = format!("{}/status", path_of(&object));
    let events = events_of(&object);
    let answer = object.clone();
    let server = tokio::spawn(async move {
        let patch = server.expect(Method::PATCH, &path).await;
        assert_eq!(
            statuses(&patch.body),
            [
                ("Ready", "True"),
                ("Progressing", "False"),
                ("Degraded", "False")
            ]
        );
        let since = |type_: &str| transition_time(&patch.body, type_);
        assert_eq!(since("Progressing"), EARLIER);
        assert_ne!(since("Ready"), EARLIER);
        assert_ne!(since("Degraded"), EARLIER);
        patch.respond(StatusCode::OK, json!(answer));
        server.expect(Method::POST, &events).await.echo();
        server.expect_no_more().await;
    });
    let result = controller::reconcile(Arc::new(object), ctx).await;
    finish(server).await;
    result.expect("reconcile succeeds");
}

#[tokio::test]
async fn a_reconcile_error_sets_ready_false_and_sends_a_warning_event() {
    // `converge` does nothing yet, so it cannot fail: hand `report` the error it would
    // return when a child belongs to someone else.
    let (ctx, mut server) = context();
    let mut object = live("blocked");
    object.status = with_conditions(&[
        ("Ready", "True", "Reconciled"),
        ("Progressing", "False", "Reconciled"),
        ("Degraded", "False", "Reconciled"),
    ]);
    let path = format!("{}/status", path_of(&object));
    let events = events_of(&object);
    let answer = object.clone();
    let server = tokio::spawn(async move {
        let patch = server.expect(Method::PATCH, &path).await;
        assert_eq!(
            statuses(&patch.body),
            [
                ("Ready", "False"),
                ("Progressing", "False"),
                ("Degraded", "True")
            ]
        );
        let ready = &patch.body["status"]["conditions"][0];
        assert_eq!(ready["reason"], "ReconcileFailed");
        let message = ready["message"].as_str().unwrap_or_default();
        assert!(message.contains("another object"), "{message}");
        patch.respond(StatusCode::OK, json!(answer));
        let event = server.expect(Method::POST, &events).await;
        assert_eq!(event.body["type"], "Warning");
        assert_eq!(event.body["reason"], "ReconcileFailed");
        let note = event.body["note"].as_str().unwrap_or_default();
        assert!(note.contains("another object"), "{note}");
        event.echo();
        server.expect_no_more().await;
    });
    let error = Error::Child(children::Error::Foreign {
        kind: "ConfigMap".into(),
        name: "blocked".into(),
    });
    let result = controller::RECONCILER
        .report(&object, ctx.as_ref(), &Err(error))
        .await;
    drop(ctx);
    finish(server).await;
    result.expect("the failure is reported");
}

#[tokio::test]
async fn a_long_error_fits_in_its_event() {
    // The Events API refuses a note longer than 1 kB; error messages can be longer (the
    // mocked API server refuses such an Event like the real one).
    let (ctx, mut server) = context();
    let object = live("verbose");
    let path = format!("{}/status", path_of(&object));
    let events = events_of(&object);
    let answer = object.clone();
    let server = tokio::spawn(async move {
        let patch = server.expect(Method::PATCH, &path).await;
        patch.respond(StatusCode::OK, json!(answer));
        let event = server.expect(Method::POST, &events).await;
        assert_eq!(event.body["type"], "Warning");
        event.echo();
        server.expect_no_more().await;
    });
    let status = kube::core::Status::failure(&"denied by policy. ".repeat(100), "Forbidden");
    let error = Error::Kube(kube::Error::Api(Box::new(status.with_code(403))));
    let result = controller::RECONCILER
        .report(&object, ctx.as_ref(), &Err(error))
        .await;
    drop(ctx);
    finish(server).await;
    result.expect("the failure is reported");
}

#[tokio::test]
async fn a_refused_event_does_not_fail_the_reconciliation() {
    // Events are best effort: the work is done and the status written, so a refused event
    // (here: the manager may not create events) changes nothing.
    let (ctx, mut server) = context();
    let object = live("unheard");
    let path = format!("{}/status", path_of(&object));
    let events = events_of(&object);
    let answer = object.clone();
    let server = tokio::spawn(async move {
        server
            .expect(Method::PATCH, &path)
            .await
            .respond(StatusCode::OK, json!(answer));
        let event = server.expect(Method::POST, &events).await;
        event.respond(StatusCode::FORBIDDEN, mock::events_forbidden());
        server.expect_no_more().await;
    });
    let result = controller::reconcile(Arc::new(object), ctx).await;
    finish(server).await;
    assert_eq!(result.expect("reconcile succeeds"), Action::await_change());
}

#[tokio::test]
async fn deletion_runs_cleanup_before_the_finalizer_is_removed() {
    let (ctx, mut server) = context();
    let object = deleted("doomed");
    let path = path_of(&object);
    let status = format!("{path}/status");
    let events = events_of(&object);
    let answer = cron_job("doomed");
    let server = tokio::spawn(async move {
        // The status says why the CronJob is still there.
        let patch = server.expect(Method::PATCH, &status).await;
        assert_eq!(
            statuses(&patch.body),
            [
                ("Ready", "False"),
                ("Progressing", "True"),
                ("Degraded", "False")
            ]
        );
        let progressing = &patch.body["status"]["conditions"][1];
        assert_eq!(progressing["reason"], "Finalizing");
        patch.respond(StatusCode::OK, json!(answer));
        let event = server.expect(Method::POST, &events).await;
        assert_eq!(event.body["reason"], "Finalizing");
        event.echo();
        let event = server.expect(Method::POST, &events).await;
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
async fn an_event_refused_during_cleanup_still_removes_the_finalizer() {
    // The namespace of the CronJob is being deleted: NamespaceLifecycle refuses every
    // create there, events included, but updates go through. The finalizer must still go,
    // or the namespace stays Terminating forever.
    let (ctx, mut server) = context();
    let object = deleted("stranded");
    let path = path_of(&object);
    let status = format!("{path}/status");
    let events = events_of(&object);
    let answer = cron_job("stranded");
    let server = tokio::spawn(async move {
        let patch = server.expect(Method::PATCH, &status).await;
        patch.respond(StatusCode::OK, json!(answer));
        for _ in ["Finalizing", "CleanedUp"] {
            let event = server.expect(Method::POST, &events).await;
            let refusal = mock::namespace_terminating("events.events.k8s.io", NAMESPACE);
            event.respond(StatusCode::FORBIDDEN, refusal);
        }
        let patch = server.expect(Method::PATCH, &path).await;
        assert_eq!(patch.body[1]["op"], "remove");
        patch.respond(StatusCode::OK, json!(answer));
        server.expect_no_more().await;
    });
    let result = controller::reconcile(Arc::new(object), ctx).await;
    finish(server).await;
    assert_eq!(result.expect("reconcile succeeds"), Action::await_change());
}

/// A status that cannot be written does not hold a deleted CronJob: it only tells users
/// why the CronJob is still there, and the cleanup goes on without it.
#[tokio::test]
async fn a_status_write_that_fails_during_cleanup_still_removes_the_finalizer() {
    let (ctx, mut server) = context();
    let object = deleted("stuck");
    let path = path_of(&object);
    let status = format!("{path}/status");
    let events = events_of(&object);
    let answer = cron_job("stuck");
    let server = tokio::spawn(async move {
        let patch = server.expect(Method::PATCH, &status).await;
        let code = StatusCode::INTERNAL_SERVER_ERROR;
        let message = "etcdserver: request timed out";
        patch.respond(code, failure(code, "InternalError", message));
        let event = server.expect(Method::POST, &events).await;
        assert_eq!(event.body["reason"], "CleanedUp");
        event.echo();
        let patch = server.expect(Method::PATCH, &path).await;
        assert_eq!(patch.body[1]["op"], "remove");
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
    let object = Arc::new(live("unlucky"));
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

/// The retry counts belong to the manager's context, not to the process: another manager
/// (a test's, a restarted one) starts afresh.
#[tokio::test]
async fn retry_counts_live_in_the_context() {
    let (ctx, _server) = context();
    let object = Arc::new(cron_job("counted"));
    let error = Error::Kube(kube::Error::LinesCodecMaxLineLengthExceeded);
    controller::error_policy(object.clone(), &error, ctx.clone());
    let second = controller::error_policy(object.clone(), &error, ctx);
    assert_eq!(second, Action::requeue(Duration::from_secs(10)));
    let (fresh, _server) = context();
    let first = controller::error_policy(object, &error, fresh);
    assert_eq!(first, Action::requeue(Duration::from_secs(5)));
}

/// A CronJob as the controller's cache hands over a new one: generation 1, no finalizer,
/// no status.
fn cron_job(name: &str) -> CronJob {
    let mut object = CronJob::new(name, Default::default());
    let meta = object.meta_mut();
    meta.namespace = Some(NAMESPACE.into());
    meta.uid = Some(format!("{name}-uid"));
    meta.generation = Some(1);
    object
}

/// A CronJob the controller has seen before: it carries the finalizer.
fn live(name: &str) -> CronJob {
    let mut object = cron_job(name);
    object.finalizers_mut().push(controller::FINALIZER.into());
    object
}

/// A CronJob being deleted, held by the finalizer.
fn deleted(name: &str) -> CronJob {
    let mut object = live(name);
    object.meta_mut().deletion_timestamp = Some(metav1::Time(Timestamp::now()));
    object
}

/// A status with `conditions` (type, status, reason), all of them set at [`EARLIER`], for
/// generation 1.
fn with_conditions<S: serde::de::DeserializeOwned>(conditions: &[(&str, &str, &str)]) -> S {
    let conditions: Vec<Value> = conditions
        .iter()
        .map(|(type_, status, reason)| {
            json!({
                "type": type_,
                "status": status,
                "reason": reason,
                "message": if *reason == "Reconciled" { "up to date" } else { "it failed" },
                "observedGeneration": 1,
                "lastTransitionTime": EARLIER,
            })
        })
        .collect();
    let status = json!({ "conditions": conditions, "observedGeneration": 1 });
    serde_json::from_value(status).expect("a valid status")
}

/// The API path of `object`.
fn path_of(object: &CronJob) -> String {
    let namespace = object.namespace();
    format!(
        "{}/{}",
        CronJob::url_path(&(), namespace.as_deref()),
        object.name_any()
    )
}

/// Where the events about `object` go.
fn events_of(object: &CronJob) -> String {
    events_path(object.namespace().as_deref())
}

/// The `(type, status)` of each condition of a status patch.
fn statuses(patch: &Value) -> Vec<(&str, &str)> {
    conditions(patch)
        .iter()
        .map(|c| {
            let field = |name: &str| c[name].as_str().unwrap_or_default();
            (field("type"), field("status"))
        })
        .collect()
}

/// The `lastTransitionTime` of the condition `type_` in a status patch.
fn transition_time<'p>(patch: &'p Value, type_: &str) -> &'p str {
    conditions(patch)
        .iter()
        .find(|c| c["type"] == type_)
        .and_then(|c| c["lastTransitionTime"].as_str())
        .unwrap_or_default()
}

fn conditions(patch: &Value) -> &[Value] {
    patch["status"]["conditions"]
        .as_array()
        .map_or(&[], Vec::as_slice)
}

/// A context whose client talks to the returned mocked API server.
fn context() -> (Arc<Context>, ApiServer) {
    let (client, server) = mock::client();
    let ctx = Context::new(client, Arc::new(Metrics::default()), None);
    (Arc::new(ctx), server)
}
