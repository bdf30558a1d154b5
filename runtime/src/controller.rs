//! What every controller's run shares: a supervised start, and logs of its outcomes at
//! the level each deserves.

use std::time::Duration;

use futures::future::BoxFuture;
use kube::runtime::controller::{self, Action};
use tracing::{debug, warn};

use crate::server::Readiness;

/// Runs `controller` until it stops; fails when its watch has not listed every object
/// within `timeout` (controller-runtime's `CacheSyncTimeout`). A watch that never syncs
/// (its CRD missing, its RBAC without `list`, objects its types cannot read) would
/// otherwise leave the controller idle behind green probes: the manager exits instead,
/// and says why.
pub async fn supervise(
    name: &str,
    controller: BoxFuture<'static, ()>,
    synced: Readiness,
    timeout: Duration,
) -> anyhow::Result<()> {
    let mut controller = controller;
    let sync = async {
        while !synced.get() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    tokio::select! {
        () = &mut controller => return Ok(()),
        in_time = tokio::time::timeout(timeout, sync) => {
            if in_time.is_err() {
                anyhow::bail!(
                    "the {name} controller's watch did not list its objects within {timeout:?} \
                     (is its CRD installed? may the manager list and watch them?)"
                );
            }
        }
    }
    controller.await;
    Ok(())
}

/// Logs what a controller's run yielded for one object, at the level it deserves.
pub fn log_outcome<O, R, Q>(controller: &str, result: Result<(O, Action), controller::Error<R, Q>>)
where
    O: std::fmt::Display,
    controller::Error<R, Q>: std::fmt::Display,
{
    match result {
        Ok((object, _)) => debug!(%object, "reconciled"),
        // `error_policy` has logged it.
        Err(controller::Error::ReconcilerFailed(..)) => {}
        // Routine: a retry or resync was due for an object deleted since (kube-rs#1167).
        Err(error @ controller::Error::ObjectNotFound(_)) => {
            debug!(%error, "{controller} controller");
        }
        Err(error) => warn!(%error, "{controller} controller"),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::DynamicObject;
    use kube::runtime::reflector::ObjectRef;
    use kube::runtime::watcher;

    use super::*;

    /// What the tracing subscriber wrote.
    #[derive(Clone, Default)]
    struct Logs(Arc<Mutex<Vec<u8>>>);

    impl Write for Logs {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().write(bytes)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The log lines `log_outcome` writes for `error`, at every level.
    fn logged(error: controller::Error<std::io::Error, watcher::Error>) -> String {
        let logs = Logs::default();
        let writer = logs.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            log_outcome::<String, _, _>("Test", Err(error));
        });
        let bytes = logs.0.lock().unwrap().clone();
        String::from_utf8(bytes).unwrap()
    }

    fn gone() -> Box<ObjectRef<DynamicObject>> {
        Box::new(ObjectRef::<ConfigMap>::new("gone").erase())
    }

    #[test]
    fn an_object_deleted_before_its_retry_is_no_warning() {
        let logs = logged(controller::Error::ObjectNotFound(gone()));
        assert!(logs.contains("DEBUG") && !logs.contains("WARN"), "{logs}");
    }

    #[test]
    fn a_failing_watch_is_a_warning() {
        let error = watcher::Error::NoResourceVersion;
        let logs = logged(controller::Error::QueueError(error));
        assert!(logs.contains("WARN"), "{logs}");
    }

    #[test]
    fn a_failed_reconciliation_is_left_to_the_error_policy() {
        let error = std::io::Error::other("refused");
        let logs = logged(controller::Error::ReconcilerFailed(error, gone()));
        assert_eq!(logs, "");
    }
}
