// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The `ship.example.com` API group: one module per version, then each kind's storage
//! version and CustomResourceDefinition.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::core::crd::{MergeError, merge_crds};
use kube::{CustomResourceExt, Resource};

pub mod v1;
pub mod v2;
// +rsbuilder:scaffold:versions

/// Frigate at its storage version: the version the API server stores and the controller
/// watches. `rsbuilder edit --storage-version` moves this re-export and the `storage`
/// arguments together; every other version of Frigate carries `storage = false`.
pub use v2::frigate;

/// The CustomResourceDefinition of Frigate: every version, lowest priority first, merged
/// into one that stores the version re-exported above.
pub fn frigate_crd() -> Result<CustomResourceDefinition, MergeError> {
    let versions = vec![
        v1::frigate::Frigate::crd(),
        v2::frigate::Frigate::crd(),
        // +rsbuilder:scaffold:frigate-versions
    ];
    let storage = frigate::Frigate::version(&());
    merge_crds(versions, &storage)
}

// +rsbuilder:scaffold:kinds
