//! Patterns built with `concat!` of literals inside `lazy_static!` and `LazyLock`, as
//! bottlerocket-update-operator writes its semver pattern: `concat!` is a literal.
use std::sync::LazyLock;

use kube::CustomResource;
use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

lazy_static::lazy_static! {
    pub static ref SEMVER_RE: Regex = Regex::new(concat!(
        r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)",
        r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?",
        r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$",
    ))
    .unwrap();
}

static CHANNEL_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(concat!("^", "stable", '|', "beta", concat!("-", 2), "$")).unwrap());

const ZONE: &str = concat!("^[a-z]+", "-", r"\d$");

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "update.example.com", version = "v1", kind = "Shadow", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct ShadowSpec {
    #[validate(regex(path = *SEMVER_RE))]
    pub version: String,
    #[schemars(regex(pattern = *CHANNEL_RE))]
    pub channel: String,
    #[garde(pattern(ZONE))]
    pub zone: String,
    #[schemars(regex(pattern = concat!("^", "[0-9]+", "$")))]
    pub build: String,
}
