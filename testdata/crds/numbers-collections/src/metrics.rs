//! Every integer and float type, std collections and serde_json::Value.
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "num.example.com", version = "v1", kind = "Metric", namespaced)]
pub struct MetricSpec {
    pub a: u8,
    pub b: u16,
    pub c: u32,
    pub d: u64,
    pub e: i8,
    pub f: i16,
    pub g: i32,
    pub h: i64,
    pub i: usize,
    pub j: isize,
    pub k: f32,
    pub l: f64,
    pub m: Option<f32>,
    pub names: BTreeSet<String>,
    pub ids: HashSet<u32>,
    pub labels: BTreeMap<String, String>,
    pub weights: HashMap<String, f64>,
    pub nested: BTreeMap<String, Vec<Point>>,
    pub boxed: Box<Point>,
    pub maybe_points: Option<Vec<Point>>,
    pub optional_map: Option<BTreeMap<String, i64>>,
    pub points: Vec<Option<Point>>,
    pub raw: std::collections::BTreeMap<String, serde_json::Value>,
}

/// A point.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Point {
    /// X coordinate.
    pub x: i32,
    pub y: i32,
}
