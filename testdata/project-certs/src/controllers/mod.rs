// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Reconcilers, one module per kind, and the context they share.

use std::sync::Arc;

use futures::future::BoxFuture;
use kube::Client;
use kube::runtime::events::{Recorder, Reporter};

use crate::metrics::Metrics;
use crate::shutdown::Shutdown;

pub mod backoff;
pub mod children;
pub mod frigate;
// +rsbuilder:scaffold:controller-modules

/// A controller's entry point: it runs until `shutdown` resolves.
pub type Run = fn(Context, Shutdown) -> BoxFuture<'static, ()>;

/// Every controller of this manager, by name; `rsbuilder create api` adds to this list.
pub fn all() -> Vec<(&'static str, Run)> {
    vec![
        frigate::CONTROLLER,
        // +rsbuilder:scaffold:controllers
    ]
}

/// What every reconciler shares. It holds handles only: reconcilers keep no state in
/// memory between runs, so any replica can pick up where another left off.
#[derive(Clone)]
pub struct Context {
    pub client: Client,
    pub metrics: Arc<Metrics>,
    /// Publishes Kubernetes events on behalf of this manager.
    pub recorder: Recorder,
    /// The namespace to watch, or every namespace when `None`.
    pub namespace: Option<String>,
}

impl Context {
    pub fn new(client: Client, metrics: Arc<Metrics>, namespace: Option<String>) -> Self {
        let reporter = Reporter {
            controller: "project-certs".into(),
            instance: std::env::var("HOSTNAME").ok(),
        };
        Self {
            recorder: Recorder::new(client.clone(), reporter),
            client,
            metrics,
            namespace,
        }
    }
}
