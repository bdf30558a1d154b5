//! [`Cached`]: an object as a controller's cache keeps it, in a compact form.

use std::borrow::Cow;
use std::fmt::{self, Debug};
use std::marker::PhantomData;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Resource;
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize};

use super::compact;
use super::reconciler::strip;

/// An object of kind `K` as the controller's cache keeps it: the whole object, without
/// what [`strip`] drops, in a compact form of its JSON (binary, each key a number in a
/// table the process shares: `compact`), and beside it the metadata the watch and the
/// queue read (name, namespace, uid, resourceVersion, generation, finalizers, deletion
/// timestamp). [`Cached::object`] reads the object back, as each reconciliation does.
///
/// Why not the typed object: a typed copy costs several times its JSON. `ObjectMeta` alone
/// is 440 bytes with every field absent, every string and map is an allocation of its
/// own, and a map of three labels takes a `BTreeMap` node of eleven slots. With 10,000
/// small objects cached, typed copies took about 3.5 times their JSON (`make bench-scale`);
/// reading one back costs microseconds, once per reconciliation.
pub struct Cached<K> {
    metadata: ObjectMeta,
    compact: Box<[u8]>,
    kind: PhantomData<fn() -> K>,
}

/// A kind whose objects a controller's cache can keep ([`Cached`]): one that reads and
/// writes JSON, in a cache shared between tasks.
pub trait Cacheable:
    Resource<DynamicType = ()> + Serialize + DeserializeOwned + Debug + Send + Sync + 'static
{
}

impl<K> Cacheable for K where
    K: Resource<DynamicType = ()> + Serialize + DeserializeOwned + Debug + Send + Sync + 'static
{
}

impl<K: Serialize + Resource> Cached<K> {
    /// `object` as the cache keeps it.
    pub fn of(mut object: K) -> serde_json::Result<Self> {
        strip(&mut object);
        // Moved out of the object, so that the cache does not hold them twice.
        let meta = object.meta_mut();
        let metadata = ObjectMeta {
            name: meta.name.take(),
            namespace: meta.namespace.take(),
            uid: meta.uid.take(),
            resource_version: meta.resource_version.take(),
            generation: meta.generation.take(),
            finalizers: meta.finalizers.take(),
            deletion_timestamp: meta.deletion_timestamp.take(),
            ..ObjectMeta::default()
        };
        let compact = compact::encode(&serde_json::to_value(&object)?);
        Ok(Self {
            metadata,
            compact,
            kind: PhantomData,
        })
    }
}

impl<K> Cached<K> {
    /// The object `namespace`/`name` as the controller's queue reads it: by its key alone.
    /// The queue keeps the request until the object runs, and copies into it what the
    /// object's metadata holds (its uid and resourceVersion too), which it never reads;
    /// the run reads the cached object.
    pub(super) fn key(namespace: Option<String>, name: String) -> Self {
        Self {
            metadata: ObjectMeta {
                name: Some(name),
                namespace,
                ..ObjectMeta::default()
            },
            compact: Box::default(),
            kind: PhantomData,
        }
    }
}

impl<K: DeserializeOwned + Resource> Cached<K> {
    /// The object, read back from the cache.
    pub fn object(&self) -> serde_json::Result<K> {
        let mut object: K = serde_json::from_value(compact::decode(&self.compact)?)?;
        let (meta, kept) = (object.meta_mut(), &self.metadata);
        meta.name.clone_from(&kept.name);
        meta.namespace.clone_from(&kept.namespace);
        meta.uid.clone_from(&kept.uid);
        meta.resource_version.clone_from(&kept.resource_version);
        meta.generation = kept.generation;
        meta.finalizers.clone_from(&kept.finalizers);
        meta.deletion_timestamp.clone_from(&kept.deletion_timestamp);
        Ok(object)
    }
}

impl<K> Clone for Cached<K> {
    fn clone(&self) -> Self {
        Self {
            metadata: self.metadata.clone(),
            compact: self.compact.clone(),
            kind: PhantomData,
        }
    }
}

impl<K> Debug for Cached<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cached")
            .field("name", &self.metadata.name)
            .field("namespace", &self.metadata.namespace)
            .field("resource_version", &self.metadata.resource_version)
            .field("bytes", &self.compact.len())
            .finish()
    }
}

