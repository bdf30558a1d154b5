//! The manager's leader election Lease, which tells a manager that runs its controllers
//! from one that only serves webhooks.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use kube::Client;
use kube::api::{Api, ObjectMeta, Patch, PatchParams};

/// Waits until the manager holds the Lease `name`.
pub async fn held(
    admin: &Client,
    namespace: &str,
    name: &str,
    timeout: Duration,
) -> anyhow::Result<()> {
    let leases: Api<Lease> = Api::namespaced(admin.clone(), namespace);
    let started = Instant::now();
    loop {
        let holder = leases
            .get_opt(name)
            .await?
            .and_then(|lease| lease.spec?.holder_identity)
            .filter(|holder| !holder.is_empty());
        if holder.is_some() {
            return Ok(());
        }
        anyhow::ensure!(
            started.elapsed() < timeout,
            "no manager leads within {timeout:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Takes the Lease `name` for an hour, so that a manager started now serves its webhooks
/// but runs no controller.
pub async fn hold(admin: &Client, namespace: &str, name: &str) -> anyhow::Result<()> {
    let leases: Api<Lease> = Api::namespaced(admin.clone(), namespace);
    let now = MicroTime(Timestamp::now());
    let lease = Lease {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..ObjectMeta::default()
        },
        spec: Some(LeaseSpec {
            holder_identity: Some("scale-benchmark".into()),
            lease_duration_seconds: Some(3600),
            acquire_time: Some(now.clone()),
            renew_time: Some(now),
            ..LeaseSpec::default()
        }),
    };
    leases
        .patch(
            name,
            &PatchParams::apply("scale-benchmark").force(),
            &Patch::Apply(&lease),
        )
        .await
        .context("cannot take the leader election Lease")?;
    Ok(())
}
