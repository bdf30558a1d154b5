//! The kind a run measures, as the project describes it: its CRD (`config/crd/bases`),
//! its conversion (`config/crd/patches`) and its sample (`config/samples`).

use anyhow::{Context as _, bail};
use kube::Client;
use kube::api::{Api, DynamicObject};
use kube::core::GroupVersionKind;
use kube::discovery::ApiResource;
use serde_json::{Value, json};

use crate::testing::control_plane::ControlPlane;

/// The label that tells the objects of one run (operator or floor) from the other's.
pub const RUN_LABEL: &str = "scale.rsbuilder.dev/run";

/// A kind of the project's CRDs with a sample at its storage version.
pub struct Kind {
    /// The kind's name, `CronJob`.
    pub name: String,
    /// Its API group.
    pub group: String,
    /// Its resource, `cronjobs`.
    pub plural: String,
    /// The version the API server stores, which the controller watches.
    pub storage: String,
    /// A served version the conversion webhook converts to, when the CRD has one.
    pub converted: Option<String>,
    /// Whether its objects live in a namespace.
    pub namespaced: bool,
    /// The sample at the storage version: each object of a run is a copy.
    sample: Value,
}

impl Kind {
    /// The kind named `wanted`, else the first of the project's CRDs that has a sample at
    /// its storage version.
    pub fn find(control_plane: &ControlPlane, wanted: Option<&str>) -> anyhow::Result<Kind> {
        let samples = control_plane.manifests_in("config/samples");
        let conversions = control_plane.manifests_in("config/crd/patches");
        let mut candidates = Vec::new();
        for crd in control_plane.manifests_in("config/crd/bases") {
            let Some(kind) = Kind::of(&crd, &samples, &conversions) else {
                continue;
            };
            if wanted.is_none_or(|wanted| wanted == kind.name) {
                return Ok(kind);
            }
            candidates.push(kind.name);
        }
        match wanted {
            Some(wanted) => bail!(
                "no kind {wanted} with a sample at its storage version in config/samples; \
                 kinds that have one: {}",
                if candidates.is_empty() {
                    "none".into()
                } else {
                    candidates.join(", ")
                }
            ),
            None => bail!(
                "no kind of config/crd/bases has a sample at its storage version in \
                 config/samples: `rsbuilder create api` writes both"
            ),
        }
    }

    fn of(crd: &Value, samples: &[Value], conversions: &[Value]) -> Option<Kind> {
        let spec = &crd["spec"];
        let name = spec["names"]["kind"].as_str()?.to_string();
        let group = spec["group"].as_str()?.to_string();
        let versions = spec["versions"].as_array()?;
        let storage = versions.iter().find(|v| v["storage"] == true)?["name"]
            .as_str()?
            .to_string();
        let api_version = format!("{group}/{storage}");
        let sample = samples
            .iter()
            .find(|s| s["apiVersion"] == api_version.as_str() && s["kind"] == name.as_str())?
            .clone();
        let webhook = conversions.iter().any(|patch| {
            patch["metadata"]["name"] == crd["metadata"]["name"]
                && patch["spec"]["conversion"]["strategy"] == "Webhook"
        });
        let converted = versions
            .iter()
            .filter(|v| v["served"] == true && v["name"] != storage.as_str())
            .find_map(|v| v["name"].as_str())
            .filter(|_| webhook)
            .map(str::to_string);
        Some(Kind {
            name,
            group,
            plural: spec["names"]["plural"].as_str()?.to_string(),
            storage,
            converted,
            namespaced: spec["scope"] != "Cluster",
            sample,
        })
    }

    /// The name of its CRD.
    pub fn crd_name(&self) -> String {
        format!("{}.{}", self.plural, self.group)
    }

    /// The kind's API at `version`, in `namespace` where the kind is namespaced.
    pub fn api(&self, client: &Client, namespace: &str, version: &str) -> Api<DynamicObject> {
        let gvk = GroupVersionKind::gvk(&self.group, version, &self.name);
        let resource = ApiResource::from_gvk_with_plural(&gvk, &self.plural);
        if self.namespaced {
            Api::namespaced_with(client.clone(), namespace, &resource)
        } else {
            Api::all_with(client.clone(), &resource)
        }
    }

    /// Object `index` of `run`: the sample, renamed and labelled, without a status.
    pub fn object(&self, run: &str, index: usize) -> anyhow::Result<DynamicObject> {
        let mut object = self.sample.clone();
        let metadata = object
            .get_mut("metadata")
            .and_then(Value::as_object_mut)
            .context("the sample has no metadata")?;
        metadata.insert("name".into(), json!(format!("{run}-{index:05}")));
        metadata.remove("namespace");
        let labels = metadata.entry("labels").or_insert_with(|| json!({}));
        labels[RUN_LABEL] = json!(run);
        if let Some(object) = object.as_object_mut() {
            object.remove("status");
        }
        serde_json::from_value(object).context("the sample is not a Kubernetes object")
    }
}

/// Whether `object`'s status says it is ready for the generation it has: a `Ready`
/// condition `True`, and `observedGeneration` (where the status has one) equal to
/// `metadata.generation`.
pub fn is_ready(object: &DynamicObject) -> bool {
    let status = &object.data["status"];
    let current = status["observedGeneration"]
        .as_i64()
        .is_none_or(|observed| Some(observed) == object.metadata.generation);
    let ready = status["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c["type"] == "Ready" && c["status"] == "True");
    current && ready
}
