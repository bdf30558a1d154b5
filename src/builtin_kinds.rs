//! Kubernetes' built-in kinds: which k8s-openapi module holds each one, its plural and its
//! scope. The facts come from k8s-openapi's own `Resource` impls (the crate rsbuilder
//! links), not from a hand-written list of names; only the choice of kinds offered is
//! ours. Below `commands` and `lint` because `create api` offers these kinds and the lint's
//! RBAC rule resolves a controller's types to them.

use std::any::TypeId;

use k8s_openapi::{NamespaceResourceScope, Resource};

/// One built-in kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Builtin {
    /// The API group, `""` for the core group.
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    pub plural: &'static str,
    pub namespaced: bool,
    /// The Rust module that defines the type, e.g. `k8s_openapi::api::apps::v1`.
    pub module: String,
}

fn entry<T: Resource>(path: &str) -> Builtin
where
    T::Scope: 'static,
{
    let module = path
        .rsplit_once("::")
        .map(|(module, _)| module.replace(' ', ""))
        .unwrap_or_default();
    Builtin {
        group: T::GROUP,
        version: T::VERSION,
        kind: T::KIND,
        plural: T::URL_PATH_SEGMENT,
        namespaced: TypeId::of::<T::Scope>() == TypeId::of::<NamespaceResourceScope>(),
        module: format!("k8s_openapi::{module}"),
    }
}

macro_rules! builtins {
    ($($($segment:ident)::+),* $(,)?) => {
        /// Every built-in kind rsbuilder offers.
        pub fn all() -> Vec<Builtin> {
            vec![$(entry::<k8s_openapi::$($segment)::+>(stringify!($($segment)::+))),*]
        }
    };
}

builtins![
    api::admissionregistration::v1::MutatingAdmissionPolicy,
    api::admissionregistration::v1::MutatingAdmissionPolicyBinding,
    api::admissionregistration::v1::MutatingWebhookConfiguration,
    api::admissionregistration::v1::ValidatingAdmissionPolicy,
    api::admissionregistration::v1::ValidatingAdmissionPolicyBinding,
    api::admissionregistration::v1::ValidatingWebhookConfiguration,
    api::apps::v1::ControllerRevision,
    api::apps::v1::DaemonSet,
    api::apps::v1::Deployment,
    api::apps::v1::ReplicaSet,
    api::apps::v1::StatefulSet,
    api::autoscaling::v1::HorizontalPodAutoscaler,
    api::autoscaling::v2::HorizontalPodAutoscaler,
    api::batch::v1::CronJob,
    api::batch::v1::Job,
    api::certificates::v1::CertificateSigningRequest,
    api::coordination::v1::Lease,
    api::core::v1::ConfigMap,
    api::core::v1::Endpoints,
    api::core::v1::Event,
    api::core::v1::LimitRange,
    api::core::v1::Namespace,
    api::core::v1::Node,
    api::core::v1::PersistentVolume,
    api::core::v1::PersistentVolumeClaim,
    api::core::v1::Pod,
    api::core::v1::PodTemplate,
    api::core::v1::ReplicationController,
    api::core::v1::ResourceQuota,
    api::core::v1::Secret,
    api::core::v1::Service,
    api::core::v1::ServiceAccount,
    api::discovery::v1::EndpointSlice,
    api::events::v1::Event,
    api::networking::v1::IPAddress,
    api::networking::v1::Ingress,
    api::networking::v1::IngressClass,
    api::networking::v1::NetworkPolicy,
    api::networking::v1::ServiceCIDR,
    api::node::v1::RuntimeClass,
    api::policy::v1::PodDisruptionBudget,
    api::rbac::v1::ClusterRole,
    api::rbac::v1::ClusterRoleBinding,
    api::rbac::v1::Role,
    api::rbac::v1::RoleBinding,
    api::scheduling::v1::PriorityClass,
    api::storage::v1::CSIDriver,
    api::storage::v1::CSINode,
    api::storage::v1::CSIStorageCapacity,
    api::storage::v1::StorageClass,
    api::storage::v1::VolumeAttachment,
    api::storage::v1::VolumeAttributesClass,
    apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
];

/// The built-in kind `kind` defined in the Rust module `module` (`k8s_openapi::api::core::v1`).
pub fn by_module(module: &str, kind: &str) -> Option<Builtin> {
    all()
        .into_iter()
        .find(|b| b.module == module && b.kind == kind)
}

/// The API group as users write it: `core` for the core group.
pub fn display_group(group: &str) -> &str {
    if group.is_empty() { "core" } else { group }
}
