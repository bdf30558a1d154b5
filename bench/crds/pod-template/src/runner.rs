//! A kind embedding a `PodTemplateSpec` (about 0.5 MB of CRD YAML), as workload operators do.
use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "run.example.com", version = "v1", kind = "Runner", namespaced, status = "RunnerStatus")]
#[serde(rename_all = "camelCase")]
pub struct RunnerSpec {
    pub replicas: Option<i32>,
    pub template: PodTemplateSpec,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunnerStatus {
    #[serde(default)]
    pub conditions: Vec<Condition>,
    pub observed_generation: Option<i64>,
}
