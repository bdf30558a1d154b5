//! When to retry a failed reconciliation: soon after the first failure of an object, then
//! twice as long after each further failure in a row, up to a limit.
//!
//! The failure counts live in a [`PerObject`] memory: losing them (a restart, another
//! replica taking over) only makes the next retry come sooner.

use std::time::Duration;

use kube::Resource;
use kube::runtime::watcher;

use super::per_object::PerObject;

/// Consecutive failures per object.
pub struct Backoff {
    first: Duration,
    max: Duration,
    failures: PerObject<u32>,
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
            failures: PerObject::new(),
        }
    }

    /// Records one more failure of `object` and returns how long to wait before retrying.
    pub fn failed<K: Resource>(&self, object: &K) -> Duration {
        let count = self.failures.change(object, |count| {
            let count = count.get_or_insert(0);
            *count = count.saturating_add(1);
            *count
        });
        let factor = 2u32.saturating_pow(count - 1);
        self.first.saturating_mul(factor).min(self.max)
    }

    /// Forgets the failures of `object`, after it reconciled successfully.
    pub fn succeeded<K: Resource>(&self, object: &K) {
        self.failures.forget(object);
    }

    /// Follows the controller's watch, to forget the objects that go
    /// ([`PerObject::follow`]).
    pub fn follow<K: Resource>(&self, event: &watcher::Event<K>) {
        self.failures.follow(event);
    }
}

#[cfg(test)]
mod tests {
    use super::super::per_object::tests::object;
    use super::*;

    const FIRST: Duration = Duration::from_secs(5);

    fn backoff() -> Backoff {
        Backoff::new(FIRST, Duration::from_secs(30))
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
    fn a_deleted_object_starts_afresh() {
        let retries = backoff();
        let gone = object("a", "a-1");
        retries.failed(&gone);
        retries.follow(&watcher::Event::Delete(gone.clone()));
        assert_eq!(retries.failed(&gone), FIRST);
    }
}
