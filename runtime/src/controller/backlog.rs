//! [`Backlog`]: the objects a controller's watch woke, waiting for one of its workers.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use tokio::time::{Instant, Sleep};

/// The objects that wait for one of a controller's workers, by namespace and name, in the
/// order they woke, handed to kube's queue only as the workers free up.
///
/// Why not kube's queue alone: it keeps each waiting request in a hash set (a key of about
/// 0.1 KB and two strings of its own), and the set never gives its table back. When
/// objects are created faster than they are made Ready, thousands wait at once:
/// `make bench-scale` with 10,000 new CronJobs left 2.0 MB of that table behind them,
/// beside the fragments of their strings among the cached objects (heaptrack). Here a
/// waiting object takes its namespace and name in one shared buffer, and the buffer goes
/// when the last one leaves.
///
/// Kube's queue still decides when and how often each object runs: a request handed to it
/// twice, or while the object runs, is merged as without the backlog. It takes the
/// requests it holds in any order, so the backlog hands them in batches: the next once
/// each of the last has started. An object thus runs in the order it woke, give or take
/// one batch. The backlog never stalls the controller: a request whose run it does not
/// see start (the object was deleted in between, or the request merged with another)
/// frees its place after [`Backlog::PATIENCE`].
#[derive(Default)]
pub struct Backlog {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    waiting: Keys,
    /// Handed to kube's queue: runs not seen to finish yet.
    handed: Vec<Handed>,
    /// How many may be handed at once; none is held back until [`Backlog::meter`].
    limit: Option<usize>,
    /// Whether a batch is being handed: until the limit or the end of the backlog.
    handing: bool,
    /// The controller's task, woken when an object wakes or a place frees up.
    waker: Option<Waker>,
}

/// An object's namespace (none for a cluster-scoped one) and name.
pub type Key = (Option<String>, String);

/// A request handed to kube's queue.
struct Handed {
    key: Key,
    since: Instant,
    started: bool,
}

impl Handed {
    fn is(&self, namespace: Option<&str>, name: &str) -> bool {
        self.key.0.as_deref() == namespace && self.key.1 == name
    }
}

impl Backlog {
    /// How long a request handed to kube's queue holds its place when its run is not seen
    /// to start.
    pub const PATIENCE: Duration = Duration::from_secs(5);

    /// From now on, hands kube's queue at most `limit` requests at once, each until
    /// [`Backlog::finished`] says its run is over.
    pub fn meter(&self, limit: usize) {
        self.lock().limit = Some(limit.max(1));
    }

    /// An object woke: it waits its turn. (Kube's queue merges an object handed twice.)
    pub fn wake(&self, namespace: Option<&str>, name: &str) {
        let mut state = self.lock();
        state.waiting.push(namespace, name);
        if let Some(waker) = state.waker.take() {
            waker.wake();
        }
    }

    /// A run of the object `namespace`/`name` started: its request holds its place until
    /// the run finishes, however long it takes.
    pub fn started(&self, namespace: Option<&str>, name: &str) {
        let mut state = self.lock();
        let handed = state
            .handed
            .iter_mut()
            .find(|handed| !handed.started && handed.is(namespace, name));
        if let Some(handed) = handed {
            handed.started = true;
            if state.queued() == 0
                && let Some(waker) = state.waker.take()
            {
                waker.wake();
            }
        }
    }

    /// A run of the object `namespace`/`name` finished (or found the object gone): the
    /// place its request held is free. A request handed again while the object ran waits
    /// for a run of its own, so the place freed is the running one's.
    pub fn finished(&self, namespace: Option<&str>, name: &str) {
        let mut state = self.lock();
        let handed = &state.handed;
        let held = (handed.iter())
            .position(|handed| handed.started && handed.is(namespace, name))
            .or_else(|| handed.iter().position(|handed| handed.is(namespace, name)));
        if let Some(held) = held {
            state.handed.remove(held);
            if let Some(waker) = state.waker.take() {
                waker.wake();
            }
        }
    }

    /// The next object to hand to kube's queue, when one waits and a place is free;
    /// `patience` wakes the task when the oldest place held expires.
    pub fn poll_next(&self, cx: &mut Context<'_>, patience: &mut Pin<Box<Sleep>>) -> Poll<Key> {
        let mut state = self.lock();
        let now = Instant::now();
        state
            .handed
            .retain(|handed| handed.started || now < handed.since + Self::PATIENCE);
        if state.queued() == 0 {
            state.handing = true;
        }
        let free = state
            .limit
            .is_none_or(|limit| state.handing && state.handed.len() < limit);
        if free && let Some(key) = state.waiting.pop() {
            if let Some(limit) = state.limit {
                state.handed.push(Handed {
                    key: key.clone(),
                    since: now,
                    started: false,
                });
                state.handing = state.handed.len() < limit;
            }
            return Poll::Ready(key);
        }
        state.handing = false;
        state.waker = Some(cx.waker().clone());
        if !state.waiting.is_empty()
            && let Some(oldest) = (state.handed.iter())
                .filter(|handed| !handed.started)
                .map(|handed| handed.since)
                .min()
        {
            patience.as_mut().reset(oldest + Self::PATIENCE);
            // Registers the timer; it has not expired, as `retain` just kept `oldest`.
            let _ = patience.as_mut().poll(cx);
        }
        Poll::Pending
    }

