//! `#[cfg]` and `#[cfg_attr]` the source decides: fields, variants, attributes and a whole
//! test module that rustc removes or keeps in a normal build.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A log shipping agent deployed on every node.
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(
    group = "logging.example.com",
    version = "v1",
    kind = "LogAgent",
    namespaced,
    status = "LogAgentStatus"
)]
#[cfg_attr(all(), serde(rename_all = "camelCase"))]
pub struct LogAgentSpec {
    pub image: String,
    /// Only in test builds.
    #[cfg(test)]
    pub test_only: bool,
    /// Never compiled.
    #[cfg(any())]
    pub never: String,
    /// Always compiled.
    #[cfg(all())]
    pub buffer_size: u32,
    #[cfg(not(test))]
    pub flush_interval_seconds: Option<u32>,
    #[cfg_attr(all(), serde(rename = "outputs"))]
    #[cfg_attr(any(), serde(rename = "neverRenamed"))]
    pub sinks: Vec<Sink>,
    #[cfg_attr(not(test), cfg_attr(all(), doc = "Extra labels, documented through nested cfg_attr."))]
    pub labels: Option<std::collections::BTreeMap<String, String>>,
    pub level: Level,
    pub retention: Retention,
    #[cfg_attr(test, serde(default))]
    pub compress: bool,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Sink {
    pub url: String,
    #[cfg(any(test, any()))]
    pub debug: bool,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub enum Level {
    Info,
    Warn,
    #[cfg(test)]
    Trace,
    #[cfg(not(any()))]
    Error,
}

/// Two definitions under opposite `#[cfg]`s: a normal build sees the days.
#[cfg(test)]
pub type Retention = String;
#[cfg(not(test))]
pub type Retention = u16;

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct LogAgentStatus {
    pub ready: bool,
    #[cfg(test)]
    pub test_counter: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kind that only exists in tests: no CRD file.
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(group = "logging.example.com", version = "v1", kind = "TestAgent")]
    pub struct TestAgentSpec {
        pub x: u8,
    }
}

#[cfg(any())]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "logging.example.com", version = "v1", kind = "NeverAgent")]
pub struct NeverAgentSpec {
    pub x: u8,
}
