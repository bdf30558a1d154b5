// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Reconcilers, one module per kind, and the context they share.

use std::sync::Arc;

use futures::future::BoxFuture;
use kube::Client;
use kube::runtime::events::{Recorder, Reporter};

use rsbuilder_runtime::controller::{Shared, States};
use rsbuilder_runtime::metrics::Metrics;
use rsbuilder_runtime::server::Readiness;
use rsbuilder_runtime::shutdown::Shutdown;

// +rsbuilder:scaffold:controller-modules

/// A controller's entry point: it runs until `shutdown` resolves, and sets its
/// `Readiness` once its watch has listed every object.
pub type Run = fn(Context, Readiness, Shutdown) -> BoxFuture<'static, ()>;

/// Every controller of this manager, by name; `rsbuilder create api` adds to this list.
pub fn all() -> Vec<(&'static str, Run)> {
    vec![
        // +rsbuilder:scaffold:controllers
    ]
}

/// What every reconciler shares. It holds handles, and what a controller may forget
/// without harm (its retry counts): any replica can pick up where another left off.
/// TODO(user): add what your reconcilers need besides (clients of other systems, settings).
#[derive(Clone)]
pub struct Context {
    pub client: Client,
    pub metrics: Arc<Metrics>,
    /// Publishes your own Kubernetes events on behalf of this manager; the reconcilers'
    /// own (`Reconciled`, `ReconcileFailed`) come from the runtime, as `<kind>-controller`.
    pub recorder: Recorder,
    /// The namespace to watch, or every namespace when `None`.
    pub namespace: Option<String>,
    /// Each controller's memory, by name and type: it lives as long as this context, so
    /// two managers in one process (as in the tests) share none of it.
    pub states: States,
}

impl Context {
    pub fn new(client: Client, metrics: Arc<Metrics>, namespace: Option<String>) -> Self {
        let reporter = Reporter {
            controller: "project-init".into(),
            instance: std::env::var("HOSTNAME").ok(),
        };
        Self {
            recorder: Recorder::new(client.clone(), reporter),
            client,
            metrics,
            namespace,
            states: States::default(),
        }
    }
}

/// What the runtime's `Reconciler` works with.
impl Shared for Context {
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
