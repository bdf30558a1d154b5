//! Mounted as `crate::shared` by `#[path]`.
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A host and port to connect to.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Endpoint {
    pub host: String,
    pub port: u16,
}
