//! `schema = "disabled"`: a version without a schema.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "refused.example.com", version = "v1", kind = "Thing", schema = "disabled")]
pub struct ThingSpec {
    pub a: u8,
}
