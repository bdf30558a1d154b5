//! Leader election on a real API server, as the manager's user: the leader-election Role
//! that `rsbuilder init` writes into `config/rbac` is all it needs. The contract (client-go's leader election,
//! https://pkg.go.dev/k8s.io/client-go/tools/leaderelection): one candidate holds the
//! Lease; a leader that releases it is replaced at once; a leader that dies without
//! releasing it is replaced once the Lease expires ([`LEASE_DURATION`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context as TaskContext, Poll};
use std::time::{Duration, Instant};

use axum::body::{Bytes, HttpBody};
use futures::future::BoxFuture;
use http::{Request, Response};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::SignedDuration;
use k8s_openapi::serde::Deserialize;
use kube::client::{Body, ClientBuilder};
use tower::{Layer, Service};

use rsbuilder_runtime::leader::{Candidate, Leadership};
use rsbuilder_runtime::leader::{LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD};
use rsbuilder_runtime::shutdown::Shutdown;

use rsbuilder_runtime::testing::control_plane::manager_user;

use crate::control_plane;

/// The Lease the replicas of these tests run for, as a project's `LEADER_ELECTION_LEASE`.
const LEASE: &str = "envtest-leader.example.com";

/// Grants the manager's user of `namespace` the leader-election Role, and nothing else.
async fn grant_leader_election(namespace: &str) {
    control_plane()
        .grant(
            &manager_user(namespace),
            namespace,
            "config/rbac/leader_election_role.yaml",
        )
        .await;
}

async fn candidate(namespace: &str) -> Candidate {
    let config = control_plane().config(&manager_user(namespace), &[]).await;
    Candidate::new(config, LEASE, namespace).expect("a candidate")
}

/// Runs for leadership until elected, in a runtime of its own, as another process would:
/// killing it (`shutdown_background`) stops its tasks without releasing anything.
fn replica(
    namespace: &str,
) -> (
    tokio::runtime::Runtime,
    tokio::sync::oneshot::Receiver<Leadership>,
) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let (elected, leadership) = tokio::sync::oneshot::channel();
    let namespace = namespace.to_string();
    runtime.spawn(async move {
        let candidate = candidate(&namespace).await;
        let (_never, shutdown) = Shutdown::channel();
        if let Ok(Some(leadership)) = Leadership::acquire(candidate, shutdown).await {
            let _ = elected.send(leadership);
            std::future::pending::<()>().await;
        }
    });
    (runtime, leadership)
}

async fn elected_within(
    leadership: &mut tokio::sync::oneshot::Receiver<Leadership>,
    limit: Duration,
) -> Option<(Leadership, Duration)> {
    let started = Instant::now();
    tokio::time::timeout(limit, leadership)
        .await
        .ok()
        .and_then(Result::ok)
        .map(|leadership| (leadership, started.elapsed()))
}

#[tokio::test]
#[ignore = "needs kube-apiserver and etcd (KUBEBUILDER_ASSETS); run with --include-ignored"]
async fn one_replica_leads_and_another_takes_over_when_it_goes() {
    let namespace = control_plane().namespace("leader").await;
    grant_leader_election(&namespace).await;

    let (first_runtime, mut first) = replica(&namespace);
    let (_first, _) = elected_within(&mut first, LEASE_DURATION)
        .await
        .expect("the first replica is elected");
    let (second_runtime, mut second) = replica(&namespace);
    assert!(
        elected_within(&mut second, 3 * RETRY_PERIOD)
            .await
            .is_none(),
        "two replicas lead at once"
    );

    // Killed without releasing the Lease: the other takes over once it expires.
    first_runtime.shutdown_background();
    let (second_leads, waited) = elected_within(&mut second, LEASE_DURATION + 2 * RETRY_PERIOD)
        .await
        .expect("the second replica takes over the expired Lease");
    // The last renewal was at most a retry period before the kill.
    assert!(
        waited >= LEASE_DURATION - 2 * RETRY_PERIOD,
        "taken over after {waited:?}, before the Lease expired"
    );

    // Released: a third replica is elected at once.
    let (third_runtime, mut third) = replica(&namespace);
    second_leads.release().await;
    let (_third, waited) = elected_within(&mut third, 3 * RETRY_PERIOD)
        .await
        .expect("a released Lease is taken at once");
    assert!(waited < LEASE_DURATION, "{waited:?}");
    second_runtime.shutdown_background();
    third_runtime.shutdown_background();
}

/// A replica's view of time, as its client sees the API server: `ahead` shifts the
/// `renewTime` of every Lease it reads back by that much (a clock ahead finds every
/// renewal older), and `stalled` holds its requests, as a partition would.
#[derive(Clone, Default)]
struct Clock {
    ahead: Duration,
    stalled: Arc<AtomicBool>,
}

impl<S> Layer<S> for Clock {
    type Service = ClockService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        ClockService {
            inner,
            clock: self.clone(),
        }
    }
}

struct ClockService<S> {
    inner: S,
    clock: Clock,
}

