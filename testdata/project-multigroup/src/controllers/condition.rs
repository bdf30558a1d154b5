// Copyright Example Org
// SPDX-License-Identifier: MIT

//! The Condition controller: makes the cluster match each Condition's spec and reports the
//! outcome in its status.
//!
//! It watches Condition at its storage version, `crate::api::ship::condition`.
//! Only spec changes (a new `metadata.generation`) trigger a reconciliation: status
//! updates, this controller's own included, do not, so writing the status cannot start a
//! loop.
//!
//! Conditions carry no finalizer: Kubernetes deletes a Condition at once, and its children
//! (through their owner references) after it, whether or not this manager runs. A kind that
//! holds something outside the cluster, which must be released before it goes, needs a
//! finalizer: see `rsbuilder create api --help` (`--finalizer`).

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as metav1;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, Patch, PatchParams};
use kube::core::NamespaceResourceScope;
use kube::runtime::controller::{self, Action, Controller};
use kube::runtime::events::{Event, EventType};
use kube::runtime::{WatchStreamExt, predicates, reflector, watcher};
use kube::{Resource, ResourceExt};
use serde_json::json;
use tracing::{debug, warn};

use rsbuilder_runtime::controller::log_outcome;
use rsbuilder_runtime::server::Readiness;
use rsbuilder_runtime::shutdown::Shutdown;

use super::backoff::Backoff;
use super::per_object::PerObject;
use super::{Context, Run};
use crate::api::ship::condition::{Condition, ConditionStatus};

/// This controller's name in logs and metrics.
pub const NAME: &str = "condition";
/// Owner of the status fields this controller writes with server-side apply.
pub const FIELD_MANAGER: &str = "condition-controller";
/// How long a healthy Condition waits before it is reconciled again, to repair drift that
/// no event reported.
pub const RESYNC: Duration = Duration::from_secs(5 * 60);
/// How long a Condition on its way ([`Outcome::Progressing`]) waits before it is looked at
/// again.
pub const POLL: Duration = Duration::from_secs(15);
/// How many Conditions are reconciled at once, at most; one Condition is never reconciled
/// twice at once. One, like controller-runtime's `MaxConcurrentReconciles` default: raise it
/// when reconciliations spend their time waiting on slow calls.
pub const CONCURRENCY: u16 = 1;

/// This controller, as `controllers::all()` lists it.
pub const CONTROLLER: (&str, Run) = (NAME, run);

/// This controller's retry counts (after 5 seconds, doubling up to 5 minutes), kept in
/// the manager's context.
fn retries(ctx: &Context) -> Arc<Backoff> {
    ctx.state(NAME)
}

/// The status each Condition had after this controller's last write of it, as the API server
/// returned it, kept in the manager's context: see [`report`].
fn written(ctx: &Context) -> Arc<PerObject<ConditionStatus>> {
    ctx.state(NAME)
}

// What this controller may do, and no more. `make manifests` (`rsbuilder generate rbac`)
// collects these lines into config/rbac/role.yaml; add one for every kind the controller
// touches. A kind of child written by `children::apply` needs `create;patch`, and `delete`
// too where the OwnerReferencesPermissionEnforcement admission plugin guards owner
// references.
// The watch lists and watches conditions.
// +rsbuilder:rbac:groups=ship.example.org,resources=conditions,verbs=list;watch
// The status is written by server-side apply, a PATCH.
// +rsbuilder:rbac:groups=ship.example.org,resources=conditions/status,verbs=patch
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
    Child(#[from] super::children::Error),
    /// A Condition without a namespace: Condition is namespaced, so whatever built it is wrong.
    #[error("Condition {0} has no namespace")]
    NoNamespace(String),
}

/// Where a reconciliation that did not fail left a Condition; its conditions tell.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The cluster matches the spec: `Ready`.
    Ready,
    /// The work is under way but not done, e.g. a child is still rolling out: `Progressing`,
    /// with a CamelCase `reason` and a `message` for users.
    Progressing {
        reason: &'static str,
        message: String,
    },
}

