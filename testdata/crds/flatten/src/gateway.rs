//! #[serde(flatten)] of a struct, an optional struct and a map (preserve-unknown-fields).
use std::collections::BTreeMap;

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "gw.example.com", version = "v1", kind = "Gateway", namespaced)]
pub struct GatewaySpec {
    pub host: String,
    #[serde(flatten)]
    pub tls: Tls,
    #[serde(flatten)]
    pub extra: Option<Extra>,
    pub listener: Listener,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Tls {
    pub cert: String,
    pub key: Option<String>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Extra {
    pub note: String,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Listener {
    pub port: u16,
    #[serde(flatten)]
    pub other: BTreeMap<String, serde_json::Value>,
}
