// Copyright Example Org
// SPDX-License-Identifier: MIT

//! The `sea-creatures.example.org` API group: one module per version, then each kind's storage
//! version and CustomResourceDefinition.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::core::crd::{MergeError, merge_crds};
use kube::{CustomResourceExt, Resource};

pub mod v1;
// +rsbuilder:scaffold:versions

/// Kraken at its storage version: the version the API server stores and the controller
/// watches. `rsbuilder edit --storage-version` moves this re-export and the `storage`
/// arguments together; every other version of Kraken carries `storage = false`.
pub use v1::kraken;

/// The CustomResourceDefinition of Kraken: every version, lowest priority first, merged
/// into one that stores the version re-exported above.
pub fn kraken_crd() -> Result<CustomResourceDefinition, MergeError> {
    let versions = vec![
        v1::kraken::Kraken::crd(),
        // +rsbuilder:scaffold:kraken-versions
    ];
    let storage = kraken::Kraken::version(&());
    merge_crds(versions, &storage)
}

// +rsbuilder:scaffold:kinds
