//! [`Reconciler`]: one controller as the runtime drives it.

use std::fmt::{Debug, Display};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use futures::future::Either;
use futures::{Stream, StreamExt, TryStreamExt, stream};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::controller::{self, Action, Controller};
use kube::runtime::events::EventType;
use kube::runtime::finalizer::{self, Event as Finalizer, finalizer};
use kube::runtime::reflector::{self, ObjectRef};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::json;
use tokio::time::MissedTickBehavior;
use tracing::{debug, error, warn};

use super::backlog::Backlog;
use super::backoff::Backoff;
use super::cached::{Cacheable, Cached};
use super::conditions::{self, Observed};
use super::per_object::PerObject;
use super::{Error, Outcome, Scope, Shared, api_of, events, log_outcome};
use crate::server::Readiness;
use crate::shutdown::Shutdown;

/// One controller: its name (in logs and metrics), the field manager of its status writes,
/// its finalizer if it keeps one, how often it looks again at its objects. A project's
/// controller declares it once, as a `static`, and calls it from its `run`, `reconcile` and
/// `error_policy`.
///
/// What it does for every controller, so that the controller holds only its own logic:
/// - the watch ([`Reconciler::controller`]): listed 100 objects at a time, a cache of
///   compact copies ([`Cached`]) without `managedFields`, triggered only by spec changes
///   (a new `metadata.generation`) and, for a controller with a finalizer, finalizer
///   changes, never by status writes, its own included; the objects it wakes wait for a
///   worker in the order they woke, a few bytes each (`Backlog`);
/// - the finalizer flow ([`Reconciler::reconcile_with_finalizer`]): the finalizer is added
///   before the first `converge` and removed only after `cleanup` succeeded;
/// - the status ([`Reconciler::report`]): `Ready`, `Progressing` and `Degraded` conditions
///   for the generation it acted on, by server-side apply of the status subresource,
///   written only when they change, an event at each change of `Ready`;
/// - retries ([`Reconciler::retry`]): 5 seconds after an object's first failure, twice as
///   long after each further failure in a row, at most 5 minutes.
pub struct Reconciler {
    name: &'static str,
    field_manager: &'static str,
    finalizer: Option<&'static str>,
    resync: Duration,
    poll: Duration,
    concurrency: u16,
}

/// The annotation in which `kubectl apply` (client-side) keeps the whole object it applied.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Drops from `object` what no reconciliation reads, before the controller's cache keeps
/// it: `managedFields`, which server-side apply keeps for every writer of every object,
/// and [`LAST_APPLIED`], a second copy of an object applied by kubectl. Each is often
/// larger than the rest of a small object.
pub fn strip<K: Resource>(object: &mut K) {
    object.managed_fields_mut().clear();
    if let Some(annotations) = &mut object.meta_mut().annotations {
        annotations.remove(LAST_APPLIED);
    }
}

/// Whether `object` wakes its controller, `before` being the copy its cache held: when it
/// is new (or new under its name), when its spec changed (a new `metadata.generation`),
/// and, for a controller with a finalizer, when its finalizers changed. A status write,
/// the controller's own included, never does; nor does a change of labels or annotations.
fn wakes<K: Resource>(before: Option<&K>, object: &K, finalizers: bool) -> bool {
    let (now, before) = match before {
        Some(before) => (object.meta(), before.meta()),
        None => return true,
    };
    now.uid != before.uid
        // A kind without generations (ConfigMaps) wakes at every change.
        || now.generation.is_none()
        || now.generation != before.generation
        || (finalizers && now.finalizers != before.finalizers)
}

/// The object `cached` holds, or `None`, logged, when `K` cannot read back what it wrote
/// (a serde attribute that writes what it does not read).
fn read<K: DeserializeOwned + Resource>(cached: &Cached<K>) -> Option<K> {
    cached
        .object()
        .inspect_err(|error| error!(?cached, %error, "cannot read the cached object back"))
        .ok()
}

/// A tick every `period`, at which the controller reconciles every object its cache holds:
/// the resync that repairs drift no event reported, for all objects at once, as
/// controller-runtime's `SyncPeriod`. A `Ready` object is not requeued one by one: the
/// controller's queue would keep an entry for each until its time came, two copies of its
/// name and namespace and the queue's own slots, about half a kilobyte an object
/// (heaptrack, `make bench-scale`). At the tick, every object waits in the `Backlog`.
fn resyncs(period: Duration) -> impl Stream<Item = ()> + Send {
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    stream::poll_fn(move |cx| ticks.poll_tick(cx).map(|_| Some(())))
}

/// An object's namespace and name, as the `Backlog` keeps them.
fn key(meta: &ObjectMeta) -> (Option<&str>, &str) {
    (
        meta.namespace.as_deref(),
        meta.name.as_deref().unwrap_or_default(),
    )
}

