// SPDX-License-Identifier: Apache-2.0

//! Reconcilers, one module per kind, and the context they share.

use std::any::{Any, TypeId};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;
use kube::Client;
use kube::runtime::events::{Recorder, Reporter};

use rsbuilder_runtime::metrics::Metrics;
use rsbuilder_runtime::server::Readiness;
use rsbuilder_runtime::shutdown::Shutdown;

pub mod backoff;
pub mod children;
pub mod per_object;
pub mod frigate;
pub mod config_map;
// +rsbuilder:scaffold:controller-modules

/// A controller's entry point: it runs until `shutdown` resolves, and sets its
/// `Readiness` once its watch has listed every object.
pub type Run = fn(Context, Readiness, Shutdown) -> BoxFuture<'static, ()>;

/// Every controller of this manager, by name; `rsbuilder create api` adds to this list.
pub fn all() -> Vec<(&'static str, Run)> {
    vec![
        frigate::CONTROLLER,
        config_map::CONTROLLER,
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
            controller: "lint-seeded".into(),
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
