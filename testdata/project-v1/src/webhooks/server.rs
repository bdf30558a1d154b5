// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The HTTPS server of the webhooks. It serves the certificate that cert-manager mounts
//! (`tls.crt` and `tls.key` in `--webhook-cert-dir`) and picks up a renewed one without a
//! restart: every few seconds it reads the files again and swaps the certificate when
//! they changed.

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use anyhow::Context as _;
use axum::Router;
use tokio::net::TcpListener;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::crypto::{CryptoProvider, ring};
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::server::{ClientHello, ResolvesServerCert};
use tokio_rustls::rustls::sign::CertifiedKey;
use tracing::{info, warn};

use crate::server::Readiness;
use crate::shutdown::Shutdown;

/// The certificate chain cert-manager writes into the certificate directory.
pub const CERT_FILE: &str = "tls.crt";
/// Its private key.
pub const KEY_FILE: &str = "tls.key";

/// Where the webhook server listens and where it finds its certificate.
#[derive(Clone, Debug)]
pub struct Config {
    pub addr: SocketAddr,
    pub cert_dir: PathBuf,
    /// How often the certificate files are read again, to pick up a renewal.
    pub reload_interval: Duration,
}

impl Config {
    pub fn new(port: u16, cert_dir: PathBuf) -> Self {
        Self {
            addr: SocketAddr::from(([0, 0, 0, 0], port)),
            cert_dir,
            reload_interval: Duration::from_secs(10),
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
    let listener = TcpListener::bind(config.addr)
        .await
        .with_context(|| format!("cannot bind the webhook server to {}", config.addr))?;
    info!(addr = %config.addr, "serving webhooks");
    serve_on(listener, config, router, ready, shutdown).await
}

/// [`serve`] on a listener that is already bound (tests bind port 0). Connections are
/// handled by `crate::tls`, like the metrics server's; this adds the certificate reload.
pub async fn serve_on(
    listener: TcpListener,
    config: Config,
    router: Router,
    ready: Readiness,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    let certificate = Arc::new(Certificate::new(config.cert_dir.clone()));
    reload_certificate(&certificate, &ready);
    let tls = tls_config(certificate.clone())?;
    let reloading = tokio::spawn(keep_reloading(
        certificate,
        ready.clone(),
        config.reload_interval,
        shutdown.clone(),
    ));
    crate::tls::serve_on(listener, tls, router, shutdown).await;
    let _ = reloading.await;
    ready.set(false);
    Ok(())
}

/// Reads the certificate files again every `interval` until `shutdown` resolves.
async fn keep_reloading(
    certificate: Arc<Certificate>,
    ready: Readiness,
    interval: Duration,
    shutdown: Shutdown,
) {
    let mut ticks = tokio::time::interval(interval);
    let stop = shutdown.wait();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            () = &mut stop => break,
            _ = ticks.tick() => reload_certificate(&certificate, &ready),
        }
    }
}

fn reload_certificate(certificate: &Certificate, ready: &Readiness) {
    match certificate.reload() {
        Ok(true) => info!(dir = %certificate.dir.display(), "loaded the webhook certificate"),
        Ok(false) => {}
        Err(error) => warn!(
            error = format!("{error:#}"),
            "cannot load the webhook certificate; retrying"
        ),
    }
    ready.set(certificate.is_loaded());
}

