//! A kind whose spec is generic with a defaulted parameter (kube-derive's root names it
//! without arguments), and that names a raw-identifier module.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::r#box::Lease;

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "cache.example.com", version = "v1", kind = "Hold", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct HoldSpec<Box = String, Count = u8> {
    pub user: String,
    pub r#box: Box,
    pub copies: Count,
    pub lease: Lease,
    pub backup: Option<crate::r#box::Lease>,
}
