//! Compiled only with the `experimental` feature: no CRD without it.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "data.example.com", version = "v1", kind = "Canary")]
pub struct CanarySpec {
    pub percent: u8,
}
