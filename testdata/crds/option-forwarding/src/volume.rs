//! Types that schemars treats as `Option` without being one: `Box`/`Arc` around an
//! `Option`, nested `Option`s, and a transparent newtype of an `Option` (optional fields,
//! `#[schemars(required)]`, a flattened boxed `Option`, defaults).
use std::sync::Arc;

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "storage.example.com", version = "v1", kind = "Volume", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct VolumeSpec {
    pub size: Box<Option<String>>,
    pub class_name: Arc<Option<u8>>,
    /// Absent, null, or a value: three states.
    pub reclaim: Option<Option<String>>,
    pub snapshots: Option<Option<Vec<Snapshot>>>,
    #[serde(default)]
    pub retries: Option<Option<u8>>,
    #[schemars(required)]
    pub owner: Box<Option<String>>,
    #[schemars(required)]
    pub zone: Option<Option<String>>,
    pub mode: MaybeMode,
    pub documented: Documented,
    pub boxed: Option<Box<Option<Snapshot>>>,
    #[serde(flatten)]
    pub source: Box<Option<Source>>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Snapshot {
    pub name: String,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Source {
    pub image: String,
}

// Without attributes of its own (a doc comment is one) a transparent newtype is its field,
// `Option` included: the field is optional.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct MaybeMode(Option<String>);

/// A documented transparent newtype keeps its own impl: the field stays required.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct Documented(Option<u32>);
