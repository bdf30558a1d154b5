//! Kubernetes types rsbuilder can put in a schema: a table from the type's path in
//! k8s-openapi 0.29 to functions over the *real* type, so its schema comes from
//! k8s-openapi's own `JsonSchema` impl (via a `SchemaGenerator`) and its `Default` from its
//! own `Default` impl. Nothing here is a hand-written schema.
//!
//! The list covers the API groups operators embed (core, apps, batch, networking, policy,
//! rbac, autoscaling/v2, coordination, meta, resource, intstr); it was produced by listing
//! every `impl JsonSchema` in those modules of k8s-openapi. Types from other groups are
//! refused with a diagnostic (`--exact` handles them).

use std::collections::HashMap;
use std::sync::OnceLock;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::Value;

use super::typeops::{Op, apply};

/// One Kubernetes type.
pub struct K8sType {
    pub path: &'static str,
    pub apply: fn(Op, &mut SchemaGenerator) -> Schema,
    /// `serde_json::to_value(T::default())`.
    pub default: fn() -> Option<Value>,
}

fn default_of<T: Default + serde::Serialize>() -> Option<Value> {
    serde_json::to_value(T::default()).ok()
}

fn entry<T: JsonSchema + Default + serde::Serialize>(path: &'static str) -> K8sType {
    K8sType {
        path,
        apply: apply::<T>,
        default: default_of::<T>,
    }
}

fn entry_no_default<T: JsonSchema>(path: &'static str) -> K8sType {
    K8sType {
        path,
        apply: apply::<T>,
        default: || None,
    }
}

macro_rules! table {
    (default: [$($($d:ident)::+),* $(,)?], no_default: [$($($n:ident)::+),* $(,)?] $(,)?) => {
        fn all() -> Vec<K8sType> {
            vec![
                $(entry::<$($d)::+>(concat!($(stringify!($d), "::"),+))),*,
                $(entry_no_default::<$($n)::+>(concat!($(stringify!($n), "::"),+))),*
            ]
        }
    };
}

/// Paths that re-export a k8s-openapi type under another name.
const ALIASES: &[(&str, &str)] = &[
    (
        "kube::core::ObjectMeta",
        "k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta",
    ),
    (
        "kube::api::ObjectMeta",
        "k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta",
    ),
    (
        "kube::core::metadata::ObjectMeta",
        "k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta",
    ),
    (
        "kube_core::ObjectMeta",
        "k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta",
    ),
];

/// Looks a fully qualified path (`k8s_openapi::api::core::v1::Container`) up.
pub fn lookup(path: &str) -> Option<&'static K8sType> {
    static TABLE: OnceLock<HashMap<String, K8sType>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        all()
            .into_iter()
            .map(|t| (t.path.trim_end_matches("::").to_string(), t))
            .collect()
    });
    let path = ALIASES
        .iter()
        .find(|(a, _)| *a == path)
        .map_or(path, |(_, real)| real);
    table.get(path)
}

/// Whether a path points into k8s-openapi at all (to word the refusal).
pub fn is_k8s_path(path: &str) -> bool {
    path.starts_with("k8s_openapi::")
}

