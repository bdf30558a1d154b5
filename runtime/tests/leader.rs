//! Leader election against a fake API server: it keeps the Lease in memory, answers the
//! requests kube-lease-manager makes, and can stop answering, as an API server behind a
//! broken network does. The tests run on tokio's paused clock: time moves only when every
//! task waits for a timer, so they take milliseconds and cannot be flaky on a slow machine.
//!
//! The contract: a Lease (`coordination.k8s.io/v1`) is held while its holder renews
//! `renewTime` within `leaseDurationSeconds`; a leader that cannot renew must stop before
//! another replica may take over (client-go's leader election: lease 15 s, renew
//! deadline 10 s, retry 2 s; https://pkg.go.dev/k8s.io/client-go/tools/leaderelection).

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use http::{Method, Request, Response, StatusCode};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::rbac::v1::Role;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use kube::{Api, Client};
use serde_json::{Value, json};
use tokio::time::Instant;
use tower::Layer;
use tower_test::mock::{self, Handle, SendResponse};

use rsbuilder_runtime::leader::{Candidate, Leadership, RENEW_DEADLINE, REQUEST_TIMEOUT, Renewals};
use rsbuilder_runtime::shutdown::Shutdown;

type Reply = SendResponse<Response<kube::client::Body>>;

/// Which requests the fake API server leaves unanswered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hang {
    Nothing,
    Patches,
    Everything,
}

/// What the fake API server holds and saw.
struct Fake {
    lease: Option<Value>,
    hang: Hang,
    /// The replies it holds back: their requests hang until they are dropped.
    held: Vec<Reply>,
    /// The verbs of the requests it got, as RBAC names them.
    verbs: BTreeSet<String>,
    /// When it last accepted a PATCH of the Lease.
    last_patch: Option<Instant>,
}

#[derive(Clone)]
struct ApiServer(Arc<Mutex<Fake>>);

impl ApiServer {
    fn lock(&self) -> MutexGuard<'_, Fake> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Answers again; the requests it held fail, as on a broken connection.
    fn answer_again(&self) {
        let mut fake = self.lock();
        fake.hang = Hang::Nothing;
        fake.held.clear();
    }
}

/// The Lease the candidates of these tests compete for.
const LEASE_NAME: &str = "test-leader.example.com";
const NAMESPACE: &str = "default";

fn lease_path() -> String {
    format!("/apis/coordination.k8s.io/v1/namespaces/{NAMESPACE}/leases/{LEASE_NAME}")
}

/// A candidate named `identity` whose API server is a fake holding `lease`.
fn start(identity: &str, lease: Option<Value>) -> (ApiServer, Candidate) {
    let (service, handle) =
        mock::pair::<Request<kube::client::Body>, Response<kube::client::Body>>();
    let renewals = Renewals::new(LEASE_NAME);
    let client = Client::new(renewals.layer(service), NAMESPACE);
    let server = ApiServer(Arc::new(Mutex::new(Fake {
        lease,
        hang: Hang::Nothing,
        held: Vec::new(),
        verbs: BTreeSet::new(),
        last_patch: None,
    })));
    tokio::spawn(serve(handle, server.clone()));
    let candidate = Candidate {
        client,
        renewals,
        namespace: NAMESPACE.to_string(),
        identity: identity.to_string(),
    };
    (server, candidate)
}

async fn serve(
    mut api: Handle<Request<kube::client::Body>, Response<kube::client::Body>>,
    server: ApiServer,
) {
    while let Some((request, reply)) = api.next_request().await {
        let (parts, body) = request.into_parts();
        let body = body.collect_bytes().await.expect("a readable request body");
        let mut fake = server.lock();
        let verb = match (&parts.method, parts.uri.path() == lease_path()) {
            (&Method::GET, true) => "get",
            (&Method::GET, false) => "list",
            (&Method::POST, _) => "create",
            (&Method::PATCH, _) => "patch",
            (&Method::PUT, _) => "update",
            (&Method::DELETE, _) => "delete",
            (other, _) => other.as_str(),
        };
        fake.verbs.insert(verb.to_string());
        let hang = match fake.hang {
            Hang::Nothing => false,
            Hang::Patches => parts.method == Method::PATCH,
            Hang::Everything => true,
        };
        if hang {
            fake.held.push(reply);
            continue;
        }
        let (status, answer) = answer(&mut fake, &parts.method, parts.uri.path(), &body);
        let response = Response::builder()
            .status(status)
            .body(kube::client::Body::from(answer.to_string().into_bytes()))
            .expect("a valid response");
        reply.send_response(response);
    }
}

/// What the API server answers about the one Lease it keeps.
fn answer(fake: &mut Fake, method: &Method, path: &str, body: &[u8]) -> (StatusCode, Value) {
    let not_found = || {
        let status = json!({
            "kind": "Status", "apiVersion": "v1", "status": "Failure",
            "reason": "NotFound", "code": 404, "message": "leases not found",
        });
        (StatusCode::NOT_FOUND, status)
    };
    let sent = || serde_json::from_slice::<Value>(body).expect("a JSON request body");
    match (method, path == lease_path(), &mut fake.lease) {
        (&Method::GET, true, Some(lease)) => (StatusCode::OK, lease.clone()),
        (&Method::POST, false, None) => {
            let mut lease = sent();
            lease["metadata"]["namespace"] = json!(NAMESPACE);
            fake.lease = Some(lease.clone());
            (StatusCode::CREATED, lease)
        }
        (&Method::PATCH, true, Some(lease)) => {
            // Apply and strategic-merge patches of a Lease's scalar fields: set, or
            // remove on null.
            if let Some(fields) = sent()["spec"].as_object() {
                let spec = lease["spec"].as_object().cloned().unwrap_or_default();
                let mut spec = spec;
                for (field, value) in fields {
                    if value.is_null() {
                        spec.remove(field);
                    } else {
                        spec.insert(field.clone(), value.clone());
                    }
                }
                lease["spec"] = Value::Object(spec);
            }
            let lease = lease.clone();
            fake.last_patch = Some(Instant::now());
            (StatusCode::OK, lease)
        }
        _ => not_found(),
    }
}

