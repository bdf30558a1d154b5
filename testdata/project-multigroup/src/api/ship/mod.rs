// Copyright Example Org
// SPDX-License-Identifier: MIT

//! The `ship.example.org` API group: one module per version, then each kind's storage
//! version and CustomResourceDefinition.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::core::crd::{MergeError, merge_crds};
use kube::{CustomResourceExt, Resource};

pub mod v1beta1;
// +rsbuilder:scaffold:versions

/// Frigate at its storage version: the version the API server stores and the controller
/// watches. `rsbuilder edit --storage-version` moves this re-export and the `storage`
/// arguments together; every other version of Frigate carries `storage = false`.
pub use v1beta1::frigate;

/// The CustomResourceDefinition of Frigate: every version, lowest priority first, merged
/// into one that stores the version re-exported above.
pub fn frigate_crd() -> Result<CustomResourceDefinition, MergeError> {
    let versions = vec![
        v1beta1::frigate::Frigate::crd(),
        // +rsbuilder:scaffold:frigate-versions
    ];
    let storage = frigate::Frigate::version(&());
    merge_crds(versions, &storage)
}

/// Condition at its storage version: the version the API server stores and the controller
/// watches. `rsbuilder edit --storage-version` moves this re-export and the `storage`
/// arguments together; every other version of Condition carries `storage = false`.
pub use v1beta1::condition;

/// The CustomResourceDefinition of Condition: every version, lowest priority first, merged
/// into one that stores the version re-exported above.
pub fn condition_crd() -> Result<CustomResourceDefinition, MergeError> {
    let versions = vec![
        v1beta1::condition::Condition::crd(),
        // +rsbuilder:scaffold:condition-versions
    ];
    let storage = condition::Condition::version(&());
    merge_crds(versions, &storage)
}
// +rsbuilder:scaffold:kinds
