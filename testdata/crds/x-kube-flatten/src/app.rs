//! `#[x_kube]` on flattened fields: kube applies it to the first property the flattened
//! type contributes (KubeSchema's one-field copy of the struct), for rules and merge
//! strategies, on a struct and an optional struct.
use kube::{CustomResource, KubeSchema};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, KubeSchema, Clone, Debug, Deserialize, Serialize)]
#[kube(group = "apps.example.com", version = "v1", kind = "App", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct AppSpec {
    pub name: String,
    #[serde(flatten)]
    #[x_kube(validation = "self.size() > 0")]
    pub ports: Ports,
    #[serde(flatten)]
    #[x_kube(merge_strategy = ListMerge::Set)]
    pub tags: Tags,
    #[serde(flatten)]
    #[x_kube(validation = Rule::new("self != ''").message("must not be empty"))]
    pub extra: Option<Extra>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Ports {
    pub zone_ports: Vec<u16>,
    pub admin_ports: Vec<u16>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Tags {
    pub tags: Vec<String>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Extra {
    pub note: String,
}
