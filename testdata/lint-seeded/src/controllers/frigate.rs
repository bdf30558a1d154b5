// SPDX-License-Identifier: Apache-2.0

//! The Frigate controller: makes the cluster match each Frigate's spec and reports the
//! outcome in its status.
//!
//! It watches Frigate at its storage version, `crate::api::ship::frigate`.
//! Only spec changes (a new `metadata.generation`) and finalizer changes trigger a
//! reconciliation: status updates, this controller's own included, do not, so writing the
//! status cannot start a loop.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, Patch, PatchParams};
use kube::core::NamespaceResourceScope;
use kube::runtime::controller::{self, Action, Controller};
use kube::runtime::events::{Event, EventType};
use kube::runtime::finalizer::{Error as FinalizerError, Event as Finalizer, finalizer};
use kube::runtime::{Predicate, WatchStreamExt, predicates, reflector, watcher};
use kube::{Resource, ResourceExt};
use serde_json::json;
use tracing::{debug, warn};

use super::backoff::Backoff;
use super::{Context, Run};
use crate::api::ship::frigate::Frigate;
use crate::shutdown::Shutdown;

/// This controller's name in logs and metrics.
pub const NAME: &str = "frigate";
/// Kept on every Frigate until [`cleanup`] has succeeded, so that Kubernetes waits for it.
pub const FINALIZER: &str = "frigates.ship.example.com/finalizer";
/// Owner of the status fields this controller writes with server-side apply.
pub const FIELD_MANAGER: &str = "frigate-controller";
/// How long a healthy Frigate waits before it is reconciled again, to repair drift that
/// no event reported.
pub const RESYNC: Duration = Duration::from_secs(5 * 60);

/// This controller, as `controllers::all()` lists it.
pub const CONTROLLER: (&str, Run) = (NAME, run);

/// Retries of failed reconciliations: after 5 seconds, doubling up to 5 minutes.
static RETRIES: Backoff = Backoff::new(Duration::from_secs(5), Duration::from_secs(5 * 60));

// What this controller may do. `make manifests` (`rsbuilder generate rbac`) collects these
// lines into config/rbac/role.yaml; add one for every other kind the controller touches.
// +rsbuilder:rbac:groups=ship.example.com,resources=frigates,verbs=get;list;watch;update;patch
// +rsbuilder:rbac:groups=ship.example.com,resources=frigates/status,verbs=get;update;patch
// +rsbuilder:rbac:groups=ship.example.com,resources=frigates/finalizers,verbs=update
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
    /// Adding or removing the finalizer failed, or the work it guards did.
    #[error("{0}")]
    Finalizer(#[source] Box<FinalizerError<Error>>),
    /// A Frigate without a namespace: Frigate is namespaced, so whatever built it is wrong.
    #[error("Frigate {0} has no namespace")]
    NoNamespace(String),
}

/// Runs the controller until `shutdown` resolves, letting running reconciliations finish.
pub fn run(ctx: Context, shutdown: Shutdown) -> BoxFuture<'static, ()> {
    Box::pin(async move {
        let api: Api<Frigate> = match &ctx.namespace {
            Some(namespace) => Api::namespaced(ctx.client.clone(), namespace),
            None => Api::all(ctx.client.clone()),
        };
        // The controller's cache: `reconcile` receives each Frigate from this store.
        let (store, writer) = reflector::store();
        // A reconciliation follows each change of spec (a new generation) or finalizers.
        let trigger = predicates::generation.combine(predicates::finalizers);
        let triggers = watcher(api, watcher::Config::default())
            .default_backoff()
            .reflect(writer)
            .applied_objects()
            .predicate_filter(trigger, Default::default());
        Controller::for_stream(triggers, store)
            .graceful_shutdown_on(shutdown.wait())
            .run(reconcile, error_policy, Arc::new(ctx))
            .for_each(|result| async move {
                match result {
                    Ok((object, _)) => debug!(%object, "reconciled"),
                    // `error_policy` has logged it.
                    Err(controller::Error::ReconcilerFailed(..)) => {}
                    Err(error) => warn!(%error, "Frigate controller"),
                }
            })
            .await;
    })
}

