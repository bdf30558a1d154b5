//! A CRD label whose key is not a qualified name (two `/`).
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "refused.example.com", version = "v1", kind = "Thing", label("example.com/team/name", "core"))]
pub struct ThingSpec {
    pub name: String,
}
