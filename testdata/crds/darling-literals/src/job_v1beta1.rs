//! An old version, neither served nor stored, its flags given as strings.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(
    group = "batch.example.com",
    version = "v1beta1",
    kind = "Backup",
    namespaced = true,
    served = "false",
    storage = "false",
    deprecated = "use v1"
)]
pub struct BackupSpec {
    pub target: String,
}