    /// How many objects wait, and how many requests are handed.
    #[cfg(test)]
    fn counts(&self) -> (usize, usize) {
        let state = self.lock();
        (state.waiting.len, state.handed.len())
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl State {
    /// How many handed requests wait in kube's queue: not started yet.
    fn queued(&self) -> usize {
        self.handed.iter().filter(|handed| !handed.started).count()
    }
}

/// Keys in the order they were pushed, in one buffer: each is its namespace's length plus
/// one (zero without a namespace), its name's length, both as four bytes, then the two.
#[derive(Default)]
struct Keys {
    bytes: VecDeque<u8>,
    len: usize,
}

impl Keys {
    fn push(&mut self, namespace: Option<&str>, name: &str) {
        let namespace_len = namespace.map_or(0, |namespace| namespace.len() + 1);
        self.push_len(namespace_len);
        self.push_len(name.len());
        self.bytes.extend(namespace.unwrap_or_default().as_bytes());
        self.bytes.extend(name.as_bytes());
        self.len += 1;
    }

    fn pop(&mut self) -> Option<Key> {
        if self.len == 0 {
            return None;
        }
        let namespace_len = self.pop_len();
        let name_len = self.pop_len();
        let namespace = (namespace_len > 0).then(|| self.pop_str(namespace_len - 1));
        let name = self.pop_str(name_len);
        self.len -= 1;
        if self.len == 0 {
            // The buffer grew to hold a burst; it goes with the burst.
            self.bytes = VecDeque::new();
        }
        Some((namespace, name))
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn push_len(&mut self, len: usize) {
        let len = u32::try_from(len).expect("a Kubernetes name is far shorter than 4 GiB");
        self.bytes.extend(len.to_le_bytes());
    }

    fn pop_len(&mut self) -> usize {
        let mut len = [0; 4];
        for (byte, popped) in len.iter_mut().zip(self.bytes.drain(..4)) {
            *byte = popped;
        }
        u32::from_le_bytes(len) as usize
    }

    fn pop_str(&mut self, len: usize) -> String {
        let bytes = self.bytes.drain(..len).collect();
        // Pushed as a `str`.
        String::from_utf8(bytes).expect("a key pushed as UTF-8")
    }
}

#[cfg(test)]
mod tests {
    use std::future::poll_fn;

    use super::*;

    fn key(namespace: Option<&str>, name: &str) -> Key {
        (namespace.map(str::to_owned), name.to_owned())
    }

    fn timer() -> Pin<Box<Sleep>> {
        Box::pin(tokio::time::sleep(Duration::ZERO))
    }

    /// The next key, if one is handed right away.
    fn next(backlog: &Backlog, patience: &mut Pin<Box<Sleep>>) -> Option<Key> {
        let mut cx = Context::from_waker(Waker::noop());
        match backlog.poll_next(&mut cx, patience) {
            Poll::Ready(key) => Some(key),
            Poll::Pending => None,
        }
    }

    #[tokio::test]
    async fn objects_are_handed_in_the_order_they_woke_with_or_without_a_namespace() {
        let (backlog, mut patience) = (Backlog::default(), timer());
        backlog.wake(Some("team-a"), "b");
        backlog.wake(None, "a");
        backlog.wake(Some(""), "ü");
        assert_eq!(
            next(&backlog, &mut patience),
            Some(key(Some("team-a"), "b"))
        );
        assert_eq!(next(&backlog, &mut patience), Some(key(None, "a")));
        assert_eq!(next(&backlog, &mut patience), Some(key(Some(""), "ü")));
        assert_eq!(next(&backlog, &mut patience), None);
    }

    #[tokio::test]
    async fn unmetered_nothing_is_held_back() {
        let (backlog, mut patience) = (Backlog::default(), timer());
        for name in ["a", "b", "c"] {
            backlog.wake(None, name);
        }
        for name in ["a", "b", "c"] {
            assert_eq!(next(&backlog, &mut patience), Some(key(None, name)));
        }
        assert_eq!(backlog.counts(), (0, 0));
    }

    #[tokio::test]
    async fn metered_at_most_the_limit_is_handed_until_a_run_finishes() {
        let (backlog, mut patience) = (Backlog::default(), timer());
        backlog.meter(2);
        for name in ["a", "b", "c", "d"] {
            backlog.wake(Some("ns"), name);
        }
        assert_eq!(next(&backlog, &mut patience), Some(key(Some("ns"), "a")));
        assert_eq!(next(&backlog, &mut patience), Some(key(Some("ns"), "b")));
        assert_eq!(next(&backlog, &mut patience), None);
        assert_eq!(backlog.counts(), (2, 2));
        backlog.started(Some("ns"), "a");
        backlog.started(Some("ns"), "b");
        assert_eq!(next(&backlog, &mut patience), None);
        // Another object's run (a child's event, a retry) frees no place.
        backlog.finished(Some("ns"), "z");
        assert_eq!(next(&backlog, &mut patience), None);
        backlog.finished(Some("ns"), "b");
        assert_eq!(next(&backlog, &mut patience), Some(key(Some("ns"), "c")));
        assert_eq!(next(&backlog, &mut patience), None);
    }

    #[tokio::test]
    async fn the_next_batch_is_handed_once_each_of_the_last_has_started() {
        let (backlog, mut patience) = (Backlog::default(), timer());
        backlog.meter(3);
        for name in ["a", "b", "c", "d", "e"] {
            backlog.wake(None, name);
        }
        for name in ["a", "b", "c"] {
            assert_eq!(next(&backlog, &mut patience), Some(key(None, name)));
        }
        backlog.started(None, "a");
        backlog.finished(None, "a");
        // `b` and `c` wait in kube's queue, which would take `d` before them.
        assert_eq!(next(&backlog, &mut patience), None);
        backlog.started(None, "c");
        assert_eq!(next(&backlog, &mut patience), None);
        backlog.started(None, "b");
        assert_eq!(next(&backlog, &mut patience), Some(key(None, "d")));
        assert_eq!(next(&backlog, &mut patience), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_place_whose_run_is_never_seen_to_start_frees_up_after_a_while() {
        let (backlog, mut patience) = (Backlog::default(), timer());
        backlog.meter(1);
        backlog.wake(None, "deleted-meanwhile");
        backlog.wake(None, "next");
        assert_eq!(
            next(&backlog, &mut patience),
            Some(key(None, "deleted-meanwhile"))
        );
        let started = Instant::now();
        let handed = poll_fn(|cx| backlog.poll_next(cx, &mut patience)).await;
        assert_eq!(handed, key(None, "next"));
        assert_eq!(started.elapsed(), Backlog::PATIENCE);
    }

    #[tokio::test(start_paused = true)]
    async fn a_long_run_holds_its_place_until_it_finishes() {
        let (backlog, mut patience) = (Backlog::default(), timer());
        backlog.meter(1);
        backlog.wake(None, "slow");
        backlog.wake(None, "next");
        assert_eq!(next(&backlog, &mut patience), Some(key(None, "slow")));
        backlog.started(None, "slow");
        tokio::time::advance(10 * Backlog::PATIENCE).await;
        assert_eq!(next(&backlog, &mut patience), None);
        backlog.finished(None, "slow");
        assert_eq!(next(&backlog, &mut patience), Some(key(None, "next")));
    }

    #[tokio::test(start_paused = true)]
    async fn a_finished_run_frees_the_place_of_its_own_request_not_one_merged_into_it() {
        let (backlog, mut patience) = (Backlog::default(), timer());
        backlog.meter(3);
        for name in ["x", "a", "a"] {
            backlog.wake(None, name);
            assert_eq!(next(&backlog, &mut patience), Some(key(None, name)));
        }
        backlog.started(None, "x");
        backlog.started(None, "a");
        backlog.finished(None, "x");
        // The second request of `a` merged into the first in kube's queue: no run of its own.
        backlog.finished(None, "a");
        tokio::time::advance(Backlog::PATIENCE).await;
        for name in ["b", "c", "d"] {
            backlog.wake(None, name);
        }
        for name in ["b", "c", "d"] {
            assert_eq!(next(&backlog, &mut patience), Some(key(None, name)));
        }
    }

    #[tokio::test]
    async fn a_waiting_task_is_woken_by_a_new_object_and_by_a_finished_run() {
        let backlog = std::sync::Arc::new(Backlog::default());
        backlog.meter(1);
        backlog.wake(None, "a");
        let mut patience = timer();
        assert_eq!(next(&backlog, &mut patience), Some(key(None, "a")));
        let waiting = tokio::spawn({
            let backlog = backlog.clone();
            async move {
                let mut patience = timer();
                poll_fn(|cx| backlog.poll_next(cx, &mut patience)).await
            }
        });
        tokio::task::yield_now().await;
        backlog.wake(None, "b");
        tokio::task::yield_now().await;
        backlog.finished(None, "a");
        let handed = tokio::time::timeout(Duration::from_secs(1), waiting).await;
        assert_eq!(handed.expect("woken").expect("no panic"), key(None, "b"));
    }

    #[test]
    fn the_buffer_goes_when_the_last_key_leaves() {
        let mut keys = Keys::default();
        for n in 0..1000 {
            keys.push(Some("team-a"), &format!("object-{n}"));
        }
        assert!(keys.bytes.capacity() > 20_000);
        while keys.pop().is_some() {}
        assert_eq!(keys.bytes.capacity(), 0);
    }
}
