//! A CRD label whose value is not a label value (a space).
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "refused.example.com", version = "v1", kind = "Thing", label("team", "core team"))]
pub struct ThingSpec {
    pub name: String,
}
