//! `#[kube]` values written as darling coerces them: numbers and booleans given as strings,
//! integers with a type suffix, as operators write them after copying from other attributes.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(
    group = "batch.example.com",
    version = "v1",
    kind = "Backup",
    namespaced = "true",
    served = "true",
    storage = "true",
    printcolumn(name = "Target", type_ = "string", json_path = ".spec.target", priority = "1"),
    printcolumn(name = "Retries", type_ = "integer", json_path = ".spec.retries", priority = 2i32),
    printcolumn(name = "Age", type_ = "date", json_path = ".metadata.creationTimestamp", priority = "0")
)]
pub struct BackupSpec {
    pub target: String,
    pub retries: u8,
}
