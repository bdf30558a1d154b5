//! A controller context (`controller::Shared`) for the tests that run a [`Reconciler`].
//!
//! [`Reconciler`]: rsbuilder_runtime::controller::Reconciler

use kube::Client;
use kube::runtime::events::{Recorder, Reporter};

use rsbuilder_runtime::controller::{Shared, States};
use rsbuilder_runtime::metrics::Metrics;

pub struct Ctx {
    client: Client,
    recorder: Recorder,
    metrics: Metrics,
    states: States,
}

impl Ctx {
    /// The context of a controller whose events come from `reporter`.
    pub fn new(client: Client, reporter: &str) -> Self {
        Self {
            recorder: Recorder::new(client.clone(), Reporter::from(reporter)),
            client,
            metrics: Metrics::default(),
            states: States::default(),
        }
    }
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