table! {
    default: [
        k8s_openapi::api::apps::v1::ControllerRevision,
        k8s_openapi::api::apps::v1::DaemonSet,
        k8s_openapi::api::apps::v1::DaemonSetCondition,
        k8s_openapi::api::apps::v1::DaemonSetSpec,
        k8s_openapi::api::apps::v1::DaemonSetStatus,
        k8s_openapi::api::apps::v1::DaemonSetUpdateStrategy,
        k8s_openapi::api::apps::v1::Deployment,
        k8s_openapi::api::apps::v1::DeploymentCondition,
        k8s_openapi::api::apps::v1::DeploymentSpec,
        k8s_openapi::api::apps::v1::DeploymentStatus,
        k8s_openapi::api::apps::v1::DeploymentStrategy,
        k8s_openapi::api::apps::v1::ReplicaSet,
        k8s_openapi::api::apps::v1::ReplicaSetCondition,
        k8s_openapi::api::apps::v1::ReplicaSetSpec,
        k8s_openapi::api::apps::v1::ReplicaSetStatus,
        k8s_openapi::api::apps::v1::RollingUpdateDaemonSet,
        k8s_openapi::api::apps::v1::RollingUpdateDeployment,
        k8s_openapi::api::apps::v1::RollingUpdateStatefulSetStrategy,
        k8s_openapi::api::apps::v1::StatefulSet,
        k8s_openapi::api::apps::v1::StatefulSetCondition,
        k8s_openapi::api::apps::v1::StatefulSetOrdinals,
        k8s_openapi::api::apps::v1::StatefulSetPersistentVolumeClaimRetentionPolicy,
        k8s_openapi::api::apps::v1::StatefulSetSpec,
        k8s_openapi::api::apps::v1::StatefulSetStatus,
        k8s_openapi::api::apps::v1::StatefulSetUpdateStrategy,
        k8s_openapi::api::autoscaling::v2::ContainerResourceMetricSource,
        k8s_openapi::api::autoscaling::v2::ContainerResourceMetricStatus,
        k8s_openapi::api::autoscaling::v2::CrossVersionObjectReference,
        k8s_openapi::api::autoscaling::v2::ExternalMetricSource,
        k8s_openapi::api::autoscaling::v2::ExternalMetricStatus,
        k8s_openapi::api::autoscaling::v2::HPAScalingPolicy,
        k8s_openapi::api::autoscaling::v2::HPAScalingRules,
        k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler,
        k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscalerBehavior,
        k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscalerCondition,
        k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscalerSpec,
        k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscalerStatus,
        k8s_openapi::api::autoscaling::v2::MetricIdentifier,
        k8s_openapi::api::autoscaling::v2::MetricSpec,
        k8s_openapi::api::autoscaling::v2::MetricStatus,
        k8s_openapi::api::autoscaling::v2::MetricTarget,
        k8s_openapi::api::autoscaling::v2::MetricValueStatus,
        k8s_openapi::api::autoscaling::v2::ObjectMetricSource,
        k8s_openapi::api::autoscaling::v2::ObjectMetricStatus,
        k8s_openapi::api::autoscaling::v2::PodsMetricSource,
        k8s_openapi::api::autoscaling::v2::PodsMetricStatus,
        k8s_openapi::api::autoscaling::v2::ResourceMetricSource,
        k8s_openapi::api::autoscaling::v2::ResourceMetricStatus,
        k8s_openapi::api::batch::v1::CronJob,
        k8s_openapi::api::batch::v1::CronJobSpec,
        k8s_openapi::api::batch::v1::CronJobStatus,
        k8s_openapi::api::batch::v1::Job,
        k8s_openapi::api::batch::v1::JobCondition,
        k8s_openapi::api::batch::v1::JobSchedulingConfiguration,
        k8s_openapi::api::batch::v1::JobSpec,
        k8s_openapi::api::batch::v1::JobStatus,
        k8s_openapi::api::batch::v1::JobTemplateSpec,
        k8s_openapi::api::batch::v1::PodFailurePolicy,
        k8s_openapi::api::batch::v1::PodFailurePolicyOnExitCodesRequirement,
        k8s_openapi::api::batch::v1::PodFailurePolicyOnPodConditionsPattern,
        k8s_openapi::api::batch::v1::PodFailurePolicyRule,
        k8s_openapi::api::batch::v1::SuccessPolicy,
        k8s_openapi::api::batch::v1::SuccessPolicyRule,
        k8s_openapi::api::batch::v1::UncountedTerminatedPods,
        k8s_openapi::api::coordination::v1::Lease,
        k8s_openapi::api::coordination::v1::LeaseSpec,
        k8s_openapi::api::core::v1::AWSElasticBlockStoreVolumeSource,
        k8s_openapi::api::core::v1::Affinity,
        k8s_openapi::api::core::v1::AppArmorProfile,
        k8s_openapi::api::core::v1::AttachedVolume,
        k8s_openapi::api::core::v1::AzureDiskVolumeSource,
        k8s_openapi::api::core::v1::AzureFilePersistentVolumeSource,
        k8s_openapi::api::core::v1::AzureFileVolumeSource,
        k8s_openapi::api::core::v1::Binding,
        k8s_openapi::api::core::v1::CSIPersistentVolumeSource,
        k8s_openapi::api::core::v1::CSIVolumeSource,
        k8s_openapi::api::core::v1::Capabilities,
        k8s_openapi::api::core::v1::CephFSPersistentVolumeSource,
        k8s_openapi::api::core::v1::CephFSVolumeSource,
        k8s_openapi::api::core::v1::CinderPersistentVolumeSource,
        k8s_openapi::api::core::v1::CinderVolumeSource,
        k8s_openapi::api::core::v1::ClientIPConfig,
        k8s_openapi::api::core::v1::ClusterTrustBundleProjection,
        k8s_openapi::api::core::v1::ComponentCondition,
        k8s_openapi::api::core::v1::ComponentStatus,
        k8s_openapi::api::core::v1::ConfigMap,
        k8s_openapi::api::core::v1::ConfigMapEnvSource,
        k8s_openapi::api::core::v1::ConfigMapKeySelector,
        k8s_openapi::api::core::v1::ConfigMapNodeConfigSource,
        k8s_openapi::api::core::v1::ConfigMapProjection,
        k8s_openapi::api::core::v1::ConfigMapVolumeSource,
        k8s_openapi::api::core::v1::Container,
        k8s_openapi::api::core::v1::ContainerExtendedResourceRequest,
        k8s_openapi::api::core::v1::ContainerImage,
        k8s_openapi::api::core::v1::ContainerPort,
        k8s_openapi::api::core::v1::ContainerResizePolicy,
        k8s_openapi::api::core::v1::ContainerRestartRule,
        k8s_openapi::api::core::v1::ContainerRestartRuleOnExitCodes,
        k8s_openapi::api::core::v1::ContainerState,
        k8s_openapi::api::core::v1::ContainerStateRunning,
        k8s_openapi::api::core::v1::ContainerStateTerminated,
        k8s_openapi::api::core::v1::ContainerStateWaiting,
        k8s_openapi::api::core::v1::ContainerStatus,
        k8s_openapi::api::core::v1::ContainerUser,
        k8s_openapi::api::core::v1::DaemonEndpoint,
        k8s_openapi::api::core::v1::DownwardAPIProjection,
        k8s_openapi::api::core::v1::DownwardAPIVolumeFile,
        k8s_openapi::api::core::v1::DownwardAPIVolumeSource,
        k8s_openapi::api::core::v1::EmptyDirVolumeSource,
        k8s_openapi::api::core::v1::EndpointAddress,
        k8s_openapi::api::core::v1::EndpointPort,
        k8s_openapi::api::core::v1::EndpointSubset,
        k8s_openapi::api::core::v1::Endpoints,
        k8s_openapi::api::core::v1::EnvFromSource,
        k8s_openapi::api::core::v1::EnvVar,
        k8s_openapi::api::core::v1::EnvVarSource,
        k8s_openapi::api::core::v1::EphemeralContainer,
        k8s_openapi::api::core::v1::EphemeralVolumeSource,
        k8s_openapi::api::core::v1::Event,
        k8s_openapi::api::core::v1::EventSeries,
        k8s_openapi::api::core::v1::EventSource,
        k8s_openapi::api::core::v1::EvictionResponder,
        k8s_openapi::api::core::v1::ExecAction,
        k8s_openapi::api::core::v1::FCVolumeSource,
        k8s_openapi::api::core::v1::FileKeySelector,
        k8s_openapi::api::core::v1::FlexPersistentVolumeSource,
        k8s_openapi::api::core::v1::FlexVolumeSource,
        k8s_openapi::api::core::v1::FlockerVolumeSource,
        k8s_openapi::api::core::v1::GCEPersistentDiskVolumeSource,
        k8s_openapi::api::core::v1::GRPCAction,
        k8s_openapi::api::core::v1::GitRepoVolumeSource,
        k8s_openapi::api::core::v1::GlusterfsPersistentVolumeSource,
        k8s_openapi::api::core::v1::GlusterfsVolumeSource,
        k8s_openapi::api::core::v1::HTTPGetAction,
        k8s_openapi::api::core::v1::HTTPHeader,
        k8s_openapi::api::core::v1::HostAlias,
        k8s_openapi::api::core::v1::HostIP,
        k8s_openapi::api::core::v1::HostPathVolumeSource,
        k8s_openapi::api::core::v1::ISCSIPersistentVolumeSource,
        k8s_openapi::api::core::v1::ISCSIVolumeSource,
        k8s_openapi::api::core::v1::ImageVolumeSource,
        k8s_openapi::api::core::v1::ImageVolumeStatus,
        k8s_openapi::api::core::v1::KeyToPath,
        k8s_openapi::api::core::v1::Lifecycle,
        k8s_openapi::api::core::v1::LifecycleHandler,
        k8s_openapi::api::core::v1::LimitRange,
        k8s_openapi::api::core::v1::LimitRangeItem,
        k8s_openapi::api::core::v1::LimitRangeSpec,
        k8s_openapi::api::core::v1::LinuxContainerUser,
        k8s_openapi::api::core::v1::LoadBalancerIngress,
        k8s_openapi::api::core::v1::LoadBalancerStatus,
        k8s_openapi::api::core::v1::LocalObjectReference,
        k8s_openapi::api::core::v1::LocalVolumeSource,
        k8s_openapi::api::core::v1::ModifyVolumeStatus,
        k8s_openapi::api::core::v1::NFSVolumeSource,
        k8s_openapi::api::core::v1::Namespace,
        k8s_openapi::api::core::v1::NamespaceCondition,
        k8s_openapi::api::core::v1::NamespaceSpec,
        k8s_openapi::api::core::v1::NamespaceStatus,
        k8s_openapi::api::core::v1::Node,
        k8s_openapi::api::core::v1::NodeAddress,
        k8s_openapi::api::core::v1::NodeAffinity,
        k8s_openapi::api::core::v1::NodeAllocatableMappedResources,
        k8s_openapi::api::core::v1::NodeAllocatableOverheadResources,
        k8s_openapi::api::core::v1::NodeAllocatableResourceClaimStatus,
        k8s_openapi::api::core::v1::NodeCondition,
        k8s_openapi::api::core::v1::NodeConfigSource,
        k8s_openapi::api::core::v1::NodeConfigStatus,
        k8s_openapi::api::core::v1::NodeDaemonEndpoints,
        k8s_openapi::api::core::v1::NodeFeatures,
        k8s_openapi::api::core::v1::NodePodPreemptionPolicy,
        k8s_openapi::api::core::v1::NodeRuntimeHandler,
        k8s_openapi::api::core::v1::NodeRuntimeHandlerFeatures,
        k8s_openapi::api::core::v1::NodeSelector,
        k8s_openapi::api::core::v1::NodeSelectorRequirement,
        k8s_openapi::api::core::v1::NodeSelectorTerm,
        k8s_openapi::api::core::v1::NodeSpec,
        k8s_openapi::api::core::v1::NodeStatus,
        k8s_openapi::api::core::v1::NodeSwapStatus,
        k8s_openapi::api::core::v1::NodeSystemInfo,
        k8s_openapi::api::core::v1::ObjectFieldSelector,
        k8s_openapi::api::core::v1::ObjectReference,
        k8s_openapi::api::core::v1::PersistentVolume,
        k8s_openapi::api::core::v1::PersistentVolumeClaim,
        k8s_openapi::api::core::v1::PersistentVolumeClaimCondition,
        k8s_openapi::api::core::v1::PersistentVolumeClaimSpec,
        k8s_openapi::api::core::v1::PersistentVolumeClaimStatus,
        k8s_openapi::api::core::v1::PersistentVolumeClaimTemplate,
        k8s_openapi::api::core::v1::PersistentVolumeClaimVolumeSource,
        k8s_openapi::api::core::v1::PersistentVolumeSpec,
        k8s_openapi::api::core::v1::PersistentVolumeStatus,
        k8s_openapi::api::core::v1::PhotonPersistentDiskVolumeSource,
        k8s_openapi::api::core::v1::Pod,
        k8s_openapi::api::core::v1::PodAffinity,
        k8s_openapi::api::core::v1::PodAffinityTerm,
        k8s_openapi::api::core::v1::PodAntiAffinity,
        k8s_openapi::api::core::v1::PodCertificateProjection,
        k8s_openapi::api::core::v1::PodCondition,
        k8s_openapi::api::core::v1::PodDNSConfig,
        k8s_openapi::api::core::v1::PodDNSConfigOption,
        k8s_openapi::api::core::v1::PodExtendedResourceClaimStatus,
        k8s_openapi::api::core::v1::PodIP,
        k8s_openapi::api::core::v1::PodOS,
        k8s_openapi::api::core::v1::PodReadinessGate,
        k8s_openapi::api::core::v1::PodResourceClaim,
        k8s_openapi::api::core::v1::PodResourceClaimStatus,
        k8s_openapi::api::core::v1::PodSchedulingGate,
        k8s_openapi::api::core::v1::PodSchedulingGroup,
        k8s_openapi::api::core::v1::PodSecurityContext,
        k8s_openapi::api::core::v1::PodSpec,
        k8s_openapi::api::core::v1::PodStatus,
        k8s_openapi::api::core::v1::PodTemplate,
        k8s_openapi::api::core::v1::PodTemplateSpec,
        k8s_openapi::api::core::v1::PodVolumeHealth,
        k8s_openapi::api::core::v1::PortStatus,
        k8s_openapi::api::core::v1::PortworxVolumeSource,
        k8s_openapi::api::core::v1::PreferredSchedulingTerm,
        k8s_openapi::api::core::v1::Probe,
        k8s_openapi::api::core::v1::ProjectedVolumeSource,
        k8s_openapi::api::core::v1::QuobyteVolumeSource,
        k8s_openapi::api::core::v1::RBDPersistentVolumeSource,
        k8s_openapi::api::core::v1::RBDVolumeSource,
        k8s_openapi::api::core::v1::ReplicationController,
        k8s_openapi::api::core::v1::ReplicationControllerCondition,
        k8s_openapi::api::core::v1::ReplicationControllerSpec,
        k8s_openapi::api::core::v1::ReplicationControllerStatus,
        k8s_openapi::api::core::v1::ResourceClaim,
        k8s_openapi::api::core::v1::ResourceFieldSelector,
        k8s_openapi::api::core::v1::ResourceHealth,
        k8s_openapi::api::core::v1::ResourceQuota,
        k8s_openapi::api::core::v1::ResourceQuotaSpec,
        k8s_openapi::api::core::v1::ResourceQuotaStatus,
        k8s_openapi::api::core::v1::ResourceRequirements,
        k8s_openapi::api::core::v1::ResourceStatus,
        k8s_openapi::api::core::v1::SELinuxOptions,
        k8s_openapi::api::core::v1::ScaleIOPersistentVolumeSource,
        k8s_openapi::api::core::v1::ScaleIOVolumeSource,
        k8s_openapi::api::core::v1::ScopeSelector,
        k8s_openapi::api::core::v1::ScopedResourceSelectorRequirement,
        k8s_openapi::api::core::v1::SeccompProfile,
        k8s_openapi::api::core::v1::Secret,
        k8s_openapi::api::core::v1::SecretEnvSource,
        k8s_openapi::api::core::v1::SecretKeySelector,
        k8s_openapi::api::core::v1::SecretProjection,
        k8s_openapi::api::core::v1::SecretReference,
        k8s_openapi::api::core::v1::SecretVolumeSource,
        k8s_openapi::api::core::v1::SecurityContext,
        k8s_openapi::api::core::v1::Service,
        k8s_openapi::api::core::v1::ServiceAccount,
        k8s_openapi::api::core::v1::ServiceAccountTokenProjection,
        k8s_openapi::api::core::v1::ServicePort,
        k8s_openapi::api::core::v1::ServiceSpec,
        k8s_openapi::api::core::v1::ServiceStatus,
        k8s_openapi::api::core::v1::SessionAffinityConfig,
        k8s_openapi::api::core::v1::SleepAction,
        k8s_openapi::api::core::v1::StorageOSPersistentVolumeSource,
        k8s_openapi::api::core::v1::StorageOSVolumeSource,
        k8s_openapi::api::core::v1::Sysctl,
        k8s_openapi::api::core::v1::TCPSocketAction,
        k8s_openapi::api::core::v1::Taint,
        k8s_openapi::api::core::v1::Toleration,
        k8s_openapi::api::core::v1::TopologySelectorLabelRequirement,
        k8s_openapi::api::core::v1::TopologySelectorTerm,
        k8s_openapi::api::core::v1::TopologySpreadConstraint,
        k8s_openapi::api::core::v1::TypedLocalObjectReference,
        k8s_openapi::api::core::v1::TypedObjectReference,
        k8s_openapi::api::core::v1::Volume,
        k8s_openapi::api::core::v1::VolumeDevice,
        k8s_openapi::api::core::v1::VolumeHealthCondition,
        k8s_openapi::api::core::v1::VolumeHealthStatus,
        k8s_openapi::api::core::v1::VolumeMount,
        k8s_openapi::api::core::v1::VolumeMountStatus,
        k8s_openapi::api::core::v1::VolumeNodeAffinity,
        k8s_openapi::api::core::v1::VolumeProjection,
        k8s_openapi::api::core::v1::VolumeResourceRequirements,
        k8s_openapi::api::core::v1::VolumeStatus,
        k8s_openapi::api::core::v1::VsphereVirtualDiskVolumeSource,
        k8s_openapi::api::core::v1::WeightedPodAffinityTerm,
        k8s_openapi::api::core::v1::WindowsSecurityContextOptions,
        k8s_openapi::api::networking::v1::HTTPIngressPath,
        k8s_openapi::api::networking::v1::HTTPIngressRuleValue,
        k8s_openapi::api::networking::v1::IPAddress,
        k8s_openapi::api::networking::v1::IPAddressSpec,
        k8s_openapi::api::networking::v1::IPBlock,
        k8s_openapi::api::networking::v1::Ingress,
        k8s_openapi::api::networking::v1::IngressBackend,
        k8s_openapi::api::networking::v1::IngressClass,
        k8s_openapi::api::networking::v1::IngressClassParametersReference,
        k8s_openapi::api::networking::v1::IngressClassSpec,
        k8s_openapi::api::networking::v1::IngressLoadBalancerIngress,
        k8s_openapi::api::networking::v1::IngressLoadBalancerStatus,
        k8s_openapi::api::networking::v1::IngressPortStatus,
        k8s_openapi::api::networking::v1::IngressRule,
        k8s_openapi::api::networking::v1::IngressServiceBackend,
        k8s_openapi::api::networking::v1::IngressSpec,
        k8s_openapi::api::networking::v1::IngressStatus,
        k8s_openapi::api::networking::v1::IngressTLS,
        k8s_openapi::api::networking::v1::NetworkPolicy,
        k8s_openapi::api::networking::v1::NetworkPolicyEgressRule,
        k8s_openapi::api::networking::v1::NetworkPolicyIngressRule,
        k8s_openapi::api::networking::v1::NetworkPolicyPeer,
        k8s_openapi::api::networking::v1::NetworkPolicyPort,
        k8s_openapi::api::networking::v1::NetworkPolicySpec,
        k8s_openapi::api::networking::v1::ParentReference,
        k8s_openapi::api::networking::v1::ServiceBackendPort,
        k8s_openapi::api::networking::v1::ServiceCIDR,
        k8s_openapi::api::networking::v1::ServiceCIDRSpec,
        k8s_openapi::api::networking::v1::ServiceCIDRStatus,
        k8s_openapi::api::policy::v1::Eviction,
        k8s_openapi::api::policy::v1::PodDisruptionBudget,
        k8s_openapi::api::policy::v1::PodDisruptionBudgetSpec,
        k8s_openapi::api::policy::v1::PodDisruptionBudgetStatus,
        k8s_openapi::api::rbac::v1::AggregationRule,
        k8s_openapi::api::rbac::v1::ClusterRole,
        k8s_openapi::api::rbac::v1::ClusterRoleBinding,
        k8s_openapi::api::rbac::v1::PolicyRule,
        k8s_openapi::api::rbac::v1::Role,
        k8s_openapi::api::rbac::v1::RoleBinding,
        k8s_openapi::api::rbac::v1::RoleRef,
        k8s_openapi::api::rbac::v1::Subject,
        k8s_openapi::apimachinery::pkg::api::resource::Quantity,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::APIGroup,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::APIGroupList,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResource,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResourceList,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::APIVersions,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::DeleteOptions,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::FieldSelectorRequirement,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::FieldsV1,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::GroupResource,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::GroupVersionForDiscovery,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::Preconditions,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::ServerAddressByClientCIDR,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::ShardInfo,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::Status,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::StatusCause,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::StatusDetails,
        k8s_openapi::apimachinery::pkg::util::intstr::IntOrString,
    ],
    // No `Default` impl in k8s-openapi.
    no_default: [
        k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::Patch,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::Time,
    ],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_types_and_aliases() {
        assert!(lookup("k8s_openapi::api::core::v1::PodTemplateSpec").is_some());
        assert!(lookup("k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition").is_some());
        assert!(lookup("kube::core::ObjectMeta").is_some());
        assert!(lookup("k8s_openapi::api::core::v1::Nope").is_none());
    }
}
