// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! ServiceMonitor (monitoring.coreos.com/v1), a kind this project uses but does not own, as the
//! CustomResourceDefinition kept in
//! `config/external-crds/monitoring.coreos.com_servicemonitors.yaml` describes it. rsbuilder
//! generated this file from that CRD; it is yours to edit, and `rsbuilder create api --from-crd
//! <CRD> --force` generates it again.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::CustomResource;
use serde::{Deserialize, Serialize};

/// What to scrape.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[kube(
    group = "monitoring.coreos.com",
    version = "v1",
    kind = "ServiceMonitor",
    plural = "servicemonitors",
    status = "ServiceMonitorStatus",
    shortname = "smon",
    schema = "disabled",
    derive = "Default",
    derive = "PartialEq"
)]
pub struct ServiceMonitorSpec {
    /// Metadata to attach to the targets; fields this schema does not know are kept.
    #[serde(rename = "attachMetadata")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attach_metadata: Option<ServiceMonitorSpecAttachMetadata>,

    /// Endpoints to scrape; each is its own scrape target.
    pub endpoints: Vec<ServiceMonitorSpecEndpoints>,

    /// Scrape configuration passed through as is.
    #[serde(rename = "extraConfig")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_config: Option<serde_json::Value>,

    /// The Service label whose value names the job.
    #[serde(rename = "jobLabel")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_label: Option<String>,

    #[serde(rename = "labelLimit")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_limit: Option<i64>,

    #[serde(rename = "namespaceSelector")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<ServiceMonitorSpecNamespaceSelector>,

    #[serde(rename = "podTargetLabels")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_target_labels: Option<Vec<String>>,

    #[serde(rename = "sampleLimit")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_limit: Option<i64>,

    #[serde(rename = "scrapeProtocols")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scrape_protocols: Option<Vec<ServiceMonitorSpecScrapeProtocols>>,

    /// Which Services to scrape.
    pub selector: ServiceMonitorSpecSelector,

    #[serde(rename = "targetLabels")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_labels: Option<Vec<String>>,
}

/// The value of `.spec.attachMetadata`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecAttachMetadata {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<bool>,

    /// The fields the schema does not name, which it keeps
    /// (`x-kubernetes-preserve-unknown-fields`).
    #[serde(flatten)]
    pub other_fields: BTreeMap<String, serde_json::Value>,
}

/// One endpoint to scrape.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecEndpoints {
    #[serde(rename = "basicAuth")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<ServiceMonitorSpecEndpointsBasicAuth>,

    #[serde(rename = "bearerTokenSecret")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token_secret: Option<ServiceMonitorSpecEndpointsBearerTokenSecret>,

    #[serde(rename = "enableHttp2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_http2: Option<bool>,

    #[serde(rename = "followRedirects")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow_redirects: Option<bool>,

    #[serde(rename = "honorLabels")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub honor_labels: Option<bool>,

    #[serde(rename = "honorTimestamps")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub honor_timestamps: Option<bool>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<String>,

    /// Relabeling of the samples, before ingestion.
    #[serde(rename = "metricRelabelings")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_relabelings: Option<Vec<ServiceMonitorSpecEndpointsMetricRelabelings>>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth2: Option<ServiceMonitorSpecEndpointsOauth2>,

    /// Query parameters of the scrape request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<BTreeMap<String, Vec<String>>>,

    /// The HTTP path to scrape (default: `/metrics`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,

    /// The Service port, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,

    /// Relabeling of the target, before the scrape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relabelings: Option<Vec<ServiceMonitorSpecEndpointsRelabelings>>,

    /// The share of samples kept, from 0 to 1.
    #[serde(rename = "sampleRatio")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_ratio: Option<f64>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheme: Option<ServiceMonitorSpecEndpointsScheme>,

    #[serde(rename = "scrapeTimeout")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scrape_timeout: Option<String>,

    /// The Pod port, by number or name.
    #[serde(rename = "targetPort")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_port: Option<IntOrString>,

    #[serde(rename = "tlsConfig")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<ServiceMonitorSpecEndpointsTlsConfig>,
}

/// The value of `.spec.endpoints[].basicAuth`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecEndpointsBasicAuth {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<ServiceMonitorSpecEndpointsBasicAuthPassword>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<ServiceMonitorSpecEndpointsBasicAuthUsername>,
}

/// The value of `.spec.endpoints[].basicAuth.password`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecEndpointsBasicAuthPassword {
    /// The key in the Secret.
    pub key: String,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
}

/// The value of `.spec.endpoints[].basicAuth.username`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecEndpointsBasicAuthUsername {
    /// The key in the Secret.
    pub key: String,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
}

/// The value of `.spec.endpoints[].bearerTokenSecret`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecEndpointsBearerTokenSecret {
    /// The key in the Secret.
    pub key: String,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
}

/// One relabeling step.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecEndpointsMetricRelabelings {
    /// What to do with a match. Both spellings are accepted:
    /// `replace` and `Replace` mean the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<ServiceMonitorSpecEndpointsMetricRelabelingsAction>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modulus: Option<i64>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regex: Option<String>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub separator: Option<String>,

    /// Labels whose values are joined and matched.
    #[serde(rename = "sourceLabels")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_labels: Option<Vec<String>>,

    #[serde(rename = "targetLabel")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_label: Option<String>,
}

