use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const DEFAULT_PORT: u16 = 8443;

/// Where a service listens.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Endpoint {
    pub host: String,
    #[serde(default = "crate::defaults::port")]
    pub port: u16,
    #[cfg(feature = "tls")]
    pub tls: Option<super::net::Tls>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Tls {
    pub secret_name: String,
}
