// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The HTTP endpoints of the manager: Prometheus metrics, and the health probes the
//! kubelet calls.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context as _;
use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use tracing::info;

use crate::metrics::Metrics;
use crate::shutdown::Shutdown;

/// Readiness of this replica, flipped once the manager can serve.
#[derive(Clone, Debug, Default)]
pub struct Health {
    ready: Arc<AtomicBool>,
}

impl Health {
    pub fn set_ready(&self) {
        self.ready.store(true, Ordering::Release);
    }

    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Acquire)
    }
}

/// `/metrics` in the Prometheus text format.
pub fn metrics_router(metrics: Arc<Metrics>) -> Router {
    Router::new()
        .route("/metrics", get(metrics_handler))
        .with_state(metrics)
}

/// `/healthz` (the process runs) and `/readyz` (it is ready for traffic).
pub fn probes_router(health: Health) -> Router {
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .with_state(health)
}

pub async fn serve_metrics(
    addr: SocketAddr,
    metrics: Arc<Metrics>,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    serve("metrics", addr, metrics_router(metrics), shutdown).await
}

pub async fn serve_probes(
    addr: SocketAddr,
    health: Health,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    serve("health probes", addr, probes_router(health), shutdown).await
}

async fn serve(
    what: &str,
    addr: SocketAddr,
    router: Router,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot bind the {what} server to {addr}"))?;
    info!(%addr, "serving {what}");
    axum::serve(listener, router)
        .with_graceful_shutdown(shutdown.wait())
        .await
        .with_context(|| format!("the {what} server failed"))
}

async fn metrics_handler(State(metrics): State<Arc<Metrics>>) -> impl IntoResponse {
    match metrics.encode() {
        Ok(text) => (
            StatusCode::OK,
            [(
                header::CONTENT_TYPE,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )],
            text,
        )
            .into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

async fn readyz(State(health): State<Health>) -> impl IntoResponse {
    if health.is_ready() {
        (StatusCode::OK, "ok")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not ready")
    }
}
