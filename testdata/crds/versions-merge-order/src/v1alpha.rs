//! `v1alpha`: one of the versions of Relay whose order kube-core's `Version` and the API
//! server's priority disagree on (`v1alpha`/`v1beta` without a number are alpha/beta to
//! kube-core, other names to the API server).
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "relay.example.com", version = "v1alpha", kind = "Relay", namespaced, storage = false)]
pub struct RelaySpec {
    pub target: String,
}
