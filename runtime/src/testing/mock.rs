//! A mocked Kubernetes API server for reconciler tests, in the spirit of
//! kube-rs/controller-rs' fixtures: a test states the requests a reconciliation must make,
//! in order, checks each one and answers as Kubernetes would. A request the test does not
//! expect fails it, and so does a request the real API server would refuse whatever the
//! object (see [`check_request`]), so that a mock never accepts what a cluster rejects.
//!
//! ```ignore
//! let (client, mut server) = mock::client();
//! let server = tokio::spawn(async move {
//!     let patch = server.expect(Method::PATCH, "/api/v1/namespaces/default/configmaps/a").await;
//!     patch.echo();
//!     server.expect_no_more().await;
//! });
//! // ... the code under test, with `client` ...
//! mock::finish(server).await;
//! ```

use std::time::Duration;

use http::header::{ACCEPT, CONTENT_TYPE};
use http::{Method, Request, Response, StatusCode};
use kube::Client;
use kube::client::Body;
use serde_json::{Value, json};
use tokio::task::JoinHandle;
use tower_test::mock::{self, Handle, SendResponse};

/// Where the events about an object in `namespace` go: its namespace, `default` for a
/// cluster-scoped object.
pub fn events_path(namespace: Option<&str>) -> String {
    let namespace = namespace.unwrap_or("default");
    format!("/apis/events.k8s.io/v1/namespaces/{namespace}/events")
}

/// The content type of a server-side apply PATCH.
pub const APPLY_PATCH: &str = "application/apply-patch+yaml";
/// The content type of a JSON patch (RFC 6902).
pub const JSON_PATCH: &str = "application/json-patch+json";
/// The content type of a JSON merge patch (RFC 7386).
pub const MERGE_PATCH: &str = "application/merge-patch+json";
/// The content type of a strategic merge patch.
pub const STRATEGIC_MERGE_PATCH: &str = "application/strategic-merge-patch+json";

/// A client that talks to the returned mocked API server; its default namespace is
/// `default`.
pub fn client() -> (Client, ApiServer) {
    let (service, handle) = mock::pair::<Request<Body>, Response<Body>>();
    (Client::new(service, "default"), ApiServer(handle))
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

/// The answer of the NamespaceLifecycle admission plugin to a create in `namespace` while
/// it is being deleted: "a Namespace that is undergoing termination cannot have new
/// objects created in it" (Kubernetes docs, Admission Control, NamespaceLifecycle). It is a
/// 403 Forbidden whose cause names the field `metadata.namespace`.
pub fn namespace_terminating(resource: &str, namespace: &str) -> Value {
    let mut body = failure(
        StatusCode::FORBIDDEN,
        "Forbidden",
        &format!(
            "{resource} is forbidden: unable to create new content in namespace {namespace} because it is being terminated"
        ),
    );
    body["details"] = json!({
        "kind": resource,
        "causes": [{
            "reason": "NamespaceTerminating",
            "message": format!("namespace {namespace} is being terminated"),
            "field": "metadata.namespace",
        }],
    });
    body
}

/// The answer to a create of an Event by a manager whose role does not allow it.
pub fn events_forbidden() -> Value {
    let message = "events.events.k8s.io is forbidden: User \"system:serviceaccount:system:controller-manager\" cannot create resource \"events\" in API group \"events.k8s.io\"";
    failure(StatusCode::FORBIDDEN, "Forbidden", message)
}

/// The mocked API server.
pub struct ApiServer(Handle<Request<Body>, Response<Body>>);

/// A request the reconciler made.
pub struct Received {
    /// The query string, without `?`.
    pub query: String,
    /// The representation asked for: a metadata-only watch asks for
    /// `PartialObjectMetadataList`.
    pub accept: String,
    /// The `Content-Type` header.
    pub content_type: String,
    /// The body as JSON; `Null` when it is none.
    pub body: Value,
    reply: SendResponse<Response<Body>>,
}

impl ApiServer {
    /// Waits for the next request, checks its method and path, and that the API server
    /// would accept it (see [`check_request`]).
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
        let (accept, content_type) = {
            let header = |name| {
                let value = request.headers().get(name).and_then(|v| v.to_str().ok());
                value.unwrap_or_default().to_string()
            };
            (header(ACCEPT), header(CONTENT_TYPE))
        };
        let bytes = request
            .into_body()
            .collect_bytes()
            .await
            .expect("a readable request body");
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        check_request(&method, path, &query, &content_type, &body);
        Received {
            query,
            accept,
            content_type,
            body,
            reply,
        }
    }

    /// Fails if another request comes before the reconciler drops its client.
    pub async fn expect_no_more(mut self) {
        if let Some((request, _)) = self.0.next_request().await {
            panic!("unexpected request {} {}", request.method(), request.uri());
        }
    }
}

