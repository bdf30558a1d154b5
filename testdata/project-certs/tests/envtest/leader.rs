// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Leader election on a real API server, as the manager's user: the leader-election Role
//! of `config/rbac` is all it needs. The contract (client-go's leader election,
//! https://pkg.go.dev/k8s.io/client-go/tools/leaderelection): one candidate holds the
//! Lease; a leader that releases it is replaced at once; a leader that dies without
//! releasing it is replaced once the Lease expires ([`LEASE_DURATION`]).

use std::time::{Duration, Instant};

use project_certs::leader::{Candidate, LEASE_DURATION, Leadership, RETRY_PERIOD};
use project_certs::shutdown::Shutdown;

use crate::control_plane::{control_plane, manager_user};

async fn candidate(namespace: &str) -> Candidate {
    let config = control_plane().config(&manager_user(namespace), &[]).await;
    Candidate::new(config, namespace).expect("a candidate")
}

/// Runs for leadership until elected, in a runtime of its own, as another process would:
/// killing it (`shutdown_background`) stops its tasks without releasing anything.
fn replica(
    namespace: &str,
) -> (
    tokio::runtime::Runtime,
    tokio::sync::oneshot::Receiver<Leadership>,
) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let (elected, leadership) = tokio::sync::oneshot::channel();
    let namespace = namespace.to_string();
    runtime.spawn(async move {
        let candidate = candidate(&namespace).await;
        let (_never, shutdown) = Shutdown::channel();
        if let Ok(Some(leadership)) = Leadership::acquire(candidate, shutdown).await {
            let _ = elected.send(leadership);
            std::future::pending::<()>().await;
        }
    });
    (runtime, leadership)
}

async fn elected_within(
    leadership: &mut tokio::sync::oneshot::Receiver<Leadership>,
    limit: Duration,
) -> Option<(Leadership, Duration)> {
    let started = Instant::now();
    tokio::time::timeout(limit, leadership)
        .await
        .ok()
        .and_then(Result::ok)
        .map(|leadership| (leadership, started.elapsed()))
}

#[tokio::test]
async fn one_replica_leads_and_another_takes_over_when_it_goes() {
    let namespace = control_plane().namespace("leader").await;
    control_plane()
        .grant_manager_role(&manager_user(&namespace), &namespace, |_| {})
        .await;

    let (first_runtime, mut first) = replica(&namespace);
    let (_first, _) = elected_within(&mut first, LEASE_DURATION)
        .await
        .expect("the first replica is elected");
    let (second_runtime, mut second) = replica(&namespace);
    assert!(
        elected_within(&mut second, 3 * RETRY_PERIOD)
            .await
            .is_none(),
        "two replicas lead at once"
    );

    // Killed without releasing the Lease: the other takes over once it expires.
    first_runtime.shutdown_background();
    let (second_leads, waited) = elected_within(&mut second, LEASE_DURATION + 2 * RETRY_PERIOD)
        .await
        .expect("the second replica takes over the expired Lease");
    // The last renewal was at most a retry period before the kill.
    assert!(
        waited >= LEASE_DURATION - 2 * RETRY_PERIOD,
        "taken over after {waited:?}, before the Lease expired"
    );

    // Released: a third replica is elected at once.
    let (third_runtime, mut third) = replica(&namespace);
    second_leads.release().await;
    let (_third, waited) = elected_within(&mut third, 3 * RETRY_PERIOD)
        .await
        .expect("a released Lease is taken at once");
    assert!(waited < LEASE_DURATION, "{waited:?}");
    second_runtime.shutdown_background();
    third_runtime.shutdown_background();
}
