// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The `batch.example.com` API group: one module per version, then each kind's storage
//! version and CustomResourceDefinition.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::core::crd::{MergeError, merge_crds};
use kube::{CustomResourceExt, Resource};

pub mod v1alpha1;
pub mod v1beta1;
pub mod v1;
// +rsbuilder:scaffold:versions

/// CronJob at its storage version: the version the API server stores and the controller
/// watches. `rsbuilder edit --storage-version` moves this re-export and the `storage`
/// arguments together; every other version of CronJob carries `storage = false`.
pub use v1::cron_job;

/// The CustomResourceDefinition of CronJob: every version, lowest priority first, merged
/// into one that stores the version re-exported above.
pub fn cron_job_crd() -> Result<CustomResourceDefinition, MergeError> {
    let versions = vec![
        v1alpha1::cron_job::CronJob::crd(),
        v1beta1::cron_job::CronJob::crd(),
        v1::cron_job::CronJob::crd(),
        // +rsbuilder:scaffold:cron_job-versions
    ];
    let storage = cron_job::CronJob::version(&());
    merge_crds(versions, &storage)
}

// +rsbuilder:scaffold:kinds
