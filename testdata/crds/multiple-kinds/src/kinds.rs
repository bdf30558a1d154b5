//! Several kinds and groups in one file, a newtype, a transparent struct, and a unit
//! struct (`{type: null}` becomes `nullable: true` without a type: rsbuilder's structural
//! check refuses that, see tests/crd_structural.rs, so it stays out of the schema here).
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "a.example.com", version = "v1", kind = "Alpha", namespaced)]
pub struct AlphaSpec {
    pub id: Id,
    pub wrapped: Wrapped,
}

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "b.example.com", version = "v1", kind = "Beta")]
pub struct BetaSpec {
    #[serde(skip)]
    pub marker: Marker,
    pub items: Vec<Id>,
}

/// An identifier.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Id(pub String);

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct Wrapped {
    pub inner: u32,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct Marker;
