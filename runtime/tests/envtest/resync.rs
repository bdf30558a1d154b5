//! The resync: a controller reconciles every object it watches again at a period, to repair
//! drift that no watch event reported, as controller-runtime's `SyncPeriod` ("the minimum
//! frequency at which watched resources are reconciled",
//! https://pkg.go.dev/sigs.k8s.io/controller-runtime/pkg/cache#Options). A `Ready` object
//! waits for it in no queue entry of its own: its reconciliation answers `await_change`,
//! and the [`Reconciler`]'s one timer brings every cached object back.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::ResourceExt as _;
use kube::api::Api;
use tokio::sync::mpsc::UnboundedReceiver;

use rsbuilder_runtime::controller::Reconciler;
use rsbuilder_runtime::server::Health;

use crate::context::{Ctx, create_config_maps, run_reporting};
use crate::control_plane;

const RESYNC: Duration = Duration::from_secs(2);
static RECONCILER: Reconciler = Reconciler::new("resync-test").resync(RESYNC);
const NAMES: [&str; 3] = ["first", "second", "third"];

/// The names reconciled until each of [`NAMES`] has been, waiting at most `within`.
async fn round(
    reconciled: &mut UnboundedReceiver<Arc<ConfigMap>>,
    within: Duration,
) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    tokio::time::timeout(within, async {
        while names.len() < NAMES.len() {
            let object = reconciled.recv().await.expect("the controller runs");
            names.insert(object.name_any());
        }
    })
    .await
    .unwrap_or_else(|_| panic!("only {names:?} reconciled within {within:?}"));
    names
}

#[tokio::test]
#[ignore = "needs kube-apiserver and etcd (KUBEBUILDER_ASSETS)"]
async fn every_cached_object_is_reconciled_again_at_each_resync() {
    let namespace = control_plane().namespace("resync").await;
    let client = control_plane().admin().await;
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), &namespace);
    create_config_maps(&api, NAMES).await;

    let ctx = Ctx::new(client, "resync-test");
    let synced = Health::default().part("resync-test");
    let controller = RECONCILER.controller(api, &ctx, synced);
    let mut reconciled = run_reporting(controller, ctx);

    let all: BTreeSet<String> = NAMES.iter().map(|name| name.to_string()).collect();
    assert_eq!(
        round(&mut reconciled, Duration::from_secs(30)).await,
        all,
        "the first list"
    );
    // Nothing changed: only the resync brings them back.
    assert_eq!(
        round(&mut reconciled, 3 * RESYNC).await,
        all,
        "the first resync"
    );
    assert_eq!(
        round(&mut reconciled, 3 * RESYNC).await,
        all,
        "the second resync"
    );
}
