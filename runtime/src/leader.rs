//! Leader election through a `coordination.k8s.io` Lease, so that several replicas can
//! run and only one reconciles.
//!
//! kube-lease-manager takes and renews the Lease. It says when another replica holds it,
//! but not when renewing fails: it logs the error and retries, and this replica would go
//! on reconciling after its Lease expired and another replica took over. So this module
//! also watches the renewals: every PATCH of the Lease that the API server accepts renews
//! it, and a leader whose last accepted renewal was sent more than [`RENEW_DEADLINE`] ago
//! stops leading. The timing is client-go's, which controller-runtime uses: a 15 s Lease,
//! a 10 s renew deadline, a try every 2 s.
//!
//! Why that is safe: another replica takes the Lease once, by its own clock, the Lease's
//! `renewTime` is [`LEASE_DURATION`] old. A renewal's `renewTime` is read from the clock
//! just before its request is sent, and the deadline counts from the moment the request
//! was sent, on this process's monotonic clock (wall clocks jump). So this replica stops
//! leading [`RENEW_DEADLINE`] after the `renewTime` the others see, plus the moment it
//! took to send the request: [`LEASE_DURATION`] − [`RENEW_DEADLINE`] = 5 s are left for
//! that moment, for clock skew between nodes and for stopping. Should kube-lease-manager
//! ever renew by another request than PATCH, no renewal would be seen and this replica
//! would never lead: the check fails closed.

use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context as _, anyhow};
use futures::future::BoxFuture;
use http::{Method, Request, Response};
use kube::Client;
use kube::client::ClientBuilder;
use kube_lease_manager::{LeaseManager, LeaseManagerBuilder, LeaseManagerError, LeaseParams};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tower::{Layer, Service};
use tracing::{info, warn};

use crate::shutdown::Shutdown;

/// How long the Lease is valid after its last renewal.
pub const LEASE_DURATION: Duration = Duration::from_secs(15);
/// How long the leader goes on leading since it sent its last accepted renewal.
pub const RENEW_DEADLINE: Duration = Duration::from_secs(10);
/// How often the leader renews the Lease.
pub const RETRY_PERIOD: Duration = Duration::from_secs(2);
/// How long one request of the election may take: a renewal that hangs is given up in
/// time to try again before the renew deadline.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// A replica that runs for leadership.
pub struct Candidate {
    /// A client that reports to `renewals`, see [`Renewals`].
    pub client: Client,
    /// The renewals of the Lease that the API server accepted.
    pub renewals: Renewals,
    /// Where the Lease lives.
    pub namespace: String,
    /// Who this replica is, in the Lease's `holderIdentity`.
    pub identity: String,
}

impl Candidate {
    /// A candidate for the Lease `lease` in `namespace`, named after its pod (`HOSTNAME`),
    /// whose client has [`REQUEST_TIMEOUT`] for connecting, sending and reading. Every
    /// replica of one manager names the same Lease, and no other manager does.
    pub fn new(config: kube::Config, lease: &str, namespace: &str) -> anyhow::Result<Self> {
        let mut config = config;
        config.connect_timeout = Some(REQUEST_TIMEOUT);
        config.write_timeout = Some(REQUEST_TIMEOUT);
        config.read_timeout = Some(REQUEST_TIMEOUT);
        // Count the read timeout from the request, not from when a pooled connection idled.
        config.reset_reader_on_write = true;
        let renewals = Renewals::new(lease);
        let client = ClientBuilder::try_from(config)
            .context("cannot configure the leader-election client")?
            .with_layer(&renewals)
            .build();
        // Outside a pod, this process and the moment it started tell replicas apart.
        let started = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let identity = std::env::var("HOSTNAME").unwrap_or_else(|_| {
            let program = std::env::current_exe().ok();
            let name = program
                .as_deref()
                .and_then(|path| path.file_name())
                .map_or("manager".into(), |name| name.to_string_lossy());
            format!("{name}-{}-{}", std::process::id(), started.as_nanos())
        });
        Ok(Self {
            client,
            renewals,
            namespace: namespace.to_string(),
            identity,
        })
    }
}

/// Held leadership; the Lease is renewed in the background until released.
pub struct Leadership {
    lease: Arc<str>,
    state: watch::Receiver<bool>,
    renewed: watch::Receiver<Option<Instant>>,
    watcher: JoinHandle<Result<LeaseManager, LeaseManagerError>>,
}

