// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Graceful shutdown: one signal, observed by every task.

use tokio::sync::watch;

/// Resolves once shutdown was requested. Clones observe the same request.
#[derive(Clone, Debug)]
pub struct Shutdown(watch::Receiver<bool>);

/// Requests shutdown; dropping it without firing also releases every waiter.
#[derive(Debug)]
pub struct Trigger(watch::Sender<bool>);

impl Trigger {
    pub fn fire(self) {
        let _ = self.0.send(true);
    }
}

impl Shutdown {
    /// A shutdown requested by hand, for tests and embedding.
    pub fn channel() -> (Trigger, Self) {
        let (sender, receiver) = watch::channel(false);
        (Trigger(sender), Self(receiver))
    }

    /// Requests shutdown on SIGTERM (what Kubernetes sends) or SIGINT (Ctrl-C).
    pub fn listen() -> Self {
        let (trigger, shutdown) = Self::channel();
        tokio::spawn(async move {
            wait_for_signal().await;
            trigger.fire();
        });
        shutdown
    }

    /// Resolves when shutdown was requested.
    pub async fn wait(mut self) {
        // An error means the trigger was dropped: nobody can ask any more, so stop too.
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
