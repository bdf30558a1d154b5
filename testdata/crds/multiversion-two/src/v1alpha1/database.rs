use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The old database spec.
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(
    group = "db.example.com",
    version = "v1alpha1",
    kind = "Database",
    namespaced,
    storage = false,
    deprecated = "db.example.com/v1alpha1 Database is deprecated; use v1",
    status = "DatabaseStatus"
)]
pub struct DatabaseSpec {
    pub engine: String,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct DatabaseStatus {
    pub ready: bool,
}
