// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Reconcilers, one module per kind, and the context they share.

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;
use kube::Client;
use kube::runtime::events::{Recorder, Reporter};

use crate::metrics::Metrics;
use crate::server::Readiness;
use crate::shutdown::Shutdown;

pub mod backoff;
pub mod children;
pub mod cron_job;
pub mod tenant;
pub mod deployment;
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

/// Every controller of this manager, by name; `rsbuilder create api` adds to this list.
pub fn all() -> Vec<(&'static str, Run)> {
    vec![
        cron_job::CONTROLLER,
        tenant::CONTROLLER,
        deployment::CONTROLLER,
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
    /// Each controller's state, by name ([`Context::state`]): it lives as long as this
    /// context, so two managers in one process (as in the tests) share none of it.
    states: Arc<Mutex<BTreeMap<&'static str, Arc<dyn Any + Send + Sync>>>>,
}

impl Context {
    pub fn new(client: Client, metrics: Arc<Metrics>, namespace: Option<String>) -> Self {
        let reporter = Reporter {
            controller: "project-v1".into(),
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
            .entry(controller)
            .or_insert_with(|| Arc::new(T::default()));
        if let Ok(state) = entry.clone().downcast::<T>() {
            return state;
        }
        let state = Arc::new(T::default());
        *entry = state.clone();
        state
    }
}
