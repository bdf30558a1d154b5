//! A selectable field whose JSON path does not start with `.`.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "refused.example.com", version = "v1", kind = "Thing", selectable = "spec.name")]
pub struct ThingSpec {
    pub name: String,
}
