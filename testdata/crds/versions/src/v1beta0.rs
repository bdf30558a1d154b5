//! `v1beta0`: a version name the API server accepts (any DNS-1035 label); versions that do
//! not read as `v<N>[alpha|beta<M>]` rank below the others, as the API server ranks them.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "net.example.com", version = "v1beta0", kind = "Tunnel", namespaced, storage = false)]
#[serde(rename_all = "camelCase")]
pub struct TunnelSpec {
    pub remote_address: String,
    pub port: u16,
}
