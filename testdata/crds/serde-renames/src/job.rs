//! rename, rename_all (several rules), skip, skip_serializing, skip_deserializing,
//! deny_unknown_fields, raw identifiers.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "batch.example.com", version = "v1", kind = "Task", namespaced)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct TaskSpec {
    pub run_command: String,
    #[serde(rename = "TIMEOUT")]
    pub timeout_seconds: Option<u32>,
    #[serde(skip)]
    pub internal: String,
    #[serde(skip_serializing)]
    pub password: Option<String>,
    #[serde(skip_deserializing)]
    pub computed: Option<String>,
    pub r#type: String,
    pub shouty: Shouty,
    pub env: Vec<EnvEntry>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct Shouty {
    pub first_value: bool,
    pub second_value: bool,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "PascalCase")]
pub struct EnvEntry {
    pub env_name: String,
    #[schemars(rename = "val")]
    pub env_value: String,
}
