//! Maps whose keys are not `String`: unit enums (renamed), string newtypes, `bool`, `char`,
//! in `BTreeMap` and `HashMap`, optional and nested.
use std::collections::{BTreeMap, HashMap};

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "quota.example.com", version = "v1", kind = "Quota", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct QuotaSpec {
    pub limits: BTreeMap<Resource, u64>,
    pub by_tier: Option<HashMap<Tier, Vec<String>>>,
    pub owners: BTreeMap<Owner, Limit>,
    pub flags: BTreeMap<bool, String>,
    pub initials: HashMap<char, String>,
    #[serde(default)]
    pub nested: BTreeMap<Tier, BTreeMap<Resource, u32>>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Resource {
    Cpu,
    Memory,
    #[serde(rename = "ephemeral-storage")]
    EphemeralStorage,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    Gold,
    Silver,
}

/// A team name.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Owner(String);

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Limit {
    pub max: u32,
}
