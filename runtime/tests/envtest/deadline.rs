//! The manager's client against an API server that stops answering in the middle of a
//! connection, as an instance that died hard does (its packets go nowhere, nothing
//! closes): the request fails at its deadline instead of hanging its controller, and the
//! next one, on a new connection, succeeds (`src/deadline.rs`).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use rsbuilder_runtime::deadline;

use crate::control_plane;

/// The deadline in this test: short, and far below how long it waits for a hung request.
const DEADLINE: Duration = Duration::from_secs(2);
const HUNG: Duration = Duration::from_secs(30);

/// A TCP proxy on 127.0.0.1 in front of the API server. [`Proxy::stall`] makes every
/// connection it has stop forwarding, without closing; later connections forward again.
struct Proxy {
    addr: SocketAddr,
    generation: Arc<AtomicU64>,
}

impl Proxy {
    async fn start(upstream: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let addr = listener.local_addr().expect("an address");
        let generation = Arc::new(AtomicU64::new(0));
        let current = generation.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = TcpStream::connect(upstream).await else {
                    continue;
                };
                let born = current.load(Ordering::SeqCst);
                let (client_read, client_write) = client.into_split();
                let (server_read, server_write) = server.into_split();
                tokio::spawn(forward(client_read, server_write, current.clone(), born));
                tokio::spawn(forward(server_read, client_write, current.clone(), born));
            }
        });
        Self { addr, generation }
    }

    fn stall(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
    }
}

/// Copies `from` to `to` while the connection belongs to the current generation; then
/// holds both open and forwards nothing.
async fn forward(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    generation: Arc<AtomicU64>,
    born: u64,
) {
    let mut buf = vec![0; 64 * 1024];
    loop {
        let Ok(read) = from.read(&mut buf).await else {
            return;
        };
        if read == 0 {
            return;
        }
        if generation.load(Ordering::SeqCst) != born {
            std::future::pending::<()>().await;
        }
        if to.write_all(&buf[..read]).await.is_err() {
            return;
        }
    }
}

fn config_map(name: &str) -> ConfigMap {
    serde_json::from_value(serde_json::json!({"metadata": {"name": name}})).expect("a ConfigMap")
}

#[tokio::test]
#[ignore = "needs kube-apiserver and etcd (KUBEBUILDER_ASSETS); run with --include-ignored"]
async fn a_request_the_api_server_stops_answering_fails_at_its_deadline_and_the_next_succeeds() {
    let control_plane = control_plane();
    let namespace = control_plane.namespace("deadline").await;
    let mut config = control_plane
        .config("envtest-admin", &["system:masters"])
        .await;
    let authority = config.cluster_url.authority().expect("a host").as_str();
    let upstream: SocketAddr = authority.parse().expect("an address");
    let proxy = Proxy::start(upstream).await;
    config.cluster_url = format!("https://{}", proxy.addr).parse().expect("a URL");
    let client = deadline::client(config, DEADLINE).expect("a client");
    let api: Api<ConfigMap> = Api::namespaced(client, &namespace);
    let create = PostParams::default();
    api.create(&create, &config_map("before"))
        .await
        .expect("a create through the proxy");

    // The next request goes out on the pooled connection, which no longer forwards.
    proxy.stall();
    let started = Instant::now();
    let answer = tokio::time::timeout(HUNG, api.create(&create, &config_map("during")))
        .await
        .expect("a request to an API server that stopped answering hung past its deadline");
    assert!(answer.is_err(), "{answer:?}");
    let took = started.elapsed();
    assert!(
        took >= DEADLINE && took < DEADLINE * 3,
        "failed after {took:?}"
    );

    api.create(&create, &config_map("after"))
        .await
        .expect("the next request, on a new connection");
}
