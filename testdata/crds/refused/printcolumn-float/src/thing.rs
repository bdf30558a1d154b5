//! A printer column of type `float`: kube-derive writes it, the API server accepts only
//! `integer`, `number`, `string`, `boolean` and `date`.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "refused.example.com", version = "v1", kind = "Thing", printcolumn(name = "Ratio", type_ = "float", json_path = ".spec.ratio"))]
pub struct ThingSpec {
    pub ratio: f64,
}
