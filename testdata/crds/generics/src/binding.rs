//! Generic user types instantiated with std types, other generic types and structs, as
//! operators write them for references and "one or many" values.
use std::collections::BTreeMap;

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Binds a model to the storage that holds it.
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "generic.example.com", version = "v1", kind = "Binding", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct BindingSpec {
    pub source: Named<SecretRef>,
    pub target: Named<String>,
    pub ports: Pair<u16, String>,
    pub storage: StorageKind<String>,
    pub replicas: StorageKind<Named<u32>>,
    pub page: Page,
    pub page_of_refs: Page<SecretRef>,
    pub labels: Map<u8>,
    pub nested: Named<Named<u8>>,
    pub outer: Outer<u64>,
    pub optional: Option<Pair<String, Named<bool>>>,
    #[serde(default)]
    pub counts: Counted<u32>,
    pub flat: Flat<String>,
}

/// A value with the name it is known by.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Named<T> {
    pub name: String,
    /// The value itself.
    pub value: T,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Pair<A, B> {
    pub first: A,
    pub second: Option<B>,
}

/// Where a model is kept.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum StorageKind<T> {
    Cloned(T),
    Owned { target: T, sync: bool },
}

/// A parameter with a default type.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Page<T = String> {
    pub items: Vec<T>,
    pub next: Option<T>,
}

/// A generic alias.
pub type Map<V> = BTreeMap<String, V>;

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Outer<T> {
    pub inner: Named<T>,
    pub extra: Map<T>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct Counted<T> {
    pub value: T,
    pub history: Vec<T>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Flat<T> {
    #[serde(flatten)]
    pub inner: Named<T>,
    pub version: u32,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SecretRef {
    pub secret_name: String,
}
