// SPDX-License-Identifier: Apache-2.0

//! The ConfigMap controller: reacts to every ConfigMap (core/v1), a
//! built-in kind, which this project reads but does not own.
//!
//! Only spec changes (a new `metadata.generation`) trigger a reconciliation: status
//! updates, which Kubernetes makes often, do not.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::core::PartialObjectMeta;
use kube::runtime::controller::{self, Action, Controller};
use kube::runtime::{WatchStreamExt, predicates, reflector, watcher};
use kube::{Api, ResourceExt};
use tracing::{debug, warn};

use rsbuilder_runtime::controller::log_outcome;
use rsbuilder_runtime::server::Readiness;
use rsbuilder_runtime::shutdown::Shutdown;

use super::backoff::Backoff;

/// The Secrets of the cluster (no RBAC marker: seeded for `rsbuilder lint`).
pub fn secrets(client: kube::Client) -> kube::Api<k8s_openapi::api::core::v1::Secret> {
    kube::Api::all(client)
}
use super::{Context, Run};

/// This controller's name in logs and metrics.
pub const NAME: &str = "configmap";
/// How long a ConfigMap waits before it is reconciled again, to repair drift that no event
/// reported.
pub const RESYNC: Duration = Duration::from_secs(5 * 60);
/// How many ConfigMaps are reconciled at once, at most; one ConfigMap is never reconciled
/// twice at once. One, like controller-runtime's `MaxConcurrentReconciles` default: raise it
/// when reconciliations spend their time waiting on slow calls.
pub const CONCURRENCY: u16 = 1;

/// This controller, as `controllers::all()` lists it.
pub const CONTROLLER: (&str, Run) = (NAME, run);

/// What the watch and the cache hold of each ConfigMap: its metadata, which is all the
/// scaffolded `reconcile` reads, as controller-runtime's `OnlyMetadata` watches. The
/// configmaps of a busy cluster take little memory so.
/// (`Api<PartialObjectMeta<_>>` asks the API server for metadata only.)
/// TODO(user): when `reconcile` needs the spec or the status, make this `ConfigMap`.
pub type Watched = PartialObjectMeta<ConfigMap>;

/// This controller's retry counts (after 5 seconds, doubling up to 5 minutes), kept in
/// the manager's context.
fn retries(ctx: &Context) -> Arc<Backoff> {
    ctx.state(NAME)
}

// What this controller may do. `make manifests` (`rsbuilder generate rbac`) collects these
// lines into config/rbac/role.yaml; add verbs (and lines) as the controller does more.
// The watch lists and watches configmaps.
// +rsbuilder:rbac:groups="",resources=configmaps,verbs=list;watch

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
    Box::pin(async move {
        let api: Api<Watched> = match &ctx.namespace {
            Some(namespace) => Api::namespaced(ctx.client.clone(), namespace),
            None => Api::all(ctx.client.clone()),
        };
        // The controller's cache: `reconcile` receives each ConfigMap ([`Watched`]) from it.
        let (store, writer) = reflector::store();
        // A reconciliation follows each change of spec (a new generation).
        let trigger = predicates::generation;
        let retries = retries(&ctx);
        let triggers = watcher(api, watcher::Config::default())
            .default_backoff()
            // The cache keeps what `reconcile` reads: not `managedFields`, often the largest
            // part of an object. TODO(user): once whole objects are watched, drop more here
            // (`status`, say) if `reconcile` never reads it.
            .modify(|object| object.managed_fields_mut().clear())
            .reflect(writer)
            .inspect_ok(move |event| {
                retries.follow(event);
                if matches!(event, watcher::Event::InitDone) {
                    synced.set(true);
                }
            })
            .applied_objects()
            .predicate_filter(trigger, Default::default());
        let config = controller::Config::default().concurrency(CONCURRENCY);
        Controller::for_stream(triggers, store)
            .with_config(config)
            .graceful_shutdown_on(shutdown.wait())
            .run(reconcile, error_policy, Arc::new(ctx))
            .for_each(|result| async move { log_outcome("ConfigMap", result) })
            .await;
    })
}

/// Reconciles one ConfigMap.
///
/// `object` comes from the controller's cache, which can trail the API server by a moment:
/// read what must be current from the API server, and write with server-side apply or
/// conditional patches rather than from the cached copy.
///
/// TODO(user): act on the ConfigMap. Objects this controller creates for it get
/// `object.controller_owner_ref(&())` as owner reference, are created only after a read
/// from the API server shows they are missing, and are changed with server-side apply.
/// ConfigMap belongs to Kubernetes: leave its status to Kubernetes' own controllers.
pub async fn reconcile(
    object: Arc<Watched>, // from the controller's cache, see above
    ctx: Arc<Context>,
) -> Result<Action, Error> {
    let _timer = ctx.metrics.reconcile_started(NAME);
    debug!(name = %object.name_any(), namespace = ?object.namespace(), "reconciling ConfigMap");
    retries(&ctx).succeeded(object.as_ref());
    Ok(Action::requeue(RESYNC))
}

/// Decides when a failed reconciliation of `object` is retried: 5 seconds after its first
/// failure, twice as long after each further failure in a row, at most 5 minutes.
pub fn error_policy(
    object: Arc<Watched>,
    error: &Error, // what `reconcile` returned
    ctx: Arc<Context>,
) -> Action {
    ctx.metrics.reconcile_failed(NAME);
    let delay = retries(&ctx).failed(object.as_ref());
    warn!(name = %object.name_any(), %error, retry_in = ?delay, "reconcile failed");
    Action::requeue(delay)
}
