// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The ServiceMonitor controller: reacts to every ServiceMonitor (monitoring.coreos.com/v1), a
//! kind this project reads but does not own. The cluster must have its
//! CustomResourceDefinition: its owner installs it, this project does not.
//!
//! Only spec changes (a new `metadata.generation`) trigger a reconciliation: status
//! updates, which Kubernetes makes often, do not. Every ServiceMonitor is reconciled again at
//! each [`RESYNC`].

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use kube::Api;
use kube::core::PartialObjectMeta;
use kube::runtime::controller::Action;

use rsbuilder_runtime::controller::{self, Reconciler};
use rsbuilder_runtime::server::Readiness;
use rsbuilder_runtime::shutdown::Shutdown;

use super::{Context, Run};
use crate::api::external::monitoring_coreos_com::v1::service_monitor::ServiceMonitor;

/// This controller's name in logs and metrics.
pub const NAME: &str = "servicemonitor";
/// How often every ServiceMonitor is reconciled again, all at once, to repair drift that no event
/// reported: controller-runtime's `SyncPeriod`.
pub const RESYNC: Duration = Duration::from_secs(5 * 60);
/// How many ServiceMonitors are reconciled at once, at most; one ServiceMonitor is never reconciled
/// twice at once. Four, where controller-runtime's `MaxConcurrentReconciles` is one: a
/// reconciliation spends its time waiting on the API server, and one at a time leaves a
/// burst of new objects queued behind round trips (`make bench-scale`: 10,000 new objects
/// Ready in 1.5 to 2 times a plain client's time with one). Set it to one where
/// reconciliations of different objects must not overlap.
pub const CONCURRENCY: u16 = 4;

/// This controller, as `controllers::all()` lists it.
pub const CONTROLLER: (&str, Run) = (NAME, run);

/// This controller as the runtime drives it: woken by spec changes only and by the resync,
/// retried with backoff.
pub static RECONCILER: Reconciler = Reconciler::new(NAME)
    .resync(RESYNC)
    .concurrency(CONCURRENCY);

/// What the watch and the cache hold of each ServiceMonitor: its metadata, which is all the
/// scaffolded `reconcile` reads, as controller-runtime's `OnlyMetadata` watches. The
/// servicemonitors of a busy cluster take little memory so.
/// (`Api<PartialObjectMeta<_>>` asks the API server for metadata only.)
/// TODO(user): when `reconcile` needs the spec or the status, make this `ServiceMonitor`.
pub type Watched = PartialObjectMeta<ServiceMonitor>;

// What this controller may do. `make manifests` (`rsbuilder generate rbac`) collects these
// lines into config/rbac/role.yaml; add verbs (and lines) as the controller does more.
// The watch lists and watches servicemonitors.
// +rsbuilder:rbac:groups=monitoring.coreos.com,resources=servicemonitors,verbs=list;watch

/// Why a reconciliation failed. Every failure is retried, see [`error_policy`].
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A request to the API server failed.
    #[error("Kubernetes API request failed: {0}")]
    Kube(#[from] kube::Error),
}

/// Runs the controller until `shutdown` resolves, letting running reconciliations finish.
/// `synced` is set once its watch has listed every object (its cache is in sync).
pub fn run(ctx: Context, synced: Readiness, shutdown: Shutdown) -> BoxFuture<'static, ()> {
    let api: Api<Watched> = controller::api(ctx.client.clone(), ctx.namespace.as_deref());
    let watch = RECONCILER.controller(api, &ctx, synced);
    Box::pin(RECONCILER.run(watch, reconcile, error_policy, ctx, shutdown))
}

/// Reconciles one ServiceMonitor.
///
/// `object` comes from the controller's cache, which can trail the API server by a moment:
/// read what must be current from the API server, and write with server-side apply or
/// conditional patches rather than from the cached copy.
///
/// TODO(user): act on the ServiceMonitor. Objects this controller creates for it get
/// `object.controller_owner_ref(&())` as owner reference, and are created or changed with
/// `rsbuilder_runtime::controller::children::apply`.
/// ServiceMonitor belongs to whoever installed its CRD: leave its status to the owner's controllers.
pub async fn reconcile(object: Arc<Watched>, ctx: Arc<Context>) -> Result<Action, Error> {
    RECONCILER
        .track(ctx.as_ref(), object.as_ref(), async {
            // Nothing to wait for: the next look comes with the resync of every ServiceMonitor.
            Ok(Action::await_change())
        })
        .await
}

/// Retries a failed reconciliation of `object`: 5 seconds after its first failure, twice
/// as long after each further failure in a row, at most 5 minutes.
pub fn error_policy(object: Arc<Watched>, error: &Error, ctx: Arc<Context>) -> Action {
    RECONCILER.retry(ctx.as_ref(), object.as_ref(), error)
}