/// Read as `K` is, then kept as [`Cached::of`] keeps it: an object that `K` cannot read is
/// an error of the watch, as it would be without the cache.
impl<'de, K: DeserializeOwned + Serialize + Resource> Deserialize<'de> for Cached<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let object = K::deserialize(deserializer)?;
        Self::of(object).map_err(D::Error::custom)
    }
}

/// `K`'s kind, API and scope: the cache watches and queues its objects as `K`'s.
impl<K: Resource<DynamicType = ()>> Resource for Cached<K> {
    type DynamicType = ();
    type Scope = K::Scope;

    fn kind(dt: &()) -> Cow<'_, str> {
        K::kind(dt)
    }
    fn group(dt: &()) -> Cow<'_, str> {
        K::group(dt)
    }
    fn version(dt: &()) -> Cow<'_, str> {
        K::version(dt)
    }
    fn api_version(dt: &()) -> Cow<'_, str> {
        K::api_version(dt)
    }
    fn plural(dt: &()) -> Cow<'_, str> {
        K::plural(dt)
    }
    fn metadata_api() -> bool {
        K::metadata_api()
    }
    fn meta(&self) -> &ObjectMeta {
        &self.metadata
    }
    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::ResourceExt as _;
    use serde_json::json;

    use super::*;
    use crate::controller::LAST_APPLIED;

    fn config_map() -> serde_json::Value {
        json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": "a",
                "namespace": "team-a",
                "uid": "0b5c9e2e-1f0a-4c1e-9d7a-3f4e5a6b7c8d",
                "resourceVersion": "42",
                "generation": 3,
                "finalizers": ["example.com/cleanup"],
                "labels": {"app": "a"},
                "annotations": {LAST_APPLIED: "{\"kind\":\"ConfigMap\"}", "team": "a"},
                "managedFields": [{"manager": "kubectl", "operation": "Apply"}],
            },
            "data": {"key": "value"},
        })
    }

    #[test]
    fn the_cache_reads_back_the_object_without_what_strip_drops() {
        let cached: Cached<ConfigMap> = serde_json::from_value(config_map()).expect("cached");
        let mut expected: ConfigMap = serde_json::from_value(config_map()).expect("typed");
        strip(&mut expected);
        assert_eq!(cached.object().expect("read back"), expected);
        assert!(expected.managed_fields().is_empty());
        assert_eq!(expected.annotations().keys().collect::<Vec<_>>(), ["team"]);
    }

    #[test]
    fn the_watch_and_the_queue_read_the_metadata_beside_it() {
        let cached: Cached<ConfigMap> = serde_json::from_value(config_map()).expect("cached");
        let typed: ConfigMap = serde_json::from_value(config_map()).expect("typed");
        let (meta, full) = (cached.meta(), typed.meta());
        assert_eq!(meta.name, full.name);
        assert_eq!(meta.namespace, full.namespace);
        assert_eq!(meta.uid, full.uid);
        assert_eq!(meta.resource_version, full.resource_version);
        assert_eq!(meta.generation, full.generation);
        assert_eq!(meta.finalizers, full.finalizers);
        assert_eq!(Cached::<ConfigMap>::plural(&()), "configmaps");
    }

    /// What a metadata-only watch delivers (the built-in kinds' controllers watch so).
    #[test]
    fn metadata_only_objects_read_back_too() {
        use kube::core::PartialObjectMeta;

        let mut served = config_map();
        served["apiVersion"] = json!("meta.k8s.io/v1");
        served["kind"] = json!("PartialObjectMetadata");
        served.as_object_mut().expect("an object").remove("data");
        let cached: Cached<PartialObjectMeta<ConfigMap>> =
            serde_json::from_value(served.clone()).expect("cached");
        let mut expected: PartialObjectMeta<ConfigMap> =
            serde_json::from_value(served).expect("typed");
        strip(&mut expected);
        let read = cached.object().expect("read back");
        assert_eq!(read.types, expected.types);
        assert_eq!(read.metadata, expected.metadata);
    }

    #[test]
    fn an_object_its_kind_cannot_read_is_refused() {
        let mut wrong = config_map();
        wrong["data"] = json!(["not", "a", "map"]);
        assert!(serde_json::from_value::<Cached<ConfigMap>>(wrong).is_err());
    }
}
