//! A tuple struct: a tuple schema (`prefixItems`).
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "refused.example.com", version = "v1", kind = "Thing")]
pub struct ThingSpec {
    pub a: Pair,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Pair(pub u8, pub String);
