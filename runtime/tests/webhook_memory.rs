//! Junk POSTs to the webhooks from many connections at once. The webhook port admits every
//! source, so what the webhooks hold in request bodies must stay within their budget
//! (`webhook::BODIES_IN_FLIGHT`, `--webhook-bodies-in-flight`) however many send.
//!
//! A test binary of its own, with one test: its allocator counts every byte allocated.

use std::sync::Arc;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use rsbuilder_runtime::webhook::conversion::{self, ConversionError};
use rsbuilder_runtime::webhook::{self, CONVERSION_PATH, Limits};

#[path = "support/allocations.rs"]
mod allocations;

#[global_allocator]
static ALLOCATOR: allocations::Counting = allocations::Counting;

const MIB: usize = 1024 * 1024;
/// The budget of the test's webhooks.
const BUDGET: usize = 16 * MIB;
/// Connections that send at once, each a body of [`BODY`]: 256 MiB in all.
const CONNECTIONS: usize = 64;
/// Within the limit of every webhook.
const BODY: usize = 4 * MIB;

fn unchanged(object: Value, _: &str) -> Result<Value, ConversionError> {
    Ok(object)
}

/// Sends `BODY` bytes of junk to `path`; the status line of the answer.
async fn post_junk(addr: std::net::SocketAddr, path: &str, junk: Arc<Vec<u8>>) -> String {
    let mut stream = TcpStream::connect(addr).await.expect("a connection");
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: webhooks\r\ncontent-type: application/json\r\n\
         content-length: {BODY}\r\nconnection: close\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.expect("a request");
    stream.write_all(&junk).await.expect("a body");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.expect("an answer");
    let answer = String::from_utf8_lossy(&answer);
    answer.lines().next().unwrap_or_default().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn junk_from_many_connections_stays_within_the_budget() {
    let routes = vec![(
        CONVERSION_PATH,
        conversion::handler(&[("example.com", "Widget", unchanged)]),
    )];
    let limits = Limits {
        in_flight: BUDGET,
        ..Limits::default()
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let addr = listener.local_addr().expect("a bound address");
    let router = webhook::router(routes, limits);
    tokio::spawn(async move { axum::serve(listener, router).await });
    let junk = Arc::new(vec![b'x'; BODY]);

    let measure = allocations::Peak::start();
    let mut posts = tokio::task::JoinSet::new();
    for _ in 0..CONNECTIONS {
        posts.spawn(post_junk(addr, CONVERSION_PATH, junk.clone()));
    }
    while let Some(answer) = posts.join_next().await {
        // Junk is answered (a review that failed, or a request refused), never dropped.
        let answer = answer.expect("a task that does not panic");
        assert!(answer.starts_with("HTTP/1.1 "), "{answer}");
    }
    let peak = measure.bytes();

    // A body read whole takes up to twice its size while it is collected; the connections
    // have their read buffers besides.
    let allowed = 2 * BUDGET + 8 * MIB;
    println!("{CONNECTIONS} connections of {BODY} bytes took {peak} bytes at the peak");
    assert!(
        peak <= allowed,
        "{CONNECTIONS} connections of {BODY} bytes took {peak} bytes at the peak, over {allowed}"
    );
}
