//! Defaults whose functions build structs from literals (`Retry { .., ..Default::default() }`,
//! `Self { .. }` in an `impl`, a newtype constructor), a container `#[serde(default = "f")]`,
//! a default whose schema comes from `#[schemars(with)]`, enum variants with data,
//! hand-written `Default` impls and associated or module constants, Kubernetes `Quantity`
//! and `IntOrString` values, transparent structs, and a `char`.
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "policy.example.com", version = "v1", kind = "Policy", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct PolicySpec {
    #[serde(default = "default_retry")]
    pub retry: Retry,
    #[serde(default = "Retry::gentle")]
    pub backoff: Retry,
    #[serde(default = "default_replicas")]
    pub replicas: Replicas,
    #[serde(default = "default_name")]
    pub name: Name,
    #[serde(default)]
    pub label: Label,
    #[serde(default)]
    pub initial: char,
    /// The schema comes from `with`, the default from the field's own type.
    #[serde(default)]
    #[schemars(with = "Option<u32>")]
    pub limit: Limit,
    pub schedule: Schedule,
    #[serde(default = "default_source")]
    pub source: Source,
    #[serde(default = "default_mirror")]
    pub mirror: Source,
    #[serde(default)]
    pub group: Group,
    #[serde(default = "Group::standard_capacity")]
    pub capacity: String,
    #[serde(default = "default_port")]
    pub port: u16,
    pub window: Window,
    #[serde(default)]
    pub features: Features,
    #[serde(default = "Tuned::<u8>::default_level")]
    pub level: u32,
    #[serde(default = "default_storage")]
    pub storage: Quantity,
    #[serde(default = "default_surge")]
    pub surge: IntOrString,
    #[serde(default = "default_unavailable")]
    pub unavailable: IntOrString,
}

fn default_storage() -> Quantity {
    Quantity("8Gi".to_string())
}

fn default_surge() -> IntOrString {
    IntOrString::String("25%".into())
}

fn default_unavailable() -> IntOrString {
    IntOrString::Int(1)
}

/// A hand-written `Default` calling constant functions.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Features {
    pub route: bool,
    pub switch: bool,
}

impl Default for Features {
    fn default() -> Self {
        Self {
            route: Self::default_route(),
            switch: Self::default_switch(),
        }
    }
}

impl Features {
    const fn default_route() -> bool {
        true
    }

    const fn default_switch() -> bool {
        false
    }
}

pub struct Tuned<T>(std::marker::PhantomData<T>);

impl<T> Tuned<T> {
    const fn default_level() -> u32 {
        3
    }
}

/// A hand-written `Default` made of literals and constants.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Group {
    pub cluster_name: String,
    pub role: Mode,
    pub port: u16,
}

impl Default for Group {
    fn default() -> Self {
        Self {
            cluster_name: Self::DEFAULT_CLUSTER.into(),
            role: Mode::default(),
            port: limits::PORT,
        }
    }
}

impl Group {
    const DEFAULT_CLUSTER: &'static str = "default";

    fn standard_capacity() -> String {
        Standard::CAPACITY.to_string()
    }
}

pub struct Standard;

impl Standard {
    pub const CAPACITY: &'static str = "10Gi";
}

mod limits {
    pub const PORT: u16 = 8443;
}

fn default_port() -> u16 {
    limits::PORT
}

/// Missing fields come from the hand-written `Default`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(default)]
pub struct Window {
    pub start: u8,
    pub end: u8,
}

impl Default for Window {
    fn default() -> Self {
        Window { start: 1, end: 5 }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Source {
    GitRepo {
        repo_url: String,
        branch: Option<String>,
    },
    Image(String),
}

fn default_source() -> Source {
    Source::GitRepo {
        repo_url: "https://example.com/app.git".into(),
        branch: None,
    }
}

fn default_mirror() -> Source {
    Source::Image("registry.example.com/app".to_string())
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub struct Limit(pub u32);

/// Every field missing from the object takes its value from `Schedule::standard()`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(default = "Schedule::standard", rename_all = "camelCase")]
pub struct Schedule {
    pub every_minutes: u32,
    pub paused: bool,
    #[serde(default)]
    pub note: String,
}

impl Schedule {
    fn standard() -> Self {
        Self {
            every_minutes: 5,
            paused: false,
            note: "standard".into(),
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Retry {
    pub max_attempts: u32,
    pub mode: Mode,
    pub jitter: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Retry {
    fn gentle() -> Self {
        Self {
            max_attempts: 10,
            mode: Mode::Linear,
            jitter: Some(0.5),
            note: Some("slow".to_string()),
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
pub enum Mode {
    #[default]
    Linear,
    Exponential,
}

fn default_retry() -> Retry {
    Retry {
        max_attempts: 3,
        mode: Mode::Exponential,
        ..Default::default()
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Replicas(pub u16);

fn default_replicas() -> Replicas {
    Replicas(2)
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct Name {
    pub value: String,
    #[serde(skip)]
    pub cache: Option<u8>,
}

fn default_name() -> Name {
    Name {
        value: "main".into(),
        cache: None,
    }
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct Label {
    pub value: String,
}
