// SPDX-License-Identifier: Apache-2.0

//! A mocked Kubernetes API server for the reconciler tests, in the spirit of
//! kube-rs/controller-rs' fixtures: a test states the requests a reconciliation must make,
//! in order, checks each one and answers as Kubernetes would. A request the test does not
//! expect fails it.
#![allow(dead_code)] // each test file uses a different part

use std::sync::Arc;
use std::time::Duration;

use http::{Method, Request, Response, StatusCode};
use kube::Client;
use kube::client::Body;
use serde_json::{Value, json};
use tokio::task::JoinHandle;
use tower_test::mock::{self, Handle, SendResponse};

use lint_seeded::controllers::Context;
use lint_seeded::metrics::Metrics;

/// Where events go: the namespace of their object, `default` for cluster-scoped ones.
pub const EVENTS: &str = "/apis/events.k8s.io/v1/namespaces/default/events";

/// A context whose client talks to the returned mocked API server.
pub fn context() -> (Arc<Context>, ApiServer) {
    let (service, handle) = mock::pair::<Request<Body>, Response<Body>>();
    let client = Client::new(service, "default");
    let ctx = Context::new(client, Arc::new(Metrics::default()), None);
    (Arc::new(ctx), ApiServer(handle))
}

/// Waits until the mocked API server has seen every request it expects, and passes on
/// what it returns; fails the test when its checks failed or requests did not come.
pub async fn finish<T>(server: JoinHandle<T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), server)
        .await
        .expect("the reconciler made the expected requests in time")
        .expect("the requests were the expected ones")
}

/// The body of a failed request, as the API server sends it.
pub fn failure(code: StatusCode, reason: &str, message: &str) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Status",
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code.as_u16(),
    })
}

/// The mocked API server.
pub struct ApiServer(Handle<Request<Body>, Response<Body>>);

/// A request the reconciler made.
pub struct Received {
    pub query: String,
    pub body: Value,
    reply: SendResponse<Response<Body>>,
}

impl ApiServer {
    /// Waits for the next request and checks its method and path.
    pub async fn expect(&mut self, method: Method, path: &str) -> Received {
        let (request, reply) = self
            .0
            .next_request()
            .await
            .unwrap_or_else(|| panic!("expected {method} {path}, but no request came"));
        assert_eq!(
            (request.method(), request.uri().path()),
            (&method, path),
            "unexpected request {}",
            request.uri()
        );
        let query = request.uri().query().unwrap_or_default().to_string();
        let bytes = request
            .into_body()
            .collect_bytes()
            .await
            .expect("a readable request body");
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Received { query, body, reply }
    }

    /// Fails if another request comes before the reconciler drops its client.
    pub async fn expect_no_more(mut self) {
        if let Some((request, _)) = self.0.next_request().await {
            panic!("unexpected request {} {}", request.method(), request.uri());
        }
    }
}

impl Received {
    /// Answers with `status` and `body`.
    pub fn respond(self, status: StatusCode, body: Value) {
        let response = Response::builder()
            .status(status)
            .body(Body::from(body.to_string().into_bytes()))
            .expect("a valid response");
        self.reply.send_response(response);
    }

    /// Answers with the request's own body, as a create does.
    pub fn echo(self) {
        let body = self.body.clone();
        self.respond(StatusCode::CREATED, body);
    }
}
