//! Lifetime and const generic parameters: `Cow<'a, str>` fields, a struct
//! with a lifetime and a type parameter, and a const parameter used as a validation bound.
use std::borrow::Cow;

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "ring.example.com", version = "v1", kind = "Ring", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct RingSpec {
    pub label: Labelled<'static>,
    pub replicas: Bounded<5>,
    pub small: Option<Bounded<2>>,
    pub pair: Tagged<'static, u8>,
    pub name: Cow<'static, str>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Labelled<'a> {
    pub text: Cow<'a, str>,
    pub note: Option<Cow<'a, str>>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Bounded<const MAX: u32> {
    #[schemars(range(min = 1, max = MAX))]
    pub value: u32,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Tagged<'a, T> {
    pub tag: Cow<'a, str>,
    pub value: T,
}
