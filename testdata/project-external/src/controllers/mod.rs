// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Reconcilers, one module per kind, and the context they share.

use std::any::{Any, TypeId};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;
use kube::Client;
use kube::runtime::controller::{self, Action};
use kube::runtime::events::{Recorder, Reporter};
use tracing::{debug, warn};

use crate::metrics::Metrics;
use crate::server::Readiness;
use crate::shutdown::Shutdown;

pub mod backoff;
pub mod children;
pub mod per_object;
pub mod certificate;
pub mod http_route;
pub mod service_monitor;
// +rsbuilder:scaffold:controller-modules

/// A controller's entry point: it runs until `shutdown` resolves, and sets its
/// `Readiness` once its watch has listed every object.
pub type Run = fn(Context, Readiness, Shutdown) -> BoxFuture<'static, ()>;

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

/// Every controller of this manager, by name; `rsbuilder create api` adds to this list.
pub fn all() -> Vec<(&'static str, Run)> {
    vec![
        certificate::CONTROLLER,
        http_route::CONTROLLER,
        service_monitor::CONTROLLER,
        // +rsbuilder:scaffold:controllers
    ]
}

/// What every reconciler shares. It holds handles, and what a controller may forget
/// without harm (its retry counts): any replica can pick up where another left off.
#[derive(Clone)]
pub struct Context {
    pub client: Client,
    pub metrics: Arc<Metrics>,
    /// Publishes Kubernetes events on behalf of this manager.
    pub recorder: Recorder,
    /// The namespace to watch, or every namespace when `None`.
    pub namespace: Option<String>,
    /// Each controller's state, by name and type ([`Context::state`]): it lives as long as
    /// this context, so two managers in one process (as in the tests) share none of it.
    states: Arc<Mutex<States>>,
}

type States = BTreeMap<(&'static str, TypeId), Arc<dyn Any + Send + Sync>>;

impl Context {
    pub fn new(client: Client, metrics: Arc<Metrics>, namespace: Option<String>) -> Self {
        let reporter = Reporter {
            controller: "project-external".into(),
            instance: std::env::var("HOSTNAME").ok(),
        };
        Self {
            recorder: Recorder::new(client.clone(), reporter),
            client,
            metrics,
            namespace,
            states: Arc::default(),
        }
    }

    /// The state of type `T` of `controller`, created on first use.
    pub fn state<T: Default + Send + Sync + 'static>(&self, controller: &'static str) -> Arc<T> {
        let mut states = self.states.lock().unwrap_or_else(PoisonError::into_inner);
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

#[cfg(test)]
mod tests {
    use std::io::Write;

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
