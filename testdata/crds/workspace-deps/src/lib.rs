//! A kind whose fields come from the workspace's `shared` crate (named `api` here).
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use api::Policy;

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "mesh.example.com", version = "v1", kind = "Route", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct RouteSpec {
    pub backend: api::Endpoint,
    pub mirrors: Vec<api::net::Endpoint>,
    pub policy: Option<Policy>,
    #[serde(default = "api::defaults::port")]
    pub port: u16,
    #[serde(default = "default_backoff")]
    pub backoff: u32,
}

fn default_backoff() -> u32 {
    api::defaults::BACKOFF_SECONDS
}
