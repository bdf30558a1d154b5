use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The database spec.
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(
    group = "db.example.com",
    version = "v1",
    kind = "Database",
    namespaced,
    status = "DatabaseStatus",
    shortname = "db"
)]
#[serde(rename_all = "camelCase")]
pub struct DatabaseSpec {
    pub engine: Engine,
    pub storage_gb: u32,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    Postgres,
    Mysql,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct DatabaseStatus {
    pub ready: bool,
    pub endpoint: Option<String>,
}