/// The value of `.spec.endpoints[].metricRelabelings[].action`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum ServiceMonitorSpecEndpointsMetricRelabelingsAction {
    #[default]
    #[serde(rename = "replace")]
    Replace,
    #[serde(rename = "Replace")]
    Replace2,
    #[serde(rename = "keep")]
    Keep,
    #[serde(rename = "Keep")]
    Keep2,
    #[serde(rename = "drop")]
    Drop,
    #[serde(rename = "Drop")]
    Drop2,
    #[serde(rename = "hashmod")]
    Hashmod,
    HashMod,
    #[serde(rename = "labelmap")]
    Labelmap,
    LabelMap,
    #[serde(rename = "labeldrop")]
    Labeldrop,
    LabelDrop,
    #[serde(rename = "labelkeep")]
    Labelkeep,
    LabelKeep,
    #[serde(rename = "lowercase")]
    Lowercase,
    #[serde(rename = "Lowercase")]
    Lowercase2,
    #[serde(rename = "uppercase")]
    Uppercase,
    #[serde(rename = "Uppercase")]
    Uppercase2,
    #[serde(rename = "keepequal")]
    Keepequal,
    KeepEqual,
    #[serde(rename = "dropequal")]
    Dropequal,
    DropEqual,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// The value of `.spec.endpoints[].oauth2`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecEndpointsOauth2 {
    #[serde(rename = "clientId")]
    pub client_id: ServiceMonitorSpecEndpointsOauth2ClientId,
    #[serde(rename = "clientSecret")]
    pub client_secret: ServiceMonitorSpecEndpointsOauth2ClientSecret,
    #[serde(rename = "endpointParams")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint_params: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes: Option<Vec<String>>,
    #[serde(rename = "tokenUrl")]
    pub token_url: String,
}

/// The value of `.spec.endpoints[].oauth2.clientId`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecEndpointsOauth2ClientId {
    #[serde(rename = "configMap")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_map: Option<ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<ServiceMonitorSpecEndpointsOauth2ClientIdSecret>,
}

/// The value of `.spec.endpoints[].oauth2.clientId.configMap`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap {
    /// The key in the Secret.
    pub key: String,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
}

/// The value of `.spec.endpoints[].oauth2.clientId.secret`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecEndpointsOauth2ClientIdSecret {
    /// The key in the Secret.
    pub key: String,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
}

/// The value of `.spec.endpoints[].oauth2.clientSecret`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecEndpointsOauth2ClientSecret {
    /// The key in the Secret.
    pub key: String,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
}

/// One relabeling step.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecEndpointsRelabelings {
    /// What to do with a match. Both spellings are accepted:
    /// `replace` and `Replace` mean the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<ServiceMonitorSpecEndpointsRelabelingsAction>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modulus: Option<i64>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regex: Option<String>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub separator: Option<String>,

    /// Labels whose values are joined and matched.
    #[serde(rename = "sourceLabels")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_labels: Option<Vec<String>>,

    #[serde(rename = "targetLabel")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_label: Option<String>,
}

/// The value of `.spec.endpoints[].relabelings[].action`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum ServiceMonitorSpecEndpointsRelabelingsAction {
    #[default]
    #[serde(rename = "replace")]
    Replace,
    #[serde(rename = "Replace")]
    Replace2,
    #[serde(rename = "keep")]
    Keep,
    #[serde(rename = "Keep")]
    Keep2,
    #[serde(rename = "drop")]
    Drop,
    #[serde(rename = "Drop")]
    Drop2,
    #[serde(rename = "hashmod")]
    Hashmod,
    HashMod,
    #[serde(rename = "labelmap")]
    Labelmap,
    LabelMap,
    #[serde(rename = "labeldrop")]
    Labeldrop,
    LabelDrop,
    #[serde(rename = "labelkeep")]
    Labelkeep,
    LabelKeep,
    #[serde(rename = "lowercase")]
    Lowercase,
    #[serde(rename = "Lowercase")]
    Lowercase2,
    #[serde(rename = "uppercase")]
    Uppercase,
    #[serde(rename = "Uppercase")]
    Uppercase2,
    #[serde(rename = "keepequal")]
    Keepequal,
    KeepEqual,
    #[serde(rename = "dropequal")]
    Dropequal,
    DropEqual,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// The value of `.spec.endpoints[].scheme`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum ServiceMonitorSpecEndpointsScheme {
    #[default]
    #[serde(rename = "http")]
    Http,
    #[serde(rename = "https")]
    Https,
    #[serde(rename = "HTTP")]
    Http2,
    #[serde(rename = "HTTPS")]
    Https2,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// The value of `.spec.endpoints[].tlsConfig`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecEndpointsTlsConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca: Option<ServiceMonitorSpecEndpointsTlsConfigCa>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cert: Option<ServiceMonitorSpecEndpointsTlsConfigCert>,
    #[serde(rename = "insecureSkipVerify")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insecure_skip_verify: Option<bool>,
    #[serde(rename = "keySecret")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_secret: Option<ServiceMonitorSpecEndpointsTlsConfigKeySecret>,
    #[serde(rename = "maxVersion")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_version: Option<ServiceMonitorSpecEndpointsTlsConfigMaxVersion>,
    #[serde(rename = "minVersion")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_version: Option<ServiceMonitorSpecEndpointsTlsConfigMinVersion>,
    #[serde(rename = "serverName")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_name: Option<String>,
}