/// A Lease that `holder` renewed just now.
fn lease_held_by(holder: &str) -> Value {
    json!({
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": { "name": LEASE_NAME, "namespace": NAMESPACE },
        "spec": {
            "holderIdentity": holder,
            "acquireTime": MicroTime(Timestamp::now()),
            "renewTime": MicroTime(Timestamp::now()),
            "leaseDurationSeconds": 15,
        },
    })
}

async fn lead(candidate: Candidate) -> Leadership {
    let (_trigger, shutdown) = Shutdown::channel();
    Leadership::acquire(candidate, shutdown)
        .await
        .expect("leader election works")
        .expect("this replica leads")
}

#[tokio::test(start_paused = true)]
async fn a_leader_that_cannot_renew_stops_leading_within_the_renew_deadline() {
    let (api, candidate) = start("replica-a", None);
    let leadership = lead(candidate).await;
    let lost = leadership.lost();
    tokio::pin!(lost);

    // While the API server answers, the Lease is renewed and leadership holds.
    let held = tokio::time::timeout(Duration::from_secs(60), &mut lost).await;
    assert!(
        held.is_err(),
        "leadership ended although renewals succeeded"
    );

    // Then the API server stops answering: the next renewal hangs.
    api.lock().hang = Hang::Everything;
    let reason = tokio::time::timeout(Duration::from_secs(60), &mut lost)
        .await
        .expect("leadership never ended although the Lease was not renewed");
    let last_renewal = api.lock().last_patch.expect("renewals were accepted");
    let led_after_renewal = Instant::now() - last_renewal;
    assert!(
        led_after_renewal <= RENEW_DEADLINE,
        "led for {led_after_renewal:?} after the last renewal"
    );
    assert!(reason.to_string().contains("not renewed"), "{reason}");
}

#[tokio::test(start_paused = true)]
async fn a_restarted_replica_leads_only_once_it_renewed_the_lease_it_still_holds() {
    // The Lease still names this replica, from before a restart.
    let (api, candidate) = start("replica-a", Some(lease_held_by("replica-a")));
    api.lock().hang = Hang::Patches;
    let (_trigger, shutdown) = Shutdown::channel();
    let acquiring = tokio::spawn(Leadership::acquire(candidate, shutdown));

    tokio::time::sleep(Duration::from_secs(30)).await;
    assert!(
        !acquiring.is_finished(),
        "led on a Lease it could not renew (when did it last renew it?)"
    );

    api.answer_again();
    let leadership = tokio::time::timeout(Duration::from_secs(60), acquiring)
        .await
        .expect("leads once the Lease is renewed")
        .expect("the election task")
        .expect("leader election works");
    assert!(leadership.is_some());
}

#[tokio::test(start_paused = true)]
async fn the_leader_election_role_grants_exactly_the_verbs_the_election_uses() {
    let (api, candidate) = start("replica-a", None);
    let leadership = lead(candidate).await;
    tokio::time::sleep(Duration::from_secs(10)).await;
    leadership.release().await;
    let fake = api.lock();
    let holder = fake
        .lease
        .as_ref()
        .map(|lease| lease["spec"]["holderIdentity"].clone());
    assert_eq!(holder, Some(Value::Null), "the Lease was not released");

    // The Role every project gets from `rsbuilder init` (its template's one placeholder
    // is a label value).
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../templates/init/config/rbac/leader_election_role.yaml.hbs"
    );
    let text = std::fs::read_to_string(path).expect("leader_election_role.yaml.hbs");
    let text = text.replace("{{project_name}}", "project");
    let role: Role = serde_yaml::from_str(&text).expect("a Role");
    let granted: BTreeSet<String> = role
        .rules
        .unwrap_or_default()
        .into_iter()
        .filter(|rule| rule.resources.iter().flatten().any(|r| r == "leases"))
        .flat_map(|rule| rule.verbs)
        .collect();
    assert_eq!(
        granted, fake.verbs,
        "granted verbs (left) and used verbs (right) differ"
    );
}

#[tokio::test]
async fn the_election_client_gives_up_on_an_api_server_that_does_not_answer() {
    // An API server that accepts connections and never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let addr = listener.local_addr().expect("a bound address");
    tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((connection, _)) = listener.accept().await {
            open.push(connection);
        }
    });
    let url = format!("http://{addr}").parse().expect("a URL");
    let candidate =
        Candidate::new(kube::Config::new(url), LEASE_NAME, NAMESPACE).expect("a candidate");
    let leases: Api<Lease> = Api::namespaced(candidate.client, NAMESPACE);

    let started = std::time::Instant::now();
    let limit = REQUEST_TIMEOUT + Duration::from_secs(5);
    let read = tokio::time::timeout(limit, leases.get(LEASE_NAME)).await;
    let read = read.expect("the request hangs with the API server");
    assert!(read.is_err(), "a silent API server answered");
    assert!(
        started.elapsed() >= REQUEST_TIMEOUT,
        "gave up before the timeout"
    );
}
