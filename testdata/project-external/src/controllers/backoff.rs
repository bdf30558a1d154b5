// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! When to retry a failed reconciliation: soon after the first failure of an object, then
//! twice as long after each further failure in a row, up to a limit.
//!
//! The failure counts are the only thing controllers keep in memory. They are keyed by the
//! object's uid, so an object deleted and created again under the same name starts afresh,
//! and they are forgotten when the object goes (see [`Backoff::follow`]). Losing them (a
//! restart, another replica taking over) only makes the next retry come sooner.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use kube::Resource;
use kube::runtime::watcher;

/// Consecutive failures per object.
pub struct Backoff {
    first: Duration,
    max: Duration,
    state: Mutex<State>,
}

struct State {
    /// Consecutive failures, by object uid.
    failures: BTreeMap<String, u32>,
    /// While the watch lists every object again: the uids with failures it listed so far.
    relisted: Option<BTreeSet<String>>,
}

/// Retries of failed reconciliations: after 5 seconds, doubling up to 5 minutes.
impl Default for Backoff {
    fn default() -> Self {
        Self::new(Duration::from_secs(5), Duration::from_secs(5 * 60))
    }
}

impl Backoff {
    /// Retries after `first`, doubling per consecutive failure up to `max`.
    pub const fn new(first: Duration, max: Duration) -> Self {
        Self {
            first,
            max,
            state: Mutex::new(State {
                failures: BTreeMap::new(),
                relisted: None,
            }),
        }
    }

    /// Records one more failure of `object` and returns how long to wait before retrying.
    pub fn failed<K: Resource>(&self, object: &K) -> Duration {
        let mut state = self.lock();
        let count = state.failures.entry(uid(object)).or_insert(0);
        *count = count.saturating_add(1);
        let factor = 2u32.saturating_pow(*count - 1);
        self.first.saturating_mul(factor).min(self.max)
    }

    /// Forgets the failures of `object`, after it reconciled successfully.
    pub fn succeeded<K: Resource>(&self, object: &K) {
        self.lock().failures.remove(&uid(object));
    }

    /// Follows the controller's watch: forgets an object when it is deleted, and, when the
    /// watch lists every object again (after it lost track, e.g. a long disconnection),
    /// forgets each object the new list lacks, whose deletion it may have missed.
    pub fn follow<K: Resource>(&self, event: &watcher::Event<K>) {
        let mut state = self.lock();
        match event {
            watcher::Event::Delete(object) => {
                state.failures.remove(&uid(object));
            }
            watcher::Event::Init => state.relisted = Some(BTreeSet::new()),
            watcher::Event::InitApply(object) => {
                let uid = uid(object);
                if state.failures.contains_key(&uid)
                    && let Some(listed) = &mut state.relisted
                {
                    listed.insert(uid);
                }
            }
            watcher::Event::InitDone => {
                if let Some(listed) = state.relisted.take() {
                    state.failures.retain(|uid, _| listed.contains(uid));
                }
            }
            watcher::Event::Apply(_) => {}
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The uid of `object`; every object read from the API server has one.
fn uid<K: Resource>(object: &K) -> String {
    object.meta().uid.clone().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::ObjectMeta;

    use super::*;

    const FIRST: Duration = Duration::from_secs(5);

    fn backoff() -> Backoff {
        Backoff::new(FIRST, Duration::from_secs(30))
    }

    fn object(name: &str, uid: &str) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                uid: Some(uid.into()),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        }
    }

    #[test]
    fn delays_double_up_to_the_limit_and_reset_on_success() {
        let retries = backoff();
        let object = object("a", "a-1");
        let delays: Vec<u64> = (0..5).map(|_| retries.failed(&object).as_secs()).collect();
        assert_eq!(delays, [5, 10, 20, 30, 30]);
        retries.succeeded(&object);
        assert_eq!(retries.failed(&object), FIRST);
    }

    #[test]
    fn an_object_created_again_under_the_same_name_starts_afresh() {
        let retries = backoff();
        retries.failed(&object("a", "a-1"));
        assert_eq!(retries.failed(&object("a", "a-2")), FIRST);
    }

    #[test]
    fn a_deleted_object_is_forgotten() {
        let retries = backoff();
        let gone = object("a", "a-1");
        retries.failed(&gone);
        retries.follow(&watcher::Event::Delete(gone.clone()));
        assert_eq!(retries.lock().failures.len(), 0);
        assert_eq!(retries.failed(&gone), FIRST);
    }

    #[test]
    fn a_new_list_forgets_the_objects_it_lacks() {
        let retries = backoff();
        let (kept, gone) = (object("kept", "kept-1"), object("gone", "gone-1"));
        retries.failed(&kept);
        retries.failed(&gone);
        retries.follow(&watcher::Event::<ConfigMap>::Init);
        retries.follow(&watcher::Event::InitApply(kept.clone()));
        retries.follow(&watcher::Event::<ConfigMap>::InitDone);
        let failures = retries.lock().failures.clone();
        assert_eq!(failures.into_keys().collect::<Vec<_>>(), ["kept-1"]);
    }
}
