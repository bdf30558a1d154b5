// Copyright Example Org
// SPDX-License-Identifier: MIT

//! The Frigate controller: makes the cluster match each Frigate's spec ([`converge`]) and
//! reports the outcome in its status.
//!
//! It watches Frigate at its storage version, `crate::api::ship::frigate`.
//! The runtime's [`Reconciler`] does what every controller does: it is woken only by spec
//! changes, never by status writes (its own included), writes
//! `Ready`/`Progressing`/`Degraded` conditions through the status subresource, emits events
//! best effort and retries failures with backoff.
//!
//! Frigates carry no finalizer: Kubernetes deletes a Frigate at once, and its children
//! (through their owner references) after it, whether or not this manager runs. A kind that
//! holds something outside the cluster, which must be released before it goes, needs a
//! finalizer: see `rsbuilder create api --help` (`--finalizer`).

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use kube::runtime::controller::Action;
use kube::{Api, ResourceExt};
use tracing::debug;

use rsbuilder_runtime::controller::{self, Outcome, Reconciler, children};
use rsbuilder_runtime::server::Readiness;
use rsbuilder_runtime::shutdown::Shutdown;

use super::{Context, Run};
use crate::api::ship::frigate::Frigate;

/// This controller's name in logs and metrics.
pub const NAME: &str = "frigate";
/// Owner of the status fields this controller writes with server-side apply.
pub const FIELD_MANAGER: &str = "frigate-controller";
/// How often every Frigate is reconciled again, all at once, to repair drift that no
/// event reported: controller-runtime's `SyncPeriod`. A `Ready` Frigate waits for it in no
/// queue of its own.
pub const RESYNC: Duration = Duration::from_secs(5 * 60);
/// How long a Frigate on its way ([`Outcome::Progressing`]) waits before it is looked at
/// again.
pub const POLL: Duration = Duration::from_secs(15);
/// How many Frigates are reconciled at once, at most; one Frigate is never reconciled
/// twice at once. Four, where controller-runtime's `MaxConcurrentReconciles` is one: a
/// reconciliation spends its time waiting on the API server, and one at a time leaves a
/// burst of new objects queued behind round trips (`make bench-scale`: 10,000 new objects
/// Ready in 1.5 to 2 times a plain client's time with one). Set it to one where
/// reconciliations of different objects must not overlap.
pub const CONCURRENCY: u16 = 4;

/// This controller, as `controllers::all()` lists it.
pub const CONTROLLER: (&str, Run) = (NAME, run);

/// This controller as the runtime drives it.
pub static RECONCILER: Reconciler = Reconciler::new(NAME)
    .field_manager(FIELD_MANAGER)
    .requeue(RESYNC, POLL)
    .concurrency(CONCURRENCY);

// What this controller may do, and no more. `make manifests` (`rsbuilder generate rbac`)
// collects these lines into config/rbac/role.yaml; add one for every kind the controller
// touches. A kind of child written by `children::apply` needs `create;patch`, and `delete`
// too where the OwnerReferencesPermissionEnforcement admission plugin guards owner
// references; `list;watch` when `children::owned` watches it.
// The watch lists and watches frigates.
// +rsbuilder:rbac:groups=ship.example.org,resources=frigates,verbs=list;watch
// The status is written by server-side apply, a PATCH.
// +rsbuilder:rbac:groups=ship.example.org,resources=frigates/status,verbs=patch
// kube's Recorder creates events.k8s.io/v1 Events, and patches them when they repeat.
// +rsbuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

/// Why a reconciliation failed. Every failure is retried, see [`error_policy`].
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A request to the API server failed.
    #[error("Kubernetes API request failed: {0}")]
    Kube(#[from] kube::Error),
    /// A child could not be created or updated.
    #[error(transparent)]
    Child(#[from] children::Error),
    /// The runtime's part failed: the status, the finalizer.
    #[error(transparent)]
    Controller(#[from] controller::Error),
}

/// Runs the controller until `shutdown` resolves, letting running reconciliations finish.
/// `synced` is set once its watch has listed every object (its cache is in sync).
pub fn run(ctx: Context, synced: Readiness, shutdown: Shutdown) -> BoxFuture<'static, ()> {
    let namespace = ctx.namespace.as_deref();
    let api: Api<Frigate> = controller::api(ctx.client.clone(), namespace);
    let watch = RECONCILER.controller(api, &ctx, synced);
    // TODO(user): for each kind of child, `let watch = children::owned::<Child, _>(watch,
    // ctx.client.clone(), namespace);`, so that a change of a child triggers a
    // reconciliation of its owner. It watches the children's metadata only, and caches
    // none: the cache holds the watched kind alone, in a compact form of its JSON without
    // `managedFields` or kubectl's last-applied copy (`controller::Cached`), which each
    // reconciliation reads back.
    Box::pin(RECONCILER.run(watch, reconcile, error_policy, ctx, shutdown))
}

/// Reconciles one Frigate.
pub async fn reconcile(object: Arc<Frigate>, ctx: Arc<Context>) -> Result<Action, Error> {
    let ctx = ctx.as_ref();
    RECONCILER
        .reconcile(object, ctx, async |object| converge(object, ctx).await)
        .await
}

/// Retries a failed reconciliation of `object`: 5 seconds after its first failure, twice
/// as long after each further failure in a row, at most 5 minutes.
pub fn error_policy(object: Arc<Frigate>, error: &Error, ctx: Arc<Context>) -> Action {
    RECONCILER.retry(ctx.as_ref(), object.as_ref(), error)
}

/// Creates or updates what a Frigate stands for.
///
/// `object` comes from the controller's cache, which can trail the API server by a moment:
/// read what must be current from the API server, and write with server-side apply.
///
/// TODO(user): this is where the work goes. Build each object a Frigate needs (a child)
/// and hand it to [`children::apply`] with `FIELD_MANAGER`: it creates the child or brings
/// it up to date with one server-side apply, and makes the Frigate its owner, so that
/// Kubernetes deletes it with the Frigate. Add a `+rsbuilder:rbac` line above for each
/// kind of child, and a watch in [`run`]. Return [`Outcome::Progressing`] while a child is
/// not ready yet.
async fn converge(object: &Frigate, _ctx: &Context) -> Result<Outcome, Error> {
    debug!(name = %object.name_any(), "nothing to converge yet");
    Ok(Outcome::Ready)
}
