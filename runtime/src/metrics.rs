//! Prometheus metrics of the reconcilers, served at `/metrics`.

use std::time::Instant;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// The labels of every metric: which controller it counts.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ControllerLabels {
    /// The controller's name, its kind.
    pub controller: String,
}

/// Reconcile count, errors and duration, per controller.
pub struct Metrics {
    registry: Registry,
    reconciliations: Family<ControllerLabels, Counter>,
    failures: Family<ControllerLabels, Counter>,
    duration: Family<ControllerLabels, Histogram, fn() -> Histogram>,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("controller");
        let reconciliations = Family::<ControllerLabels, Counter>::default();
        let failures = Family::<ControllerLabels, Counter>::default();
        let duration: Family<ControllerLabels, Histogram, fn() -> Histogram> =
            // 5 ms to about 10 s: reconciles are API round trips, not computations.
            Family::new_with_constructor(|| Histogram::new(exponential_buckets(0.005, 2.0, 12)));
        registry.register(
            "reconcile",
            "Reconciliations started",
            reconciliations.clone(),
        );
        registry.register(
            "reconcile_errors",
            "Reconciliations that failed",
            failures.clone(),
        );
        registry.register(
            "reconcile_duration_seconds",
            "Time spent in one reconciliation",
            duration.clone(),
        );
        Self {
            registry,
            reconciliations,
            failures,
            duration,
        }
    }
}

impl Metrics {
    /// Counts a reconciliation and times it until the returned guard is dropped.
    pub fn reconcile_started(&self, controller: &str) -> ReconcileTimer<'_> {
        let labels = ControllerLabels {
            controller: controller.to_string(),
        };
        self.reconciliations.get_or_create(&labels).inc();
        ReconcileTimer {
            metrics: self,
            labels,
            start: Instant::now(),
        }
    }

    /// Counts a reconciliation of `controller` that failed.
    pub fn reconcile_failed(&self, controller: &str) {
        let labels = ControllerLabels {
            controller: controller.to_string(),
        };
        self.failures.get_or_create(&labels).inc();
    }

    /// The registry in the Prometheus text format.
    pub fn encode(&self) -> Result<String, std::fmt::Error> {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry)?;
        Ok(text)
    }
}

/// Records the duration of a reconciliation when dropped.
pub struct ReconcileTimer<'a> {
    metrics: &'a Metrics,
    labels: ControllerLabels,
    start: Instant,
}

impl Drop for ReconcileTimer<'_> {
    fn drop(&mut self) {
        let seconds = self.start.elapsed().as_secs_f64();
        self.metrics
            .duration
            .get_or_create(&self.labels)
            .observe(seconds);
    }
}
