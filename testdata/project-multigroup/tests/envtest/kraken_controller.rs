// Copyright Example Org
// SPDX-License-Identifier: MIT

//! The Kraken controller against a real API server, running as a user that holds only
//! what `config/rbac` grants the manager.

use std::sync::Arc;
use std::time::Duration;

use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::runtime::controller::Action;
use kube::{Resource, ResourceExt};
use serde_json::{Value, json};

use rsbuilder_runtime::controller::Outcome;
use rsbuilder_runtime::metrics::Metrics;
use rsbuilder_runtime::server::Readiness;
use rsbuilder_runtime::shutdown::{Shutdown, Trigger};

use project_multigroup::api::sea_creatures::kraken::Kraken;
use project_multigroup::controllers::{Context, kraken as controller};

use crate::control_plane::{control_plane, counter, eventually, manager_user};

/// The prefix of the namespaces of these tests.
const PREFIX: &str = "kraken";
/// The status subresource, which the controller writes.
const STATUS: &str = "krakens/status";

/// A namespace for one test of this file.
async fn namespace(test: &str) -> String {
    control_plane().namespace(&format!("{PREFIX}-{test}")).await
}

/// The controller of one test, as a user bound to the manager's role (after `edit`) and
/// nothing else; stopped when dropped.
struct Manager {
    ctx: Arc<Context>,
    metrics: Arc<Metrics>,
    /// Set once the controller's watch has listed every object.
    synced: Readiness,
    stop: Trigger,
}

impl Manager {
    async fn start(namespace: &str, edit: impl FnOnce(&mut Value)) -> Self {
        Self::start_as(&manager_user(namespace), namespace, edit).await
    }

    async fn start_as(user: &str, namespace: &str, edit: impl FnOnce(&mut Value)) -> Self {
        control_plane()
            .grant_manager_role(user, namespace, edit)
            .await;
        let client = control_plane().client(user, &[]).await;
        let metrics = Arc::new(Metrics::default());
        let ctx = Context::new(client, metrics.clone(), Some(namespace.into()));
        let (stop, shutdown) = Shutdown::channel();
        let synced = Readiness::default();
        tokio::spawn(controller::run(ctx.clone(), synced.clone(), shutdown));
        Self {
            ctx: Arc::new(ctx),
            metrics,
            synced,
            stop,
        }
    }

    /// How many reconciliations this manager started, and how many failed.
    fn count(&self, metric: &str) -> u64 {
        let text = self.metrics.encode().expect("metrics");
        counter(&text, metric, controller::NAME)
    }
}

impl Drop for Manager {
    fn drop(&mut self) {
        self.stop.fire();
    }
}

async fn admin_api(namespace: &str) -> Api<Kraken> {
    Api::namespaced(control_plane().admin().await, namespace)
}

/// The name of a test's object.
fn name(_namespace: &str, name: &str) -> String {
    name.to_string()
}

async fn create(api: &Api<Kraken>, name: &str) {
    let object = Kraken::new(name, Default::default());
    api.create(&PostParams::default(), &object)
        .await
        .expect("the API server accepts a Kraken with a default spec");
}

/// Whether `object` is `Ready=True` for its current generation.
fn ready(object: &Kraken) -> bool {
    let Some(status) = &object.status else {
        return false;
    };
    let generation = object.metadata.generation;
    status.observed_generation == generation
        && status.conditions.iter().any(|c| {
            c.type_ == "Ready" && c.status == "True" && c.observed_generation == generation
        })
}

async fn wait_ready(api: &Api<Kraken>, name: &str) -> Kraken {
    let what = format!("{name} Ready");
    eventually(&what, || async { api.get(name).await.ok().filter(ready) }).await
}