/// Reconciles one Frigate: adds the finalizer to a new one, runs [`apply`] while it
/// lives, and [`cleanup`] (then removes the finalizer) once it is being deleted.
///
/// `object` comes from the controller's cache, which can trail the API server by a moment.
/// That is safe because no write trusts it blindly: the finalizer patches carry JSON-patch
/// tests, and the status is a server-side apply of the fields this controller owns. What
/// must be current (children, see [`converge`]) is read from the API server.
pub async fn reconcile(
    object: Arc<Frigate>, // from the controller's cache, see above
    ctx: Arc<Context>,
) -> Result<Action, Error> {
    let _timer = ctx.metrics.reconcile_started(NAME);
    let api = api_for(object.as_ref(), &ctx)?;
    let outcome = finalizer(&api, FINALIZER, object.clone(), |event| async {
        match event {
            Finalizer::Apply(object) => apply(&object, &ctx).await,
            Finalizer::Cleanup(object) => cleanup(&object, &ctx).await,
        }
    })
    .await
    .map_err(|error| Error::Finalizer(Box::new(error)));
    if outcome.is_ok() {
        RETRIES.succeeded(object.as_ref());
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

/// Makes the cluster match the spec of `object`, then records the outcome in its status:
/// `Ready`, `Progressing` and `Degraded` conditions for the generation it acted on. An
/// event marks each change of `Ready`.
async fn apply(object: &Frigate, ctx: &Context) -> Result<Action, Error> {
    let outcome = converge(object, ctx).await;
    let generation = object.meta().generation;
    let old = object.status.as_ref();
    let old_conditions = old.map_or(&[][..], |status| &status.conditions);
    let conditions = conditions(&outcome, generation, old_conditions);
    let unchanged = old.is_some_and(|status| {
        status.conditions == conditions && status.observed_generation == generation
    });
    if !unchanged {
        let patch = json!({
            "apiVersion": Frigate::api_version(&()),
            "kind": Frigate::kind(&()),
            "status": { "conditions": conditions, "observedGeneration": generation },
        });
        let params = PatchParams::apply(FIELD_MANAGER).force();
        let name = object.name_any();
        api_for(object, ctx)?
            .patch_status(&name, &params, &Patch::Apply(&patch))
            .await?;
        if ready(old_conditions) != ready(&conditions) {
            let event = match &outcome {
                Ok(()) => new_event(EventType::Normal, "Reconciled", "up to date"),
                Err(error) => new_event(EventType::Warning, "Failed", &error.to_string()),
            };
            publish(ctx, object, &event).await?;
        }
    }
    outcome?;
    Ok(Action::requeue(RESYNC))
}

/// Creates or updates what a Frigate stands for.
///
/// TODO(user): this is where the work goes. Build each object a Frigate needs (a child)
/// and hand it to [`children::apply`](super::children::apply) with `FIELD_MANAGER`: it
/// reads the child from the API server, creates it only when it is missing, makes the
/// Frigate its owner (Kubernetes deletes it with the Frigate) and updates it with
/// server-side apply. Add a `+rsbuilder:rbac` line above for each kind of child, and
/// `Controller::owns` in [`run`] so that changes to children trigger a reconciliation.
async fn converge(object: &Frigate, _ctx: &Context) -> Result<(), Error> {
    debug!(name = %object.name_any(), "nothing to converge yet");
    Ok(())
}

/// Runs when a Frigate is being deleted; Kubernetes deletes it once the finalizer is gone,
/// which happens only after this succeeded. Children with an owner reference need nothing
/// here: Kubernetes deletes them.
///
/// TODO(user): release what the Frigate holds outside the cluster.
async fn cleanup(object: &Frigate, ctx: &Context) -> Result<Action, Error> {
    let event = new_event(EventType::Normal, "CleanedUp", "ready for deletion");
    publish(ctx, object, &event).await?;
    Ok(Action::await_change())
}

/// Decides when a failed reconciliation of `object` is retried: 5 seconds after its first
/// failure, twice as long after each further failure in a row, at most 5 minutes.
pub fn error_policy(
    object: Arc<Frigate>,
    error: &Error, // what `reconcile` returned
    ctx: Arc<Context>,
) -> Action {
    ctx.metrics.reconcile_failed(NAME);
    let delay = RETRIES.failed(object.as_ref());
    warn!(name = %object.name_any(), %error, retry_in = ?delay, "reconcile failed");
    Action::requeue(delay)
}

/// The conditions after a reconciliation of `generation` that ended with `outcome`. Each
/// keeps the `lastTransitionTime` it had in `old` when its status did not change, as
/// Kubernetes' API conventions ask.
fn conditions(
    outcome: &Result<(), Error>,
    generation: Option<i64>,
    old: &[Condition],
) -> Vec<Condition> {
    let (statuses, reason, message) = match outcome {
        Ok(()) => (
            ["True", "False", "False"],
            "Reconciled",
            "up to date".into(),
        ),
        Err(error) => (["False", "True", "True"], "Failed", error.to_string()),
    };
    let types = ["Ready", "Progressing", "Degraded"];
    types
        .into_iter()
        .zip(statuses)
        .map(|(type_, status)| {
            let since = old
                .iter()
                .find(|o| o.type_ == type_ && o.status == status)
                .map_or_else(
                    || Time(Timestamp::now()),
                    |o| o.last_transition_time.clone(),
                );
            Condition {
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

/// The status of the `Ready` condition, if there is one.
fn ready(conditions: &[Condition]) -> Option<&str> {
    conditions
        .iter()
        .find(|condition| condition.type_ == "Ready")
        .map(|condition| condition.status.as_str())
}

fn new_event(type_: EventType, reason: &str, note: &str) -> Event {
    Event {
        type_,
        reason: reason.into(),
        note: Some(note.into()),
        action: "Reconcile".into(),
        secondary: None,
    }
}

async fn publish<K>(ctx: &Context, object: &K, event: &Event) -> Result<(), Error>
where
    K: Resource<DynamicType = ()>,
{
    let reference = object.object_ref(&());
    Ok(ctx.recorder.publish(event, &reference).await?)
}