/// Runs the controller until `shutdown` resolves, letting running reconciliations finish.
/// `synced` is set once its watch has listed every object (its cache is in sync).
pub fn run(ctx: Context, synced: Readiness, shutdown: Shutdown) -> BoxFuture<'static, ()> {
    Box::pin(async move {
        let api: Api<Condition> = match &ctx.namespace {
            Some(namespace) => Api::namespaced(ctx.client.clone(), namespace),
            None => Api::all(ctx.client.clone()),
        };
        // The controller's cache: `reconcile` receives each Condition from this store.
        let (store, writer) = reflector::store();
        // A reconciliation follows each change of spec (a new generation).
        let trigger = predicates::generation;
        let (retries, written) = (retries(&ctx), written(&ctx));
        let triggers = watcher(api, watcher::Config::default())
            .default_backoff()
            // The cache keeps what `reconcile` reads: not `managedFields`, often the largest
            // part of an object, which server-side apply keeps on the API server's side.
            .modify(|object| object.managed_fields_mut().clear())
            .reflect(writer)
            .inspect_ok(move |event| {
                retries.follow(event);
                written.follow(event);
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
            .for_each(|result| async move { log_outcome("Condition", result) })
            .await;
    })
}

/// Reconciles one Condition: runs [`apply`] while it lives.
///
/// `object` comes from the controller's cache, which can trail the API server by a moment.
/// That is safe because no write trusts it blindly: the status is a server-side apply of
/// the fields this controller owns.
pub async fn reconcile(
    object: Arc<Condition>, // from the controller's cache, see above
    ctx: Arc<Context>,
) -> Result<Action, Error> {
    let _timer = ctx.metrics.reconcile_started(NAME);
    debug!(name = %object.name_any(), "reconciling Condition");
    if object.meta().deletion_timestamp.is_some() {
        // Deleted, and held only by finalizers of others: its children go with it.
        return Ok(Action::await_change());
    }
    let outcome = apply(&object, &ctx).await;
    if outcome.is_ok() {
        retries(&ctx).succeeded(object.as_ref());
    }
    outcome
}

/// The API of the kind of `object`, in the namespace of `object`.
fn api_for<K>(object: &K, ctx: &Context) -> Result<Api<K>, Error>
where
    K: Resource<DynamicType = (), Scope = NamespaceResourceScope>,
{
    let namespace = object
        .namespace()
        .ok_or_else(|| Error::NoNamespace(object.name_any()))?;
    Ok(Api::namespaced(ctx.client.clone(), &namespace))
}

/// Makes the cluster match the spec of `object` ([`converge`]), then records the outcome in
/// its status ([`report`]).
async fn apply(object: &Condition, ctx: &Context) -> Result<Action, Error> {
    let outcome = converge(object, ctx).await;
    let reported = report(object, ctx, &outcome).await;
    // When both failed, the reason `converge` failed is the one worth retrying for.
    let action = match outcome? {
        Outcome::Ready => Action::requeue(RESYNC),
        Outcome::Progressing { .. } => Action::requeue(POLL),
    };
    reported?;
    Ok(action)
}

/// Creates or updates what a Condition stands for.
///
/// TODO(user): this is where the work goes. Build each object a Condition needs (a child)
/// and hand it to [`children::apply`](super::children::apply) with `FIELD_MANAGER`: it
/// creates the child or brings it up to date with one server-side apply, and makes the
/// Condition its owner, so that Kubernetes deletes it with the Condition. Add a
/// `+rsbuilder:rbac` line above for each kind of child, and `Controller::owns` in [`run`]
/// so that changes to children trigger a reconciliation. Return
/// [`Outcome::Progressing`] while a child is not ready yet.
async fn converge(object: &Condition, _ctx: &Context) -> Result<Outcome, Error> {
    debug!(name = %object.name_any(), "nothing to converge yet");
    Ok(Outcome::Ready)
}

/// Records `outcome` in the status of `object`: `Ready`, `Progressing` and `Degraded`
/// conditions for the generation it acted on, through the status subresource. An event
/// marks each change of `Ready`. Writes nothing when the status says so already: the
/// cached status, and what this controller's last write returned, for the cache can trail
/// the API server (this controller's own writes included).
///
/// [`apply`] calls it with what [`converge`] returned.
pub async fn report(
    object: &Condition,
    ctx: &Context,
    outcome: &Result<Outcome, Error>,
) -> Result<(), Error> {
    let generation = object.meta().generation;
    let status = object.status.as_ref();
    let old = status.map_or(&[][..], |status| &status.conditions);
    let new = conditions(outcome, generation, old);
    let last = written(ctx).get(object);
    let trusted = last.is_none_or(|last| says(&last, generation, &new));
    if status.is_some_and(|status| says(status, generation, &new)) && trusted {
        return Ok(());
    }
    // Server-side apply of the fields this controller owns. `conditions` is a list-map
    // keyed by `type` in the CRD, so the API server merges each condition by its type and
    // leaves those of other writers alone.
    let patch = json!({
        "apiVersion": Condition::api_version(&()),
        "kind": Condition::kind(&()),
        "status": { "conditions": new, "observedGeneration": generation },
    });
    let params = PatchParams::apply(FIELD_MANAGER).force();
    let returned = api_for(object, ctx)?
        .patch_status(&object.name_any(), &params, &Patch::Apply(&patch))
        .await?;
    written(ctx).set(object, returned.status.unwrap_or_default());
    let was = ready(old).map(|c| (&c.status, &c.reason));
    let now = ready(&new).map(|c| (&c.status, &c.reason));
    if was != now {
        let event = match outcome {
            Ok(Outcome::Ready) => new_event(EventType::Normal, "Reconciled", "up to date"),
            Ok(Outcome::Progressing { reason, message }) => {
                new_event(EventType::Normal, reason, message)
            }
            Err(error) => new_event(EventType::Warning, "ReconcileFailed", &error.to_string()),
        };
        publish(ctx, object, &event).await;
    }
    Ok(())
}

/// Decides when a failed reconciliation of `object` is retried: 5 seconds after its first
/// failure, twice as long after each further failure in a row, at most 5 minutes.
pub fn error_policy(
    object: Arc<Condition>,
    error: &Error, // what `reconcile` returned
    ctx: Arc<Context>,
) -> Action {
    ctx.metrics.reconcile_failed(NAME);
    let delay = retries(&ctx).failed(object.as_ref());
    warn!(name = %object.name_any(), %error, retry_in = ?delay, "reconcile failed");
    Action::requeue(delay)
}

/// This controller's conditions after a reconciliation of `generation` that ended with
/// `outcome`:
///
/// | outcome       | Ready | Progressing | Degraded |
/// |---------------|-------|-------------|----------|
/// | `Ready`       | True  | False       | False    |
/// | `Progressing` | False | True        | False    |
/// | an error      | False | False       | True     |
///
/// A condition keeps the `lastTransitionTime` it had in `old` unless its status changes,
/// as Kubernetes' API conventions ask.
fn conditions(
    outcome: &Result<Outcome, Error>,
    generation: Option<i64>,
    old: &[metav1::Condition],
) -> Vec<metav1::Condition> {
    let (statuses, reason, message) = match outcome {
        Ok(Outcome::Ready) => ([true, false, false], "Reconciled", "up to date".into()),
        Ok(Outcome::Progressing { reason, message }) => {
            ([false, true, false], *reason, message.clone())
        }
        Err(error) => ([false, false, true], "ReconcileFailed", error.to_string()),
    };
    let types = ["Ready", "Progressing", "Degraded"];
    types
        .into_iter()
        .zip(statuses)
        .map(|(type_, status)| {
            let status = if status { "True" } else { "False" };
            let since = old
                .iter()
                .find(|o| o.type_ == type_ && o.status == status)
                .map_or_else(
                    || metav1::Time(Timestamp::now()),
                    |o| o.last_transition_time.clone(),
                );
            metav1::Condition {
                type_: type_.into(),
                status: status.into(),
                reason: reason.into(),
                message: message.clone(),
                observed_generation: generation,
                last_transition_time: since,
            }
        })
        .collect()
}

/// Whether `status` says what `new`, this controller's conditions for `generation`, says.
/// Conditions other writers own are theirs: only this controller's are compared.
fn says(status: &ConditionStatus, generation: Option<i64>, new: &[metav1::Condition]) -> bool {
    status.observed_generation == generation
        && new
            .iter()
            .all(|condition| status.conditions.contains(condition))
}

/// The `Ready` condition, if there is one.
fn ready(conditions: &[metav1::Condition]) -> Option<&metav1::Condition> {
    conditions
        .iter()
        .find(|condition| condition.type_ == "Ready")
}

/// The longest note the API server accepts on an events.k8s.io/v1 Event (1 kB).
const NOTE_LIMIT: usize = 1024;

fn new_event(type_: EventType, reason: &str, note: &str) -> Event {
    let mut end = note.len().min(NOTE_LIMIT);
    while !note.is_char_boundary(end) {
        end -= 1;
    }
    Event {
        type_,
        reason: reason.into(),
        note: Some(note[..end].into()),
        action: "Reconcile".into(),
        secondary: None,
    }
}

/// Publishes `event` about `object`, best effort: events are for people, so a refused one
/// is logged and the reconciliation goes on. The API server refuses them for good reasons
/// that must not block the work, e.g. while the namespace is being deleted (the
/// NamespaceLifecycle admission plugin forbids every create in a terminating namespace), a
/// Condition there must still lose its finalizer, or the namespace never goes.
async fn publish<K>(ctx: &Context, object: &K, event: &Event)
where
    K: Resource<DynamicType = ()>,
{
    let reference = object.object_ref(&());
    if let Err(error) = ctx.recorder.publish(event, &reference).await {
        warn!(name = %object.name_any(), reason = %event.reason, %error, "event not published");
    }
}
