//! API versions Kubernetes has removed or deprecated, anywhere under config/. The facts
//! are Kubernetes' "Deprecated API Migration Guide" (kubernetes.io/docs/reference/
//! using-api/deprecation-guide/); generated projects target Kubernetes 1.37 (k8s-openapi's
//! `v1_37`), so everything removed by then is an error.

use crate::lint::check::Check;
use crate::lint::finding::{Finding, RuleId, Severity};
use crate::lint::input::{Inputs, str_at};
use crate::lint::yaml::Segment;

pub static API_REMOVED: RuleId = RuleId {
    id: "api-removed",
    severity: Severity::Error,
    summary: "no manifest uses an API version Kubernetes 1.37 no longer serves",
};
pub static API_DEPRECATED: RuleId = RuleId {
    id: "api-deprecated",
    severity: Severity::Warning,
    summary: "no manifest uses an API Kubernetes has deprecated",
};

pub static CHECK: Check = Check {
    name: "manifests",
    rules: &[&API_REMOVED, &API_DEPRECATED],
    run,
};

/// The Kubernetes minor version generated projects build against.
const TARGET_MINOR: u32 = 37;

/// apiVersion, kind (`*`: every kind), the minor version that removed it (None: only
/// deprecated), and what to use instead.
const APIS: &[(&str, &str, Option<u32>, &str)] = &[
    ("extensions/v1beta1", "Deployment", Some(16), "apps/v1"),
    ("extensions/v1beta1", "DaemonSet", Some(16), "apps/v1"),
    ("extensions/v1beta1", "ReplicaSet", Some(16), "apps/v1"),
    (
        "extensions/v1beta1",
        "NetworkPolicy",
        Some(16),
        "networking.k8s.io/v1",
    ),
    (
        "extensions/v1beta1",
        "PodSecurityPolicy",
        Some(16),
        "Pod Security Admission",
    ),
    (
        "extensions/v1beta1",
        "Ingress",
        Some(22),
        "networking.k8s.io/v1",
    ),
    ("apps/v1beta1", "*", Some(16), "apps/v1"),
    ("apps/v1beta2", "*", Some(16), "apps/v1"),
    (
        "admissionregistration.k8s.io/v1beta1",
        "MutatingWebhookConfiguration",
        Some(22),
        "admissionregistration.k8s.io/v1",
    ),
    (
        "admissionregistration.k8s.io/v1beta1",
        "ValidatingWebhookConfiguration",
        Some(22),
        "admissionregistration.k8s.io/v1",
    ),
    (
        "apiextensions.k8s.io/v1beta1",
        "*",
        Some(22),
        "apiextensions.k8s.io/v1",
    ),
    (
        "apiregistration.k8s.io/v1beta1",
        "*",
        Some(22),
        "apiregistration.k8s.io/v1",
    ),
    (
        "authentication.k8s.io/v1beta1",
        "*",
        Some(22),
        "authentication.k8s.io/v1",
    ),
    (
        "authorization.k8s.io/v1beta1",
        "*",
        Some(22),
        "authorization.k8s.io/v1",
    ),
    (
        "certificates.k8s.io/v1beta1",
        "*",
        Some(22),
        "certificates.k8s.io/v1",
    ),
    (
        "coordination.k8s.io/v1beta1",
        "*",
        Some(22),
        "coordination.k8s.io/v1",
    ),
    (
        "networking.k8s.io/v1beta1",
        "Ingress",
        Some(22),
        "networking.k8s.io/v1",
    ),
    (
        "networking.k8s.io/v1beta1",
        "IngressClass",
        Some(22),
        "networking.k8s.io/v1",
    ),
    (
        "rbac.authorization.k8s.io/v1beta1",
        "*",
        Some(22),
        "rbac.authorization.k8s.io/v1",
    ),
    (
        "rbac.authorization.k8s.io/v1alpha1",
        "*",
        Some(22),
        "rbac.authorization.k8s.io/v1",
    ),
    (
        "scheduling.k8s.io/v1beta1",
        "*",
        Some(22),
        "scheduling.k8s.io/v1",
    ),
    (
        "storage.k8s.io/v1beta1",
        "CSIDriver",
        Some(22),
        "storage.k8s.io/v1",
    ),
    (
        "storage.k8s.io/v1beta1",
        "CSINode",
        Some(22),
        "storage.k8s.io/v1",
    ),
    (
        "storage.k8s.io/v1beta1",
        "StorageClass",
        Some(22),
        "storage.k8s.io/v1",
    ),
    (
        "storage.k8s.io/v1beta1",
        "VolumeAttachment",
        Some(22),
        "storage.k8s.io/v1",
    ),
    (
        "storage.k8s.io/v1beta1",
        "CSIStorageCapacity",
        Some(27),
        "storage.k8s.io/v1",
    ),
    ("batch/v1beta1", "CronJob", Some(25), "batch/v1"),
    (
        "discovery.k8s.io/v1beta1",
        "EndpointSlice",
        Some(25),
        "discovery.k8s.io/v1",
    ),
    (
        "events.k8s.io/v1beta1",
        "Event",
        Some(25),
        "events.k8s.io/v1",
    ),
    (
        "autoscaling/v2beta1",
        "HorizontalPodAutoscaler",
        Some(25),
        "autoscaling/v2",
    ),
    (
        "autoscaling/v2beta2",
        "HorizontalPodAutoscaler",
        Some(26),
        "autoscaling/v2",
    ),
    (
        "policy/v1beta1",
        "PodDisruptionBudget",
        Some(25),
        "policy/v1",
    ),
    (
        "policy/v1beta1",
        "PodSecurityPolicy",
        Some(25),
        "Pod Security Admission",
    ),
    (
        "node.k8s.io/v1beta1",
        "RuntimeClass",
        Some(25),
        "node.k8s.io/v1",
    ),
    (
        "flowcontrol.apiserver.k8s.io/v1beta1",
        "*",
        Some(26),
        "flowcontrol.apiserver.k8s.io/v1",
    ),
    (
        "flowcontrol.apiserver.k8s.io/v1beta2",
        "*",
        Some(29),
        "flowcontrol.apiserver.k8s.io/v1",
    ),
    (
        "flowcontrol.apiserver.k8s.io/v1beta3",
        "*",
        Some(32),
        "flowcontrol.apiserver.k8s.io/v1",
    ),
    (
        "v1",
        "ComponentStatus",
        None,
        "the API servers' /livez and /readyz",
    ),
    ("v1", "Endpoints", None, "discovery.k8s.io/v1 EndpointSlice"),
];

fn run(inputs: &Inputs, out: &mut Vec<Finding>) {
    for (file, doc) in inputs.manifests() {
        let api_version = str_at(doc, &["apiVersion"]);
        let kind = str_at(doc, &["kind"]);
        let Some((_, _, removed, instead)) = APIS
            .iter()
            .find(|(v, k, _, _)| *v == api_version && (*k == "*" || *k == kind))
        else {
            continue;
        };
        let pos = doc.pos_of(&[Segment::Key("apiVersion".into())]);
        let finding = match removed {
            Some(minor) if *minor <= TARGET_MINOR => API_REMOVED.at(
                &file.path,
                pos,
                format!("{kind} {api_version} was removed in Kubernetes 1.{minor}"),
            ),
            Some(minor) => API_DEPRECATED.at(
                &file.path,
                pos,
                format!("{kind} {api_version} is deprecated and goes in Kubernetes 1.{minor}"),
            ),
            None => API_DEPRECATED.at(
                &file.path,
                pos,
                format!("{kind} {api_version} is deprecated"),
            ),
        };
        out.push(finding.hint(format!("use {instead} instead")));
    }
}
