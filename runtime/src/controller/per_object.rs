//! What a controller remembers about each object between reconciliations: its retry
//! count ([`Backoff`](super::backoff::Backoff)), what it last wrote to its status
//! ([`Reconciler::report`](super::Reconciler::report)).
//!
//! Memories are keyed by the object's uid, so an object deleted and created again under the
//! same name starts afresh, and they are forgotten when the object goes (see
//! [`PerObject::follow`]). Nothing here may be needed for correctness: a restart, or another
//! replica taking over, starts with an empty memory.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, MutexGuard, PoisonError};

use kube::Resource;
use kube::runtime::watcher;

/// A value of type `V` per object.
pub struct PerObject<V> {
    state: Mutex<State<V>>,
}

struct State<V> {
    /// What is remembered, by object uid.
    values: BTreeMap<String, V>,
    /// While the watch lists every object again: the remembered uids it listed so far.
    relisted: Option<BTreeSet<String>>,
}

impl<V> Default for PerObject<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V> PerObject<V> {
    /// An empty memory.
    pub const fn new() -> Self {
        Self {
            state: Mutex::new(State {
                values: BTreeMap::new(),
                relisted: None,
            }),
        }
    }

    /// What is remembered of `object`.
    pub fn get<K: Resource>(&self, object: &K) -> Option<V>
    where
        V: Clone,
    {
        self.lock().values.get(&uid(object)).cloned()
    }

    /// Changes what is remembered of `object`: `change` receives it (`None` when nothing
    /// is) and may replace or clear it.
    pub fn change<K: Resource, R>(
        &self,
        object: &K,
        change: impl FnOnce(&mut Option<V>) -> R,
    ) -> R {
        let uid = uid(object);
        let mut state = self.lock();
        let mut value = state.values.remove(&uid);
        let result = change(&mut value);
        if let Some(value) = value {
            state.values.insert(uid, value);
        }
        result
    }

    /// Remembers `value` for `object`.
    pub fn set<K: Resource>(&self, object: &K, value: V) {
        self.lock().values.insert(uid(object), value);
    }

    /// Forgets `object`.
    pub fn forget<K: Resource>(&self, object: &K) {
        self.lock().values.remove(&uid(object));
    }

    /// Follows the controller's watch: forgets an object when it is deleted, and, when the
    /// watch lists every object again (after it lost track, e.g. a long disconnection),
    /// forgets each object the new list lacks, whose deletion it may have missed.
    pub fn follow<K: Resource>(&self, event: &watcher::Event<K>) {
        let mut state = self.lock();
        match event {
            watcher::Event::Delete(object) => {
                state.values.remove(&uid(object));
            }
            watcher::Event::Init => state.relisted = Some(BTreeSet::new()),
            watcher::Event::InitApply(object) => {
                let uid = uid(object);
                if state.values.contains_key(&uid)
                    && let Some(listed) = &mut state.relisted
                {
                    listed.insert(uid);
                }
            }
            watcher::Event::InitDone => {
                if let Some(listed) = state.relisted.take() {
                    state.values.retain(|uid, _| listed.contains(uid));
                }
            }
            watcher::Event::Apply(_) => {}
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<V>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The uid of `object`; every object read from the API server has one.
fn uid<K: Resource>(object: &K) -> String {
    object.meta().uid.clone().unwrap_or_default()
}

#[cfg(test)]
pub(super) mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::ObjectMeta;

    use super::*;

    pub fn object(name: &str, uid: &str) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                uid: Some(uid.into()),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        }
    }

    fn remembered(memory: &PerObject<u32>) -> Vec<String> {
        memory.lock().values.keys().cloned().collect()
    }

    #[test]
    fn an_object_created_again_under_the_same_name_is_another() {
        let memory = PerObject::new();
        memory.set(&object("a", "a-1"), 1);
        assert_eq!(memory.get(&object("a", "a-2")), None);
        assert_eq!(memory.get(&object("a", "a-1")), Some(1));
    }

    #[test]
    fn a_deleted_object_is_forgotten() {
        let memory = PerObject::new();
        let gone = object("a", "a-1");
        memory.set(&gone, 1);
        memory.follow(&watcher::Event::Delete(gone.clone()));
        assert_eq!(remembered(&memory), Vec::<String>::new());
    }

    #[test]
    fn a_new_list_forgets_the_objects_it_lacks() {
        let memory = PerObject::new();
        let (kept, gone) = (object("kept", "kept-1"), object("gone", "gone-1"));
        memory.set(&kept, 1);
        memory.set(&gone, 1);
        memory.follow(&watcher::Event::<ConfigMap>::Init);
        memory.follow(&watcher::Event::InitApply(kept.clone()));
        memory.follow(&watcher::Event::<ConfigMap>::InitDone);
        assert_eq!(remembered(&memory), ["kept-1"]);
    }

    #[test]
    fn a_change_that_clears_forgets() {
        let memory = PerObject::new();
        let object = object("a", "a-1");
        memory.set(&object, 1);
        memory.change(&object, |value| *value = None);
        assert_eq!(memory.get(&object), None);
    }
}
