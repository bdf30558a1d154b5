//! Kubernetes types rsbuilder can put in a schema: a table from the type's path in
//! k8s-openapi 0.29 to functions over the *real* type, so its schema comes from
//! k8s-openapi's own `JsonSchema` impl (via a `SchemaGenerator`) and its `Default` from its
//! own `Default` impl. Nothing here is a hand-written schema.
//!
//! The list (`k8s_list.rs`, shared with `build.rs`) covers the API groups operators embed
//! (core, apps, batch, networking, policy, rbac, autoscaling/v2, coordination, meta,
//! resource, intstr); it was produced by listing every `impl JsonSchema` in those modules
//! of k8s-openapi. Types from other groups are refused with a diagnostic (`--exact` handles
//! them). Where `build.rs` precomputed a type, its schema is a skeleton (see `sealed`).

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::OnceLock;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::Value;

use super::sealed;
use super::typeops::{Op, Slot, apply, with_slot};

/// One Kubernetes type.
pub struct K8sType {
    pub path: &'static str,
    pub apply: fn(Op, &mut SchemaGenerator) -> Schema,
    /// `serde_json::to_value(T::default())`.
    pub default: fn() -> Option<Value>,
}

impl K8sType {
    /// `op` on the type: over its precomputed skeleton when there is one (see
    /// [`super::sealed`]; `Slot` applies the same op to it), else over the real type.
    pub fn schema(&self, op: Op, generator: &mut SchemaGenerator) -> Schema {
        if SEALING.get()
            && let Some(skeleton) = sealed::skeleton(self.path.trim_end_matches("::"))
        {
            return with_slot(skeleton, || apply::<Slot>(op, generator));
        }
        (self.apply)(op, generator)
    }
}

thread_local! {
    static SEALING: Cell<bool> = const { Cell::new(true) };
}

/// Runs `f` with every Kubernetes type's schema built by its real impl, in full.
pub fn unsealed<R>(f: impl FnOnce() -> R) -> R {
    let before = SEALING.replace(false);
    let out = f();
    SEALING.set(before);
    out
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

include!("k8s_list.rs");

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

    /// `structural_rewrite::NodeByNode` writes what kube's rewriter writes for every
    /// Kubernetes type, given the schema as the pipeline gives it (after the transforms
    /// before it).
    #[test]
    fn every_type_is_rewritten_node_by_node_as_kube_does() {
        use schemars::transform::{AddNullable, Transform};
        for t in all() {
            let mut g = super::super::transforms::generator();
            let mut schema = (t.apply)(Op::Subschema, &mut g);
            let mut before = schemars::generate::SchemaSettings::openapi3().transforms;
            for transform in &mut before {
                transform.transform(&mut schema);
            }
            AddNullable::default().transform(&mut schema);
            let mut real = schema.clone();
            kube_core::schema::StructuralSchemaRewriter.transform(&mut real);
            super::super::structural_rewrite::NodeByNode.transform(&mut schema);
            assert!(schema == real, "{}", t.path);
        }
    }
}
