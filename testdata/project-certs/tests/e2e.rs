// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! End-to-end tests against a real cluster with the manager deployed (`make deploy`).
//! `cargo test` skips the cluster test; `make test-e2e` runs it on Kind, and so does CI.
//!
//! What to check comes from the project itself, so the test grows with it: every sample
//! in `config/samples` must become Ready; a CRD that converts through the webhook must
//! have the CA injected and serve every sample at every version; the webhook
//! configurations must have the CA injected; and `/metrics` must answer 401 without a
//! token and 200 to a caller that `metrics-reader` allows.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context as _, bail};
use k8s_openapi::ByteString;
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Pod, ServiceAccount};
use k8s_openapi::api::rbac::v1::ClusterRoleBinding;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, ListParams, LogParams, Patch,
    PatchParams,
};
use kube::runtime::wait::{await_condition, conditions};
use kube::{Client, ResourceExt};
use serde_json::{Value, json};

const PROJECT: &str = "project-certs";
const NAMESPACE: &str = "project-certs-system";
const DEPLOYMENT: &str = "project-certs-controller-manager";
const METRICS_SERVICE: &str = "project-certs-controller-manager-metrics-service";
const METRICS_READER: &str = "project-certs-metrics-reader";
/// The field manager of everything this test applies.
const FIELD_MANAGER: &str = "e2e";
/// How long anything in the cluster may take.
const TIMEOUT: Duration = Duration::from_secs(180);

/// A file of this project, parsed as YAML documents.
fn documents(relative: &str) -> anyhow::Result<Vec<Value>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let documents: Vec<Value> = serde_saphyr::from_multiple(&text)
        .with_context(|| format!("{} is not YAML", path.display()))?;
    Ok(documents.into_iter().filter(|d| !d.is_null()).collect())
}

/// The CRDs of `config/crd/bases`.
fn crds() -> anyhow::Result<Vec<CustomResourceDefinition>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/crd/bases");
    let mut crds = Vec::new();
    if !dir.is_dir() {
        return Ok(crds);
    }
    let mut files: Vec<_> = std::fs::read_dir(&dir)?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<Result<_, _>>()?;
    files.sort();
    for file in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "yaml"))
    {
        let relative = file.strip_prefix(env!("CARGO_MANIFEST_DIR"))?;
        for document in documents(&relative.to_string_lossy())? {
            crds.push(serde_json::from_value(document)?);
        }
    }
    Ok(crds)
}

/// A sample of `config/samples` and the CRD of its kind.
struct Sample {
    object: DynamicObject,
    crd: CustomResourceDefinition,
    version: String,
}

impl Sample {
    fn name(&self) -> String {
        self.object.name_any()
    }

    /// The API of the sample's kind at `version`, where the sample lives.
    fn api(&self, client: &Client, version: &str) -> Api<DynamicObject> {
        let names = &self.crd.spec.names;
        let gvk = GroupVersionKind::gvk(&self.crd.spec.group, version, &names.kind);
        let resource = ApiResource::from_gvk_with_plural(&gvk, &names.plural);
        if self.crd.spec.scope == "Namespaced" {
            // Namespaced managers watch only their own namespace: put the samples there.
            Api::namespaced_with(client.clone(), NAMESPACE, &resource)
        } else {
            Api::all_with(client.clone(), &resource)
        }
    }

    fn storage_version(&self) -> &str {
        let versions = &self.crd.spec.versions;
        let storage = versions.iter().find(|version| version.storage);
        storage.map_or(self.version.as_str(), |version| version.name.as_str())
    }
}

