//! A map keyed by integers (`patternProperties`).
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "refused.example.com", version = "v1", kind = "Thing")]
pub struct ThingSpec {
    pub a: std::collections::BTreeMap<u8, String>,
}
