use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A data pipeline; what it exposes depends on the crate's features.
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "data.example.com", version = "v1", kind = "Pipeline", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct PipelineSpec {
    pub source: String,
    /// On by default.
    #[cfg(feature = "metrics")]
    #[cfg_attr(feature = "metrics", serde(rename = "metricsPort"))]
    pub metrics_listen_port: Option<u16>,
    /// On through `verbose`, which the oracle (and `--features verbose`) enables.
    #[cfg(feature = "tracing")]
    pub trace_sample_rate: Option<f64>,
    /// Off: nobody enables `experimental`.
    #[cfg(feature = "experimental")]
    pub canary_percent: Option<u8>,
    #[cfg(all(feature = "metrics", not(feature = "experimental")))]
    pub stable_only: bool,
    pub stages: Vec<Stage>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub enum Stage {
    Filter,
    Map,
    #[cfg(feature = "experimental")]
    Join,
    #[cfg_attr(feature = "tracing", serde(rename = "trace"))]
    Trace,
}

/// A kind that exists only with the `metrics` feature.
#[cfg(feature = "metrics")]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "data.example.com", version = "v1alpha1", kind = "MetricsExporter")]
pub struct MetricsExporterSpec {
    pub port: u16,
}
