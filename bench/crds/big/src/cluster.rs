//! A kind embedding several big Kubernetes types (about 1 MB of CRD YAML), like database
//! operators that template a StatefulSet and its jobs.
use k8s_openapi::api::apps::v1::StatefulSetSpec;
use k8s_openapi::api::batch::v1::JobSpec;
use k8s_openapi::api::core::v1::{Container, ResourceRequirements, Volume};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "db.example.com", version = "v1", kind = "Cluster", namespaced, status = "ClusterStatus")]
#[serde(rename_all = "camelCase")]
pub struct ClusterSpec {
    pub stateful_set: StatefulSetSpec,
    pub backup: Option<JobSpec>,
    #[serde(default)]
    pub sidecars: Vec<Container>,
    #[serde(default)]
    pub extra_volumes: Vec<Volume>,
    pub resources: Option<ResourceRequirements>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterStatus {
    #[serde(default)]
    pub conditions: Vec<Condition>,
}