fn tls_config(certificate: Arc<Certificate>) -> anyhow::Result<ServerConfig> {
    let mut config = ServerConfig::builder_with_provider(certificate.provider.clone())
        .with_safe_default_protocol_versions()
        .context("the TLS provider supports no safe protocol version")?
        .with_no_client_auth()
        .with_cert_resolver(certificate);
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// The serving certificate, read from `tls.crt` and `tls.key` and swapped in place when
/// they change. Handshakes fail while none is loaded.
pub struct Certificate {
    dir: PathBuf,
    provider: Arc<CryptoProvider>,
    current: RwLock<Option<Loaded>>,
}

struct Loaded {
    /// The files' contents, to tell whether they changed.
    files: (Vec<u8>, Vec<u8>),
    key: Arc<CertifiedKey>,
}

impl Certificate {
    pub fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            provider: Arc::new(ring::default_provider()),
            current: RwLock::new(None),
        }
    }

    /// Reads the files and loads them when they differ from the loaded ones; says whether
    /// it loaded a new certificate. On error the previous certificate stays in use.
    pub fn reload(&self) -> anyhow::Result<bool> {
        let read = |name: &str| {
            let path = self.dir.join(name);
            std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))
        };
        let files = (read(CERT_FILE)?, read(KEY_FILE)?);
        let unchanged = self
            .current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .is_some_and(|loaded| loaded.files == files);
        if unchanged {
            return Ok(false);
        }
        let chain = CertificateDer::pem_slice_iter(&files.0)
            .collect::<Result<Vec<_>, _>>()
            .with_context(|| format!("{CERT_FILE} is not a PEM certificate chain"))?;
        let key = PrivateKeyDer::from_pem_slice(&files.1)
            .with_context(|| format!("{KEY_FILE} is not a PEM private key"))?;
        let key = CertifiedKey::from_der(chain, key, &self.provider)
            .with_context(|| format!("{CERT_FILE} and {KEY_FILE} do not make a usable pair"))?;
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = Some(Loaded {
            files,
            key: Arc::new(key),
        });
        Ok(true)
    }

    pub fn is_loaded(&self) -> bool {
        self.current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }
}

impl fmt::Debug for Certificate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Certificate")
            .field("dir", &self.dir)
            .field("loaded", &self.is_loaded())
            .finish()
    }
}

impl ResolvesServerCert for Certificate {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        self.current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map(|loaded| loaded.key.clone())
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use axum::routing::get;
    use hyper_util::rt::TokioIo;
    use tokio::net::TcpStream;
    use tokio_rustls::TlsConnector;
    use tokio_rustls::rustls::pki_types::ServerName;
    use tokio_rustls::rustls::{ClientConfig, RootCertStore};

    use super::*;

    // Two self-signed certificates for `localhost`, valid from 2000 to 2999.
    const CERT_A: &str = "\
-----BEGIN CERTIFICATE-----
MIIBUDCB+KADAgECAhR3cQnMUtcUjvlSg8+ZoOaKvLQNQjAKBggqhkjOPQQDAjAU
MRIwEAYDVQQDDAlsb2NhbGhvc3QwIBcNMDAwMTAxMDAwMDAwWhgPMjk5OTEyMzEw
MDAwMDBaMBQxEjAQBgNVBAMMCWxvY2FsaG9zdDBZMBMGByqGSM49AgEGCCqGSM49
AwEHA0IABPtB0+dMqwmGaCn4CAUcbSNgA4KIEuuaLOSt0BujzwKGuB4y/PT4u4PU
ah1UAoJ2+NCo91IQME4uz+9TfjOpPB6jJjAkMBQGA1UdEQQNMAuCCWxvY2FsaG9z
dDAMBgNVHRMBAf8EAjAAMAoGCCqGSM49BAMCA0cAMEQCIHDBJjUNhetmoJ5bSW0v
0bdD4FnJlzx9zAqb3R+bmvlAAiBDRg/AhCRJEQF6G9ZwLkpc7mUzDDdCUEsWhqh7
0+R4yg==
-----END CERTIFICATE-----
";
    const KEY_A: &str = "\
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgIKw9q+IE6ATvE4nQ
Dw9ISlzmXjUK/nY0sxl91Lb21KGhRANCAAT7QdPnTKsJhmgp+AgFHG0jYAOCiBLr
mizkrdAbo88ChrgeMvz0+LuD1GodVAKCdvjQqPdSEDBOLs/vU34zqTwe
-----END PRIVATE KEY-----
";
    const CERT_B: &str = "\
-----BEGIN CERTIFICATE-----
MIIBUTCB+KADAgECAhQIGfyaNTLJXBIrbaj3eAuI2P4+vjAKBggqhkjOPQQDAjAU
MRIwEAYDVQQDDAlsb2NhbGhvc3QwIBcNMDAwMTAxMDAwMDAwWhgPMjk5OTEyMzEw
MDAwMDBaMBQxEjAQBgNVBAMMCWxvY2FsaG9zdDBZMBMGByqGSM49AgEGCCqGSM49
AwEHA0IABOKsGjVMZWNj2x9P3DFf4+kdSY3UTrHQ4qqpLDa1cCoW1KTD+KXwRMg7
ZNw8hJanz1iTjaCgfgK21NiHgFBF4lCjJjAkMBQGA1UdEQQNMAuCCWxvY2FsaG9z
dDAMBgNVHRMBAf8EAjAAMAoGCCqGSM49BAMCA0gAMEUCIQC62gcDblBPkAtVtjqU
qUj4uUeBc079FQQby5wyqIyg7QIgcDdHjtg2TWWPKv5wBM8ydEePrTBoDdEmRyFo
0H299nw=
-----END CERTIFICATE-----
";
    const KEY_B: &str = "\
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgTneEGtyUOHzftvgo
P6DzybZ4uOJR7En7enDlWVzjaBmhRANCAATirBo1TGVjY9sfT9wxX+PpHUmN1E6x
0OKqqSw2tXAqFtSkw/il8ETIO2TcPISWp89Yk42goH4CttTYh4BQReJQ
-----END PRIVATE KEY-----
";

