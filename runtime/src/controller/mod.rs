//! What every controller shares, so that a project's controller holds only its own logic
//! (`converge`, `cleanup`, its watches): the watch and its plumbing, the finalizer flow,
//! conditions in the status, best-effort events, retries with backoff, children by
//! server-side apply.
//!
//! A controller describes itself once as a [`Reconciler`] (its name, the field manager of
//! its status writes, its finalizer) and calls it from `run`, `reconcile` and
//! `error_policy`; its manager's context implements [`Shared`], the handles the
//! [`Reconciler`] works with.

use std::any::{Any, TypeId};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;
use k8s_openapi::{ClusterResourceScope, NamespaceResourceScope};
use kube::runtime::controller::{self, Action};
use kube::runtime::events::Recorder;
use kube::runtime::watcher;
use kube::{Api, Client, Resource, ResourceExt};
use tracing::{debug, warn};

use crate::metrics::Metrics;
use crate::server::Readiness;

mod backlog;
pub mod backoff;
mod cached;
pub mod children;
mod compact;
pub mod conditions;
pub mod events;
pub mod per_object;
mod reconciler;

pub use cached::{Cacheable, Cached};
pub use reconciler::{LAST_APPLIED, Reconciler, strip};

/// What a manager's controllers share, as a [`Reconciler`] needs it: a project's
/// `Context` implements it and may hold more (clients of other systems, settings).
pub trait Shared: Send + Sync + 'static {
    /// The client of the API server.
    fn client(&self) -> &Client;
    /// Publishes the project's own events on behalf of the manager. The [`Reconciler`]
    /// publishes its own (`Reconciled`, `ReconcileFailed`, `CleanedUp`) with
    /// [`events::publish`], which keeps nothing: this recorder keeps each event it
    /// publishes for six minutes, to count repeats.
    fn recorder(&self) -> &Recorder;
    /// The reconciliation counts and durations, per controller.
    fn metrics(&self) -> &Metrics;
    /// What each controller remembers between reconciliations.
    fn states(&self) -> &States;
}

/// Each controller's memory, by controller name and type: retry counts, its last status
/// writes. It lives as long as the context that holds it, so two managers in one process
/// (as in tests) share none of it, and nothing in it may be needed for correctness: a
/// restart, or another replica taking over, starts empty.
#[derive(Clone, Default)]
pub struct States(Arc<Mutex<Memories>>);

type Memories = BTreeMap<(&'static str, TypeId), Arc<dyn Any + Send + Sync>>;

impl States {
    /// The state of type `T` of `controller`, created on first use.
    pub fn get<T: Default + Send + Sync + 'static>(&self, controller: &'static str) -> Arc<T> {
        let mut states = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = states
            .entry((controller, TypeId::of::<T>()))
            .or_insert_with(|| Arc::new(T::default()));
        // The key holds `T`'s type id, so the entry is a `T`.
        entry
            .clone()
            .downcast::<T>()
            .unwrap_or_else(|_| unreachable!())
    }
}

/// Where a reconciliation that did not fail left an object; its conditions tell
/// ([`conditions::after`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The cluster matches the spec: `Ready`.
    Ready,
    /// The work is under way but not done, e.g. a child is still rolling out: `Progressing`,
    /// with a CamelCase `reason` and a `message` for users.
    Progressing {
        /// Why, in CamelCase: the condition's `reason`.
        reason: &'static str,
        /// For users: the condition's `message`.
        message: String,
    },
}

/// Why the runtime's part of a reconciliation failed. A project's error wraps it
/// (`#[from]`); every failure is retried with backoff.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A request to the API server failed.
    #[error("Kubernetes API request failed: {0}")]
    Kube(#[from] kube::Error),
    /// Adding or removing the finalizer failed.
    #[error("cannot {action} the finalizer: {source}")]
    Finalizer {
        /// `add` or `remove`.
        action: &'static str,
        /// The API server's answer.
        source: kube::Error,
    },
    /// A namespaced object without a namespace, or an object without a name: whatever built
    /// it is wrong (objects read from the API server have both).
    #[error("{kind} {name:?} lacks its {missing}")]
    Incomplete {
        /// The object's kind.
        kind: String,
        /// The object's name, if it has one.
        name: String,
        /// `namespace` or `name`.
        missing: &'static str,
    },
}

/// How an [`Api`] is made for a kind of this scope (namespaced or cluster-scoped).
pub trait Scope {
    /// The API of `K` in `namespace`, or in every namespace when `None`; a cluster-scoped
    /// kind ignores `namespace`.
    fn api<K: Resource<Scope = Self, DynamicType = ()>>(
        client: Client,
        namespace: Option<&str>,
    ) -> Api<K>;
    /// Whether objects of this scope live in a namespace.
    const NAMESPACED: bool;
}

impl Scope for NamespaceResourceScope {
    fn api<K: Resource<Scope = Self, DynamicType = ()>>(
        client: Client,
        namespace: Option<&str>,
    ) -> Api<K> {
        match namespace {
            Some(namespace) => Api::namespaced(client, namespace),
            None => Api::all(client),
        }
    }
    const NAMESPACED: bool = true;
}

impl Scope for ClusterResourceScope {
    fn api<K: Resource<Scope = Self, DynamicType = ()>>(client: Client, _: Option<&str>) -> Api<K> {
        Api::all(client)
    }
    const NAMESPACED: bool = false;
}

/// The API of `K` a controller watches: in `namespace` (the manager's `--namespace`), or
/// in every namespace when `None`.
pub fn api<K>(client: Client, namespace: Option<&str>) -> Api<K>
where
    K: Resource<DynamicType = ()>,
    K::Scope: Scope,
{
    K::Scope::api(client, namespace)
}