/// The objects `backlog` hands kube's queue, as the queue reads them: by key.
fn handed<K>(backlog: Arc<Backlog>) -> impl Stream<Item = watcher::Result<Cached<K>>> + Send
where
    K: 'static,
{
    let mut patience = Box::pin(tokio::time::sleep(Duration::ZERO));
    stream::poll_fn(move |cx| {
        backlog
            .poll_next(cx, &mut patience)
            .map(|(namespace, name)| Some(Ok(Cached::key(namespace, name))))
    })
}

/// What a controller's status write of an object returned: the status, and the object's
/// version with it.
#[derive(Clone)]
struct Write {
    status: Observed,
    version: Option<String>,
}

/// The status writes that the controller's cache has not caught up with yet. A write is
/// forgotten once the watch delivers the version it returned: the cache then says the
/// same, so a manager with N objects cached keeps no second copy of their conditions.
#[derive(Default)]
struct Written {
    writes: PerObject<Write>,
    /// The version of an object (by namespace and name) that the controller's cache holds,
    /// once [`Reconciler::controller`] has made the cache.
    cached: RwLock<Option<CachedVersion>>,
}

type CachedVersion = Box<dyn Fn(Option<&str>, &str) -> Option<String> + Send + Sync>;

impl Written {
    /// Reads the versions the cache holds with `version_of`: from now on, a write whose
    /// version the cache already holds is not remembered.
    fn cache(
        &self,
        version_of: impl Fn(Option<&str>, &str) -> Option<String> + Send + Sync + 'static,
    ) {
        *self.cached.write().unwrap_or_else(PoisonError::into_inner) = Some(Box::new(version_of));
    }

    /// Follows the controller's watch ([`PerObject::follow`]), and forgets the write
    /// of each object the watch delivers at the version that write returned.
    fn follow<K: Resource>(&self, event: &watcher::Event<K>) {
        self.writes.follow(event);
        if let watcher::Event::Apply(object) | watcher::Event::InitApply(object) = event {
            let version = &object.meta().resource_version;
            self.writes.change(object, |write| {
                if write
                    .as_ref()
                    .is_some_and(|write| &write.version == version)
                {
                    *write = None;
                }
            });
        }
    }

    /// Whether the last write of `object`, if the cache has not caught up with it, says
    /// what `new` says for `generation`.
    fn says<K: Resource>(&self, object: &K, generation: Option<i64>, new: &[Condition]) -> bool {
        self.writes
            .get(object)
            .is_none_or(|write| write.status.says(generation, new))
    }

    /// Remembers what the status write of `object` returned, unless the cache holds it
    /// already: the watch can deliver the new version before the write's answer arrives,
    /// and no later event would forget it then. Checked under the lock that
    /// [`Written::follow`] takes after the cache took the event, so that one of the two
    /// sees the other.
    fn set<K: Resource + Serialize>(&self, object: &K, returned: &K) {
        let version = returned.meta().resource_version.clone();
        let cached = self.cached.read().unwrap_or_else(PoisonError::into_inner);
        let name = object.name_any();
        self.writes.change(object, |write| {
            let held = version.is_some()
                && cached.as_ref().is_some_and(|version_of| {
                    version_of(object.meta().namespace.as_deref(), &name) == version
                });
            *write = (!held).then(|| Write {
                status: Observed::of(returned),
                version,
            });
        });
    }
}

impl Reconciler {
    /// How many of the objects waiting for a worker wait in kube's queue at most, the others
    /// in the controller's `Backlog`: they run in the order they woke, give or take this
    /// many. Kube's queue starts a request at the next millisecond tick of its timer, so a
    /// few per worker keep the workers busy between ticks: with one per worker, a restarted
    /// manager took 3.7 s instead of 0.2 to reconcile 10,000 `Ready` objects
    /// (`make bench-scale`).
    pub const QUEUED: usize = 64;

    /// The controller `name`, which writes the status as the field manager `name`;
    /// reconciles every object again every 5 minutes, one on its way every 15 seconds, and
    /// one object at a time.
    pub const fn new(name: &'static str) -> Self {
        Self {
            name,
            field_manager: name,
            finalizer: None,
            resync: Duration::from_secs(5 * 60),
            poll: Duration::from_secs(15),
            concurrency: 1,
        }
    }

    /// Writes the status as the field manager `field_manager`.
    pub const fn field_manager(mut self, field_manager: &'static str) -> Self {
        self.field_manager = field_manager;
        self
    }

    /// Keeps `finalizer` on every object, so that Kubernetes deletes one only after its
    /// cleanup ([`Reconciler::reconcile_with_finalizer`]).
    pub const fn finalizer(mut self, finalizer: &'static str) -> Self {
        self.finalizer = Some(finalizer);
        self
    }

