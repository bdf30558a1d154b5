//! Literal schemas in every form `json!`/`json_schema!` accept: trailing commas after the
//! last entry of objects and arrays, nested arrays and objects, negative numbers, `null`,
//! suffixed and separated numbers, raw strings and escapes.
use kube::CustomResource;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "lit.example.com", version = "v1", kind = "Probe", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct ProbeSpec {
    #[schemars(schema_with = "offset")]
    pub offset: i64,
    #[schemars(schema_with = "levels")]
    pub levels: Vec<String>,
    #[schemars(schema_with = "window")]
    pub window: Option<Window>,
    #[schemars(extend("default" = { "from": -1_000, "to": 2.5e1, },))]
    pub range: Range,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Window {
    pub from: i64,
    pub to: i64,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Range {
    pub from: i64,
    pub to: f64,
}

fn offset(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "integer",
        "minimum": -10,
        "maximum": 10i64,
        "default": -3,
    })
}

fn levels(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "array",
        "items": {
            "type": "string",
            "enum": ["low", r"mid\dle", "hi\"gh", 'x',],
        },
        "maxItems": 4,
    })
}

fn window(_: &mut SchemaGenerator) -> Schema {
    serde_json::from_value(serde_json::json!({
        "type": "object",
        "nullable": true,
        "default": null,
        "properties": {
            "from": { "type": "integer", "minimum": -1.5, },
            "to": { "type": "integer", "maximum": 1_000_000, },
        },
        "required": ["from", "to",],
        "x-kubernetes-validations": [
            { "rule": "self.from <= self.to", "message": "from after to", },
        ],
    }))
    .unwrap()
}
