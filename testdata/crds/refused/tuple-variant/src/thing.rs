//! A tuple variant of an externally tagged enum.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "refused.example.com", version = "v1", kind = "Thing")]
pub struct ThingSpec {
    pub a: E,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub enum E {
    A { x: u8 },
    V(u8, String),
}
