//! A recursive type: schemars refers to it with `$ref`.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "refused.example.com", version = "v1", kind = "Thing")]
pub struct ThingSpec {
    pub a: Node,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Node {
    pub children: Vec<Node>,
}
