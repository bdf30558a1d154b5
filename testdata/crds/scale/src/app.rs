//! The scale subresource and a status with a label selector string.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An app with replicas.
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(
    group = "apps.example.com",
    version = "v1beta1",
    kind = "App",
    namespaced,
    status = "AppStatus",
    scale(
        spec_replicas_path = ".spec.replicas",
        status_replicas_path = ".status.replicas",
        label_selector_path = ".status.selector"
    ),
    printcolumn(name = "Replicas", type_ = "integer", json_path = ".status.replicas")
)]
pub struct AppSpec {
    pub replicas: i32,
    pub image: String,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct AppStatus {
    pub replicas: i32,
    pub selector: Option<String>,
}

/// Scale without status: kube-derive drops subresources entirely.
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(
    group = "apps.example.com",
    version = "v1",
    kind = "Batch",
    plural = "batchs",
    scale = r#"{"specReplicasPath":".spec.n","statusReplicasPath":".status.n"}"#
)]
pub struct BatchSpec {
    pub n: u32,
}
