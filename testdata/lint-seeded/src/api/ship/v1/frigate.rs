// SPDX-License-Identifier: Apache-2.0

//! The Frigate kind of the `ship.example.com` API group: what a user asks for
//! ([`FrigateSpec`]) and what the controller reports back ([`FrigateStatus`]).
//!
//! After changing these types, run `make manifests` to regenerate the CRD.

use k8s_openapi::apimachinery::pkg::apis::meta::v1 as metav1;
use kube::{CustomResource, KubeSchema};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The desired state of a Frigate.
#[derive(CustomResource, Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[kube(
    group = "ship.example.com",
    version = "v1",
    kind = "Frigate",
    plural = "frigates",
    namespaced,
    status = "FrigateStatus",
    shortname = "frg",
    validation = ("self.spec.fooo == 'x'", "a typo"),
    validation = ("!has(self.spec.foo) || self.spec.foo.size() > 100", "foo is too short"),
    validation = ("[self.spec.foo].sortBy(x, x).size() == 1", "sorted"),
    validation = ("self.spec.foo.size() < 100 || self.spec.foo.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?[.])*example[.]com$|^([a-z0-9]([-a-z0-9]*[a-z0-9])?[.])*example[.]org$|^([a-z0-9]([-a-z0-9]*[a-z0-9])?[.])*example[.]net$')", "a host of ours"),
    selectable = ".status.conditions",
    printcolumn(
        name = "Ready",
        type_ = "string",
        json_path = ".status.conditions[?(@.type==\"Ready\")].status"
    ),
    printcolumn(
        name = "Age",
        type_ = "date",
        json_path = ".spec.sped"
    )
)]
#[serde(rename_all = "camelCase")]
pub struct FrigateSpec {
    /// An example field, to show where the desired state goes: replace it with the fields
    /// that describe a Frigate. Documentation comments like this one become the field's
    /// description in the CRD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub foo: Option<String>,
    pub speed: Option<u32>,
    pub crew: Option<i32>,
}

/// The observed state of a Frigate, written by its controller through the status
/// subresource.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, KubeSchema)]
#[serde(rename_all = "camelCase")]
pub struct FrigateStatus {
    /// The latest observations of the Frigate: `Ready`, `Progressing` and `Degraded`.
    // One condition per type: server-side apply merges the list by `type`, so each writer
    // owns its own conditions and leaves the others alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[x_kube(merge_strategy = ListMerge::Map(vec!["type".into()]))]
    pub conditions: Vec<metav1::Condition>,
    /// The `metadata.generation` these conditions describe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}