/// Every sample that `config/samples/kustomization.yaml` lists, with its CRD.
fn samples() -> anyhow::Result<Vec<Sample>> {
    let listed = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/samples/kustomization.yaml");
    if !listed.is_file() {
        return Ok(Vec::new());
    }
    let crds = crds()?;
    let mut samples = Vec::new();
    for kustomization in documents("config/samples/kustomization.yaml")? {
        let files = kustomization["resources"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for file in files.iter().filter_map(Value::as_str) {
            for document in documents(&format!("config/samples/{file}"))? {
                let object: DynamicObject = serde_json::from_value(document)
                    .with_context(|| format!("config/samples/{file} is not an object"))?;
                let types = object
                    .types
                    .clone()
                    .with_context(|| format!("config/samples/{file} has no apiVersion or kind"))?;
                let (group, version) = types.api_version.split_once('/').with_context(|| {
                    format!(
                        "config/samples/{file}: {} is not a group/version",
                        types.api_version
                    )
                })?;
                let crd = crds
                    .iter()
                    .find(|crd| crd.spec.group == group && crd.spec.names.kind == types.kind)
                    .with_context(|| {
                        format!(
                            "config/samples/{file}: no CRD in config/crd/bases for {} {}",
                            types.api_version, types.kind
                        )
                    })?;
                samples.push(Sample {
                    object,
                    crd: crd.clone(),
                    version: version.to_string(),
                });
            }
        }
    }
    Ok(samples)
}

#[test]
fn every_sample_is_served_by_a_crd_of_this_project() -> anyhow::Result<()> {
    for sample in samples()? {
        let served: Vec<&str> = sample
            .crd
            .spec
            .versions
            .iter()
            .filter(|version| version.served)
            .map(|version| version.name.as_str())
            .collect();
        assert!(
            served.contains(&sample.version.as_str()),
            "{} {}: version {} is not served ({served:?})",
            sample.crd.spec.names.kind,
            sample.name(),
            sample.version
        );
    }
    Ok(())
}

#[tokio::test]
#[ignore = "needs a cluster with the manager deployed: run `make test-e2e`"]
async fn the_deployed_operator_works() -> anyhow::Result<()> {
    let client = Client::try_default().await?;
    the_manager_becomes_available(&client).await?;
    let samples = samples()?;
    let checked = async {
        every_sample_becomes_ready(&client, &samples).await?;
        converting_crds_serve_every_version(&client, &samples).await?;
        webhook_configurations_have_their_ca(&client).await?;
        metrics_need_a_token_that_may_read_them(&client).await
    };
    let outcome = checked.await;
    // Leave no custom resource behind, so that `make undeploy` can remove the CRDs.
    for sample in &samples {
        let api = sample.api(&client, &sample.version);
        let _ = api.delete(&sample.name(), &DeleteParams::default()).await;
    }
    outcome
}

async fn the_manager_becomes_available(client: &Client) -> anyhow::Result<()> {
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), NAMESPACE);
    let rolled_out = await_condition(
        deployments,
        DEPLOYMENT,
        conditions::is_deployment_completed(),
    );
    tokio::time::timeout(TIMEOUT, rolled_out)
        .await
        .context("the manager's Deployment did not become available")??;
    Ok(())
}

async fn every_sample_becomes_ready(client: &Client, samples: &[Sample]) -> anyhow::Result<()> {
    let apply = PatchParams::apply(FIELD_MANAGER).force();
    for sample in samples {
        let api = sample.api(client, &sample.version);
        api.patch(&sample.name(), &apply, &Patch::Apply(&sample.object))
            .await
            .with_context(|| format!("cannot apply the sample {}", sample.name()))?;
    }
    for sample in samples {
        let api = sample.api(client, sample.storage_version());
        let name = sample.name();
        let ready = async {
            loop {
                if let Ok(object) = api.get(&name).await
                    && is_ready(&object)
                {
                    return;
                }
                tokio::time::sleep(Duration::from_secs(2)).await;
            }
        };
        tokio::time::timeout(TIMEOUT, ready)
            .await
            .with_context(|| format!("the sample {name} did not become Ready"))?;
    }
    Ok(())
}

/// Whether `object` has the condition `Ready` with status `True`.
fn is_ready(object: &DynamicObject) -> bool {
    let conditions = object.data["status"]["conditions"].as_array();
    conditions
        .into_iter()
        .flatten()
        .any(|condition| condition["type"] == "Ready" && condition["status"] == "True")
}

/// A CRD whose conversion strategy is `Webhook` has the CA that cert-manager (or, with
/// `--webhook-certs self`, the manager) injects, and the API server serves its samples at
/// every version (converting them through the manager's `/convert`).
async fn converting_crds_serve_every_version(
    client: &Client,
    samples: &[Sample],
) -> anyhow::Result<()> {
    let installed: Api<CustomResourceDefinition> = Api::all(client.clone());
    for crd in crds()? {
        let name = crd.name_any();
        let live = installed
            .get(&name)
            .await
            .with_context(|| format!("the CRD {name} is not installed"))?;
        let conversion = live.spec.conversion.as_ref();
        if conversion.is_none_or(|conversion| conversion.strategy != "Webhook") {
            continue;
        }
        let ca = conversion
            .and_then(|conversion| conversion.webhook.as_ref())
            .and_then(|webhook| webhook.client_config.as_ref())
            .and_then(|config| config.ca_bundle.as_ref());
        if ca.is_none_or(|ca| ca.0.is_empty()) {
            bail!("the CRD {name} converts through the webhook but has no CA bundle");
        }
        for sample in samples
            .iter()
            .filter(|sample| sample.crd.name_any() == name)
        {
            for version in live.spec.versions.iter().filter(|version| version.served) {
                let api = sample.api(client, &version.name);
                let object = api.get(&sample.name()).await.with_context(|| {
                    format!("cannot read {} {} at {}", name, sample.name(), version.name)
                })?;
                let api_version = object.types.map(|types| types.api_version);
                let expected = format!("{}/{}", live.spec.group, version.name);
                if api_version.as_deref() != Some(expected.as_str()) {
                    bail!(
                        "{name} {}: read at {expected}, got {api_version:?}",
                        sample.name()
                    );
                }
            }
        }
    }
    Ok(())
}

