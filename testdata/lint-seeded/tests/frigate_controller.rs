// SPDX-License-Identifier: Apache-2.0

//! The Frigate reconciler against a mocked API server (`rsbuilder_runtime::testing::mock`): each test lists
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

use lint_seeded::api::ship::frigate::Frigate;
use lint_seeded::controllers::Context;
use lint_seeded::controllers::frigate::{self as controller, Error};

/// The namespace of the test objects: not `default`, which can never be deleted.
const NAMESPACE: &str = "team-a";

/// When the conditions of a test object last changed.
const EARLIER: &str = "2020-01-01T00:00:00Z";

#[tokio::test]
async fn a_new_object_gets_no_finalizer() {
    // Without `create api --finalizer`, the first request is the status: nothing holds a
    // Frigate back when it is deleted, even while the manager is down.
    let (ctx, mut server) = context();
    let object = frigate("fresh");
    let status = format!("{}/status", path_of(&object));
    let events = events_of(&object);
    let answer = object.clone();
    let server = tokio::spawn(async move {
        let patch = server.expect(Method::PATCH, &status).await;
        let finalizers = &patch.body["metadata"]["finalizers"];
        assert!(finalizers.is_null(), "{finalizers}");
        patch.respond(StatusCode::OK, json!(answer));
        server.expect(Method::POST, &events).await.echo();
        server.expect_no_more().await;
    });
    let result = controller::reconcile(Arc::new(object), ctx).await;
    finish(server).await;
    assert_eq!(result.expect("reconcile succeeds"), Action::await_change());
}

#[tokio::test]
async fn a_deleted_object_needs_no_request() {
    let (ctx, server) = context();
    let mut object = frigate("leaving");
    object.meta_mut().deletion_timestamp = Some(metav1::Time(Timestamp::now()));
    object
        .finalizers_mut()
        .push("example.com/someone-else".into());
    let server = tokio::spawn(server.expect_no_more());
    let result = controller::reconcile(Arc::new(object), ctx).await;
    finish(server).await;
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
        let api_version = Frigate::api_version(&());
        assert_eq!(patch.body["apiVersion"], api_version.as_ref());
        assert_eq!(patch.body["kind"], "Frigate");
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

    // Second pass: the same Frigate, now carrying that status, needs no request at all:
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
    let object = Arc::new(frigate("counted"));
    let error = Error::Kube(kube::Error::LinesCodecMaxLineLengthExceeded);
    controller::error_policy(object.clone(), &error, ctx.clone());
    let second = controller::error_policy(object.clone(), &error, ctx);
    assert_eq!(second, Action::requeue(Duration::from_secs(10)));
    let (fresh, _server) = context();
    let first = controller::error_policy(object, &error, fresh);
    assert_eq!(first, Action::requeue(Duration::from_secs(5)));
}

/// A Frigate as the controller's cache hands over a new one: generation 1, no finalizer,
/// no status.
fn frigate(name: &str) -> Frigate {
    let mut object = Frigate::new(name, Default::default());
    let meta = object.meta_mut();
    meta.namespace = Some(NAMESPACE.into());
    meta.uid = Some(format!("{name}-uid"));
    meta.generation = Some(1);
    object
}

/// A Frigate the controller has seen before (no different from a new one: there is no
/// finalizer to add).
fn live(name: &str) -> Frigate {
    frigate(name)
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
fn path_of(object: &Frigate) -> String {
    let namespace = object.namespace();
    format!(
        "{}/{}",
        Frigate::url_path(&(), namespace.as_deref()),
        object.name_any()
    )
}

/// Where the events about `object` go.
fn events_of(object: &Frigate) -> String {
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
