//! Bounds and patterns shared by several kinds, as operators keep them in one module.
use std::sync::LazyLock;

use regex::Regex;

pub const MAX_NAME: usize = 63;
pub const MIN_NAME: u8 = 1;
pub const MAX_RATIO: f64 = 0.75;
pub const MAX_REPLICAS: i32 = 100;
pub const DNS_LABEL: &str = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";
pub static VERSION: &str = r"^v\d+$";
pub static BUCKET_RE: LazyLock<Regex> = LazyLock::new(|| Regex::new("^[a-z][a-z0-9.-]+$").unwrap());
pub static REGION_RE: once_cell::sync::Lazy<Regex> =
    once_cell::sync::Lazy::new(|| Regex::new(r"^[a-z]{2}-[a-z]+-\d$").expect("valid regex"));

lazy_static::lazy_static! {
    pub static ref TAG_RE: Regex = Regex::new("^[A-Za-z0-9_.-]{1,128}$").unwrap();
}
