// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Conversion of CronJob between v1alpha1 and the hub, v1 (the storage version).
//!
//! `rsbuilder create webhook` wrote [`to_hub`] and [`from_hub`] from both versions' types:
//! fields with the same serialized name and a compatible type are copied, the others are
//! marked `TODO(rsbuilder)`: convert them as the versions' meanings require. Nothing is
//! lost meanwhile: what one version cannot hold is kept in an annotation and restored when
//! the object is converted back (see [`lossless`]).

use serde_json::Value;

use super::cron_job as spoke;
use crate::api::batch::v1::cron_job as hub;
use crate::webhooks::conversion::{ConversionError, Read, from_json, to_json};
use crate::webhooks::lossless::lossless;

/// Keeps the values of v1alpha1 that v1 cannot hold.
const SPOKE_ANNOTATION: &str = "conversion.rsbuilder.io/cronjob-v1alpha1";
/// Keeps the values of v1 that v1alpha1 cannot hold.
const HUB_ANNOTATION: &str = "conversion.rsbuilder.io/cronjob-v1";

/// Fails only when the annotation an earlier conversion wrote cannot be read.
impl TryFrom<spoke::CronJob> for hub::CronJob {
    type Error = ConversionError;

    fn try_from(object: spoke::CronJob) -> Result<Self, Self::Error> {
        lossless(object, to_hub, from_hub, SPOKE_ANNOTATION, HUB_ANNOTATION)
    }
}

/// Fails only when the annotation an earlier conversion wrote cannot be read.
impl TryFrom<hub::CronJob> for spoke::CronJob {
    type Error = ConversionError;

    fn try_from(object: hub::CronJob) -> Result<Self, Self::Error> {
        lossless(object, from_hub, to_hub, HUB_ANNOTATION, SPOKE_ANNOTATION)
    }
}

/// A v1alpha1 CronJob as the API server sends it, converted to the hub (for `/convert`),
/// and the fields v1alpha1's type does not know.
pub fn json_to_hub(object: Value) -> Read<hub::CronJob> {
    let (object, unknown) = from_json::<spoke::CronJob>(object)?;
    Ok((object.try_into()?, unknown))
}

/// The hub as a v1alpha1 CronJob, as the API server expects it (for `/convert`).
pub fn hub_to_json(hub: hub::CronJob) -> Result<Value, ConversionError> {
    to_json(&spoke::CronJob::try_from(hub)?)
}

/// v1alpha1 to v1, field by field.
pub fn to_hub(src: spoke::CronJob) -> hub::CronJob {
    hub::CronJob {
        metadata: src.metadata,
        spec: cron_job_spec_to_hub(src.spec),
        status: src.status.map(cron_job_status_to_hub),
    }
}

/// v1 to v1alpha1, field by field.
pub fn from_hub(src: hub::CronJob) -> spoke::CronJob {
    spoke::CronJob {
        metadata: src.metadata,
        spec: cron_job_spec_from_hub(src.spec),
        status: src.status.map(cron_job_status_from_hub),
    }
}

fn cron_job_spec_to_hub(src: spoke::CronJobSpec) -> hub::CronJobSpec {
    hub::CronJobSpec { foo: src.foo }
}

fn cron_job_spec_from_hub(src: hub::CronJobSpec) -> spoke::CronJobSpec {
    spoke::CronJobSpec { foo: src.foo }
}

fn cron_job_status_to_hub(src: spoke::CronJobStatus) -> hub::CronJobStatus {
    hub::CronJobStatus {
        conditions: src.conditions,
        observed_generation: src.observed_generation,
    }
}

fn cron_job_status_from_hub(src: hub::CronJobStatus) -> spoke::CronJobStatus {
    spoke::CronJobStatus {
        conditions: src.conditions,
        observed_generation: src.observed_generation,
    }
}

/// A v1alpha1 CronJob with a value in every field and two items in every list, for the tests and the
/// benchmark.
pub fn sample() -> spoke::CronJob {
    spoke::CronJob {
        metadata: kube::core::ObjectMeta {
            name: Some("sample".into()),
            namespace: Some("default".into()),
            uid: Some("9d1f2c3e-0000-4000-8000-000000000001".into()),
            ..Default::default()
        },
        spec: spoke::CronJobSpec {
            foo: Some("foo".into()),
        },
        status: Some(sample_cron_job_status()),
    }
}

fn sample_cron_job_status() -> spoke::CronJobStatus {
    spoke::CronJobStatus {
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
    use super::*;
    use crate::webhooks::lossless::testing::assert_edits_survive;

    type Hub = hub::CronJob;
    type Spoke = spoke::CronJob;

    fn hub_sample() -> Hub {
        crate::api::batch::v1::cron_job_conversion::sample()
    }

    #[test]
    fn v1alpha1_survives_a_round_trip_through_the_hub() {
        let original = sample();
        let there = Hub::try_from(original.clone()).expect("converts to the hub");
        let back = Spoke::try_from(there).expect("converts back");
        assert_eq!(
            serde_json::to_value(back).ok(),
            serde_json::to_value(original).ok()
        );
    }

    #[test]
    fn the_hub_survives_a_round_trip_through_v1alpha1() {
        let original = hub_sample();
        let there = Spoke::try_from(original.clone()).expect("converts to v1alpha1");
        let back = Hub::try_from(there).expect("converts back");
        assert_eq!(
            serde_json::to_value(back).ok(),
            serde_json::to_value(original).ok()
        );
    }

    /// A client reads the stored object as v1alpha1, changes it and writes it back: the
    /// change reaches the hub, and what v1alpha1 cannot hold is not lost.
    #[test]
    fn an_edit_through_v1alpha1_reaches_the_hub_and_survives_a_round_trip() {
        assert_edits_survive(hub_sample(), Spoke::try_from, Hub::try_from, to_hub);
    }

    /// The other way: an object written as v1alpha1 is changed through the hub.
    #[test]
    fn an_edit_through_the_hub_reaches_v1alpha1_and_survives_a_round_trip() {
        assert_edits_survive(sample(), Hub::try_from, Spoke::try_from, from_hub);
    }
}
