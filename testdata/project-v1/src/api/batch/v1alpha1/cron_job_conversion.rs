// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Conversion of CronJob between v1alpha1 and the hub, v1 (the storage version).
//!
//! `rsbuilder create webhook` wrote [`to_hub`] and [`from_hub`] from both versions' types:
//! fields with the same serialized name and a compatible type are copied, the others are
//! marked `TODO(rsbuilder)`: convert them as the versions' meanings require. Nothing is
//! lost meanwhile: what one version cannot hold is kept in an annotation and restored when
//! the object is converted back (`rsbuilder_runtime::webhook::conversion::spoke_to_hub`).

use rsbuilder_runtime::webhook::conversion::Spoke;

use super::cron_job as spoke;
use crate::api::batch::v1::cron_job as hub;

impl Spoke for spoke::CronJob {
    type Hub = hub::CronJob;

    fn to_hub(self) -> hub::CronJob {
        to_hub(self)
    }

    fn from_hub(object: hub::CronJob) -> Self {
        from_hub(object)
    }
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
    use rsbuilder_runtime::webhook::conversion::{hub_to_spoke, spoke_to_hub};
    use rsbuilder_runtime::webhook::testing::{
        assert_edits_survive, assert_hub_round_trip, assert_spoke_round_trip,
    };

    use super::*;

    fn hub_sample() -> hub::CronJob {
        crate::api::batch::v1::cron_job_conversion::sample()
    }

    #[test]
    fn v1alpha1_survives_a_round_trip_through_the_hub() {
        assert_spoke_round_trip(sample());
    }

    #[test]
    fn the_hub_survives_a_round_trip_through_v1alpha1() {
        assert_hub_round_trip::<spoke::CronJob>(hub_sample());
    }

    /// A client reads the stored object as v1alpha1, changes it and writes it back: the
    /// change reaches the hub, and what v1alpha1 cannot hold is not lost.
    #[test]
    fn an_edit_through_v1alpha1_reaches_the_hub_and_survives_a_round_trip() {
        assert_edits_survive(hub_sample(), hub_to_spoke, spoke_to_hub, to_hub);
    }

    /// The other way: an object written as v1alpha1 is changed through the hub.
    #[test]
    fn an_edit_through_the_hub_reaches_v1alpha1_and_survives_a_round_trip() {
        assert_edits_survive(sample(), spoke_to_hub, hub_to_spoke, from_hub);
    }
}
