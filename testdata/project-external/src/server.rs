// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The HTTP endpoints of the manager: Prometheus metrics (over HTTPS and for authorized
//! callers only, unless `--metrics-secure=false`), and the health probes the kubelet
//! calls.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use anyhow::Context as _;
use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use tokio_rustls::rustls::ServerConfig;
use tracing::info;

use crate::metrics::Metrics;
use crate::metrics_auth::{self, MetricsAuth};
use crate::shutdown::Shutdown;
use crate::tls;

/// How `/metrics` is served.
#[derive(Debug)]
pub enum MetricsSecurity {
    /// Plain HTTP, to anyone who reaches the port (`--metrics-secure=false`).
    Insecure,
    /// HTTPS, to callers whose bearer token the API server authenticates and allows to
    /// `get /metrics`.
    Secure {
        tls: Box<ServerConfig>,
        auth: MetricsAuth,
    },
}

/// Readiness of this replica: the manager's own, flipped once it can serve, and that of
/// every part registered with [`Health::part`] (the webhook server, for one). `/readyz`
/// succeeds only when all of them are ready.
#[derive(Clone, Debug, Default)]
pub struct Health {
    ready: Readiness,
    parts: Arc<Mutex<Vec<(&'static str, Readiness)>>>,
}

/// The readiness of one part of the manager, set by that part.
#[derive(Clone, Debug, Default)]
pub struct Readiness(Arc<AtomicBool>);

impl Readiness {
    pub fn set(&self, ready: bool) {
        self.0.store(ready, Ordering::Release);
    }

    pub fn get(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

impl Health {
    pub fn set_ready(&self) {
        self.ready.set(true);
    }

    /// Registers a part of the manager that `/readyz` waits for; it starts not ready.
    pub fn part(&self, name: &'static str) -> Readiness {
        let readiness = Readiness::default();
        self.parts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((name, readiness.clone()));
        readiness
    }

    /// The names of what is not ready yet: `manager`, then the parts.
    pub fn not_ready(&self) -> Vec<&'static str> {
        let parts = self.parts.lock().unwrap_or_else(PoisonError::into_inner);
        let manager = [("manager", &self.ready)];
        manager
            .into_iter()
            .chain(parts.iter().map(|(name, readiness)| (*name, readiness)))
            .filter(|(_, readiness)| !readiness.get())
            .map(|(name, _)| name)
            .collect()
    }

    pub fn is_ready(&self) -> bool {
        self.not_ready().is_empty()
    }
}

/// `/metrics` in the Prometheus text format.
pub fn metrics_router(metrics: Arc<Metrics>) -> Router {
    Router::new()
        .route("/metrics", get(metrics_handler))
        .with_state(metrics)
}

/// [`metrics_router`] for authorized callers only: 401 without a valid bearer token, 403
/// when its user may not `get /metrics`.
pub fn secure_metrics_router(metrics: Arc<Metrics>, auth: MetricsAuth) -> Router {
    metrics_router(metrics).layer(axum::middleware::from_fn_with_state(
        auth,
        metrics_auth::require,
    ))
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
    security: MetricsSecurity,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    match security {
        MetricsSecurity::Insecure => {
            serve("metrics", addr, metrics_router(metrics), shutdown).await
        }
        MetricsSecurity::Secure { tls, auth } => {
            let router = secure_metrics_router(metrics, auth);
            tls::serve("metrics", addr, *tls, router, shutdown).await
        }
    }
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
    let not_ready = health.not_ready();
    if not_ready.is_empty() {
        (StatusCode::OK, "ok".to_string())
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("not ready: {}", not_ready.join(", ")),
        )
    }
}
