//! A release controller whose types come from common crates.
use chrono::{DateTime, NaiveDate, Utc};
use indexmap::IndexMap;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A release of an application, pulled from a registry.
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(
    group = "release.example.com",
    version = "v1",
    kind = "Release",
    namespaced,
    status = "ReleaseStatus"
)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseSpec {
    pub id: uuid1::Uuid,
    pub version: semver::Version,
    pub registry: url::Url,
    pub mirrors: Vec<url::Url>,
    pub not_before: Option<DateTime<Utc>>,
    pub freeze_until: Option<chrono::DateTime<chrono::FixedOffset>>,
    pub cutoff: NaiveDate,
    pub weekday: Option<chrono::Weekday>,
    pub labels: IndexMap<String, String>,
    pub by_weekday: IndexMap<chrono::Weekday, u8>,
    pub by_id: IndexMap<uuid1::Uuid, String>,
    pub channels: indexmap::IndexSet<String>,
    pub target: either::Either<String, u32>,
    pub name: smol_str::SmolStr,
    pub shards: smallvec::SmallVec<[u16; 4]>,
    pub published: jiff::Timestamp,
    pub day: jiff::civil::Date,
    pub ttl: jiff::SignedDuration,
    #[serde(default)]
    pub annotations: IndexMap<String, String>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseStatus {
    pub last_rollout: Option<DateTime<Utc>>,
    pub observed_version: Option<semver::Version>,
}
