//! A test module in a file of its own: not part of a normal build.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "data.example.com", version = "v1", kind = "Fixture")]
pub struct FixtureSpec {
    pub x: u8,
}
