//! `serde_json::Value`: a schema without a type.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "refused.example.com", version = "v1", kind = "Thing")]
pub struct ThingSpec {
    pub a: serde_json::Value,
}