#[tokio::test]
async fn a_new_kraken_becomes_ready_and_follows_spec_changes() {
    let namespace = namespace("ready").await;
    let manager = Manager::start(&namespace, |_| {}).await;
    let api = admin_api(&namespace).await;
    let name = name(&namespace, "ready");
    create(&api, &name).await;
    let object = wait_ready(&api, &name).await;

    // One reconciliation per change the controller is woken by: the new object. Its own status write must not wake it again.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        manager.count("controller_reconcile_total"),
        1,
        "the controller reconciled more often than its triggers ask"
    );
    let unchanged = api.get(&name).await.expect("the object");
    assert_eq!(unchanged.resource_version(), object.resource_version());

    // A reconciliation of an object that is up to date writes nothing, seconds later too
    // (a condition whose `lastTransitionTime` moved would be a write).
    let action = controller::reconcile(Arc::new(unchanged.clone()), manager.ctx.clone())
        .await
        .expect("a reconciliation of a Ready Kraken");
    assert_eq!(
        action,
        Action::await_change(),
        "a Ready Kraken waits for the resync"
    );
    let after = api.get(&name).await.expect("the object");
    assert_eq!(
        after.resource_version(),
        object.resource_version(),
        "a reconciliation of an unchanged Kraken wrote to it"
    );

    // Nor does a status write of another writer: status changes trigger nothing.
    let before = manager.count("controller_reconcile_total");
    let foreign = json!({
        "apiVersion": Kraken::api_version(&()),
        "kind": Kraken::kind(&()),
        "status": {"conditions": [{
            "type": "Audited", "status": "True", "reason": "Checked", "message": "by a test",
            "lastTransitionTime": "2020-01-01T00:00:00Z",
        }]},
    });
    api.patch_status(
        &name,
        &PatchParams::apply("auditor"),
        &Patch::Apply(&foreign),
    )
    .await
    .expect("a status write of another field manager");
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        manager.count("controller_reconcile_total"),
        before,
        "a status write woke the controller"
    );

    // TODO(user): change a field that your spec has.
    let change = json!({"spec": {"foo": "changed"}});
    let changed = api
        .patch(&name, &PatchParams::default(), &Patch::Merge(&change))
        .await
        .expect("a spec change");
    assert_eq!(
        changed.metadata.generation,
        Some(2),
        "a spec change makes a new generation"
    );
    wait_ready(&api, &name).await;
}

/// `report` skips a write only where both its cache and what its last write returned
/// already say the same: the cache can trail the API server, and a status decided from a
/// stale copy must still reach it (API conventions: a controller acts on what it observed,
/// and may observe late).
#[tokio::test]
async fn a_stale_cached_copy_does_not_keep_an_old_status() {
    let namespace = namespace("stale").await;
    let api = admin_api(&namespace).await;
    let name = name(&namespace, "stale");
    create(&api, &name).await;
    // No controller runs: the test hands `report` its copies.
    type Reported = Result<Outcome, controller::Error>;
    let client = control_plane().admin().await;
    let metrics = Arc::new(Metrics::default());
    let ctx = Context::new(client, metrics, Some(namespace.clone()));
    let fresh = api.get(&name).await.expect("the object");
    controller::RECONCILER
        .report(&fresh, &ctx, &Reported::Ok(Outcome::Ready))
        .await
        .expect("a status write");
    let ready_copy = api.get(&name).await.expect("the object");
    assert!(ready(&ready_copy));
    let waiting = Outcome::Progressing {
        reason: "Waiting",
        message: "for a child".into(),
    };
    controller::RECONCILER
        .report(&ready_copy, &ctx, &Reported::Ok(waiting))
        .await
        .expect("a status write");
    assert!(!ready(&api.get(&name).await.expect("the object")));

    // `ready_copy` is now stale: Ready, while the API server holds Progressing.
    controller::RECONCILER
        .report(&ready_copy, &ctx, &Reported::Ok(Outcome::Ready))
        .await
        .expect("a status write");
    let object = api.get(&name).await.expect("the object");
    let status = &object.status;
    assert!(ready(&object), "a stale cache hid the change: {status:?}");
}

/// Runs the controller of `ctx` under `rsbuilder_runtime::controller::supervise` with a cache sync timeout of
/// 3 s, and checks that it stops there with the reason, never synced (`why` it should not).
async fn stops_unsynced_at_the_timeout(ctx: Context, why: &str) {
    use rsbuilder_runtime::controller::supervise;

    let synced = Readiness::default();
    let (_stop, shutdown) = Shutdown::channel();
    let run = controller::run(ctx, synced.clone(), shutdown);
    let timeout = Duration::from_secs(3);
    let started = std::time::Instant::now();
    let supervised = supervise(controller::NAME, run, synced.clone(), timeout);
    // A controller that synced runs on: `supervise` would not return.
    let supervised = tokio::time::timeout(10 * timeout, supervised).await;
    let stopped = supervised.expect("supervise to stop the controller");
    let error = stopped.expect_err(why);
    assert!(error.to_string().contains("did not list"), "{error:#}");
    assert!(!synced.get(), "not synced, yet ready");
    assert!(started.elapsed() >= timeout, "failed before the timeout");
}

