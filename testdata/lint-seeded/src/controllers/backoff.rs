// SPDX-License-Identifier: Apache-2.0

//! When to retry a failed reconciliation: soon after the first failure of an object, then
//! twice as long after each further failure in a row, up to a limit.
//!
//! The failure counts are the only thing controllers keep in memory. Losing them (a
//! restart, another replica taking over) only makes the next retry come sooner.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use kube::Resource;

/// Consecutive failures per object, keyed by namespace and name.
pub struct Backoff {
    first: Duration,
    max: Duration,
    failures: Mutex<BTreeMap<(Option<String>, String), u32>>,
}

impl Backoff {
    /// Retries after `first`, doubling per consecutive failure up to `max`.
    pub const fn new(first: Duration, max: Duration) -> Self {
        Self {
            first,
            max,
            failures: Mutex::new(BTreeMap::new()),
        }
    }

    /// Records one more failure of `object` and returns how long to wait before retrying.
    pub fn failed<K: Resource>(&self, object: &K) -> Duration {
        let mut failures = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        let count = failures.entry(key(object)).or_insert(0);
        *count = count.saturating_add(1);
        let factor = 2u32.saturating_pow(*count - 1);
        self.first.saturating_mul(factor).min(self.max)
    }

    /// Forgets the failures of `object`, after it reconciled successfully.
    pub fn succeeded<K: Resource>(&self, object: &K) {
        let mut failures = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        failures.remove(&key(object));
    }
}

fn key<K: Resource>(object: &K) -> (Option<String>, String) {
    let meta = object.meta();
    (
        meta.namespace.clone(),
        meta.name.clone().unwrap_or_default(),
    )
}
