//! The manager's HTTP endpoints, called in-process.

use std::sync::Arc;

use axum::body::{Body, to_bytes};
use http::{Request, StatusCode};
use tower::ServiceExt;

use rsbuilder_runtime::metrics::Metrics;
use rsbuilder_runtime::server::{Health, metrics_router, probes_router};

async fn get(router: axum::Router, path: &str) -> (StatusCode, String) {
    let request = Request::get(path)
        .body(Body::empty())
        .expect("a valid request");
    let response = router
        .oneshot(request)
        .await
        .expect("the router is infallible");
    let status = response.status();
    let body = to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("a readable body");
    (status, String::from_utf8_lossy(&body).into_owned())
}

#[tokio::test]
async fn healthz_answers_while_the_process_runs() {
    let (status, body) = get(probes_router(Health::default()), "/healthz").await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "ok"));
}

#[tokio::test]
async fn readyz_fails_until_the_manager_is_ready() {
    let health = Health::default();
    let (status, _) = get(probes_router(health.clone()), "/readyz").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    health.set_ready();
    let (status, _) = get(probes_router(health), "/readyz").await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn readyz_waits_for_every_registered_part() {
    let health = Health::default();
    health.set_ready();
    let webhooks = health.part("webhook-server");
    let (status, body) = get(probes_router(health.clone()), "/readyz").await;
    assert_eq!(
        (status, body.as_str()),
        (StatusCode::SERVICE_UNAVAILABLE, "not ready: webhook-server")
    );
    webhooks.set(true);
    let (status, _) = get(probes_router(health), "/readyz").await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn metrics_count_and_time_reconciliations_per_controller() {
    let metrics = Arc::new(Metrics::default());
    drop(metrics.reconcile_started("widget"));
    drop(metrics.reconcile_started("widget"));
    metrics.reconcile_failed("widget");
    let (status, body) = get(metrics_router(metrics), "/metrics").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        body.contains(r#"controller_reconcile_total{controller="widget"} 2"#),
        "{body}"
    );
    assert!(
        body.contains(r#"controller_reconcile_errors_total{controller="widget"} 1"#),
        "{body}"
    );
    assert!(
        body.contains(r#"controller_reconcile_duration_seconds_count{controller="widget"} 2"#),
        "{body}"
    );
}