/// A controller syncs once its watch has listed every Kraken; one whose role lacks `list`
/// on krakens never does, and `rsbuilder_runtime::controller::supervise` stops it at the cache sync
/// timeout instead of leaving it idle behind green probes (controller-runtime's
/// `CacheSyncTimeout`).
#[tokio::test]
async fn a_controller_whose_watch_cannot_list_never_syncs_and_fails_at_the_timeout() {
    let namespace = namespace("sync").await;
    let manager = Manager::start(&namespace, |_| {}).await;
    eventually("the controller's watch syncs", || async {
        manager.synced.get().then_some(())
    })
    .await;

    let user = format!("{}-unlisted", manager_user(&namespace));
    control_plane()
        .grant_manager_role(&user, &namespace, |role| {
            // A rule may name other kinds beside krakens: none of them runs here.
            let (plural, mut removed) = (json!("krakens"), false);
            for rule in role["rules"].as_array_mut().expect("rules") {
                let resources = rule["resources"].as_array().cloned().unwrap_or_default();
                if resources.contains(&plural) {
                    let verbs = rule["verbs"].as_array_mut().expect("verbs");
                    removed |= verbs.contains(&json!("list"));
                    verbs.retain(|verb| verb != "list");
                }
            }
            assert!(removed, "no rule lets the manager list {plural}");
        })
        .await;
    let client = control_plane().client(&user, &[]).await;
    let metrics = Arc::new(Metrics::default());
    let ctx = Context::new(client, metrics, Some(namespace.clone()));
    stops_unsynced_at_the_timeout(ctx, "synced without list").await;
}

/// Where the CRD is not installed, the API server answers the watch 404 Not Found: the
/// controller never syncs, and `rsbuilder_runtime::controller::supervise` stops it at the cache sync
/// timeout. (The CRD stays for the other tests: this controller's requests name a
/// resource the API server does not serve, which it answers as for a missing CRD.)
#[tokio::test]
async fn a_controller_whose_crd_is_missing_never_syncs_and_fails_at_the_timeout() {
    use kube::client::{Body, ClientBuilder};

    let namespace = namespace("missing").await;
    let user = manager_user(&namespace);
    control_plane()
        .grant_manager_role(&user, &namespace, |_| {})
        .await;
    let config = control_plane().config(&user, &[]).await;
    const SERVED: &str = "/krakens/";
    const NOT_SERVED: &str = "/krakens-not-installed/";
    let not_installed = tower::util::MapRequestLayer::new(|mut request: http::Request<Body>| {
        let path = format!("{}/", request.uri().path()).replace(SERVED, NOT_SERVED);
        let path = path.trim_end_matches('/');
        let query = request.uri().query().map(|q| format!("?{q}"));
        let uri = format!("{path}{}", query.unwrap_or_default());
        *request.uri_mut() = uri.parse().expect("a URI");
        request
    });
    let client = ClientBuilder::try_from(config).expect("a client");
    let client = client.with_layer(&not_installed).build();
    let metrics = Arc::new(Metrics::default());
    let ctx = Context::new(client, metrics, Some(namespace.clone()));
    stops_unsynced_at_the_timeout(ctx, "synced without its CRD").await;
}

/// The generated role is what the controller needs: without the rule for the status
/// subresource, the API server refuses the status write (403 Forbidden), and the failure
/// is counted and returned, never silent.
#[tokio::test]
async fn without_its_status_rule_the_controller_fails_visibly() {
    let namespace = namespace("rbac").await;
    let manager = Manager::start(&namespace, |role| {
        let rules = role["rules"].as_array_mut().expect("rules");
        let mut removed = false;
        for rule in rules.iter_mut() {
            if let Some(resources) = rule["resources"].as_array_mut() {
                let before = resources.len();
                resources.retain(|resource| resource != STATUS);
                removed |= resources.len() < before;
            }
        }
        rules.retain(|rule| rule["resources"].as_array().is_none_or(|r| !r.is_empty()));
        assert!(removed, "the role has a rule for {STATUS}");
    })
    .await;
    let api = admin_api(&namespace).await;
    let name = name(&namespace, "denied");
    create(&api, &name).await;
    eventually("a failed reconciliation", || async {
        (manager.count("controller_reconcile_errors_total") > 0).then_some(())
    })
    .await;
    let object = api.get(&name).await.expect("the object");
    assert!(!ready(&object));
    let error = controller::reconcile(Arc::new(object), manager.ctx.clone())
        .await
        .expect_err("the status write is forbidden");
    assert!(error.to_string().contains("forbidden"), "{error}");
}