    /// Reconciles every object again every `resync`, to repair drift that no event reported
    /// ([`Reconciler::resync`]), and looks again at a `Progressing` one after `poll`.
    pub const fn requeue(self, resync: Duration, poll: Duration) -> Self {
        let mut this = self.resync(resync);
        this.poll = poll;
        this
    }

    /// Reconciles every object the cache holds again every `resync`, all of them at once,
    /// to repair drift that no event reported: controller-runtime's `SyncPeriod`. A
    /// reconciliation that finds an object `Ready` leaves its next look to this.
    pub const fn resync(mut self, resync: Duration) -> Self {
        self.resync = resync;
        self
    }

    /// Reconciles up to `concurrency` objects at once; one object is never reconciled twice
    /// at once.
    pub const fn concurrency(mut self, concurrency: u16) -> Self {
        self.concurrency = concurrency;
        self
    }

    /// This controller's name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The watch of `api` and its cache, as a kube [`Controller`] to which the project adds
    /// its own watches (`owns`, `watches`) before [`Reconciler::run`]. The cache keeps each
    /// object in a compact form ([`Cached`]), which [`Reconciler::run`] reads back for each
    /// reconciliation. `synced` is set once the watch has listed every object (the cache is
    /// in sync). The objects the watch wakes wait in a `Backlog` until a worker is free.
    pub fn controller<K, C>(&self, api: Api<K>, ctx: &C, synced: Readiness) -> Controller<Cached<K>>
    where
        K: Cacheable,
        K::Scope: Scope,
        C: Shared,
    {
        let (store, mut writer) = reflector::store();
        let cached = store.clone();
        let finalizers = self.finalizer.is_some();
        let (retries, written) = (self.retries(ctx), self.written(ctx));
        let versions = store.clone();
        written.cache(move |namespace, name| {
            let mut key = ObjectRef::<Cached<K>>::new(name);
            if let Some(namespace) = namespace {
                key = key.within(namespace);
            }
            versions.get(&key)?.meta().resource_version.clone()
        });
        let backlog = self.backlog(ctx);
        let woken = backlog.clone();
        // The same objects, each read into the compact form the cache keeps.
        let namespace = api.namespace().map(str::to_owned);
        let api = super::api::<Cached<K>>(api.into_client(), namespace.as_deref());
        let watch = watcher(api, super::watch_config())
            .default_backoff()
            // Whether an object wakes the controller is decided against the copy the cache
            // holds until this event replaces it, so the watch keeps no second memory of
            // every object (kube's `predicate_filter` keeps a key and a hash for each).
            .map_ok(move |event| {
                let wakes = match &event {
                    watcher::Event::Apply(object) | watcher::Event::InitApply(object) => {
                        let before = cached.get(&ObjectRef::from_obj(object));
                        wakes(before.as_deref(), object, finalizers)
                    }
                    _ => false,
                };
                writer.apply_watcher_event(&event);
                (event, wakes)
            })
            .try_filter_map(move |(event, wakes)| {
                retries.follow(&event);
                written.follow(&event);
                match event {
                    watcher::Event::Apply(object) | watcher::Event::InitApply(object) if wakes => {
                        let (namespace, name) = key(object.meta());
                        woken.wake(namespace, name);
                    }
                    watcher::Event::InitDone => synced.set(true),
                    _ => {}
                }
                // Only the backlog hands objects to the queue; the watch's errors pass.
                std::future::ready(Ok(None))
            });
        let all = store.clone();
        let resyncs = resyncs(self.resync).filter_map({
            let backlog = backlog.clone();
            move |()| {
                for object in all.state() {
                    let (namespace, name) = key(object.meta());
                    backlog.wake(namespace, name);
                }
                // The backlog hands them.
                std::future::ready(None)
            }
        });
        let triggers = stream::select(watch, stream::select(handed(backlog), resyncs));
        let config = controller::Config::default().concurrency(self.concurrency);
        Controller::for_stream(triggers, store).with_config(config)
    }

