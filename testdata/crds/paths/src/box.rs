//! Types of the `r#box` module, named from other modules as `crate::r#box::...`.
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How long a box is held.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Lease {
    pub duration_seconds: u32,
    pub r#type: String,
}
