//! validator and garde attributes on a spec, read by schemars as it reads its own:
//! lengths, ranges, formats, regexes through constants and lazily built `Regex`es,
//! `contains`, `required`, `inner(...)`; the keys schemars does not know (`message`,
//! `code`, `custom`, garde's `ascii`, `dive`, `skip`) change nothing.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::limits::{self, BUCKET_RE, DNS_LABEL, MAX_NAME, MIN_NAME};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "store.example.com", version = "v1", kind = "Bucket", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct BucketSpec {
    #[validate(length(min = 3, max = 63, message = "bucket names are 3 to 63 characters"))]
    #[validate(regex(path = *BUCKET_RE, code = "bucket_name"))]
    pub name: String,
    #[validate(length(min = "MIN_NAME", max = "MAX_NAME"))]
    #[validate(regex(path = "DNS_LABEL"))]
    pub owner: String,
    #[validate(regex(path = *limits::REGION_RE))]
    pub region: String,
    #[validate(regex(path = limits::TAG_RE))]
    pub tag: String,
    #[validate(range(min = 1, max = limits::MAX_REPLICAS))]
    pub replicas: i32,
    #[validate(range(min = 0.0, max = limits::MAX_RATIO))]
    pub fill_ratio: f64,
    #[validate(range(equal = 3))]
    pub copies: u8,
    #[validate(email(message = "not an email"))]
    pub contact: String,
    #[validate(url)]
    pub endpoint: Option<String>,
    #[validate(contains(pattern = "@"))]
    pub admin: String,
    #[validate(required)]
    pub class: Option<String>,
    #[validate(length(min = 1), custom(function = "check_tags"))]
    pub tags: Vec<String>,
    #[validate(nested)]
    pub lifecycle: Lifecycle,
    /// schemars' own attribute is read first: its `length` wins over validator's.
    #[schemars(length(max = 10))]
    #[validate(length(max = 20))]
    pub prefix: String,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Lifecycle {
    #[garde(range(min = 1, max = 3650))]
    pub expire_days: u32,
    #[garde(length(min = 1, max = MAX_NAME), ascii)]
    pub rule_name: String,
    #[garde(pattern(limits::VERSION))]
    pub version: String,
    #[garde(pattern(r"^[A-Z]"), skip)]
    pub label: String,
    #[garde(contains("-"))]
    pub slug: String,
    #[garde(inner(length(min = 1, max = 32), pattern(DNS_LABEL)))]
    pub zones: Vec<String>,
    #[garde(email)]
    pub notify: Option<String>,
    #[garde(dive)]
    pub transitions: Vec<Transition>,
    #[schemars(inner(range(min = 1)))]
    pub retries: Vec<u16>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Transition {
    #[garde(range(min = 0))]
    pub days: u32,
    #[garde(required)]
    pub storage_class: Option<String>,
}
