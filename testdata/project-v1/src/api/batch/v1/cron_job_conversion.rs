// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Conversion of CronJob through its hub, v1, the storage version: every other served
//! version converts to and from v1 (in `<version>/cron_job_conversion.rs`), and so
//! to any other version through it. `rsbuilder create webhook --conversion` registers new
//! versions here.

use serde_json::Value;

use rsbuilder_runtime::webhook::conversion::{ConversionError, spoke, through_hub};

use super::cron_job as hub;
use crate::api::batch as group;

/// Converts a CronJob of any served version into `version`, with the fields its types do
/// not know where `version` has their parents.
pub fn convert(object: Value, version: &str) -> Result<Value, ConversionError> {
    let spokes = [
        spoke::<group::v1alpha1::cron_job::CronJob>(),
        spoke::<group::v1beta1::cron_job::CronJob>(),
        // +rsbuilder:scaffold:spokes
    ];
    through_hub::<hub::CronJob>(object, version, &spokes)
}

/// A v1 CronJob with a value in every field and two items in every list, for the tests and the
/// benchmark.
pub fn sample() -> hub::CronJob {
    hub::CronJob {
        metadata: kube::core::ObjectMeta {
            name: Some("sample".into()),
            namespace: Some("default".into()),
            uid: Some("9d1f2c3e-0000-4000-8000-000000000001".into()),
            ..Default::default()
        },
        spec: hub::CronJobSpec {
            foo: Some("foo".into()),
        },
        status: Some(sample_cron_job_status()),
    }
}

fn sample_cron_job_status() -> hub::CronJobStatus {
    hub::CronJobStatus {
        conditions: vec![sample_condition(), sample_condition()],
        observed_generation: Some(1),
    }
}

fn sample_condition() -> k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition {
    k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition {
        last_transition_time: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
            Default::default(),
        ),
        message: "message".into(),
        observed_generation: Some(1),
        reason: "Reason".into(),
        status: "True".into(),
        type_: "Ready".into(),
    }
}

#[cfg(test)]
mod tests {
    use rsbuilder_runtime::webhook::conversion::to_json;
    use rsbuilder_runtime::webhook::testing;

    use super::*;

    /// A sample of every served version of CronJob.
    fn samples() -> Vec<Value> {
        vec![
            to_json(&sample()),
            to_json(&group::v1alpha1::cron_job_conversion::sample()),
            to_json(&group::v1beta1::cron_job_conversion::sample()),
            // +rsbuilder:scaffold:conversion-samples
        ]
        .into_iter()
        .collect::<Result<_, _>>()
        .expect("serializable samples")
    }

    #[test]
    fn a_conversion_review_converts_every_version_into_every_other_and_back() {
        testing::assert_every_version_converts_into_every_other_and_back(&samples(), convert);
    }

    /// A CRD newer than this binary may declare fields its types do not know: a conversion
    /// carries them over where the other version has their parent, so that a round trip
    /// keeps them.
    #[test]
    fn fields_the_types_do_not_know_survive_every_conversion() {
        testing::assert_unknown_fields_survive_every_conversion(&samples(), convert);
    }

    #[test]
    fn an_unknown_version_fails_the_review() {
        testing::assert_an_unknown_version_fails(&samples(), convert);
    }

    /// What a version cannot hold is kept in an annotation; one that cannot be read fails
    /// the review, never a silent loss of the values it kept.
    #[test]
    fn a_kept_annotation_that_cannot_be_read_fails_the_review() {
        testing::assert_an_unreadable_annotation_fails_the_review(&samples(), convert);
    }
}
