//! A rule marked `optional_old_self` that never reads `oldSelf`.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "refused.example.com", version = "v1", kind = "Thing", validation = Rule::new("self.spec.a > 0").optional_old_self(true))]
pub struct ThingSpec {
    pub a: u8,
}