/// Every webhook of this project's configurations has the CA that cert-manager (or, with
/// `--webhook-certs self`, the manager) injects.
async fn webhook_configurations_have_their_ca(client: &Client) -> anyhow::Result<()> {
    let has_ca = |ca: Option<&ByteString>| ca.is_some_and(|ca| !ca.0.is_empty());
    let mut webhooks: BTreeMap<String, bool> = BTreeMap::new();
    let mutating: Api<MutatingWebhookConfiguration> = Api::all(client.clone());
    for configuration in mutating.list(&ListParams::default()).await? {
        for webhook in configuration.webhooks.iter().flatten() {
            let name = format!("{}/{}", configuration.name_any(), webhook.name);
            webhooks.insert(name, has_ca(webhook.client_config.ca_bundle.as_ref()));
        }
    }
    let validating: Api<ValidatingWebhookConfiguration> = Api::all(client.clone());
    for configuration in validating.list(&ListParams::default()).await? {
        for webhook in configuration.webhooks.iter().flatten() {
            let name = format!("{}/{}", configuration.name_any(), webhook.name);
            webhooks.insert(name, has_ca(webhook.client_config.ca_bundle.as_ref()));
        }
    }
    let ours = format!("{PROJECT}-");
    let missing: Vec<&String> = webhooks
        .iter()
        .filter(|(name, has_ca)| name.starts_with(&ours) && !**has_ca)
        .map(|(name, _)| name)
        .collect();
    if !missing.is_empty() {
        bail!("webhooks without a CA bundle: {missing:?}");
    }
    Ok(())
}

/// A pod scrapes `/metrics` through the metrics Service, once without a token and once
/// with the token of a service account bound to `metrics-reader`.
async fn metrics_need_a_token_that_may_read_them(client: &Client) -> anyhow::Result<()> {
    let name = format!("{PROJECT}-e2e-metrics");
    let apply = PatchParams::apply(FIELD_MANAGER).force();
    let accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), NAMESPACE);
    let account = json!({
        "apiVersion": "v1", "kind": "ServiceAccount",
        "metadata": { "name": name, "namespace": NAMESPACE },
    });
    accounts
        .patch(&name, &apply, &Patch::Apply(&account))
        .await?;
    let bindings: Api<ClusterRoleBinding> = Api::all(client.clone());
    let binding = json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
        "metadata": { "name": name },
        "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": METRICS_READER },
        "subjects": [{ "kind": "ServiceAccount", "name": name, "namespace": NAMESPACE }],
    });
    bindings
        .patch(&name, &apply, &Patch::Apply(&binding))
        .await?;

    let url = format!("https://{METRICS_SERVICE}.{NAMESPACE}.svc:8443/metrics");
    let script = format!(
        "token=$(cat /var/run/secrets/kubernetes.io/serviceaccount/token); \
         echo \"without a token: $(curl -sk -o /dev/null -w '%{{http_code}}' {url})\"; \
         echo \"with a token: $(curl -sk -o /dev/null -w '%{{http_code}}' -H \"Authorization: Bearer $token\" {url})\""
    );
    // A pod of its own per run: a pod's spec cannot change once created. The namespace
    // enforces the `restricted` Pod Security Standard.
    let pod_name = format!("{name}-{}", std::process::id());
    let pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": { "name": pod_name, "namespace": NAMESPACE },
        "spec": {
            "serviceAccountName": name,
            "restartPolicy": "Never",
            "securityContext": {
                "runAsNonRoot": true, "runAsUser": 65532,
                "seccompProfile": { "type": "RuntimeDefault" },
            },
            "containers": [{
                "name": "curl",
                "image": "curlimages/curl:8.11.1",
                "command": ["sh", "-c", script],
                "securityContext": {
                    "allowPrivilegeEscalation": false,
                    "capabilities": { "drop": ["ALL"] },
                },
            }],
        },
    });
    let pods: Api<Pod> = Api::namespaced(client.clone(), NAMESPACE);
    pods.patch(&pod_name, &apply, &Patch::Apply(&pod)).await?;
    let finished = await_condition(pods.clone(), &pod_name, |pod: Option<&Pod>| {
        let phase = pod.and_then(|pod| pod.status.as_ref()?.phase.as_deref());
        matches!(phase, Some("Succeeded" | "Failed"))
    });
    tokio::time::timeout(TIMEOUT, finished)
        .await
        .context("the metrics pod did not finish")??;
    let logs = pods.logs(&pod_name, &LogParams::default()).await?;

    let _ = pods.delete(&pod_name, &DeleteParams::default()).await;
    let _ = bindings.delete(&name, &DeleteParams::default()).await;
    let _ = accounts.delete(&name, &DeleteParams::default()).await;
    for expected in ["without a token: 401", "with a token: 200"] {
        if !logs.contains(expected) {
            bail!("/metrics: expected {expected:?}, the pod printed:\n{logs}");
        }
    }
    Ok(())
}
