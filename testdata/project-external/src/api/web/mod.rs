// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The `web.example.com` API group: one module per version, then each kind's storage
//! version and CustomResourceDefinition.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::core::crd::{MergeError, merge_crds};
use kube::{CustomResourceExt, Resource};

pub mod v1;
// +rsbuilder:scaffold:versions

/// Site at its storage version: the version the API server stores and the controller
/// watches. `rsbuilder edit --storage-version` moves this re-export and the `storage`
/// arguments together; every other version of Site carries `storage = false`.
pub use v1::site;

/// The CustomResourceDefinition of Site: every version, lowest priority first, merged
/// into one that stores the version re-exported above.
pub fn site_crd() -> Result<CustomResourceDefinition, MergeError> {
    let versions = vec![
        v1::site::Site::crd(),
        // +rsbuilder:scaffold:site-versions
    ];
    let storage = site::Site::version(&());
    merge_crds(versions, &storage)
}

// +rsbuilder:scaffold:kinds
