//! Resolves types through `super::` paths, globs and aliases.
use super::common::*;
use super::common::SecretRef as Creds;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "backup.example.com", version = "v1", kind = "Backup", namespaced)]
pub struct BackupSpec {
    pub credentials: Creds,
    pub tier: Tier,
    pub tags: Tags,
    pub other: super::common::SecretRef,
    pub schedule: self::Schedule,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Schedule {
    pub cron: String,
}
