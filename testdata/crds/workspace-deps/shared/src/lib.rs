//! Types shared by the workspace's operators.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod defaults;
pub mod net;

pub use net::Endpoint;

/// How often to retry.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Policy {
    pub max_retries: u32,
    #[serde(default = "crate::defaults::backoff_seconds")]
    pub backoff_seconds: u32,
    #[cfg(feature = "metrics")]
    pub metrics: Option<bool>,
    #[cfg(feature = "audit")]
    pub audit: Option<bool>,
}

/// The shared crate's own kind: not a CRD of the crates that use its types.
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "shared.example.com", version = "v1", kind = "Registry")]
pub struct RegistrySpec {
    pub url: String,
}

// A macro that could define a custom resource: in the crate itself `generate crds` warns
// that it is not expanded; in a dependency it cannot define the dependent's kinds.
macro_rules! reexport {
    () => {
        pub use kube::CustomResource as Derive;
    };
}

reexport!();