impl<S, B> Service<Request<Body>> for ClockService<S>
where
    S: Service<Request<Body>, Response = Response<B>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    B: HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<Response<Body>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        if self.clock.stalled.load(Ordering::SeqCst) {
            return Box::pin(std::future::pending());
        }
        let response = self.inner.call(request);
        let clock = self.clock.clone();
        Box::pin(async move { Ok(clock.shift(response.await?).await) })
    }
}

impl Clock {
    async fn shift<B>(&self, response: Response<B>) -> Response<Body>
    where
        B: HttpBody<Data = Bytes> + Send + 'static,
        B::Error: Into<axum::BoxError>,
    {
        let (parts, body) = response.into_parts();
        let body = axum::body::to_bytes(axum::body::Body::new(body), usize::MAX).await;
        let bytes = body.unwrap_or_default();
        let mut lease: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
        let renewed = lease.pointer_mut("/spec/renewTime");
        let read = renewed.as_ref().map(|time| MicroTime::deserialize(&**time));
        let (Some(renewed), Some(Ok(MicroTime(time)))) = (renewed, read) else {
            return Response::from_parts(parts, Body::from(bytes));
        };
        let ahead = SignedDuration::try_from(self.ahead).expect("a skew of seconds");
        *renewed = serde_json::to_value(MicroTime(time - ahead)).expect("a timestamp");
        let bytes = serde_json::to_vec(&lease).expect("a Lease");
        Response::from_parts(parts, Body::from(bytes))
    }
}

/// A candidate whose client sees time through `clock`.
async fn candidate_with(namespace: &str, clock: &Clock) -> Candidate {
    let config = control_plane().config(&manager_user(namespace), &[]).await;
    let Candidate {
        renewals,
        namespace,
        identity,
        ..
    } = Candidate::new(config.clone(), LEASE, namespace).expect("a candidate");
    let client = ClientBuilder::try_from(config).expect("a client");
    let client = client.with_layer(&renewals).with_layer(clock).build();
    Candidate {
        client,
        renewals,
        namespace,
        identity,
    }
}

/// How long two replicas lead at once (or, negative, how long none leads) when a leader
/// stops reaching the API server and the other replica's clock is `ahead` of its own.
async fn overlap(ahead: Duration) -> f64 {
    let namespace = control_plane()
        .namespace(&format!("skew-{}", ahead.as_secs()))
        .await;
    grant_leader_election(&namespace).await;
    let (_trigger, shutdown) = Shutdown::channel();
    let partitioned = Clock::default();
    let leader = candidate_with(&namespace, &partitioned).await;
    let leader = Leadership::acquire(leader, shutdown.clone()).await;
    let leader = leader.expect("an election").expect("a leader");
    let skewed = Clock {
        ahead,
        ..Clock::default()
    };
    let other = candidate_with(&namespace, &skewed).await;
    let other = tokio::spawn(async move {
        let elected = Leadership::acquire(other, shutdown).await;
        (Instant::now(), elected)
    });
    tokio::time::sleep(3 * RETRY_PERIOD).await;
    let leads = other.is_finished();
    assert!(!leads, "two replicas lead while the leader renews");

    partitioned.stalled.store(true, Ordering::SeqCst);
    leader.lost().await;
    let stopped = Instant::now();
    let (elected_at, elected) = other.await.expect("a candidate that does not panic");
    let elected = elected.expect("an election");
    assert!(elected.is_some(), "the other replica does not lead");
    if elected_at < stopped {
        (stopped - elected_at).as_secs_f64()
    } else {
        -(elected_at - stopped).as_secs_f64()
    }
}

/// Leader election assumes clocks that agree within [`LEASE_DURATION`] − [`RENEW_DEADLINE`]
/// (client-go's timing leaves 5 s): a partitioned leader stops leading by its own
/// monotonic clock, another replica takes over by its wall clock and the Lease's
/// `renewTime`. Measured here: within that skew no two replicas lead at once; beyond it,
/// they do.
#[tokio::test]
#[ignore = "needs kube-apiserver and etcd (KUBEBUILDER_ASSETS); run with --include-ignored"]
async fn replicas_whose_clocks_differ_by_less_than_the_margin_never_lead_at_once() {
    let margin = LEASE_DURATION - RENEW_DEADLINE;
    let within = margin - RETRY_PERIOD;
    let beyond = margin + 2 * RETRY_PERIOD;
    let (agree, near, far) =
        tokio::join!(overlap(Duration::ZERO), overlap(within), overlap(beyond));
    println!(
        "both lead for (negative: none leads for) {agree:.1} s with clocks that agree, \
         {near:.1} s with one {within:?} ahead, {far:.1} s with one {beyond:?} ahead"
    );
    assert!(agree < 0.0, "clocks that agree: both led {agree:.1} s");
    assert!(near < 0.0, "{within:?} ahead: both led {near:.1} s");
    assert!(far > 0.0, "{beyond:?} ahead: never both led");
}
