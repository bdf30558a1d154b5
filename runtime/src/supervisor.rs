//! The manager's tasks (servers, leader election, controllers) run side by side under one
//! supervisor. As controller-runtime's manager does, the first task that fails stops them
//! all, and the manager exits with an error so that Kubernetes restarts it: a replica
//! whose metrics server cannot bind, or whose controller panicked, must not go on holding
//! the Lease with `/healthz` green.
//!
//! A task fails when it returns an error, panics, or ends before shutdown was requested.

use std::collections::HashMap;
use std::future::Future;
use std::time::Duration;

use anyhow::anyhow;
use tokio::task::{Id, JoinError, JoinSet};
use tracing::error;

use crate::shutdown::{Shutdown, Trigger};

/// How long the tasks get to finish once shutdown was requested; controller-runtime's
/// manager waits as long by default (`GracefulShutdownTimeout`).
pub const GRACEFUL_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs named tasks and stops all of them when one fails.
#[derive(Debug)]
pub struct Supervisor {
    tasks: JoinSet<anyhow::Result<()>>,
    names: HashMap<Id, String>,
    trigger: Trigger,
    shutdown: Shutdown,
    /// The first failure; shutdown has been requested since.
    failure: Option<anyhow::Error>,
}

impl Supervisor {
    /// Tasks that stop on `shutdown`, which the supervisor requests through `trigger`.
    pub fn new(trigger: Trigger, shutdown: Shutdown) -> Self {
        Self {
            tasks: JoinSet::new(),
            names: HashMap::new(),
            trigger,
            shutdown,
            failure: None,
        }
    }

    /// Runs `task` until shutdown; `name` says which task failed, in the error.
    pub fn spawn<F>(&mut self, name: impl Into<String>, task: F)
    where
        F: Future<Output = anyhow::Result<()>> + Send + 'static,
    {
        let handle = self.tasks.spawn(task);
        self.names.insert(handle.id(), name.into());
    }

    /// Runs `work` while watching the tasks: its output, or `None` when a task failed
    /// first (shutdown is requested then, and [`Supervisor::stop`] returns the failure).
    pub async fn until<T>(&mut self, work: impl Future<Output = T>) -> Option<T> {
        tokio::pin!(work);
        while self.failure.is_none() {
            tokio::select! {
                output = &mut work => return Some(output),
                Some(joined) = self.tasks.join_next_with_id() => self.record(joined),
            }
        }
        None
    }

    /// Requests shutdown and waits for every task, at most [`GRACEFUL_SHUTDOWN_TIMEOUT`];
    /// returns the first failure.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        self.trigger.fire();
        let drained = tokio::time::timeout(GRACEFUL_SHUTDOWN_TIMEOUT, async {
            while let Some(joined) = self.tasks.join_next_with_id().await {
                self.record(joined);
            }
        })
        .await;
        if drained.is_err() {
            let mut stuck: Vec<&str> = self.names.values().map(String::as_str).collect();
            stuck.sort_unstable();
            self.tasks.shutdown().await;
            self.fail(anyhow!(
                "{} did not stop within {} s of the shutdown request",
                stuck.join(", "),
                GRACEFUL_SHUTDOWN_TIMEOUT.as_secs()
            ));
        }
        match self.failure {
            Some(failure) => Err(failure),
            None => Ok(()),
        }
    }

    fn record(&mut self, joined: Result<(Id, anyhow::Result<()>), JoinError>) {
        let (id, outcome) = match joined {
            Ok((id, outcome)) => (id, outcome),
            Err(error) => (error.id(), Err(panic_message(error))),
        };
        let name = self.names.remove(&id).unwrap_or_else(|| "a task".into());
        match outcome {
            Ok(()) if self.shutdown.is_requested() => {}
            Ok(()) => self.fail(anyhow!("{name} stopped before shutdown was requested")),
            Err(error) => self.fail(error.context(format!("{name} failed"))),
        }
    }

    fn fail(&mut self, failure: anyhow::Error) {
        error!(error = format!("{failure:#}"), "stopping the manager");
        self.failure.get_or_insert(failure);
        self.trigger.fire();
    }
}

