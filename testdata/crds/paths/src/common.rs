use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub type Labels = std::collections::BTreeMap<String, String>;
/// An alias of a k8s-openapi type, through the crate's re-export of `apimachinery`.
pub type Selector = crate::apimachinery::pkg::apis::meta::v1::LabelSelector;
/// An alias of a generic instantiation.
pub type Limits = std::collections::BTreeMap<String, crate::apimachinery::pkg::api::resource::Quantity>;

/// A reference to a secret holding credentials.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SecretRef {
    pub secret_name: String,
    pub key: Option<String>,
}
