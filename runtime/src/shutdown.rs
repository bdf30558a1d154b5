//! Graceful shutdown: one request, observed by every task.

use tokio::sync::watch;

/// Resolves once shutdown was requested. Clones observe the same request.
#[derive(Clone, Debug)]
pub struct Shutdown(watch::Receiver<bool>);

/// Requests shutdown. Clones request the same one; dropping every clone without firing
/// also releases every waiter.
#[derive(Clone, Debug)]
pub struct Trigger(watch::Sender<bool>);

impl Trigger {
    /// Requests shutdown: every [`Shutdown`] of this channel resolves.
    pub fn fire(&self) {
        self.0.send_replace(true);
    }
}

impl Shutdown {
    /// A shutdown requested by hand, for tests and embedding.
    pub fn channel() -> (Trigger, Self) {
        let (sender, receiver) = watch::channel(false);
        (Trigger(sender), Self(receiver))
    }

    /// A shutdown that SIGTERM (what Kubernetes sends) or SIGINT (Ctrl-C) requests, and so
    /// does the returned trigger.
    pub fn on_signal() -> (Trigger, Self) {
        let (trigger, shutdown) = Self::channel();
        let on_signal = trigger.clone();
        tokio::spawn(async move {
            wait_for_signal().await;
            on_signal.fire();
        });
        (trigger, shutdown)
    }

    /// Whether shutdown was requested.
    pub fn is_requested(&self) -> bool {
        *self.0.borrow()
    }

    /// Resolves when shutdown was requested.
    pub async fn wait(mut self) {
        // An error means every trigger was dropped: nobody can ask any more, so stop too.
        let _ = self.0.wait_for(|requested| *requested).await;
    }
}

#[cfg(unix)]
async fn wait_for_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        },
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

#[cfg(not(unix))]
async fn wait_for_signal() {
    let _ = tokio::signal::ctrl_c().await;
}
