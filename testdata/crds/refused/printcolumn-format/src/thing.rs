//! A printer column whose `format` is none the API server knows (`int32`, `int64`,
//! `float`, `double`, `byte`, `date`, `date-time`, `password`).
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "refused.example.com", version = "v1", kind = "Thing", printcolumn(name = "Size", type_ = "integer", format = "uint8", json_path = ".spec.size"))]
pub struct ThingSpec {
    pub size: u8,
}
