//! The built-in kind `create api --resource=false --controller` names, looked up in
//! [`crate::builtin_kinds`] with an error that lists what is known.

use crate::builtin_kinds::all;
use crate::builtin_kinds::{Builtin, display_group};

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
    use crate::builtin_kinds::by_module;

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
