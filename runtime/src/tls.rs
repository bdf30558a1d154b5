//! HTTPS for the manager's servers (metrics, webhooks): their certificate, read from a
//! directory (`tls.crt` and `tls.key`, as cert-manager writes them) and read again when it
//! changes, or a self-signed one; and the connection handling both servers share, with
//! limits that keep one client from holding the server.

use std::fmt;
use std::future::Future;
use std::io;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, PoisonError, RwLock};
use std::task::{Context, Poll};
use std::time::Duration;

use anyhow::Context as _;
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio::time::{Instant, Sleep};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::crypto::{CryptoProvider, ring};
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::rustls::server::{ClientHello, ResolvesServerCert};
use tokio_rustls::rustls::sign::{CertifiedKey, SingleCertAndKey};
use tracing::{debug, info, warn};

use crate::shutdown::Shutdown;

/// The certificate chain in a certificate directory.
pub const CERT_FILE: &str = "tls.crt";
/// Its private key.
pub const KEY_FILE: &str = "tls.key";
/// How often a certificate directory is read again, to pick up a renewal.
pub const RELOAD_INTERVAL: Duration = Duration::from_secs(10);

/// What one client may take of a server. The timeouts are those of controller-runtime's
/// metrics and webhook servers (Go's `ReadHeaderTimeout` 32 s, `IdleTimeout` 90 s); Go's
/// server has no connection cap, so a slow client there costs a goroutine, here a slot.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// For the TLS handshake.
    pub handshake_timeout: Duration,
    /// For a request's headers. Hyper starts this clock as soon as a connection waits for
    /// its next request, so it also closes a keep-alive connection idle for that long.
    pub header_read_timeout: Duration,
    /// For a connection on which no byte moves either way: a request body that stalls, a
    /// response the client does not read.
    pub idle_timeout: Duration,
    /// Connections served at once; further clients wait in the listen backlog.
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            handshake_timeout: Duration::from_secs(10),
            header_read_timeout: Duration::from_secs(32),
            idle_timeout: Duration::from_secs(90),
            max_connections: 256,
        }
    }
}

/// A TLS configuration serving the certificate `resolver` picks, over HTTP/1.1.
pub fn server_config(resolver: Arc<dyn ResolvesServerCert>) -> anyhow::Result<ServerConfig> {
    let mut config = ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .context("the TLS provider supports no safe protocol version")?
        .with_no_client_auth()
        .with_cert_resolver(resolver);
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// The TLS provider of every connection the runtime makes or serves: *ring*, as kube's
/// and rcgen's features in a project choose it, named here because a process with two
/// providers compiled in has no default.
///
/// rustls 0.23.48 deprecates *ring*'s provider for lacking post-quantum key exchange,
/// which only aws-lc-rs has, and that needs cmake and a C toolchain in every build: the
/// runtime stays on *ring*, and says so once, here.
#[allow(deprecated)]
pub(crate) fn provider() -> Arc<CryptoProvider> {
    Arc::new(ring::default_provider())
}

/// A self-signed certificate for `localhost`, generated now. Its clients must skip
/// verification (`insecureSkipVerify` in a ServiceMonitor).
pub fn self_signed() -> anyhow::Result<Arc<dyn ResolvesServerCert>> {
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_string()])
        .context("cannot generate a self-signed certificate")?;
    let key = PrivatePkcs8KeyDer::from(certified.signing_key.serialize_der());
    let key = CertifiedKey::from_der(vec![certified.cert.der().clone()], key.into(), &provider())
        .context("the self-signed certificate and its key do not make a usable pair")?;
    Ok(Arc::new(SingleCertAndKey::from(key)))
}

