//! A namespaced kind with a status, conditions and the common field shapes.
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Widget is the Schema for the widgets API.
///
/// It has a longer description in a second paragraph
/// spread over two lines.
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(
    group = "shop.example.com",
    version = "v1",
    kind = "Widget",
    plural = "widgets",
    namespaced,
    status = "WidgetStatus"
)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpec {
    /// Number of replicas.
    pub replicas: Option<u16>,
    /// The size
    /// of the widget.
    pub size_in_bytes: u64,
    pub display_name: String,
    pub enabled: bool,
    pub ratio: f64,
    pub tags: Vec<String>,
    pub mode: Mode,
    pub optional_mode: Option<Mode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// How the widget runs.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub enum Mode {
    Fast,
    Slow,
}

/// The observed state.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    #[serde(default)]
    pub conditions: Vec<Condition>,
    pub observed_generation: Option<i64>,
}