impl Leadership {
    /// Waits until this replica holds the Lease and renewed it, or returns `None` when
    /// shutdown comes first.
    pub async fn acquire(candidate: Candidate, shutdown: Shutdown) -> anyhow::Result<Option<Self>> {
        let Candidate {
            client,
            renewals,
            namespace,
            identity,
        } = candidate;
        // kube-lease-manager renews `grace` seconds before the Lease would expire.
        let grace = LEASE_DURATION - RETRY_PERIOD;
        let params = LeaseParams::new(identity, LEASE_DURATION.as_secs(), grace.as_secs());
        let lease = renewals.lease.clone();
        let manager = LeaseManagerBuilder::new(client, &*lease)
            .with_namespace(&namespace)
            .with_parameters(params)
            .build()
            .await
            .with_context(|| {
                format!("cannot prepare the leader-election Lease {namespace}/{lease}")
            })?;
        let (state, watcher) = manager.watch().await;
        let mut leadership = Self {
            lease: lease.clone(),
            state,
            renewed: renewals.sent.subscribe(),
            watcher,
        };
        info!(%lease, %namespace, "waiting for leadership");
        tokio::select! {
            elected = leadership.elected() => {
                if elected {
                    info!(%lease, "became the leader");
                    return Ok(Some(leadership));
                }
            }
            () = shutdown.wait() => {}
        }
        // Closing the channel makes the watcher release the Lease and stop.
        drop(leadership.state);
        match leadership.watcher.await {
            Ok(Ok(_)) => Ok(None),
            Ok(Err(error)) => Err(error).context("leader election failed"),
            Err(error) => Err(error).context("the leader-election task panicked"),
        }
    }

    /// Resolves `true` once the Lease is ours and was renewed within the deadline (a
    /// restarted replica may find the Lease still naming it), `false` if the watcher
    /// stopped.
    async fn elected(&mut self) -> bool {
        loop {
            let leader = *self.state.borrow_and_update();
            let fresh = self
                .renewed
                .borrow_and_update()
                .is_some_and(|sent| sent.elapsed() < RENEW_DEADLINE);
            if leader && fresh {
                return true;
            }
            tokio::select! {
                changed = self.state.changed() => if changed.is_err() { return false },
                changed = self.renewed.changed() => if changed.is_err() { return false },
            }
        }
    }

    /// Resolves, with the reason, when this replica no longer leads: another replica holds
    /// the Lease, the election stopped, or no renewal was accepted in time.
    pub fn lost(&self) -> impl Future<Output = anyhow::Error> + Send + 'static {
        let mut state = self.state.clone();
        let mut renewed = self.renewed.clone();
        let lease = self.lease.clone();
        async move {
            loop {
                let sent = *renewed.borrow_and_update();
                let Some(deadline) = sent.map(|sent| sent + RENEW_DEADLINE) else {
                    return anyhow!("the Lease {lease} was never renewed");
                };
                if Instant::now() >= deadline {
                    return anyhow!(
                        "the Lease {lease} was not renewed within {} s",
                        RENEW_DEADLINE.as_secs()
                    );
                }
                tokio::select! {
                    held = state.wait_for(|leader| !*leader) => {
                        return match held {
                            Ok(_) => anyhow!("another replica holds the Lease {lease}"),
                            Err(_) => anyhow!("leader election stopped"),
                        };
                    }
                    // Checks again: a renewal may have come in meanwhile.
                    () = tokio::time::sleep_until(deadline) => {}
                    changed = renewed.changed() => if changed.is_err() {
                        return anyhow!("leader election stopped");
                    },
                }
            }
        }
    }

    /// Gives the Lease up so that another replica takes over at once.
    pub async fn release(self) {
        drop(self.state);
        match tokio::time::timeout(RENEW_DEADLINE, self.watcher).await {
            Ok(Ok(Ok(_))) => info!(lease = %self.lease, "released leadership"),
            Ok(Ok(Err(error))) => warn!(%error, "could not release the leader-election Lease"),
            Ok(Err(error)) => warn!(%error, "the leader-election task panicked"),
            Err(_) => warn!("releasing the leader-election Lease timed out"),
        }
    }
}

/// When the API server last accepted a renewal of the Lease: the moment that renewal was
/// sent. As a [`Layer`] over the client's service, it watches the client's requests.
#[derive(Clone, Debug)]
pub struct Renewals {
    lease: Arc<str>,
    sent: watch::Sender<Option<Instant>>,
}

impl Renewals {
    /// Watches the renewals of the Lease named `lease`.
    pub fn new(lease: &str) -> Self {
        Self {
            lease: lease.into(),
            sent: watch::Sender::new(None),
        }
    }

    fn record(&self, sent: Instant) {
        self.sent.send_if_modified(|last| {
            let newer = last.is_none_or(|last| last < sent);
            if newer {
                *last = Some(sent);
            }
            newer
        });
    }
}

impl<S> Layer<S> for Renewals {
    type Service = RecordRenewals<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RecordRenewals {
            inner,
            renewals: self.clone(),
        }
    }
}

/// The service of [`Renewals`]: records every successful PATCH of the Lease.
#[derive(Clone, Debug)]
pub struct RecordRenewals<S> {
    inner: S,
    renewals: Renewals,
}

impl<S, B, R> Service<Request<B>> for RecordRenewals<S>
where
    S: Service<Request<B>, Response = Response<R>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<Self::Response, Self::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let renewal = (request.method() == Method::PATCH
            && request
                .uri()
                .path()
                .ends_with(&format!("/leases/{}", self.renewals.lease)))
        .then(|| (self.renewals.clone(), Instant::now()));
        let response = self.inner.call(request);
        Box::pin(async move {
            let response = response.await?;
            if let Some((renewals, sent)) = renewal
                && response.status().is_success()
            {
                renewals.record(sent);
            }
            Ok(response)
        })
    }
}
