//! Literal defaults: #[serde(default)] on std types, default functions, derived Default.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "cache.example.com", version = "v1", kind = "Cache", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct CacheSpec {
    #[serde(default = "default_size")]
    pub size_mb: u32,
    #[serde(default = "default_name")]
    pub name: String,
    #[serde(default)]
    pub enabled: bool,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
    #[serde(default = "default_ratio")]
    pub ratio: f32,
    #[serde(default)]
    pub policy: Policy,
    #[serde(default = "default_policy")]
    pub fallback: Policy,
    #[serde(default)]
    pub tuning: Tuning,
    #[serde(default = "default_zones")]
    pub zones: Vec<String>,
    #[serde(default)]
    pub resources: k8s_openapi::api::core::v1::ResourceRequirements,
}

fn default_size() -> u32 {
    64
}

fn default_name() -> String {
    "cache".to_string()
}

fn default_ratio() -> f32 {
    0.1
}

fn default_policy() -> Policy {
    Policy::Lfu
}

fn default_zones() -> Vec<String> {
    vec!["a".into(), "b".into()]
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
pub enum Policy {
    #[default]
    Lru,
    Lfu,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct Tuning {
    pub max_entries: u32,
    pub eviction_batch: Option<u16>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<String>,
}
