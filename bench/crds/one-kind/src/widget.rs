//! One small kind, like `create api` scaffolds: the baseline the big cases are compared to.
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Widget is the Schema for the widgets API.
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "shop.example.com", version = "v1", kind = "Widget", namespaced, status = "WidgetStatus")]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpec {
    /// Number of replicas.
    pub replicas: Option<i32>,
    pub image: String,
    pub mode: Mode,
}

/// How the widget runs.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub enum Mode {
    Fast,
    Slow,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    #[serde(default)]
    pub conditions: Vec<Condition>,
    pub observed_generation: Option<i64>,
}
