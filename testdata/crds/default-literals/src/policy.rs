//! Defaults whose functions build structs from literals (`Retry { .., ..Default::default() }`,
//! `Self { .. }` in an `impl`, a newtype constructor), transparent structs, and a `char`.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "policy.example.com", version = "v1", kind = "Policy", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct PolicySpec {
    #[serde(default = "default_retry")]
    pub retry: Retry,
    #[serde(default = "Retry::gentle")]
    pub backoff: Retry,
    #[serde(default = "default_replicas")]
    pub replicas: Replicas,
    #[serde(default = "default_name")]
    pub name: Name,
    #[serde(default)]
    pub label: Label,
    #[serde(default)]
    pub initial: char,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Retry {
    pub max_attempts: u32,
    pub mode: Mode,
    pub jitter: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Retry {
    fn gentle() -> Self {
        Self {
            max_attempts: 10,
            mode: Mode::Linear,
            jitter: Some(0.5),
            note: Some("slow".to_string()),
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
pub enum Mode {
    #[default]
    Linear,
    Exponential,
}

fn default_retry() -> Retry {
    Retry {
        max_attempts: 3,
        mode: Mode::Exponential,
        ..Default::default()
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Replicas(pub u16);

fn default_replicas() -> Replicas {
    Replicas(2)
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct Name {
    pub value: String,
    #[serde(skip)]
    pub cache: Option<u8>,
}

fn default_name() -> Name {
    Name {
        value: "main".into(),
        cache: None,
    }
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct Label {
    pub value: String,
}