/// The value of `.spec.endpoints[].tlsConfig.ca`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecEndpointsTlsConfigCa {
    #[serde(rename = "configMap")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_map: Option<ServiceMonitorSpecEndpointsTlsConfigCaConfigMap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<ServiceMonitorSpecEndpointsTlsConfigCaSecret>,
}

/// The value of `.spec.endpoints[].tlsConfig.ca.configMap`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecEndpointsTlsConfigCaConfigMap {
    /// The key in the Secret.
    pub key: String,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
}

/// The value of `.spec.endpoints[].tlsConfig.ca.secret`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecEndpointsTlsConfigCaSecret {
    /// The key in the Secret.
    pub key: String,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
}

/// The value of `.spec.endpoints[].tlsConfig.cert`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecEndpointsTlsConfigCert {
    #[serde(rename = "configMap")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_map: Option<ServiceMonitorSpecEndpointsTlsConfigCertConfigMap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<ServiceMonitorSpecEndpointsTlsConfigCertSecret>,
}

/// The value of `.spec.endpoints[].tlsConfig.cert.configMap`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecEndpointsTlsConfigCertConfigMap {
    /// The key in the Secret.
    pub key: String,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
}

/// The value of `.spec.endpoints[].tlsConfig.cert.secret`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecEndpointsTlsConfigCertSecret {
    /// The key in the Secret.
    pub key: String,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
}

/// The value of `.spec.endpoints[].tlsConfig.keySecret`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecEndpointsTlsConfigKeySecret {
    /// The key in the Secret.
    pub key: String,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
}

/// The value of `.spec.endpoints[].tlsConfig.maxVersion`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum ServiceMonitorSpecEndpointsTlsConfigMaxVersion {
    #[default]
    #[serde(rename = "TLS10")]
    Tls10,
    #[serde(rename = "TLS11")]
    Tls11,
    #[serde(rename = "TLS12")]
    Tls12,
    #[serde(rename = "TLS13")]
    Tls13,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// The value of `.spec.endpoints[].tlsConfig.minVersion`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum ServiceMonitorSpecEndpointsTlsConfigMinVersion {
    #[default]
    #[serde(rename = "TLS10")]
    Tls10,
    #[serde(rename = "TLS11")]
    Tls11,
    #[serde(rename = "TLS12")]
    Tls12,
    #[serde(rename = "TLS13")]
    Tls13,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// The value of `.spec.namespaceSelector`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecNamespaceSelector {
    /// Every namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub any: Option<bool>,

    #[serde(rename = "matchNames")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_names: Option<Vec<String>>,
}

/// The value of `.spec.scrapeProtocols[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum ServiceMonitorSpecScrapeProtocols {
    #[default]
    PrometheusProto,
    #[serde(rename = "OpenMetricsText0.0.1")]
    OpenMetricsText001,
    #[serde(rename = "OpenMetricsText1.0.0")]
    OpenMetricsText100,
    #[serde(rename = "PrometheusText0.0.4")]
    PrometheusText004,
    #[serde(rename = "PrometheusText1.0.0")]
    PrometheusText100,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// The value of `.spec.selector`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecSelector {
    #[serde(rename = "matchExpressions")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_expressions: Option<Vec<ServiceMonitorSpecSelectorMatchExpressions>>,

    /// Labels that must all match.
    #[serde(rename = "matchLabels")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_labels: Option<BTreeMap<String, String>>,
}

/// The value of `.spec.selector.matchExpressions[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorSpecSelectorMatchExpressions {
    pub key: String,
    pub operator: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bindings: Option<Vec<ServiceMonitorStatusBindings>>,
}

/// The value of `.status.bindings[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorStatusBindings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<ServiceMonitorStatusBindingsConditions>>,
    pub group: ServiceMonitorStatusBindingsGroup,
    pub name: String,
    pub namespace: String,
    pub resource: ServiceMonitorStatusBindingsResource,
}

/// The value of `.status.bindings[].conditions[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ServiceMonitorStatusBindingsConditions {
    #[serde(rename = "lastTransitionTime")]
    pub last_transition_time: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(rename = "observedGeneration")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub status: String,
    pub r#type: String,
}

/// The value of `.status.bindings[].group`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum ServiceMonitorStatusBindingsGroup {
    #[default]
    #[serde(rename = "monitoring.coreos.com")]
    MonitoringCoreosCom,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}

/// The value of `.status.bindings[].resource`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum ServiceMonitorStatusBindingsResource {
    #[default]
    #[serde(rename = "prometheuses")]
    Prometheuses,
    #[serde(rename = "prometheusagents")]
    Prometheusagents,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}
