//! CEL rules: #[kube(validation)] on the root, KubeSchema #[x_kube] on a struct and fields,
//! merge strategies.
use kube::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(CustomResource, KubeSchema, Clone, Debug, Deserialize, Serialize)]
#[kube(
    group = "infra.example.com",
    version = "v1",
    kind = "Cluster",
    validation = "self.metadata.name.size() <= 40",
    validation = Rule::new("self.spec.nodes >= 1").message("at least one node").reason(Reason::FieldValueInvalid)
)]
#[x_kube(validation = "self.nodes <= 100")]
#[serde(rename_all = "camelCase")]
pub struct ClusterSpec {
    #[x_kube(validation = Rule::new("self == oldSelf").message(Message::Expression("'immutable: ' + self".into())))]
    pub name: String,
    pub nodes: u32,
    #[x_kube(merge_strategy = ListMerge::Set)]
    pub zones: Vec<String>,
    #[x_kube(merge_strategy = ListMerge::Map(vec!["name".into()]), validation = ("self.size() < 10", "too many pools"))]
    pub pools: Vec<Pool>,
    #[x_kube(merge_strategy = MapMerge::Atomic)]
    pub labels: std::collections::BTreeMap<String, String>,
    #[x_kube(validation = Rule::new("oldSelf.optMap(o, self.x >= o.x).orValue(true)").field_path(".x").optional_old_self(true))]
    pub settings: Option<Settings>,
}

#[derive(KubeSchema, Clone, Debug, Deserialize, Serialize)]
pub struct Pool {
    pub name: String,
    pub size: u16,
}

/// Settings.
#[derive(KubeSchema, Clone, Debug, Deserialize, Serialize)]
#[x_kube(validation = "has(self.x)")]
pub struct Settings {
    pub x: i32,
}