    /// Runs `controller` until `shutdown` resolves, letting running reconciliations
    /// finish, and logs each outcome. While it runs, the controller's `Backlog` hands
    /// kube's queue [`Reconciler::QUEUED`] objects at most (or two per worker, if more).
    pub async fn run<K, C, E, F>(
        &self,
        controller: Controller<Cached<K>>,
        mut reconcile: impl FnMut(Arc<K>, Arc<C>) -> F,
        error_policy: impl Fn(Arc<K>, &E, Arc<C>) -> Action,
        ctx: C,
        shutdown: Shutdown,
    ) where
        K: Cacheable,
        C: Shared,
        F: Future<Output = Result<Action, E>> + Send + 'static,
        E: std::error::Error + Send + 'static,
    {
        let kind = K::kind(&());
        let backlog = self.backlog(&ctx);
        if self.concurrency > 0 {
            backlog.meter(Self::QUEUED.max(2 * usize::from(self.concurrency)));
        }
        let starting = backlog.clone();
        let reconcile = move |cached: Arc<Cached<K>>, ctx| {
            let (namespace, name) = key(cached.meta());
            starting.started(namespace, name);
            match read(&cached) {
                Some(object) => Either::Left(reconcile(Arc::new(object), ctx)),
                // The same bytes fail the same way until the object changes.
                None => Either::Right(std::future::ready(Ok(Action::await_change()))),
            }
        };
        let error_policy = move |cached: Arc<Cached<K>>, error: &E, ctx| match read(&cached) {
            Some(object) => error_policy(Arc::new(object), error, ctx),
            None => Action::await_change(),
        };
        controller
            .graceful_shutdown_on(shutdown.wait())
            .run(reconcile, error_policy, Arc::new(ctx))
            .for_each(|result| {
                let ran = match &result {
                    Ok((object, _)) => Some((object.namespace.as_deref(), object.name.as_str())),
                    Err(
                        controller::Error::ReconcilerFailed(_, object)
                        | controller::Error::ObjectNotFound(object),
                    ) => Some((object.namespace.as_deref(), object.name.as_str())),
                    Err(_) => None,
                };
                if let Some((namespace, name)) = ran {
                    backlog.finished(namespace, name);
                }
                log_outcome(&kind, result);
                std::future::ready(())
            })
            .await;
    }

    /// One reconciliation of `object` by `work`: counted and timed in the metrics, and a
    /// success forgets the object's failures in a row ([`Reconciler::retry`]).
    pub async fn track<K, C, E>(
        &self,
        ctx: &C,
        object: &K,
        work: impl Future<Output = Result<Action, E>>,
    ) -> Result<Action, E>
    where
        K: Resource<DynamicType = ()>,
        C: Shared,
    {
        let _timer = ctx.metrics().reconcile_started(self.name);
        let kind = K::kind(&());
        debug!(name = %object.name_any(), namespace = ?object.namespace(), "reconciling {kind}");
        let result = work.await;
        if result.is_ok() {
            self.retries(ctx).succeeded(object);
        }
        result
    }

    /// Reconciles `object`, which carries no finalizer: `converge` makes the cluster match
    /// its spec, and its outcome goes to the status ([`Reconciler::report`]). A deleted
    /// object needs nothing: Kubernetes deletes its children through their owner references.
    ///
    /// `object` comes from the cache, which can trail the API server by a moment. That is
    /// safe because no write trusts it blindly: the status is a server-side apply of the
    /// fields this controller owns, and so are children ([`super::children::apply`]).
    pub async fn reconcile<K, C, E>(
        &self,
        object: Arc<K>,
        ctx: &C,
        converge: impl AsyncFnOnce(&K) -> Result<Outcome, E>,
    ) -> Result<Action, E>
    where
        K: Resource<DynamicType = ()> + Clone + Serialize + DeserializeOwned + Debug,
        K::Scope: Scope,
        C: Shared,
        E: From<Error> + Display,
    {
        self.track(ctx, object.as_ref(), async {
            if object.meta().deletion_timestamp.is_some() {
                // Deleted, and held only by finalizers of others.
                return Ok(Action::await_change());
            }
            self.apply(object.as_ref(), ctx, converge).await
        })
        .await
    }

    /// Reconciles `object` under this controller's finalizer: adds it to a new object (the
    /// patch itself triggers the next reconciliation), runs `converge` while the object
    /// lives, as [`Reconciler::reconcile`] does, and `cleanup` once it is being deleted,
    /// then removes the finalizer. On an error of `cleanup` the finalizer stays and the
    /// cleanup is retried. The finalizer patches carry JSON-patch tests, so a stale cached
    /// copy never removes someone else's finalizer.
    ///
    /// While `cleanup` runs, the status says so (`Progressing`, reason `Finalizing`), best
    /// effort: a status that cannot be written must not keep the finalizer forever. A
    /// `CleanedUp` event follows its success.
    pub async fn reconcile_with_finalizer<K, C, E>(
        &self,
        object: Arc<K>,
        ctx: &C,
        converge: impl AsyncFnOnce(&K) -> Result<Outcome, E>,
        cleanup: impl AsyncFnOnce(&K) -> Result<(), E>,
    ) -> Result<Action, E>
    where
        K: Resource<DynamicType = ()> + Clone + Serialize + DeserializeOwned + Debug,
        K::Scope: Scope,
        C: Shared,
        E: From<Error> + std::error::Error + 'static,
    {
        let Some(name) = self.finalizer else {
            // Without a finalizer nothing waits for a cleanup.
            return self.reconcile(object, ctx, converge).await;
        };
        self.track(ctx, object.as_ref(), async {
            let api = api_of(ctx.client().clone(), object.as_ref())?;
            let flow = finalizer(&api, name, object.clone(), |event| async move {
                match event {
                    Finalizer::Apply(object) => self.apply(object.as_ref(), ctx, converge).await,
                    Finalizer::Cleanup(object) => {
                        self.clean_up(object.as_ref(), ctx, cleanup).await
                    }
                }
            });
            flow.await.map_err(|error| match error {
                finalizer::Error::ApplyFailed(error) | finalizer::Error::CleanupFailed(error) => {
                    error
                }
                finalizer::Error::AddFinalizer(source) => Error::Finalizer {
                    action: "add",
                    source,
                }
                .into(),
                finalizer::Error::RemoveFinalizer(source) => Error::Finalizer {
                    action: "remove",
                    source,
                }
                .into(),
                // `InvalidFinalizer` is kube failing to parse its own fixed JSON pointers
                // (`/metadata/finalizers/<index>`), which cannot happen.
                finalizer::Error::UnnamedObject | finalizer::Error::InvalidFinalizer => {
                    Error::Incomplete {
                        kind: K::kind(&()).into_owned(),
                        name: object.name_any(),
                        missing: "name",
                    }
                    .into()
                }
            })
        })
        .await
    }

