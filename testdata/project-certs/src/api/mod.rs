// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Custom resource types, one module per API group and version.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::core::crd::MergeError;

pub mod ship;
// +rsbuilder:scaffold:api-groups

/// Every CustomResourceDefinition of this project, all versions of a kind merged into
/// one, as kube-derive builds them.
pub fn crds() -> Result<Vec<CustomResourceDefinition>, MergeError> {
    Ok(vec![
        ship::frigate_crd()?,
        // +rsbuilder:scaffold:crds
    ])
}