/// A panic (or an abort, which only [`Supervisor::stop`] does) as an error.
fn panic_message(error: JoinError) -> anyhow::Error {
    if !error.is_panic() {
        return anyhow!("it was cancelled");
    }
    let payload = error.into_panic();
    let message = payload
        .downcast_ref::<&str>()
        .map(|message| message.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string());
    anyhow!("it panicked: {message}")
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;

    /// A task that runs until shutdown and then says it saw it.
    async fn well_behaved(shutdown: Shutdown, stopped: Arc<AtomicBool>) -> anyhow::Result<()> {
        shutdown.wait().await;
        stopped.store(true, Ordering::Release);
        Ok(())
    }

    fn supervisor() -> (Supervisor, Shutdown) {
        let (trigger, shutdown) = Shutdown::channel();
        (Supervisor::new(trigger, shutdown.clone()), shutdown)
    }

    /// Whether the supervisor noticed a failure within 10 s, while nothing else ends.
    async fn noticed_a_failure(manager: &mut Supervisor) -> bool {
        let forever = manager.until(std::future::pending::<()>());
        let noticed = tokio::time::timeout(Duration::from_secs(10), forever).await;
        noticed == Ok(None)
    }

    #[tokio::test]
    async fn a_panicking_task_stops_the_others_and_fails_the_manager() {
        let (mut manager, shutdown) = supervisor();
        let stopped = Arc::new(AtomicBool::new(false));
        manager.spawn(
            "metrics server",
            well_behaved(shutdown.clone(), stopped.clone()),
        );
        manager.spawn("widget controller", async {
            tokio::task::yield_now().await;
            panic!("the reconciler hit a bug");
        });

        assert!(
            noticed_a_failure(&mut manager).await,
            "the panic went unnoticed"
        );
        assert!(shutdown.is_requested());
        let error = manager.stop().await.expect_err("a panic fails the manager");
        let message = format!("{error:#}");
        assert!(
            message.contains("widget controller failed")
                && message.contains("the reconciler hit a bug"),
            "{message}"
        );
        assert!(
            stopped.load(Ordering::Acquire),
            "the other task was not stopped"
        );
    }

    #[tokio::test]
    async fn a_task_that_ends_on_its_own_fails_the_manager() {
        let (mut manager, shutdown) = supervisor();
        let stopped = Arc::new(AtomicBool::new(false));
        manager.spawn(
            "health probe server",
            well_behaved(shutdown, stopped.clone()),
        );
        manager.spawn("metrics server", async { Ok(()) });

        assert!(
            noticed_a_failure(&mut manager).await,
            "the early end went unnoticed"
        );
        let error = manager
            .stop()
            .await
            .expect_err("an early end fails the manager");
        assert_eq!(
            error.to_string(),
            "metrics server stopped before shutdown was requested"
        );
        assert!(stopped.load(Ordering::Acquire));
    }

    #[tokio::test]
    async fn a_failing_task_fails_the_manager_with_its_error() {
        let (mut manager, _) = supervisor();
        manager.spawn("metrics server", async {
            Err(anyhow!("cannot bind the metrics server to 0.0.0.0:8443"))
        });
        assert!(
            noticed_a_failure(&mut manager).await,
            "the error went unnoticed"
        );
        let error = manager
            .stop()
            .await
            .expect_err("an error fails the manager");
        assert_eq!(
            format!("{error:#}"),
            "metrics server failed: cannot bind the metrics server to 0.0.0.0:8443"
        );
    }

    #[tokio::test]
    async fn a_requested_shutdown_stops_every_task_cleanly() {
        let (mut manager, shutdown) = supervisor();
        let stopped = Arc::new(AtomicBool::new(false));
        manager.spawn("metrics server", well_behaved(shutdown, stopped.clone()));
        assert_eq!(manager.until(async { 42 }).await, Some(42));
        manager.stop().await.expect("a clean stop");
        assert!(stopped.load(Ordering::Acquire));
    }

    #[tokio::test(start_paused = true)]
    async fn a_task_that_ignores_shutdown_is_abandoned_after_the_grace_period() {
        let (mut manager, _) = supervisor();
        manager.spawn("stuck controller", std::future::pending());
        let started = tokio::time::Instant::now();
        let error = manager
            .stop()
            .await
            .expect_err("a stuck task fails the manager");
        assert_eq!(started.elapsed(), GRACEFUL_SHUTDOWN_TIMEOUT);
        assert!(
            error.to_string().contains("stuck controller did not stop"),
            "{error}"
        );
    }
}