/// The watch of a controller's objects or of their children: listed 100 objects a page
/// (kube's default is 500), then watched. A page is decoded whole, `managedFields`
/// included, before [`strip`] drops what the cache does not keep, so the larger the page,
/// the more of the heap is left in fragments between the objects kept. `make bench-scale`
/// with 10,000 objects: a manager restarted on them holds 50 MiB instead of 58, and sees
/// them all 0.2 to 0.7 s later.
fn watch_config() -> watcher::Config {
    watcher::Config::default().page_size(100)
}

/// The API of `object`'s kind, in `object`'s namespace: where its finalizer and status are
/// written.
pub fn api_of<K>(client: Client, object: &K) -> Result<Api<K>, Error>
where
    K: Resource<DynamicType = ()>,
    K::Scope: Scope,
{
    let namespace = object.namespace();
    if K::Scope::NAMESPACED && namespace.is_none() {
        return Err(Error::Incomplete {
            kind: K::kind(&()).into_owned(),
            name: object.name_any(),
            missing: "namespace",
        });
    }
    Ok(api(client, namespace.as_deref()))
}

/// Runs `controller` until it stops; fails when its watch has not listed every object
/// within `timeout` (controller-runtime's `CacheSyncTimeout`). A watch that never syncs
/// (its CRD missing, its RBAC without `list`, objects its types cannot read) would
/// otherwise leave the controller idle behind green probes: the manager exits instead,
/// and says why.
pub async fn supervise(
    name: &str,
    controller: BoxFuture<'static, ()>,
    synced: Readiness,
    timeout: Duration,
) -> anyhow::Result<()> {
    let mut controller = controller;
    let sync = async {
        while !synced.get() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    tokio::select! {
        () = &mut controller => return Ok(()),
        in_time = tokio::time::timeout(timeout, sync) => {
            if in_time.is_err() {
                anyhow::bail!(
                    "the {name} controller's watch did not list its objects within {timeout:?} \
                     (is its CRD installed? may the manager list and watch them?)"
                );
            }
        }
    }
    controller.await;
    Ok(())
}

/// Logs what a controller's run yielded for one object, at the level it deserves.
pub fn log_outcome<O, R, Q>(controller: &str, result: Result<(O, Action), controller::Error<R, Q>>)
where
    O: std::fmt::Display,
    controller::Error<R, Q>: std::fmt::Display,
{
    match result {
        Ok((object, _)) => debug!(%object, "reconciled"),
        // `error_policy` has logged it.
        Err(controller::Error::ReconcilerFailed(..)) => {}
        // Routine: a retry or resync was due for an object deleted since (kube-rs#1167).
        Err(error @ controller::Error::ObjectNotFound(_)) => {
            debug!(%error, "{controller} controller");
        }
        Err(error) => warn!(%error, "{controller} controller"),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::DynamicObject;
    use kube::runtime::reflector::ObjectRef;
    use kube::runtime::watcher;

    use super::*;

    /// What the tracing subscriber wrote.
    #[derive(Clone, Default)]
    struct Logs(Arc<Mutex<Vec<u8>>>);

    impl Write for Logs {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().write(bytes)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The log lines `log_outcome` writes for `error`, at every level.
    fn logged(error: controller::Error<std::io::Error, watcher::Error>) -> String {
        let logs = Logs::default();
        let writer = logs.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            log_outcome::<String, _, _>("Test", Err(error));
        });
        let bytes = logs.0.lock().unwrap().clone();
        String::from_utf8(bytes).unwrap()
    }

    /// Kubernetes' API paths: a namespaced kind's objects live under
    /// `/namespaces/<namespace>/`, a cluster-scoped kind's never do.
    #[tokio::test]
    async fn an_api_is_namespaced_as_its_kind_is() {
        use k8s_openapi::api::core::v1::Namespace;

        let (client, _server) = crate::testing::mock::client();
        let path = |api: Api<ConfigMap>| api.resource_url().to_owned();
        assert_eq!(
            path(api(client.clone(), Some("a"))),
            "/api/v1/namespaces/a/configmaps"
        );
        assert_eq!(path(api(client.clone(), None)), "/api/v1/configmaps");
        let namespaces: Api<Namespace> = api(client.clone(), Some("a"));
        assert_eq!(namespaces.resource_url(), "/api/v1/namespaces");
        let mut unplaced = ConfigMap::default();
        unplaced.metadata.name = Some("b".into());
        assert!(matches!(
            api_of(client.clone(), &unplaced),
            Err(Error::Incomplete {
                missing: "namespace",
                ..
            })
        ));
        unplaced.metadata.namespace = Some("a".into());
        let placed = api_of(client, &unplaced).expect("an API");
        assert_eq!(placed.resource_url(), "/api/v1/namespaces/a/configmaps");
    }

    fn gone() -> Box<ObjectRef<DynamicObject>> {
        Box::new(ObjectRef::<ConfigMap>::new("gone").erase())
    }

    #[test]
    fn an_object_deleted_before_its_retry_is_no_warning() {
        let logs = logged(controller::Error::ObjectNotFound(gone()));
        assert!(logs.contains("DEBUG") && !logs.contains("WARN"), "{logs}");
    }

    #[test]
    fn a_failing_watch_is_a_warning() {
        let error = watcher::Error::NoResourceVersion;
        let logs = logged(controller::Error::QueueError(error));
        assert!(logs.contains("WARN"), "{logs}");
    }

    #[test]
    fn a_failed_reconciliation_is_left_to_the_error_policy() {
        let error = std::io::Error::other("refused");
        let logs = logged(controller::Error::ReconcilerFailed(error, gone()));
        assert_eq!(logs, "");
    }
}
