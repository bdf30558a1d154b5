// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Conversion of Frigate between v1 and the hub, v2 (the storage version).
//!
//! `rsbuilder create webhook` wrote [`to_hub`] and [`from_hub`] from both versions' types:
//! fields with the same serialized name and a compatible type are copied, the others are
//! marked `TODO(rsbuilder)`: convert them as the versions' meanings require. Nothing is
//! lost meanwhile: what one version cannot hold is kept in an annotation and restored when
//! the object is converted back (see [`lossless`]).

use serde_json::Value;

use super::frigate as spoke;
use crate::api::ship::v2::frigate as hub;
use crate::webhooks::conversion::{ConversionError, Read, from_json, to_json};
use crate::webhooks::lossless::lossless;

/// Keeps the values of v1 that v2 cannot hold.
const SPOKE_ANNOTATION: &str = "conversion.rsbuilder.io/frigate-v1";
/// Keeps the values of v2 that v1 cannot hold.
const HUB_ANNOTATION: &str = "conversion.rsbuilder.io/frigate-v2";

/// Fails only when the annotation an earlier conversion wrote cannot be read.
impl TryFrom<spoke::Frigate> for hub::Frigate {
    type Error = ConversionError;

    fn try_from(object: spoke::Frigate) -> Result<Self, Self::Error> {
        lossless(object, to_hub, from_hub, SPOKE_ANNOTATION, HUB_ANNOTATION)
    }
}

/// Fails only when the annotation an earlier conversion wrote cannot be read.
impl TryFrom<hub::Frigate> for spoke::Frigate {
    type Error = ConversionError;

    fn try_from(object: hub::Frigate) -> Result<Self, Self::Error> {
        lossless(object, from_hub, to_hub, HUB_ANNOTATION, SPOKE_ANNOTATION)
    }
}

/// A v1 Frigate as the API server sends it, converted to the hub (for `/convert`),
/// and the fields v1's type does not know.
pub fn json_to_hub(object: Value) -> Read<hub::Frigate> {
    let (object, unknown) = from_json::<spoke::Frigate>(object)?;
    Ok((object.try_into()?, unknown))
}

/// The hub as a v1 Frigate, as the API server expects it (for `/convert`).
pub fn hub_to_json(hub: hub::Frigate) -> Result<Value, ConversionError> {
    to_json(&spoke::Frigate::try_from(hub)?)
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
    use super::*;
    use crate::webhooks::lossless::testing::assert_edits_survive;

    type Hub = hub::Frigate;
    type Spoke = spoke::Frigate;

    fn hub_sample() -> Hub {
        crate::api::ship::v2::frigate_conversion::sample()
    }

    #[test]
    fn v1_survives_a_round_trip_through_the_hub() {
        let original = sample();
        let there = Hub::try_from(original.clone()).expect("converts to the hub");
        let back = Spoke::try_from(there).expect("converts back");
        assert_eq!(
            serde_json::to_value(back).ok(),
            serde_json::to_value(original).ok()
        );
    }

    #[test]
    fn the_hub_survives_a_round_trip_through_v1() {
        let original = hub_sample();
        let there = Spoke::try_from(original.clone()).expect("converts to v1");
        let back = Hub::try_from(there).expect("converts back");
        assert_eq!(
            serde_json::to_value(back).ok(),
            serde_json::to_value(original).ok()
        );
    }

    /// A client reads the stored object as v1, changes it and writes it back: the
    /// change reaches the hub, and what v1 cannot hold is not lost.
    #[test]
    fn an_edit_through_v1_reaches_the_hub_and_survives_a_round_trip() {
        assert_edits_survive(hub_sample(), Spoke::try_from, Hub::try_from, to_hub);
    }

    /// The other way: an object written as v1 is changed through the hub.
    #[test]
    fn an_edit_through_the_hub_reaches_v1_and_survives_a_round_trip() {
        assert_edits_survive(sample(), Hub::try_from, Spoke::try_from, from_hub);
    }
}