/// The certificate of a directory, read again by [`Certificate::reload`] and swapped in
/// place when the files changed. Handshakes fail while none is loaded.
pub struct Certificate {
    /// Whose certificate, for the logs.
    what: &'static str,
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
    /// The certificate of the `what` server in `dir`; nothing is read yet.
    pub fn new(what: &'static str, dir: PathBuf) -> Self {
        Self {
            what,
            dir,
            provider: provider(),
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
        info!(dir = %self.dir.display(), "loaded the {} certificate", self.what);
        Ok(true)
    }

    /// Whether a certificate was loaded: handshakes fail until then.
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
            .field("what", &self.what)
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

/// The certificate of an HTTPS server: read from a directory, and read again when it
/// changes, or self-signed.
pub enum Serving {
    /// A certificate generated at start, for this process only.
    SelfSigned(Arc<dyn ResolvesServerCert>),
    /// The certificate in a directory, read again when its files change.
    Reloading(Arc<Certificate>),
}

impl Serving {
    /// The `what` server's certificate in `dir`, or a self-signed one when there is no
    /// directory. A directory that does not exist, or whose files cannot be loaded, is an
    /// error; an empty one is waited for (handshakes fail until the certificate is there),
    /// because the manager may issue the certificate itself once it runs.
    pub fn load(what: &'static str, dir: Option<PathBuf>) -> anyhow::Result<Self> {
        let Some(dir) = dir else {
            return Ok(Self::SelfSigned(self_signed()?));
        };
        let mut entries = std::fs::read_dir(&dir).with_context(|| {
            format!(
                "cannot read the {what} certificate's directory {}",
                dir.display()
            )
        })?;
        let empty = entries.next().is_none();
        let certificate = Arc::new(Certificate::new(what, dir));
        if empty {
            info!(dir = %certificate.dir.display(), "waiting for the {what} certificate");
        } else {
            certificate.reload()?;
        }
        Ok(Self::Reloading(certificate))
    }
}

impl fmt::Debug for Serving {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SelfSigned(_) => f.write_str("SelfSigned"),
            Self::Reloading(certificate) => f.debug_tuple("Reloading").field(certificate).finish(),
        }
    }
}

/// Serves `router` over HTTPS on `listener` until `shutdown`, with `serving`'s
/// certificate, read again every `reload_interval` when it comes from a directory.
pub async fn serve(
    listener: TcpListener,
    serving: Serving,
    reload_interval: Duration,
    router: Router,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    match serving {
        Serving::SelfSigned(resolver) => {
            let config = server_config(resolver)?;
            serve_on(listener, config, router, Limits::default(), shutdown).await;
            Ok(())
        }
        Serving::Reloading(certificate) => {
            let ignore = |_| {};
            serve_reloading(
                listener,
                certificate,
                reload_interval,
                ignore,
                router,
                shutdown,
            )
            .await
        }
    }
}

/// Serves `router` over HTTPS on `listener` until `shutdown`, reading `certificate` again
/// every `interval`; after each read, `loaded` hears whether a certificate is loaded.
pub async fn serve_reloading(
    listener: TcpListener,
    certificate: Arc<Certificate>,
    interval: Duration,
    loaded: impl Fn(bool),
    router: Router,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    let config = server_config(certificate.clone())?;
    let reloading = async {
        let mut ticks = tokio::time::interval(interval);
        loop {
            ticks.tick().await;
            if let Err(error) = certificate.reload() {
                warn!(
                    error = format!("{error:#}"),
                    "cannot load the {} certificate; retrying", certificate.what
                );
            }
            loaded(certificate.is_loaded());
        }
    };
    tokio::select! {
        () = serve_on(listener, config, router, Limits::default(), shutdown) => {}
        // Never ends: it reads the certificate for as long as the server runs.
        () = reloading => {}
    }
    Ok(())
}

