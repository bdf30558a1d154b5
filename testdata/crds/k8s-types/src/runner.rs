//! Big Kubernetes types from k8s-openapi, through different import styles.
use k8s_openapi::api::core::v1::{PodTemplateSpec, ResourceRequirements};
use k8s_openapi::api::core::v1 as corev1;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "run.example.com", version = "v1", kind = "Runner", namespaced, status = "RunnerStatus")]
#[serde(rename_all = "camelCase")]
pub struct RunnerSpec {
    pub template: PodTemplateSpec,
    pub resources: Option<ResourceRequirements>,
    pub selector: LabelSelector,
    pub memory: Quantity,
    pub cpu: Option<Quantity>,
    pub port: IntOrString,
    pub max_unavailable: Option<IntOrString>,
    pub env: Vec<corev1::EnvVar>,
    pub sidecar: Option<k8s_openapi::api::core::v1::Container>,
    pub tolerations: Option<Vec<corev1::Toleration>>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunnerStatus {
    pub conditions: Option<Vec<Condition>>,
    pub last_run: Option<Time>,
}
