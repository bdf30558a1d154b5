//! `schema_with` functions whose body is a literal schema, on fields (also of types
//! rsbuilder does not know, and optional ones), a newtype and a container; defaults from
//! associated functions of `impl` blocks; a `serialize_with` field defaulting to `None`.
use std::collections::BTreeMap;

use kube::CustomResource;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize, Serializer};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "net.example.com", version = "v1", kind = "Gateway", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct GatewaySpec {
    /// Raw values handed to the proxy.
    #[schemars(schema_with = "preserve_unknown")]
    pub config: serde_json::Value,
    #[schemars(schema_with = "int_or_percent")]
    pub max_surge: Option<String>,
    #[schemars(schema_with = "self::schemas::port_list")]
    pub ports: Vec<u16>,
    #[schemars(schema_with = "schemas::labels", length(max = 8))]
    pub labels: BTreeMap<String, String>,
    pub timeout: Timeout,
    pub mode: Mode,
    #[serde(default = "Settings::default_port")]
    pub port: u16,
    #[serde(default = "Settings::default_host")]
    pub host: String,
    #[serde(default = "schemas::Limits::default_burst")]
    pub burst: u32,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "as_seconds"
    )]
    pub idle: Option<u32>,
}

/// A duration such as `30s`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Timeout(#[schemars(schema_with = "duration")] pub String);

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[schemars(schema_with = "mode_schema")]
pub enum Mode {
    Active,
    Passive,
}

pub struct Settings;

impl Settings {
    fn default_port() -> u16 {
        8080
    }

    fn default_host() -> String {
        "0.0.0.0".into()
    }
}

fn preserve_unknown(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": true
    })
}

fn int_or_percent(_: &mut SchemaGenerator) -> Schema {
    serde_json::from_value(serde_json::json!({
        "x-kubernetes-int-or-string": true,
        "anyOf": [{ "type": "integer" }, { "type": "string", "pattern": "^[0-9]+%$" }]
    }))
    .unwrap()
}

fn duration(_: &mut SchemaGenerator) -> Schema {
    Schema::try_from(serde_json::json!({ "type": "string", "pattern": "^[0-9]+(ms|s|m|h)$" }))
        .unwrap()
}

fn mode_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "enum": ["active", "passive"] })
}

fn as_seconds<S: Serializer>(v: &Option<u32>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(n) => s.serialize_str(&format!("{n}s")),
        None => s.serialize_none(),
    }
}

pub mod schemas {
    use schemars::{Schema, SchemaGenerator, json_schema};

    pub fn port_list(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "array",
            "items": { "type": "integer", "minimum": 1, "maximum": 65535 },
            "x-kubernetes-list-type": "set"
        })
    }

    pub fn labels(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "object", "additionalProperties": { "type": "string" } })
    }

    pub struct Limits;

    impl Limits {
        pub fn default_burst() -> u32 {
            20
        }
    }
}