    /// Makes the cluster match the spec of `object` (`converge`), then records the outcome
    /// in its status. When both fail, the reason `converge` failed is the one returned.
    async fn apply<K, C, E>(
        &self,
        object: &K,
        ctx: &C,
        converge: impl AsyncFnOnce(&K) -> Result<Outcome, E>,
    ) -> Result<Action, E>
    where
        K: Resource<DynamicType = ()> + Clone + Serialize + DeserializeOwned + Debug,
        K::Scope: Scope,
        C: Shared,
        E: From<Error> + Display,
    {
        let outcome = converge(object).await;
        let reported = self.report(object, ctx, &outcome).await;
        let action = match outcome? {
            // The next look comes with the resync of every object ([`resyncs`]).
            Outcome::Ready => Action::await_change(),
            Outcome::Progressing { .. } => Action::requeue(self.poll),
        };
        reported?;
        Ok(action)
    }

    async fn clean_up<K, C, E>(
        &self,
        object: &K,
        ctx: &C,
        cleanup: impl AsyncFnOnce(&K) -> Result<(), E>,
    ) -> Result<Action, E>
    where
        K: Resource<DynamicType = ()> + Clone + Serialize + DeserializeOwned + Debug,
        K::Scope: Scope,
        C: Shared,
    {
        let finalizing = Outcome::Progressing {
            reason: "Finalizing",
            message: "releasing what it holds outside the cluster".into(),
        };
        if let Err(error) = self.report(object, ctx, &Ok::<_, Error>(finalizing)).await {
            warn!(name = %object.name_any(), %error, "cannot record the cleanup in the status");
        }
        cleanup(object).await?;
        let event = events::event(EventType::Normal, "CleanedUp", "ready for deletion");
        events::publish(ctx.client(), self.field_manager, object, &event).await;
        Ok(Action::await_change())
    }

    /// Records `outcome` in the status of `object`: `Ready`, `Progressing` and `Degraded`
    /// conditions for the generation it acted on ([`conditions::after`]), and
    /// `observedGeneration`, by server-side apply of the status subresource as this
    /// controller's field manager. `conditions` is a list-map keyed by `type` in the CRD, so
    /// the API server merges each condition by its type and leaves those of other writers
    /// alone. An event marks each change of `Ready`.
    ///
    /// Writes nothing when the status says so already: the cached status, and what this
    /// controller's last write returned, for the cache can trail the API server (this
    /// controller's own writes included), and a status decided from a stale copy must
    /// still reach it.
    pub async fn report<K, C>(
        &self,
        object: &K,
        ctx: &C,
        outcome: &Result<Outcome, impl Display>,
    ) -> Result<(), Error>
    where
        K: Resource<DynamicType = ()> + Clone + Serialize + DeserializeOwned + Debug,
        K::Scope: Scope,
        C: Shared,
    {
        let generation = object.meta().generation;
        let cached = Observed::of(object);
        let new = conditions::after(outcome, generation, &cached.conditions);
        let written = self.written(ctx);
        if cached.says(generation, &new) && written.says(object, generation, &new) {
            return Ok(());
        }
        let patch = json!({
            "apiVersion": K::api_version(&()),
            "kind": K::kind(&()),
            "status": { "conditions": new, "observedGeneration": generation },
        });
        let params = PatchParams::apply(self.field_manager).force();
        let returned = api_of(ctx.client().clone(), object)?
            .patch_status(&object.name_any(), &params, &Patch::Apply(&patch))
            .await?;
        written.set(object, &returned);
        let ready = |conditions| conditions::ready(conditions).map(|c| (&c.status, &c.reason));
        if ready(&cached.conditions) != ready(&new) {
            let event = match outcome {
                Ok(Outcome::Ready) => events::event(EventType::Normal, "Reconciled", "up to date"),
                Ok(Outcome::Progressing { reason, message }) => {
                    events::event(EventType::Normal, reason, message)
                }
                Err(error) => {
                    events::event(EventType::Warning, "ReconcileFailed", &error.to_string())
                }
            };
            events::publish(ctx.client(), self.field_manager, object, &event).await;
        }
        Ok(())
    }

