// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Leader election through a `coordination.k8s.io` Lease, so that several replicas can
//! run and only one reconciles.

use anyhow::Context as _;
use kube::Client;
use kube_lease_manager::{LeaseManager, LeaseManagerBuilder, LeaseManagerError};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tracing::{info, warn};

use crate::shutdown::Shutdown;

/// The Lease every replica of this manager competes for.
pub const LEASE_NAME: &str = "project-external-leader.example.com";

/// Held leadership; the Lease is renewed in the background until released.
pub struct Leadership {
    state: watch::Receiver<bool>,
    watcher: JoinHandle<Result<LeaseManager, LeaseManagerError>>,
}

impl Leadership {
    /// Waits until this replica holds the Lease, or returns `None` when shutdown comes first.
    pub async fn acquire(
        client: Client,
        namespace: &str,
        shutdown: Shutdown,
    ) -> anyhow::Result<Option<Self>> {
        let mut builder = LeaseManagerBuilder::new(client, LEASE_NAME).with_namespace(namespace);
        if let Ok(pod) = std::env::var("HOSTNAME") {
            builder = builder.with_identity(pod);
        }
        let manager = builder.build().await.with_context(|| {
            format!("cannot prepare the leader-election Lease {namespace}/{LEASE_NAME}")
        })?;
        let (mut state, watcher) = manager.watch().await;
        info!(lease = LEASE_NAME, namespace, "waiting for leadership");
        let leader = tokio::select! {
            held = state.wait_for(|leader| *leader) => held.is_ok(),
            () = shutdown.wait() => false,
        };
        if leader {
            info!(lease = LEASE_NAME, "became the leader");
            return Ok(Some(Self { state, watcher }));
        }
        // Closing the channel makes the watcher release the Lease and stop.
        drop(state);
        match watcher.await {
            Ok(Ok(_)) => Ok(None),
            Ok(Err(error)) => Err(error).context("leader election failed"),
            Err(error) => Err(error).context("the leader-election task panicked"),
        }
    }

    /// Resolves when this replica no longer holds the Lease.
    pub async fn lost(&self) {
        let mut state = self.state.clone();
        // An error means the watcher stopped, which also means the Lease is gone.
        let _ = state.wait_for(|leader| !*leader).await;
    }

    /// Gives the Lease up so that another replica takes over at once.
    pub async fn release(self) {
        drop(self.state);
        match self.watcher.await {
            Ok(Ok(_)) => info!(lease = LEASE_NAME, "released leadership"),
            Ok(Err(error)) => warn!(%error, "could not release the leader-election Lease"),
            Err(error) => warn!(%error, "the leader-election task panicked"),
        }
    }
}
