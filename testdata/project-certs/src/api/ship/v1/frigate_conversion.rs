// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Conversion of Frigate between v1 and the hub, v2 (the storage version).
//!
//! `rsbuilder create webhook` wrote [`to_hub`] and [`from_hub`] from both versions' types:
//! fields with the same serialized name and a compatible type are copied, the others are
//! marked `TODO(rsbuilder)`: convert them as the versions' meanings require. Nothing is
//! lost meanwhile: what one version cannot hold is kept in an annotation and restored when
//! the object is converted back (`rsbuilder_runtime::webhook::conversion::spoke_to_hub`).

use rsbuilder_runtime::webhook::conversion::Spoke;

use super::frigate as spoke;
use crate::api::ship::v2::frigate as hub;

impl Spoke for spoke::Frigate {
    type Hub = hub::Frigate;

    fn to_hub(self) -> hub::Frigate {
        to_hub(self)
    }

    fn from_hub(object: hub::Frigate) -> Self {
        from_hub(object)
    }
}

/// v1 to v2, field by field.
pub fn to_hub(src: spoke::Frigate) -> hub::Frigate {
    hub::Frigate {
        metadata: src.metadata,
        spec: frigate_spec_to_hub(src.spec),
        status: src.status.map(frigate_status_to_hub),
    }
}

/// v2 to v1, field by field.
pub fn from_hub(src: hub::Frigate) -> spoke::Frigate {
    spoke::Frigate {
        metadata: src.metadata,
        spec: frigate_spec_from_hub(src.spec),
        status: src.status.map(frigate_status_from_hub),
    }
}

fn frigate_spec_to_hub(src: spoke::FrigateSpec) -> hub::FrigateSpec {
    hub::FrigateSpec { foo: src.foo }
}

fn frigate_spec_from_hub(src: hub::FrigateSpec) -> spoke::FrigateSpec {
    spoke::FrigateSpec { foo: src.foo }
}

fn frigate_status_to_hub(src: spoke::FrigateStatus) -> hub::FrigateStatus {
    hub::FrigateStatus {
        conditions: src.conditions,
        observed_generation: src.observed_generation,
    }
}

fn frigate_status_from_hub(src: hub::FrigateStatus) -> spoke::FrigateStatus {
    spoke::FrigateStatus {
        conditions: src.conditions,
        observed_generation: src.observed_generation,
    }
}

/// A v1 Frigate with a value in every field and two items in every list, for the tests and the
/// benchmark.
pub fn sample() -> spoke::Frigate {
    spoke::Frigate {
        metadata: kube::core::ObjectMeta {
            name: Some("sample".into()),
            namespace: Some("default".into()),
            uid: Some("9d1f2c3e-0000-4000-8000-000000000001".into()),
            ..Default::default()
        },
        spec: spoke::FrigateSpec {
            foo: Some("foo".into()),
        },
        status: Some(sample_frigate_status()),
    }
}

fn sample_frigate_status() -> spoke::FrigateStatus {
    spoke::FrigateStatus {
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

    fn hub_sample() -> hub::Frigate {
        crate::api::ship::v2::frigate_conversion::sample()
    }

    #[test]
    fn v1_survives_a_round_trip_through_the_hub() {
        assert_spoke_round_trip(sample());
    }

    #[test]
    fn the_hub_survives_a_round_trip_through_v1() {
        assert_hub_round_trip::<spoke::Frigate>(hub_sample());
    }

    /// A client reads the stored object as v1, changes it and writes it back: the
    /// change reaches the hub, and what v1 cannot hold is not lost.
    #[test]
    fn an_edit_through_v1_reaches_the_hub_and_survives_a_round_trip() {
        assert_edits_survive(hub_sample(), hub_to_spoke, spoke_to_hub, to_hub);
    }

    /// The other way: an object written as v1 is changed through the hub.
    #[test]
    fn an_edit_through_the_hub_reaches_v1_and_survives_a_round_trip() {
        assert_edits_survive(sample(), spoke_to_hub, hub_to_spoke, from_hub);
    }
}