    /// The error policy: counts the failure, and retries `object` 5 seconds after its
    /// first failure, twice as long after each further failure in a row, at most 5 minutes.
    pub fn retry<K, C>(&self, ctx: &C, object: &K, error: &impl Display) -> Action
    where
        K: Resource,
        C: Shared,
    {
        ctx.metrics().reconcile_failed(self.name);
        let delay = self.retries(ctx).failed(object);
        warn!(name = %object.name_any(), %error, retry_in = ?delay, "reconcile failed");
        Action::requeue(delay)
    }

    fn retries<C: Shared>(&self, ctx: &C) -> Arc<Backoff> {
        ctx.states().get(self.name)
    }

    fn written<C: Shared>(&self, ctx: &C) -> Arc<Written> {
        ctx.states().get(self.name)
    }

    fn backlog<C: Shared>(&self, ctx: &C) -> Arc<Backlog> {
        ctx.states().get(self.name)
    }
}

#[cfg(test)]
mod tests {
    //! The [`Reconciler`] against a mocked API server: each test lists the requests a
    //! reconciliation makes, in order, and what Kubernetes answers. A project's own
    //! controller tests run the same scenarios through its kinds.

    use http::{Method, StatusCode};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
    use k8s_openapi::jiff::Timestamp;
    use kube::runtime::events::{Recorder, Reporter};
    use kube::{Client, CustomResource};
    use serde::{Deserialize, Serialize};
    use serde_json::json;

    use super::*;
    use crate::controller::States;
    use crate::metrics::Metrics;
    use crate::testing::mock::{self, ApiServer, events_path, finish};

