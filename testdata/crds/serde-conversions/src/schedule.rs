//! Schemas chosen by serde's conversion attributes, as schemars reads them: a field
//! `#[serde(with = "RemoteDef")]` (a remote derive), a `with` module overridden by
//! `#[schemars(with)]`, containers with `from`/`try_from`/`into`, and variants with
//! `with`, `serialize_with` and a literal `schema_with`.
use std::time::Duration;

use kube::CustomResource;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize, Serializer};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "batch.example.com", version = "v1", kind = "Schedule", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleSpec {
    /// When the job may run.
    #[serde(with = "SpanDef")]
    pub span: Span,
    #[serde(with = "SpanDef", rename = "fallback")]
    pub other_span: Span,
    #[serde(with = "seconds")]
    #[schemars(with = "u64")]
    pub timeout: Duration,
    pub limits: Limits,
    pub name: Checked,
    pub label: Label,
    pub triggers: Vec<Trigger>,
}

/// A type from elsewhere, without `JsonSchema`.
#[derive(Clone, Debug)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

/// The span, as serde and schemars see it.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Span")]
pub struct SpanDef {
    pub start: u32,
    pub end: u32,
}

mod seconds {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_secs())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        u64::deserialize(d).map(Duration::from_secs)
    }
}

/// Resource limits.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(from = "RawLimits", into = "RawLimits")]
pub struct Limits {
    cpu_millis: u32,
}

/// Limits as written.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct RawLimits {
    pub cpu: String,
    pub burst: Option<bool>,
}

impl From<RawLimits> for Limits {
    fn from(raw: RawLimits) -> Self {
        Limits {
            cpu_millis: raw.cpu.trim_end_matches('m').parse().unwrap_or(0),
        }
    }
}

impl From<Limits> for RawLimits {
    fn from(l: Limits) -> Self {
        RawLimits {
            cpu: format!("{}m", l.cpu_millis),
            burst: None,
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(try_from = "String")]
pub struct Checked {
    value: String,
}

impl TryFrom<String> for Checked {
    type Error = String;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        if value.is_empty() {
            Err("empty".into())
        } else {
            Ok(Checked { value })
        }
    }
}

/// Deserialized as itself, serialized as a string.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(into = "String")]
pub struct Label {
    text: String,
}

impl From<Label> for String {
    fn from(l: Label) -> Self {
        l.text
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Trigger {
    #[serde(with = "SpanDef")]
    InWindow(Span),
    #[serde(serialize_with = "port_as_string")]
    Port(u16),
    /// A cron line.
    #[schemars(schema_with = "cron_schema")]
    Cron(String),
}

fn port_as_string<S: Serializer>(port: &u16, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&port.to_string())
}

fn cron_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "string",
        "pattern": "^[0-9*/ ,-]+$"
    })
}
