use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::core::{LocalObjectReference as ImagePullSecret, ResourceRequirements};
use crate::prelude::*;
use crate::prelude::Target as Upstream;

pub type Endpoints = Vec<Upstream>;

/// A distributed cache.
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "cache.example.com", version = "v1", kind = "Cache", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct CacheSpec {
    pub labels: crate::Labels,
    pub selector: Option<Selector>,
    pub limits: Limits,
    pub resources: Option<ResourceRequirements>,
    pub image_pull_secrets: Vec<ImagePullSecret>,
    pub pod_spec_node: Option<crate::core::NodeSelector>,
    pub credentials: super::super::super::common::SecretRef,
    pub backup_credentials: Option<SecretRef>,
    pub upstreams: Endpoints,
    pub primary: crate::shared::Endpoint,
    pub tier: self::tiers::Tier,
    pub shard: crate::cycle::a::Shard,
    pub conditions: Vec<crate::apimachinery::pkg::apis::meta::v1::Condition>,
}

pub mod tiers {
    #[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
    pub enum Tier {
        Memory,
        Disk,
    }
}
