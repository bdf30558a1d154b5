// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Rollout (argoproj.io/v1alpha1), a kind this project uses but does not own, as the
//! CustomResourceDefinition kept in `config/external-crds/argoproj.io_rollouts.yaml` describes it.
//! rsbuilder generated this file from that CRD; it is yours to edit, and `rsbuilder create api
//! --from-crd <CRD> --force` generates it again.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::CustomResource;
use serde::{Deserialize, Serialize};

/// The Pods wanted, and how to move from one version to the next.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[kube(
    group = "argoproj.io",
    version = "v1alpha1",
    kind = "Rollout",
    plural = "rollouts",
    namespaced,
    status = "RolloutStatus",
    scale(
        spec_replicas_path = ".spec.replicas",
        status_replicas_path = ".status.replicas",
        label_selector_path = ".status.selector"
    ),
    shortname = "ro",
    category = "all",
    printcolumn = r#"{"description":"Pods wanted","jsonPath":".spec.replicas","name":"Desired","type":"integer"}"#,
    printcolumn = r#"{"jsonPath":".status.replicas","name":"Current","type":"integer"}"#,
    printcolumn = r#"{"jsonPath":".status.availableReplicas","name":"Available","type":"integer"}"#,
    schema = "disabled",
    derive = "Default",
    derive = "PartialEq"
)]
pub struct RolloutSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused: Option<bool>,

    /// How many Pods to run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,

    #[serde(rename = "revisionHistoryLimit")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision_history_limit: Option<i32>,

    /// Which Services to scrape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<RolloutSpecSelector>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<RolloutSpecStrategy>,

    /// The Pod template, kept as it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<BTreeMap<String, serde_json::Value>>,
}

/// The value of `.spec.selector`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct RolloutSpecSelector {
    #[serde(rename = "matchExpressions")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_expressions: Option<Vec<RolloutSpecSelectorMatchExpressions>>,

    /// Labels that must all match.
    #[serde(rename = "matchLabels")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_labels: Option<BTreeMap<String, String>>,
}

/// The value of `.spec.selector.matchExpressions[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct RolloutSpecSelectorMatchExpressions {
    pub key: String,
    pub operator: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
}

/// The value of `.spec.strategy`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct RolloutSpecStrategy {
    #[serde(rename = "blueGreen")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blue_green: Option<RolloutSpecStrategyBlueGreen>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canary: Option<RolloutSpecStrategyCanary>,
}

/// The value of `.spec.strategy.blueGreen`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct RolloutSpecStrategyBlueGreen {
    #[serde(rename = "activeService")]
    pub active_service: String,
    #[serde(rename = "autoPromotionEnabled")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_promotion_enabled: Option<bool>,
    #[serde(rename = "previewService")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview_service: Option<String>,
    #[serde(rename = "scaleDownDelaySeconds")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_down_delay_seconds: Option<i32>,
}

/// The value of `.spec.strategy.canary`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct RolloutSpecStrategyCanary {
    #[serde(rename = "maxSurge")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_surge: Option<IntOrString>,
    #[serde(rename = "maxUnavailable")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_unavailable: Option<IntOrString>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<RolloutSpecStrategyCanarySteps>>,
}

/// The value of `.spec.strategy.canary.steps[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct RolloutSpecStrategyCanarySteps {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analysis: Option<RolloutSpecStrategyCanaryStepsAnalysis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause: Option<RolloutSpecStrategyCanaryStepsPause>,
    #[serde(rename = "setCanaryScale")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_canary_scale: Option<RolloutSpecStrategyCanaryStepsSetCanaryScale>,
    #[serde(rename = "setWeight")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_weight: Option<i32>,
}

/// The value of `.spec.strategy.canary.steps[].analysis`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct RolloutSpecStrategyCanaryStepsAnalysis {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<RolloutSpecStrategyCanaryStepsAnalysisArgs>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub templates: Option<Vec<RolloutSpecStrategyCanaryStepsAnalysisTemplates>>,
}

/// The value of `.spec.strategy.canary.steps[].analysis.args[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct RolloutSpecStrategyCanaryStepsAnalysisArgs {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(rename = "valueFrom")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_from: Option<RolloutSpecStrategyCanaryStepsAnalysisArgsValueFrom>,
}

/// The value of `.spec.strategy.canary.steps[].analysis.args[].valueFrom`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct RolloutSpecStrategyCanaryStepsAnalysisArgsValueFrom {
    #[serde(rename = "fieldRef")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_ref: Option<RolloutSpecStrategyCanaryStepsAnalysisArgsValueFromFieldRef>,
}

/// The value of `.spec.strategy.canary.steps[].analysis.args[].valueFrom.fieldRef`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct RolloutSpecStrategyCanaryStepsAnalysisArgsValueFromFieldRef {
    #[serde(rename = "fieldPath")]
    pub field_path: String,
}

/// The value of `.spec.strategy.canary.steps[].analysis.templates[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct RolloutSpecStrategyCanaryStepsAnalysisTemplates {
    #[serde(rename = "clusterScope")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_scope: Option<bool>,
    #[serde(rename = "templateName")]
    pub template_name: String,
}

/// The value of `.spec.strategy.canary.steps[].pause`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct RolloutSpecStrategyCanaryStepsPause {
    /// Seconds, or a duration such as `30s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<IntOrString>,
}

/// The value of `.spec.strategy.canary.steps[].setCanaryScale`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct RolloutSpecStrategyCanaryStepsSetCanaryScale {
    #[serde(rename = "matchTrafficWeight")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_traffic_weight: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<i32>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct RolloutStatus {
    #[serde(rename = "availableReplicas")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available_replicas: Option<i32>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<RolloutStatusConditions>>,

    #[serde(rename = "currentStepIndex")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_step_index: Option<i32>,

    /// The generation last seen, as a string.
    #[serde(rename = "observedGeneration")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<String>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<RolloutStatusPhase>,

    #[serde(rename = "readyReplicas")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready_replicas: Option<i32>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,

    /// The label selector of the Pods, as a string, for the scale subresource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,

    #[serde(rename = "updatedReplicas")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_replicas: Option<i32>,
}

/// The value of `.status.conditions[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct RolloutStatusConditions {
    #[serde(rename = "lastTransitionTime")]
    pub last_transition_time: String,
    #[serde(rename = "lastUpdateTime")]
    pub last_update_time: String,
    pub message: String,
    pub reason: String,
    pub status: String,
    pub r#type: String,
}

/// The value of `.status.phase`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub enum RolloutStatusPhase {
    #[default]
    Progressing,
    Paused,
    Healthy,
    Degraded,
    /// A value these types do not know, kept as it is.
    #[serde(untagged)]
    Unknown(String),
}
