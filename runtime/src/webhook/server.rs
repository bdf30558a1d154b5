//! The HTTPS server of the webhooks. It serves the certificate in `--webhook-cert-dir`
//! (`tls.crt` and `tls.key`, where cert-manager's Secret is mounted or [`super::certs`]
//! writes) and picks up a renewed one without a restart: [`crate::tls`] reads the files
//! again every few seconds and swaps the certificate when they changed.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use tokio::net::TcpListener;
use tracing::warn;

use crate::server::Readiness;
use crate::shutdown::Shutdown;
use crate::tls::{self, Certificate};

/// Where the webhook server listens and where it finds its certificate.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where the server listens.
    pub addr: SocketAddr,
    /// The directory of `tls.crt` and `tls.key`.
    pub cert_dir: PathBuf,
    /// How often the certificate files are read again, to pick up a renewal.
    pub reload_interval: Duration,
}

impl Config {
    /// Listens on `addr`, serves the certificate in `cert_dir`, and reads it again every
    /// [`tls::RELOAD_INTERVAL`].
    pub fn new(addr: SocketAddr, cert_dir: PathBuf) -> Self {
        Self {
            addr,
            cert_dir,
            reload_interval: tls::RELOAD_INTERVAL,
        }
    }
}

/// Serves `router` over HTTPS until `shutdown` resolves. `ready` is set while a
/// certificate is loaded, so `/readyz` fails until cert-manager's secret is mounted.
pub async fn serve(
    config: Config,
    router: Router,
    ready: Readiness,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    let listener = crate::server::bind("webhook", config.addr).await?;
    serve_on(listener, config, router, ready, shutdown).await
}

/// [`serve`] on a listener that is already bound (tests bind port 0).
pub async fn serve_on(
    listener: TcpListener,
    config: Config,
    router: Router,
    ready: Readiness,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    let certificate = Arc::new(Certificate::new("webhook", config.cert_dir));
    // The secret may not be mounted yet: serve anyway, and be ready once it is.
    if let Err(error) = certificate.reload() {
        warn!(
            error = format!("{error:#}"),
            "cannot load the webhook certificate; retrying"
        );
    }
    ready.set(certificate.is_loaded());
    let served = tls::serve_reloading(
        listener,
        certificate,
        config.reload_interval,
        |loaded| ready.set(loaded),
        router,
        shutdown,
    )
    .await;
    ready.set(false);
    served
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use axum::http::StatusCode;
    use axum::routing::get;

    use super::*;
    use crate::shutdown::Trigger;
    use crate::tls::testing::{
        CERT_A, KEY_A, assert_picks_up_a_renewal, serves_within_2s, status, temp_dir, write_pair,
    };

    type Server = tokio::task::JoinHandle<anyhow::Result<()>>;

    /// A webhook server of the certificate in `dir`, read again every 50 ms.
    async fn start(dir: &Path) -> anyhow::Result<(SocketAddr, Readiness, Trigger, Server)> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let config = Config {
            addr,
            cert_dir: dir.to_path_buf(),
            reload_interval: Duration::from_millis(50),
        };
        let router = Router::new().route("/", get(|| async { "ok" }));
        let ready = Readiness::default();
        let (trigger, shutdown) = Shutdown::channel();
        let server = tokio::spawn(serve_on(listener, config, router, ready.clone(), shutdown));
        Ok((addr, ready, trigger, server))
    }

    #[tokio::test]
    async fn serves_https_and_picks_up_a_renewed_certificate() -> anyhow::Result<()> {
        let dir = temp_dir("webhook-certs");
        write_pair(&dir, CERT_A, KEY_A);
        let (addr, ready, trigger, server) = start(&dir).await?;

        assert_eq!(status(addr, CERT_A).await?, StatusCode::OK);
        assert!(ready.get());

        assert_picks_up_a_renewal(addr, &dir).await;

        trigger.fire();
        server.await??;
        assert!(!ready.get());
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }

    #[tokio::test]
    async fn is_not_ready_until_the_certificate_is_mounted() -> anyhow::Result<()> {
        let dir = temp_dir("webhook-no-certs");
        let (addr, ready, trigger, server) = start(&dir).await?;

        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!ready.get());
        write_pair(&dir, CERT_A, KEY_A);
        let served = serves_within_2s(addr, CERT_A).await;
        assert!(served, "the mounted certificate was not served");
        assert!(ready.get());

        trigger.fire();
        server.await??;
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }
}
