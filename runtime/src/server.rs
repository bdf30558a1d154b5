//! The HTTP endpoints of the manager: Prometheus metrics (over HTTPS and for authorized
//! callers only, unless `--metrics-secure=false`), and the health probes the kubelet
//! calls.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use anyhow::Context as _;
use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use tokio::net::TcpListener;
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
        /// The server's certificate.
        certificate: tls::Serving,
        /// Who may read the metrics.
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
    /// Marks this part ready, or no longer ready.
    pub fn set(&self, ready: bool) {
        self.0.store(ready, Ordering::Release);
    }

    /// Whether this part is ready.
    pub fn get(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

impl Health {
    /// Marks the manager itself ready: it serves, whatever its parts say.
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

    /// Whether `/readyz` succeeds: the manager and every part are ready.
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

/// Serves `/metrics` on `listener` until `shutdown`; a certificate read from a directory
/// is read again every `reload_interval`.
pub async fn serve_metrics(
    listener: TcpListener,
    metrics: Arc<Metrics>,
    security: MetricsSecurity,
    reload_interval: Duration,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    match security {
        MetricsSecurity::Insecure => {
            serve("metrics", listener, metrics_router(metrics), shutdown).await
        }
        MetricsSecurity::Secure { certificate, auth } => {
            let router = secure_metrics_router(metrics, auth);
            tls::serve(listener, certificate, reload_interval, router, shutdown).await
        }
    }
}

/// Serves `/healthz` and `/readyz` on `listener` until `shutdown`.
pub async fn serve_probes(
    listener: TcpListener,
    health: Health,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    serve("health probes", listener, probes_router(health), shutdown).await
}

/// Binds the `what` server to `addr`. The manager binds its servers before it starts
/// anything else, so that a port in use stops it at once. The unspecified IPv6 address
/// (`[::]`, the default of every server) listens on IPv4 too, as Go's `:8081` does, so
/// that probes and the API server reach it in IPv4, IPv6 and dual-stack clusters alike;
/// on a host without IPv6 it is IPv4's (`0.0.0.0`).
pub async fn bind(what: &str, addr: SocketAddr) -> anyhow::Result<TcpListener> {
    let listener =
        listen(addr).with_context(|| format!("cannot bind the {what} server to {addr}"))?;
    info!(addr = %listener.local_addr()?, "serving {what}");
    Ok(listener)
}

fn listen(addr: SocketAddr) -> std::io::Result<TcpListener> {
    use socket2::{Domain, Protocol, Socket, Type};
    let dual_stack = addr.ip() == IpAddr::V6(Ipv6Addr::UNSPECIFIED);
    let domain = Domain::for_address(addr);
    let socket = match Socket::new(domain, Type::STREAM, Some(Protocol::TCP)) {
        Ok(socket) => socket,
        // The kernel has no IPv6 (`ipv6.disable=1`).
        Err(_) if dual_stack => {
            let ipv4 = SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), addr.port());
            return listen(ipv4);
        }
        Err(error) => return Err(error),
    };
    if dual_stack {
        socket.set_only_v6(false)?;
    }
    // As std's and tokio's listeners: a restarted manager binds while old connections
    // linger in TIME_WAIT.
    socket.set_reuse_address(true)?;
    socket.set_nonblocking(true)?;
    socket.bind(&addr.into())?;
    socket.listen(1024)?;
    TcpListener::from_std(socket.into())
}

/// Serves `router` over plain HTTP until `shutdown`.
async fn serve(
    what: &str,
    listener: TcpListener,
    router: Router,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
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

#[cfg(test)]
mod tests {
    use kube::Client;

    use super::*;
    use crate::tls::testing::{CERT_A, KEY_A, assert_picks_up_a_renewal, temp_dir, write_pair};

    /// The default address, `[::]`, serves IPv4 and IPv6 clients alike (where the host has
    /// no IPv6, it is `0.0.0.0`'s).
    #[tokio::test]
    async fn the_unspecified_ipv6_address_serves_ipv4_and_ipv6_clients() {
        let addr = "[::]:0".parse().expect("an address");
        let listener = bind("test", addr).await.expect("a listener");
        let port = listener.local_addr().expect("an address").port();
        let has_ipv6 = std::net::TcpListener::bind("[::1]:0").is_ok();
        let mut clients = vec!["127.0.0.1"];
        if has_ipv6 {
            clients.push("[::1]");
        }
        for client in clients {
            let addr: SocketAddr = format!("{client}:{port}").parse().expect("an address");
            let connected = tokio::net::TcpStream::connect(addr).await;
            assert!(connected.is_ok(), "{addr}: {connected:?}");
        }
    }

    /// Metrics authentication whose API server is never asked: this test looks at the
    /// TLS handshake only.
    fn unused_auth() -> MetricsAuth {
        let (api, _) = tower_test::mock::pair::<
            http::Request<kube::client::Body>,
            http::Response<kube::client::Body>,
        >();
        MetricsAuth::new(Client::new(api, "default"))
    }

    #[tokio::test]
    async fn the_metrics_server_picks_up_a_renewed_certificate() -> anyhow::Result<()> {
        let dir = temp_dir("metrics-certs");
        write_pair(&dir, CERT_A, KEY_A);
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let security = MetricsSecurity::Secure {
            certificate: tls::Serving::load("metrics", Some(dir.clone()))?,
            auth: unused_auth(),
        };
        let metrics = Arc::new(Metrics::default());
        let (trigger, shutdown) = Shutdown::channel();
        let reload = Duration::from_millis(50);
        let server = tokio::spawn(serve_metrics(listener, metrics, security, reload, shutdown));

        assert_picks_up_a_renewal(addr, &dir).await;

        trigger.fire();
        server.await??;
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }
}