    fn write_pair(dir: &Path, cert: &str, key: &str) {
        std::fs::write(dir.join(CERT_FILE), cert).expect("a writable temp dir");
        std::fs::write(dir.join(KEY_FILE), key).expect("a writable temp dir");
    }

    /// The status of `GET /` over TLS, trusting only `cert`.
    async fn status(addr: SocketAddr, cert: &str) -> anyhow::Result<StatusCode> {
        let mut roots = RootCertStore::empty();
        roots.add(CertificateDer::from_pem_slice(cert.as_bytes())?)?;
        let config = ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
            .with_safe_default_protocol_versions()?
            .with_root_certificates(roots)
            .with_no_client_auth();
        let tcp = TcpStream::connect(addr).await?;
        let tls = TlsConnector::from(Arc::new(config))
            .connect(ServerName::try_from("localhost")?, tcp)
            .await?;
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(tls)).await?;
        tokio::spawn(connection);
        let request = Request::get("/")
            .header("host", "localhost")
            .body(Body::empty())?;
        Ok(sender.send_request(request).await?.status())
    }

    #[tokio::test]
    async fn serves_https_and_picks_up_a_renewed_certificate() -> anyhow::Result<()> {
        let dir = std::env::temp_dir().join(format!("webhook-certs-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        write_pair(&dir, CERT_A, KEY_A);
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let config = Config {
            addr,
            cert_dir: dir.clone(),
            reload_interval: Duration::from_millis(50),
        };
        let router = Router::new().route("/", get(|| async { "ok" }));
        let ready = Readiness::default();
        let (trigger, shutdown) = Shutdown::channel();
        let server = tokio::spawn(serve_on(listener, config, router, ready.clone(), shutdown));

        assert_eq!(status(addr, CERT_A).await?, StatusCode::OK);
        assert!(ready.get());

        write_pair(&dir, CERT_B, KEY_B);
        let mut renewed = false;
        for _ in 0..100 {
            if status(addr, CERT_B).await.is_ok() {
                renewed = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(renewed, "the renewed certificate was not served");
        assert!(
            status(addr, CERT_A).await.is_err(),
            "the old certificate is still served"
        );

        trigger.fire();
        server.await??;
        assert!(!ready.get());
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }

    #[test]
    fn a_missing_or_broken_certificate_is_an_error_and_keeps_the_old_one() {
        let dir = std::env::temp_dir().join(format!("webhook-broken-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a writable temp dir");
        let certificate = Certificate::new(dir.clone());
        assert!(certificate.reload().is_err());
        write_pair(&dir, CERT_A, KEY_A);
        assert!(certificate.reload().expect("a valid pair"));
        assert!(!certificate.reload().expect("unchanged files"));
        write_pair(&dir, CERT_A, KEY_B);
        let error = certificate.reload().expect_err("a mismatched pair");
        assert!(format!("{error:#}").contains("usable pair"), "{error:#}");
        assert!(certificate.is_loaded());
        std::fs::remove_dir_all(&dir).expect("removable");
    }
}
