//! Kubernetes' built-in kinds, for `create api --resource=false --controller`: which
//! k8s-openapi module holds each one, its plural and its scope. The facts come from
//! k8s-openapi's own `Resource` impls (the crate rsbuilder links), not from a hand-written list
//! of names; only the choice of kinds offered is ours.

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
        fn all() -> Vec<Builtin> {
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

/// Looks up `group/version kind`, `group` being `core` (or empty) for the core group.
/// The error names what is known, so a typo is easy to fix.
pub fn lookup(group: &str, version: &str, kind: &str) -> Result<Builtin, String> {
    let group = if group == "core" { "" } else { group };
    let all = all();
    let in_group: Vec<&Builtin> = all.iter().filter(|b| b.group == group).collect();
    if in_group.is_empty() {
        let mut groups: Vec<&str> = all.iter().map(|b| display_group(b.group)).collect();
        groups.sort_unstable();
        groups.dedup();
        return Err(format!(
            "{:?} is not a Kubernetes API group rsbuilder knows; built-in groups are {}",
            display_group(group),
            groups.join(", ")
        ));
    }
    if let Some(b) = in_group
        .iter()
        .find(|b| b.version == version && b.kind == kind)
    {
        return Ok((*b).clone());
    }
    let known: Vec<String> = in_group
        .iter()
        .map(|b| format!("{}/{}", b.version, b.kind))
        .collect();
    Err(format!(
        "{}/{version} has no built-in kind {kind}; {} has {}",
        display_group(group),
        display_group(group),
        known.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_kinds_with_module_plural_and_scope() {
        let d = lookup("apps", "v1", "Deployment").unwrap();
        assert_eq!(d.module, "k8s_openapi::api::apps::v1");
        assert_eq!((d.plural, d.namespaced), ("deployments", true));
        let ns = lookup("core", "v1", "Namespace").unwrap();
        assert_eq!(ns.module, "k8s_openapi::api::core::v1");
        assert_eq!(
            (ns.group, ns.plural, ns.namespaced),
            ("", "namespaces", false)
        );
        let np = lookup("networking.k8s.io", "v1", "NetworkPolicy").unwrap();
        assert_eq!(np.module, "k8s_openapi::api::networking::v1");
        let crd = lookup("apiextensions.k8s.io", "v1", "CustomResourceDefinition").unwrap();
        assert_eq!(
            crd.module,
            "k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1"
        );
        let role = lookup("rbac.authorization.k8s.io", "v1", "ClusterRole").unwrap();
        assert!(!role.namespaced);
        let pod = by_module("k8s_openapi::api::core::v1", "Pod").unwrap();
        assert_eq!((pod.group, pod.plural), ("", "pods"));
        assert_eq!(by_module("k8s_openapi::api::apps::v1", "Pod"), None);
    }

    #[test]
    fn unknown_groups_and_kinds_are_explained() {
        let err = lookup("networking", "v1", "Ingress").unwrap_err();
        assert!(err.contains("not a Kubernetes API group"), "{err}");
        assert!(err.contains("networking.k8s.io"), "{err}");
        let err = lookup("apps", "v1", "Deploy").unwrap_err();
        assert!(err.contains("apps/v1 has no built-in kind Deploy"), "{err}");
        assert!(err.contains("v1/Deployment"), "{err}");
    }
}