/// Serves `router` over HTTPS on `listener` until `shutdown` resolves, within `limits`.
pub async fn serve_on(
    listener: TcpListener,
    config: ServerConfig,
    router: Router,
    limits: Limits,
    shutdown: Shutdown,
) {
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let mut connections = JoinSet::new();
    let stop = shutdown.clone().wait();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            () = &mut stop => break,
            accepted = listener.accept(), if connections.len() < limits.max_connections => {
                match accepted {
                    Ok((stream, _)) => {
                        let connection = serve_connection(
                            acceptor.clone(),
                            stream,
                            router.clone(),
                            limits,
                            shutdown.clone(),
                        );
                        connections.spawn(connection);
                    }
                    Err(error) => {
                        // Out of file descriptors, say: back off instead of spinning.
                        warn!(%error, "cannot accept a connection");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                }
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    while connections.join_next().await.is_some() {}
}

/// One connection: the TLS handshake, then HTTP/1.1 until the client closes it, a limit
/// is hit, or the manager shuts down (requests in flight are answered first).
async fn serve_connection(
    acceptor: TlsAcceptor,
    stream: TcpStream,
    router: Router,
    limits: Limits,
    shutdown: Shutdown,
) {
    let stream = match tokio::time::timeout(limits.handshake_timeout, acceptor.accept(stream)).await
    {
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
    let io = TokioIo::new(IdleTimeout::new(stream, limits.idle_timeout));
    let service = TowerToHyperService::new(router);
    let connection = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .serve_connection(io, service);
    tokio::pin!(connection);
    tokio::select! {
        result = connection.as_mut() => {
            if let Err(error) = result {
                debug!(%error, "connection closed");
            }
        }
        () = shutdown.wait() => {
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        }
    }
}

/// A stream that fails a read or write waiting after no byte moved either way for
/// `timeout`.
struct IdleTimeout<S> {
    inner: S,
    timeout: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl<S> IdleTimeout<S> {
    fn new(inner: S, timeout: Duration) -> Self {
        Self {
            inner,
            timeout,
            deadline: Box::pin(tokio::time::sleep(timeout)),
        }
    }

    /// Passes `poll` on: progress moves the deadline, waiting past it is an error.
    fn watch<T>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        match poll {
            Poll::Ready(result) => {
                let deadline = Instant::now() + self.timeout;
                self.deadline.as_mut().reset(deadline);
                Poll::Ready(result)
            }
            Poll::Pending => match self.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "no byte moved within the idle timeout",
                ))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for IdleTimeout<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_read(cx, buf);
        this.watch(cx, poll)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for IdleTimeout<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.watch(cx, poll)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_flush(cx);
        this.watch(cx, poll)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

/// Certificates and a client for the tests of HTTPS servers (feature `testing`, for a
/// project's dev-dependencies).
#[cfg(any(test, feature = "testing"))]
pub mod testing {
    use std::net::SocketAddr;
    use std::path::Path;
    use std::sync::Arc;

    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use hyper_util::rt::TokioIo;
    use tokio::net::TcpStream;
    use tokio_rustls::TlsConnector;
    use tokio_rustls::client::TlsStream;
    use tokio_rustls::rustls::pki_types::pem::PemObject;
    use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
    use tokio_rustls::rustls::{ClientConfig, RootCertStore};

    use super::{CERT_FILE, KEY_FILE};

    // Two self-signed certificates for `localhost`, valid from 2000 to 2999.
    /// The first certificate for `localhost`.
    pub const CERT_A: &str = "\
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
    /// The key of [`CERT_A`].
    pub const KEY_A: &str = "\
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgIKw9q+IE6ATvE4nQ
Dw9ISlzmXjUK/nY0sxl91Lb21KGhRANCAAT7QdPnTKsJhmgp+AgFHG0jYAOCiBLr
mizkrdAbo88ChrgeMvz0+LuD1GodVAKCdvjQqPdSEDBOLs/vU34zqTwe
-----END PRIVATE KEY-----
";
    /// The second certificate for `localhost`, a renewal of [`CERT_A`].
    pub const CERT_B: &str = "\
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
    /// The key of [`CERT_B`].
    pub const KEY_B: &str = "\
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgTneEGtyUOHzftvgo
P6DzybZ4uOJR7En7enDlWVzjaBmhRANCAATirBo1TGVjY9sfT9wxX+PpHUmN1E6x
0OKqqSw2tXAqFtSkw/il8ETIO2TcPISWp89Yk42goH4CttTYh4BQReJQ
-----END PRIVATE KEY-----
";

    /// A fresh directory under the system's temp dir, named for the test.
    pub fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a writable temp dir");
        dir
    }

    /// Writes `cert` and `key` into `dir` as a server reads them.
    pub fn write_pair(dir: &Path, cert: &str, key: &str) {
        std::fs::write(dir.join(CERT_FILE), cert).expect("a writable temp dir");
        std::fs::write(dir.join(KEY_FILE), key).expect("a writable temp dir");
    }

    /// A TLS connection to `addr` that trusts only `cert`.
    pub async fn connect(addr: SocketAddr, cert: &str) -> anyhow::Result<TlsStream<TcpStream>> {
        let mut roots = RootCertStore::empty();
        roots.add(CertificateDer::from_pem_slice(cert.as_bytes())?)?;
        let config = ClientConfig::builder_with_provider(super::provider())
            .with_safe_default_protocol_versions()?
            .with_root_certificates(roots)
            .with_no_client_auth();
        let tcp = TcpStream::connect(addr).await?;
        let tls = TlsConnector::from(Arc::new(config))
            .connect(ServerName::try_from("localhost")?, tcp)
            .await?;
        Ok(tls)
    }

    /// Whether the server at `addr` serves `cert` within 2 s (it is read again meanwhile).
    pub async fn serves_within_2s(addr: SocketAddr, cert: &str) -> bool {
        for _ in 0..100 {
            if status(addr, cert).await.is_ok() {
                return true;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        false
    }

    /// Renews the certificate in `dir` (`CERT_A` to `CERT_B`) and checks that the server at
    /// `addr` switches to the new one.
    pub async fn assert_picks_up_a_renewal(addr: SocketAddr, dir: &Path) {
        assert!(status(addr, CERT_A).await.is_ok(), "CERT_A is not served");
        write_pair(dir, CERT_B, KEY_B);
        let renewed = serves_within_2s(addr, CERT_B).await;
        assert!(renewed, "the renewed certificate was not served");
        let old = status(addr, CERT_A).await;
        assert!(old.is_err(), "the old certificate is still served");
    }

    /// The status of `GET /` over TLS, trusting only `cert`.
    pub async fn status(addr: SocketAddr, cert: &str) -> anyhow::Result<StatusCode> {
        let tls = connect(addr, cert).await?;
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(tls)).await?;
        tokio::spawn(connection);
        let request = Request::get("/")
            .header("host", "localhost")
            .body(Body::empty())?;
        Ok(sender.send_request(request).await?.status())
    }
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;
    use std::time::Instant;

    use axum::http::StatusCode;
    use axum::routing::{get, post};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::testing::*;
    use super::*;

    /// Limits small enough for a test to see them act.
    fn tight() -> Limits {
        Limits {
            handshake_timeout: Duration::from_secs(5),
            header_read_timeout: Duration::from_millis(300),
            idle_timeout: Duration::from_millis(300),
            max_connections: 1,
        }
    }

    /// An HTTPS server of `CERT_A` with `limits`, until the trigger fires.
    async fn start(name: &str, limits: Limits) -> (SocketAddr, crate::shutdown::Trigger) {
        let dir = temp_dir(name);
        write_pair(&dir, CERT_A, KEY_A);
        let certificate = Arc::new(Certificate::new("test", dir));
        certificate.reload().expect("a valid pair");
        let config = server_config(certificate).expect("a TLS configuration");
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
        let addr = listener.local_addr().expect("a bound address");
        let router = Router::new()
            .route("/", get(|| async { "ok" }))
            .route("/echo", post(|body: String| async move { body }));
        let (trigger, shutdown) = Shutdown::channel();
        tokio::spawn(serve_on(listener, config, router, limits, shutdown));
        (addr, trigger)
    }

    /// How long until the server closes `stream` (reads return nothing), at most 5 s.
    async fn closed_after(stream: &mut (impl AsyncReadExt + Unpin)) -> Option<Duration> {
        let start = Instant::now();
        let mut buf = [0u8; 1024];
        let read = async {
            loop {
                match stream.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(5), read)
            .await
            .ok()
            .map(|()| start.elapsed())
    }

    #[tokio::test]
    async fn serves_the_certificate_of_the_directory_and_a_self_signed_one() -> anyhow::Result<()> {
        let (addr, trigger) = start("tls-serves", Limits::default()).await;
        assert_eq!(status(addr, CERT_A).await?, StatusCode::OK);
        trigger.fire();

        let config = server_config(self_signed()?)?;
        assert_eq!(config.alpn_protocols, [b"http/1.1".to_vec()]);
        Ok(())
    }

    #[test]
    fn a_certificate_directory_missing_or_with_a_key_alone_is_an_error() {
        let dir = temp_dir("tls-no-certs");
        let missing = dir.join("missing");
        let error = Serving::load("test", Some(missing)).expect_err("no directory to read");
        assert!(format!("{error:#}").contains("directory"), "{error:#}");
        std::fs::write(dir.join(KEY_FILE), KEY_A).expect("a writable temp dir");
        let error = Serving::load("test", Some(dir)).expect_err("no certificate to serve");
        assert!(format!("{error:#}").contains(CERT_FILE), "{error:#}");
    }

    /// The manager issues its own certificate after the server started
    /// (`--webhook-certs self`): the server serves it as soon as it is written.
    #[tokio::test]
    async fn an_empty_certificate_directory_is_served_once_a_certificate_is_written() {
        let dir = temp_dir("tls-empty-dir");
        let serving = Serving::load("test", Some(dir.clone())).expect("an empty directory");
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
        let addr = listener.local_addr().expect("a bound address");
        let router = Router::new().route("/", get(|| async { "ok" }));
        let (_trigger, shutdown) = Shutdown::channel();
        let interval = Duration::from_millis(20);
        tokio::spawn(serve(listener, serving, interval, router, shutdown));
        assert!(
            status(addr, CERT_A).await.is_err(),
            "served without a certificate"
        );
        write_pair(&dir, CERT_A, KEY_A);
        assert!(
            serves_within_2s(addr, CERT_A).await,
            "the certificate was not served"
        );
    }

    #[tokio::test]
    async fn a_client_that_sends_no_request_is_disconnected() {
        let (addr, _trigger) = start("tls-no-request", tight()).await;
        let mut tls = connect(addr, CERT_A).await.expect("a TLS connection");
        let closed = closed_after(&mut tls).await;
        assert!(closed.is_some(), "the connection is still open after 5 s");
    }

    #[tokio::test]
    async fn a_request_whose_body_stalls_is_disconnected() {
        let (addr, _trigger) = start("tls-stalled-body", tight()).await;
        let mut tls = connect(addr, CERT_A).await.expect("a TLS connection");
        tls.write_all(b"POST /echo HTTP/1.1\r\nhost: localhost\r\ncontent-length: 100\r\n\r\nsome")
            .await
            .expect("a writable connection");
        tls.flush().await.expect("a writable connection");
        let closed = closed_after(&mut tls).await;
        assert!(closed.is_some(), "the connection is still open after 5 s");
    }

    #[tokio::test]
    async fn clients_beyond_the_connection_cap_wait_for_a_free_slot() {
        let limits = Limits {
            header_read_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(30),
            ..tight()
        };
        let (addr, _trigger) = start("tls-cap", limits).await;
        let first = connect(addr, CERT_A).await.expect("a TLS connection");
        let second = tokio::spawn(connect(addr, CERT_A));
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert!(
            !second.is_finished(),
            "a second connection was served beyond the cap of one"
        );
        drop(first);
        let second = tokio::time::timeout(Duration::from_secs(5), second)
            .await
            .expect("the second connection is served once the first closed");
        assert!(second.expect("the connect task").is_ok());
    }

    #[test]
    fn a_missing_or_broken_certificate_is_an_error_and_keeps_the_old_one() {
        let dir = temp_dir("tls-broken");
        let certificate = Certificate::new("test", dir.clone());
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
