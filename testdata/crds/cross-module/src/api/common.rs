//! Types shared by several kinds.
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A reference to a secret.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SecretRef {
    pub secret_name: String,
    pub key: Option<String>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub enum Tier {
    Free,
    Paid,
}

pub type Tags = Vec<String>;
