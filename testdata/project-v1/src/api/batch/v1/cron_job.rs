// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The CronJob kind of the `batch.example.com` API group: what a user asks for
//! ([`CronJobSpec`]) and what the controller reports back ([`CronJobStatus`]).
//!
//! After changing these types, run `make manifests` to regenerate the CRD.

use k8s_openapi::apimachinery::pkg::apis::meta::v1 as metav1;
use kube::{CustomResource, KubeSchema};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The desired state of a CronJob.
#[derive(CustomResource, Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[kube(
    group = "batch.example.com",
    version = "v1",
    kind = "CronJob",
    plural = "cronjobs",
    namespaced,
    status = "CronJobStatus",
    printcolumn(
        name = "Ready",
        type_ = "string",
        json_path = ".status.conditions[?(@.type==\"Ready\")].status"
    ),
    printcolumn(
        name = "Age",
        type_ = "date",
        json_path = ".metadata.creationTimestamp"
    )
)]
#[serde(rename_all = "camelCase")]
pub struct CronJobSpec {
    /// An example field, to show where the desired state goes: replace it with the fields
    /// that describe a CronJob. Documentation comments like this one become the field's
    /// description in the CRD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub foo: Option<String>,
}

/// The observed state of a CronJob, written by its controller through the status
/// subresource.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, KubeSchema)]
#[serde(rename_all = "camelCase")]
pub struct CronJobStatus {
    /// The latest observations of the CronJob: `Ready`, `Progressing` and `Degraded`.
    // One condition per type: server-side apply merges the list by `type`, so each writer
    // owns its own conditions and leaves the others alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[x_kube(merge_strategy = ListMerge::Map(vec!["type".into()]))]
    pub conditions: Vec<metav1::Condition>,
    /// The `metadata.generation` these conditions describe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}
