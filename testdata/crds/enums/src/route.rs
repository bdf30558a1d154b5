//! Unit enums (with and without docs), externally tagged data enums, untagged enums,
//! Option<Enum>, renamed variants.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "net.example.com", version = "v1", kind = "Route", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct RouteSpec {
    pub protocol: Protocol,
    pub documented: Documented,
    pub optional_protocol: Option<Protocol>,
    pub backend: Backend,
    pub port: PortSpec,
    pub level: Option<Level>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum Protocol {
    Http,
    Https,
    #[serde(rename = "h2c")]
    H2c,
    #[serde(skip)]
    Internal,
}

/// Variants with docs become oneOf entries that kube hoists back into an enum.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub enum Documented {
    /// The first.
    First,
    /// The second.
    Second,
}

/// Where traffic goes.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Backend {
    /// A service in the cluster.
    Service { name: String, port: u16 },
    /// An external URL.
    External(String),
    Static { body: String },
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum PortSpec {
    Number { number: u16 },
    Name { name: String },
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub enum Level {
    Low,
    High,
}