impl Received {
    /// The value of the query parameter `name`, if the request has it.
    pub fn param(&self, name: &str) -> Option<&str> {
        query_param(&self.query, name)
    }

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

fn query_param<'q>(query: &'q str, name: &str) -> Option<&'q str> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value)
}

/// Fails the test when the API server would refuse the request, for reasons that do not
/// depend on the stored object:
///
/// - a PATCH needs one of the four patch content types (else 415); `force` is allowed
///   on an apply patch only, and an apply patch needs a `fieldManager` (PatchOptions
///   validation); an apply patch is a whole object with `apiVersion` and `kind`, and the
///   name in its body, if any, is the one in the path; a JSON patch is a list of
///   operations (RFC 6902), a merge patch an object;
/// - a POST sends a JSON object with `apiVersion` and `kind`, in the namespace of the path;
/// - an events.k8s.io/v1 Event passes the Events API's validation (see [`check_event`]).
pub fn check_request(method: &Method, path: &str, query: &str, content_type: &str, body: &Value) {
    let force = query_param(query, "force").is_some();
    if *method == Method::PATCH {
        match content_type {
            APPLY_PATCH => {
                let manager = query_param(query, "fieldManager").unwrap_or_default();
                assert!(
                    !manager.is_empty(),
                    "fieldManager is required for apply patch: {path}?{query}"
                );
                check_object(path, body);
                let name = body["metadata"]["name"].as_str();
                let named = path.trim_end_matches("/status").rsplit('/').next();
                assert!(
                    name.is_none() || name == named,
                    "the name of the object ({name:?}) does not match the name on the URL ({path})"
                );
            }
            JSON_PATCH => {
                assert!(
                    !force,
                    "force may not be specified for non-apply patch: {path}?{query}"
                );
                let operations = body
                    .as_array()
                    .unwrap_or_else(|| panic!("a JSON patch is a list of operations: {body}"));
                for operation in operations {
                    let op = operation["op"].as_str().unwrap_or_default();
                    assert!(
                        ["add", "remove", "replace", "move", "copy", "test"].contains(&op),
                        "not a JSON patch operation: {operation}"
                    );
                    assert!(
                        operation["path"].is_string(),
                        "a JSON patch operation without path: {operation}"
                    );
                }
            }
            MERGE_PATCH | STRATEGIC_MERGE_PATCH => {
                assert!(
                    !force,
                    "force may not be specified for non-apply patch: {path}?{query}"
                );
                assert!(body.is_object(), "a merge patch is an object: {body}");
            }
            other => panic!("415 Unsupported Media Type: PATCH {path} with Content-Type {other:?}"),
        }
    }
    if *method == Method::POST {
        assert_eq!(content_type, "application/json", "POST {path}");
        check_object(path, body);
        // The API server fills in the namespace of the path when the object names none.
        let namespace = path
            .split("/namespaces/")
            .nth(1)
            .and_then(|rest| rest.split('/').next());
        let given = body["metadata"]["namespace"].as_str();
        assert!(
            given.is_none() || given == namespace,
            "the namespace of the provided object does not match the namespace sent on the request"
        );
        if path.starts_with("/apis/events.k8s.io/v1/") {
            check_event(body, given.or(namespace).unwrap_or_default());
        }
    }
}

fn check_object(path: &str, body: &Value) {
    for field in ["apiVersion", "kind"] {
        assert!(
            body[field].is_string(),
            "{path}: the object has no {field}: {body}"
        );
    }
}

/// What the Events API (events.k8s.io/v1) checks when an Event is created: `eventTime`,
/// `reportingController`, `reportingInstance`, `action`, `reason` and `regarding` are
/// required, `type` is Normal or Warning, `action` and `reason` are at most 128 bytes long
/// and `note` at most 1 kB; the event lives (`namespace`) in the namespace of the object it
/// is about, `default` for a cluster-scoped one.
pub fn check_event(event: &Value, namespace: &str) {
    for field in [
        "eventTime",
        "reportingController",
        "reportingInstance",
        "action",
        "reason",
    ] {
        let value = event[field].as_str().unwrap_or_default();
        assert!(!value.is_empty(), "an Event needs {field}: {event}");
    }
    assert!(
        ["Normal", "Warning"].contains(&event["type"].as_str().unwrap_or_default()),
        "an Event is Normal or Warning: {event}"
    );
    for (field, limit) in [("action", 128), ("reason", 128), ("note", 1024)] {
        let length = event[field].as_str().map_or(0, str::len);
        assert!(
            length <= limit,
            "an Event's {field} is at most {limit} bytes, not {length}"
        );
    }
    let regarding = &event["regarding"];
    assert!(
        regarding.is_object(),
        "an Event is about an object: {event}"
    );
    assert_eq!(
        namespace,
        regarding["namespace"].as_str().unwrap_or("default"),
        "an Event lives in the namespace of its object"
    );
}
