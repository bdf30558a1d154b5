//! kube's doc/root/singular/plural defaults, no_spec, and a Policy kind's plural rule.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "x.example.com", version = "v1", kind = "AccessPolicy", doc = "Custom root docs.", root = "AccessPolicyResource")]
pub struct AccessPolicySpec {
    pub allow: bool,
}

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "x.example.com", version = "v2", kind = "Gadget", singular = "gizmo", namespaced, no_spec)]
pub struct GadgetSpec {
    pub size: u8,
}

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "x.example.com", version = "v1", kind = "Box", root = "BoxResource")]
pub struct BoxSpec {
    pub any: String,
}
