// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! HTTPS for the metrics server: a certificate read from a directory (`tls.crt` and
//! `tls.key`, as cert-manager writes them), or a self-signed one generated at startup.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::crypto::ring;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tracing::{debug, info, warn};

use crate::shutdown::Shutdown;

/// The certificate chain in a certificate directory.
pub const CERT_FILE: &str = "tls.crt";
/// Its private key.
pub const KEY_FILE: &str = "tls.key";

/// How long a client may take over the TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// A TLS configuration serving the certificate in `cert_dir`, or a self-signed one for
/// `localhost` when there is none. Scrapers of a self-signed certificate must skip its
/// verification (`insecureSkipVerify` in the ServiceMonitor).
pub fn server_config(cert_dir: Option<&Path>) -> anyhow::Result<ServerConfig> {
    let (chain, key) = match cert_dir {
        Some(dir) => read_pair(dir)?,
        None => self_signed()?,
    };
    let mut config = ServerConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()
        .context("the TLS provider supports no safe protocol version")?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .context("the certificate and its key do not make a usable pair")?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

fn read_pair(dir: &Path) -> anyhow::Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)> {
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))
    };
    let chain = CertificateDer::pem_slice_iter(&read(CERT_FILE)?)
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("{CERT_FILE} is not a PEM certificate chain"))?;
    let key = PrivateKeyDer::from_pem_slice(&read(KEY_FILE)?)
        .with_context(|| format!("{KEY_FILE} is not a PEM private key"))?;
    Ok((chain, key))
}

fn self_signed() -> anyhow::Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)> {
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_string()])
        .context("cannot generate a self-signed certificate")?;
    let key = PrivatePkcs8KeyDer::from(certified.signing_key.serialize_der());
    Ok((vec![certified.cert.der().clone()], key.into()))
}

/// Serves `router` over HTTPS on `addr` until `shutdown` resolves.
pub async fn serve(
    what: &str,
    addr: SocketAddr,
    config: ServerConfig,
    router: Router,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    let listener = TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot bind the {what} server to {addr}"))?;
    info!(%addr, "serving {what} over HTTPS");
    serve_on(listener, config, router, shutdown).await;
    Ok(())
}

/// [`serve`] on a listener that is already bound (tests bind port 0).
pub async fn serve_on(
    listener: TcpListener,
    config: ServerConfig,
    router: Router,
    shutdown: Shutdown,
) {
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let mut connections = JoinSet::new();
    let stop = shutdown.clone().wait();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            () = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let connection = serve_connection(
                        acceptor.clone(),
                        stream,
                        router.clone(),
                        shutdown.clone(),
                    );
                    connections.spawn(connection);
                }
                Err(error) => {
                    // Out of file descriptors, say: back off instead of spinning.
                    warn!(%error, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    while connections.join_next().await.is_some() {}
}

/// One connection: the TLS handshake, then HTTP/1.1 until the client closes it or the
/// manager shuts down (requests in flight are answered first).
async fn serve_connection(
    acceptor: TlsAcceptor,
    stream: TcpStream,
    router: Router,
    shutdown: Shutdown,
) {
    let stream = match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
        Ok(Ok(stream)) => stream,
        Ok(Err(error)) => {
            debug!(%error, "TLS handshake failed");
            return;
        }
        Err(_) => {
            debug!("TLS handshake timed out");
            return;
        }
    };
    let service = TowerToHyperService::new(router);
    let connection = http1::Builder::new().serve_connection(TokioIo::new(stream), service);
    tokio::pin!(connection);
    tokio::select! {
        result = connection.as_mut() => {
            if let Err(error) = result {
                debug!(%error, "connection failed");
            }
        }
        () = shutdown.wait() => {
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use axum::routing::get;
    use tokio_rustls::TlsConnector;
    use tokio_rustls::rustls::pki_types::ServerName;
    use tokio_rustls::rustls::{ClientConfig, RootCertStore};

    use super::*;

    // A self-signed certificate for `localhost`, valid from 2000 to 2999.
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
    async fn serves_https_with_the_certificate_of_the_directory() -> anyhow::Result<()> {
        let dir = std::env::temp_dir().join(format!("metrics-certs-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(CERT_FILE), CERT_A)?;
        std::fs::write(dir.join(KEY_FILE), KEY_A)?;
        let config = server_config(Some(&dir))?;
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let router = Router::new().route("/", get(|| async { "ok" }));
        let (trigger, shutdown) = Shutdown::channel();
        let server = tokio::spawn(serve_on(listener, config, router, shutdown));

        assert_eq!(status(addr, CERT_A).await?, StatusCode::OK);

        trigger.fire();
        server.await?;
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }

    #[test]
    fn without_a_certificate_directory_a_self_signed_certificate_is_served() {
        let config = server_config(None).expect("a self-signed certificate");
        assert_eq!(config.alpn_protocols, [b"http/1.1".to_vec()]);
    }

    #[test]
    fn a_directory_without_the_certificate_is_an_error() {
        let dir = std::env::temp_dir().join(format!("metrics-no-certs-{}", std::process::id()));
        let error = server_config(Some(&dir)).expect_err("no certificate files");
        assert!(format!("{error:#}").contains(CERT_FILE), "{error:#}");
    }
}