    /// A namespaced kind with conditions in its status, as `create api` scaffolds one.
    #[derive(CustomResource, Clone, Debug, Default, Deserialize, Serialize)]
    #[kube(
        group = "example.com",
        version = "v1",
        kind = "Thing",
        namespaced,
        status = "ThingStatus",
        schema = "disabled"
    )]
    struct ThingSpec {}

    #[derive(Clone, Debug, Default, Deserialize, Serialize)]
    #[serde(rename_all = "camelCase")]
    struct ThingStatus {
        #[serde(default)]
        conditions: Vec<Condition>,
        observed_generation: Option<i64>,
    }

    struct Ctx {
        client: Client,
        recorder: Recorder,
        metrics: Metrics,
        states: States,
    }

    impl Shared for Ctx {
        fn client(&self) -> &Client {
            &self.client
        }
        fn recorder(&self) -> &Recorder {
            &self.recorder
        }
        fn metrics(&self) -> &Metrics {
            &self.metrics
        }
        fn states(&self) -> &States {
            &self.states
        }
    }

    #[derive(Debug, thiserror::Error)]
    #[error(transparent)]
    struct Failed(#[from] Error);

    const FINALIZER: &str = "things.example.com/finalizer";
    static RECONCILER: Reconciler = Reconciler::new("thing")
        .field_manager("thing-controller")
        .finalizer(FINALIZER);
    static PLAIN: Reconciler = Reconciler::new("thing").field_manager("thing-controller");
    const PATH: &str = "/apis/example.com/v1/namespaces/team-a/things/a";

    fn context() -> (Ctx, ApiServer) {
        let (client, server) = mock::client();
        let reporter = Reporter {
            controller: "test".into(),
            instance: Some("test-0".into()),
        };
        let ctx = Ctx {
            recorder: Recorder::new(client.clone(), reporter),
            client,
            metrics: Metrics::default(),
            states: States::default(),
        };
        (ctx, server)
    }

    /// A Thing as the cache hands over a new one: generation 1, no finalizer, no status.
    fn thing() -> Thing {
        let mut thing = Thing::new("a", ThingSpec {});
        thing.metadata.namespace = Some("team-a".into());
        thing.metadata.uid = Some("a-uid".into());
        thing.metadata.generation = Some(1);
        thing
    }

    fn finalized() -> Thing {
        let mut thing = thing();
        thing.metadata.finalizers = Some(vec![FINALIZER.into()]);
        thing
    }

    async fn ready(_: &Thing) -> Result<Outcome, Failed> {
        Ok(Outcome::Ready)
    }

    async fn released(_: &Thing) -> Result<(), Failed> {
        Ok(())
    }

    #[tokio::test]
    async fn a_new_object_gets_the_finalizer_before_anything_else() {
        let (ctx, mut server) = context();
        let server = tokio::spawn(async move {
            let patch = server.expect(Method::PATCH, PATH).await;
            assert_eq!(patch.content_type, mock::JSON_PATCH);
            assert_eq!(
                patch.body,
                json!([
                    { "op": "test", "path": "/metadata/finalizers", "value": null },
                    { "op": "add", "path": "/metadata/finalizers", "value": [FINALIZER] },
                ])
            );
            patch.respond(StatusCode::OK, json!(finalized()));
            server.expect_no_more().await;
        });
        let result = RECONCILER
            .reconcile_with_finalizer(Arc::new(thing()), &ctx, ready, released)
            .await;
        drop(ctx);
        finish(server).await;
        assert_eq!(result.expect("a reconciliation"), Action::await_change());
    }

    /// Server-side apply of the status subresource, by the controller's field manager;
    /// an object whose status says so already needs no request.
    #[tokio::test]
    async fn conditions_are_applied_to_the_status_once() {
        let (ctx, mut server) = context();
        let object = finalized();
        let answer = object.clone();
        let server = tokio::spawn(async move {
            let status = format!("{PATH}/status");
            let patch = server.expect(Method::PATCH, &status).await;
            assert_eq!(patch.content_type, mock::APPLY_PATCH);
            assert_eq!(patch.param("fieldManager"), Some("thing-controller"));
            assert_eq!(patch.param("force"), Some("true"));
            assert_eq!(patch.body["kind"], "Thing");
            assert_eq!(patch.body["status"]["observedGeneration"], 1);
            let written = patch.body["status"].clone();
            let mut answer = json!(answer);
            answer["status"] = written.clone();
            patch.respond(StatusCode::OK, answer);
            let event = server
                .expect(Method::POST, &events_path(Some("team-a")))
                .await;
            assert_eq!(event.body["reason"], "Reconciled");
            event.echo();
            (server, written)
        });
        let action = RECONCILER
            .reconcile_with_finalizer(Arc::new(object.clone()), &ctx, ready, released)
            .await
            .expect("a reconciliation");
        assert_eq!(
            action,
            Action::await_change(),
            "a Ready object waits for the resync of all"
        );
        let (server, written) = finish(server).await;

        let mut object = object;
        object.status = Some(serde_json::from_value(written).expect("a status"));
        let server = tokio::spawn(server.expect_no_more());
        let again = RECONCILER
            .reconcile_with_finalizer(Arc::new(object), &ctx, ready, released)
            .await;
        drop(ctx);
        finish(server).await;
        again.expect("a reconciliation without requests");
    }

    /// The namespace is being deleted: NamespaceLifecycle refuses every create there,
    /// events included. The finalizer must still go, or the namespace never does.
    #[tokio::test]
    async fn refused_events_and_status_do_not_keep_the_finalizer() {
        let (ctx, mut server) = context();
        let mut object = finalized();
        object.metadata.deletion_timestamp = Some(Time(Timestamp::now()));
        let answer = thing();
        let server = tokio::spawn(async move {
            let status = format!("{PATH}/status");
            let patch = server.expect(Method::PATCH, &status).await;
            let code = StatusCode::INTERNAL_SERVER_ERROR;
            patch.respond(code, mock::failure(code, "InternalError", "etcd timed out"));
            let event = server
                .expect(Method::POST, &events_path(Some("team-a")))
                .await;
            assert_eq!(event.body["reason"], "CleanedUp");
            let refusal = mock::namespace_terminating("events.events.k8s.io", "team-a");
            event.respond(StatusCode::FORBIDDEN, refusal);
            let patch = server.expect(Method::PATCH, PATH).await;
            assert_eq!(patch.body[1]["op"], "remove");
            patch.respond(StatusCode::OK, json!(answer));
            server.expect_no_more().await;
        });
        let result = RECONCILER
            .reconcile_with_finalizer(Arc::new(object), &ctx, ready, released)
            .await;
        drop(ctx);
        finish(server).await;
        assert_eq!(result.expect("a reconciliation"), Action::await_change());
    }

    #[tokio::test]
    async fn without_a_finalizer_a_deleted_object_needs_no_request() {
        let (ctx, server) = context();
        let mut object = thing();
        object.metadata.deletion_timestamp = Some(Time(Timestamp::now()));
        let server = tokio::spawn(server.expect_no_more());
        let result = PLAIN.reconcile(Arc::new(object), &ctx, ready).await;
        drop(ctx);
        finish(server).await;
        assert_eq!(result.expect("a reconciliation"), Action::await_change());
    }

    #[tokio::test]
    async fn failures_are_counted_and_retried_later_each_time_until_a_success() {
        let (ctx, _server) = context();
        let object = thing();
        let error = Failed(Error::Kube(kube::Error::LinesCodecMaxLineLengthExceeded));
        let delays: Vec<Action> = (0..3).map(|_| PLAIN.retry(&ctx, &object, &error)).collect();
        let secs = |s| Action::requeue(Duration::from_secs(s));
        assert_eq!(delays, [secs(5), secs(10), secs(20)]);
        let metrics = ctx.metrics.encode().expect("the metrics encode");
        let failures = "controller_reconcile_errors_total{controller=\"thing\"} 3";
        assert!(metrics.contains(failures), "{metrics}");
        PLAIN
            .track(&ctx, &object, async {
                Ok::<_, Failed>(Action::await_change())
            })
            .await
            .expect("a success");
        assert_eq!(PLAIN.retry(&ctx, &object, &error), secs(5));
    }

    /// The watch lists in pages of 100 objects: the API server returns at most `limit`
    /// objects per LIST response, and a `continue` token for the rest (Kubernetes API
    /// concepts, "Retrieving large results sets in chunks").
    #[tokio::test]
    async fn the_watch_lists_its_objects_in_small_pages() {
        let (ctx, mut server) = context();
        let api = Api::<Thing>::namespaced(ctx.client.clone(), "team-a");
        let controller = PLAIN.controller(api, &ctx, Readiness::default());
        let (_trigger, shutdown) = Shutdown::channel();
        let run = tokio::spawn(PLAIN.run(
            controller,
            |_, _| async { Ok::<_, Failed>(Action::await_change()) },
            |_, _, _| Action::await_change(),
            ctx,
            shutdown,
        ));
        let list = server
            .expect(Method::GET, "/apis/example.com/v1/namespaces/team-a/things")
            .await;
        run.abort();
        assert_eq!(list.param("limit"), Some("100"), "{}", list.query);
    }

    /// An object at resourceVersion 7, and what its status write returned: version 8.
    fn status_write_from_7_to_8() -> (Thing, Thing) {
        let mut object = finalized();
        object.metadata.resource_version = Some("7".into());
        let mut returned = object.clone();
        returned.metadata.resource_version = Some("8".into());
        (object, returned)
    }

    /// A status write is remembered while the cache may trail it, and no longer: N
    /// objects cached must not hold their conditions twice.
    #[test]
    fn a_status_write_is_forgotten_once_the_watch_delivers_its_version() {
        let written = Written::default();
        let (object, mut returned) = status_write_from_7_to_8();
        returned.status = Some(ThingStatus {
            conditions: Vec::new(),
            observed_generation: Some(1),
        });
        written.set(&object, &returned);

        written.follow(&watcher::Event::Apply(object.clone()));
        assert!(
            written.writes.get(&object).is_some(),
            "the cache still trails the write"
        );
        written.follow(&watcher::Event::Apply(returned.clone()));
        assert!(
            written.writes.get(&object).is_none(),
            "the cache has caught up"
        );

        written.set(&object, &returned);
        written.follow(&watcher::Event::InitApply(returned));
        assert!(
            written.writes.get(&object).is_none(),
            "a relist caught up too"
        );
    }

    /// The watch can deliver the version a status write returned before the write's
    /// answer arrives; no later event would then forget the write, and 9 in 10 of 10,000
    /// new objects kept their conditions twice (heaptrack, `make bench-scale`).
    #[test]
    fn a_status_write_the_watch_delivered_first_is_not_remembered() {
        let written = Written::default();
        let (object, returned) = status_write_from_7_to_8();
        let cache_at = |version: &'static str| {
            move |namespace: Option<&str>, name: &str| {
                (namespace == Some("team-a") && name == "a").then(|| version.to_owned())
            }
        };

        written.cache(cache_at("8"));
        written.set(&object, &returned);
        assert!(written.writes.get(&object).is_none(), "the cache holds it");

        written.cache(cache_at("7"));
        written.set(&object, &returned);
        assert!(written.writes.get(&object).is_some(), "the cache trails it");
    }

    #[test]
    fn the_cache_keeps_neither_managed_fields_nor_the_last_applied_copy() {
        let mut object: Thing = serde_json::from_value(json!({
            "apiVersion": "example.com/v1",
            "kind": "Thing",
            "metadata": {
                "name": "a",
                "annotations": {LAST_APPLIED: "{\"kind\":\"Thing\"}", "team": "a"},
                "managedFields": [{"manager": "kubectl", "operation": "Apply"}],
            },
            "spec": {},
        }))
        .expect("a Thing");
        strip(&mut object);
        assert!(object.managed_fields().is_empty());
        let annotations = object.metadata.annotations.expect("the other annotations");
        assert_eq!(annotations.keys().collect::<Vec<_>>(), ["team"]);
    }
}
