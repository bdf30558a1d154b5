//! A controller context (`controller::Shared`) for the tests that run a [`Reconciler`],
//! and a run of its controller that reports what it reconciles.
//!
//! [`Reconciler`]: rsbuilder_runtime::controller::Reconciler

use std::sync::Arc;

use futures::StreamExt as _;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::Client;
use kube::api::{Api, ObjectMeta, PostParams};
use kube::runtime::Controller;
use kube::runtime::controller::Action;
use kube::runtime::events::{Recorder, Reporter};
use tokio::sync::mpsc::UnboundedReceiver;

use rsbuilder_runtime::controller::{Cacheable, Cached, Shared, States};
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

/// Runs `controller` in the background, with a reconciliation that sends each object it is
/// given to the receiver returned and answers `await_change`, as the `Reconciler` does for
/// a `Ready` object.
pub fn run_reporting<K>(controller: Controller<Cached<K>>, ctx: Ctx) -> UnboundedReceiver<Arc<K>>
where
    K: Cacheable,
{
    let (sender, reconciled) = tokio::sync::mpsc::unbounded_channel();
    let running = controller.run(
        move |cached: Arc<Cached<K>>, _ctx: Arc<Ctx>| {
            let object = cached.object().expect("the cache reads back what it kept");
            let _ = sender.send(Arc::new(object));
            async { Ok::<_, kube::Error>(Action::await_change()) }
        },
        |_, _, _| Action::await_change(),
        Arc::new(ctx),
    );
    tokio::spawn(running.for_each(|_| async {}));
    reconciled
}

/// Creates an empty ConfigMap of each name, in this order.
pub async fn create_config_maps(api: &Api<ConfigMap>, names: impl IntoIterator<Item = &str>) {
    for name in names {
        let object = ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        };
        api.create(&PostParams::default(), &object)
            .await
            .unwrap_or_else(|error| panic!("the ConfigMap {name}: {error}"));
    }
}
