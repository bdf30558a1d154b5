// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The webhook server's certificate as the manager issues it itself (`--webhook-certs
//! self`), on the real API server: the control plane runs the manager's certificate task
//! as the manager's user, with only what `config/webhook-certs` grants, and every webhook
//! call of this test binary goes through what it issued and injected. Its certificates
//! live a minute here, so that the tests see them renewed. Generated from PROJECT:
//! `rsbuilder edit --webhook-certs cert-manager` hands the certificate to cert-manager.

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime};

use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use k8s_openapi::api::rbac::v1::{ClusterRoleBinding, RoleBinding};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::DeleteParams;
use kube::{Api, Client, ResourceExt};

use rsbuilder_runtime::server::{Health, Readiness};
use rsbuilder_runtime::shutdown::Shutdown;
use rsbuilder_runtime::tls;
use rsbuilder_runtime::webhook::certs::{self, Lifetimes, MetricsCert, Settings};

use crate::control_plane::{IssueCerts, ManagerCerts, control_plane, eventually};

/// The manager issues the certificate (`control_plane::Environment::webhook_certs`).
pub const ISSUE: Option<IssueCerts> = Some(issue);

/// Short enough for a CA renewal 50 s after the start, and a serving certificate's every
/// 20 s (out of step, so that the CA's renewal alone must bring a new one): each is
/// renewed with a third of its life left, and a serving certificate starts a minute back
/// (for clocks behind the API server's), so it lives two.
const LIFETIMES: Lifetimes = Lifetimes {
    ca: Duration::from_secs(75),
    serving: Duration::from_secs(120),
};

/// How soon the webhook server serves what the task wrote (`webhooks.rs` reads it every
/// second), with room for a slow machine.
const SERVED_WITHIN: Duration = Duration::from_secs(5);

/// What the certificate task was told, for the tests to check against.
static SETTINGS: OnceLock<Settings> = OnceLock::new();

fn issue(
    client: Client,
    target: ManagerCerts,
) -> Pin<Box<dyn Future<Output = anyhow::Result<()>> + Send>> {
    let settings = Settings {
        mutating: target.mutating,
        validating: target.validating,
        conversion_crds: target.conversion_crds,
        // As `config/prometheus` sets it up (METRICS_CERT_DIR).
        metrics: Some(MetricsCert {
            service: "controller-manager-metrics-service".into(),
            dir: std::env::temp_dir().join(format!("metrics-certs-{}", std::process::id())),
        }),
        lifetimes: LIFETIMES,
        interval: Duration::from_secs(1),
        min_backoff: Duration::from_millis(200),
        ..Settings::new(
            env!("CARGO_PKG_NAME"),
            target.namespace,
            target.service,
            target.cert_dir,
            target.port,
        )
    };
    let _ = SETTINGS.set(settings.clone());
    Box::pin(async move {
        std::fs::create_dir_all(&settings.cert_dir)?;
        // The first pass as the manager makes it, until the webhook server has read what
        // it wrote.
        let started = Instant::now();
        while let Err(error) = certs::sync(&client, &settings, SystemTime::now()).await {
            if started.elapsed() > Duration::from_secs(30) {
                return Err(error);
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let (trigger, shutdown) = Shutdown::channel();
        // Never fired: the task stops with the test binary.
        std::mem::forget(trigger);
        let ready = Health::default().part("webhook-certificates");
        tokio::spawn(certs::run(client, settings, ready, shutdown));
        Ok(())
    })
}

fn settings() -> &'static Settings {
    control_plane();
    SETTINGS.get().expect("the certificate task's settings")
}

/// The Secret's CA bundle, read by the admin.
async fn ca_bundle() -> String {
    let settings = settings();
    let secrets: Api<Secret> = Api::namespaced(control_plane().admin().await, &settings.namespace);
    let secret = secrets.get(&settings.secret).await.expect("the Secret");
    assert_eq!(secret.type_.as_deref(), Some("kubernetes.io/tls"));
    let data = secret.data.unwrap_or_default();
    for key in [
        "tls.crt",
        "tls.key",
        certs::CA_BUNDLE_KEY,
        certs::CA_KEY_KEY,
    ] {
        assert!(data.contains_key(key), "the Secret lacks {key}");
    }
    String::from_utf8(data[certs::CA_BUNDLE_KEY].0.clone()).expect("a PEM bundle")
}

/// The CA bundles the API server holds for this project's webhooks and conversions.
async fn injected() -> Vec<Option<String>> {
    let settings = settings();
    let admin = control_plane().admin().await;
    let text = |bundle: Option<k8s_openapi::ByteString>| {
        bundle.map(|b| String::from_utf8_lossy(&b.0).into_owned())
    };
    let mut bundles = Vec::new();
    if let Some(name) = &settings.mutating {
        let api: Api<MutatingWebhookConfiguration> = Api::all(admin.clone());
        let configuration = api.get(name).await.expect("the mutating configuration");
        for webhook in configuration.webhooks.unwrap_or_default() {
            bundles.push(text(webhook.client_config.ca_bundle));
        }
    }
    if let Some(name) = &settings.validating {
        let api: Api<ValidatingWebhookConfiguration> = Api::all(admin.clone());
        let configuration = api.get(name).await.expect("the validating configuration");
        for webhook in configuration.webhooks.unwrap_or_default() {
            bundles.push(text(webhook.client_config.ca_bundle));
        }
    }
    let crds: Api<CustomResourceDefinition> = Api::all(admin);
    for name in &settings.conversion_crds {
        let crd = crds.get(name).await.expect("a conversion CRD");
        let config = crd
            .spec
            .conversion
            .and_then(|conversion| conversion.webhook)
            .and_then(|webhook| webhook.client_config);
        bundles.push(text(config.and_then(|config| config.ca_bundle)));
    }
    bundles
}

/// The first certificate of a PEM bundle: the CA that signs now.
fn current_ca(bundle: &str) -> String {
    const END: &str = "-----END CERTIFICATE-----";
    bundle
        .split_inclusive(END)
        .next()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn the_manager_keeps_its_ca_in_a_secret_and_injects_it_into_every_webhook_and_crd() {
    let webhooks: usize = control_plane()
        .manifests_in("config/webhook")
        .iter()
        .map(|c| c["webhooks"].as_array().map_or(0, Vec::len))
        .sum();
    let expected = webhooks + settings().conversion_crds.len();
    assert!(expected > 0, "no webhook and no conversion to inject into");
    eventually(
        "every webhook and conversion holds the Secret's CA bundle",
        || async {
            let bundle = ca_bundle().await;
            let injected = injected().await;
            assert_eq!(injected.len(), expected, "webhooks and conversions");
            injected
                .iter()
                .all(|held| held.as_deref() == Some(bundle.as_str()))
                .then_some(())
        },
    )
    .await;
}

/// The certificates are renewed while the API server keeps calling the webhooks: a
/// dry-run create of every sample (its admission webhooks, its conversion) succeeds before,
/// during and after a renewal of the CA, and the webhook server serves a certificate of
/// the new CA at once.
#[tokio::test]
async fn the_api_server_calls_the_webhooks_across_a_renewal_of_the_ca() {
    let control_plane = control_plane();
    let namespace = control_plane.namespace("webhook-certs").await;
    let first = current_ca(&ca_bundle().await);
    let deadline = Instant::now() + LIFETIMES.ca + Duration::from_secs(30);
    let mut calls = 0;
    let renewed = loop {
        control_plane
            .dry_run_samples(&namespace)
            .await
            .unwrap_or_else(|error| panic!("after {calls} calls: {error}"));
        calls += 1;
        let ca = current_ca(&ca_bundle().await);
        if ca != first {
            break ca;
        }
        assert!(Instant::now() < deadline, "the CA was not renewed");
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    let settings = settings();
    let dns_name = settings.dns_names().remove(0);
    let started = Instant::now();
    while let Err(error) = certs::trusted(settings.webhook_addr, &dns_name, &renewed).await {
        assert!(
            started.elapsed() < SERVED_WITHIN,
            "the webhook server serves no certificate of the new CA: {error:#}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    control_plane
        .dry_run_samples(&namespace)
        .await
        .expect("the API server calls the webhooks after the renewal");
}

/// Readiness follows what is served (so that an API server briefly away does not take
/// every replica out of the webhook Service at once): a second replica that loses its
/// access (its RBAC bindings deleted, so every pass fails with 403 Forbidden) stays ready
/// while the webhook server presents a certificate its last injected bundle trusts.
#[tokio::test]
async fn a_replica_cut_off_from_the_api_server_stays_ready_while_its_certificate_is_served() {
    let control_plane = control_plane();
    let settings = settings();
    let user = "webhook-certs-second-replica";
    let namespace = &settings.namespace;
    control_plane
        .grant(user, namespace, "config/webhook-certs/resources.yaml")
        .await;
    let client = control_plane.client(user, &[]).await;
    let cert_dir = std::env::temp_dir().join(format!("{user}-{}", std::process::id()));
    let replica = Settings {
        cert_dir: cert_dir.clone(),
        metrics: None,
        ..settings.clone()
    };
    let ready = Readiness::default();
    let (stop, shutdown) = Shutdown::channel();
    let task = tokio::spawn(certs::run(
        client.clone(),
        replica.clone(),
        ready.clone(),
        shutdown,
    ));
    eventually("the second replica is ready", || async {
        ready.get().then_some(())
    })
    .await;

    let admin = control_plane.admin().await;
    let mine = |name: &str| name.ends_with(&format!(":{user}"));
    let bindings: Api<RoleBinding> = Api::namespaced(admin.clone(), namespace);
    for binding in bindings.list(&Default::default()).await.expect("bindings") {
        if mine(&binding.name_any()) {
            let _ = bindings
                .delete(&binding.name_any(), &DeleteParams::default())
                .await;
        }
    }
    let cluster_bindings: Api<ClusterRoleBinding> = Api::all(admin);
    for binding in cluster_bindings
        .list(&Default::default())
        .await
        .expect("bindings")
    {
        if mine(&binding.name_any()) {
            let _ = cluster_bindings
                .delete(&binding.name_any(), &DeleteParams::default())
                .await;
        }
    }
    let error = eventually("the second replica's passes fail", || async {
        certs::sync(&client, &replica, SystemTime::now())
            .await
            .err()
    })
    .await;
    assert!(format!("{error:#}").contains("forbidden"), "{error:#}");
    // Its own passes fail every 200 ms to 1 s (`issue`'s backoff and interval).
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(
        ready.get(),
        "failing passes took a replica serving a trusted certificate out of the Service"
    );
    stop.fire();
    task.await
        .expect("the task")
        .expect("the certificate task stopped");
    let _ = std::fs::remove_dir_all(cert_dir);
}

/// The metrics server's certificate, as Prometheus verifies it (`config/prometheus`: the CA
/// of `tlsConfig.ca.configMap`, the metrics Service's name as `serverName`): the manager,
/// with only what `config/webhook-certs` grants, publishes the Secret's CA bundle in the
/// ConfigMap, and the metrics server, started before any certificate was written, serves
/// one that bundle trusts for that name.
#[tokio::test]
async fn prometheus_verifies_the_metrics_certificate_against_the_published_bundle() {
    let settings = settings();
    let metrics = settings
        .metrics
        .as_ref()
        .expect("the metrics certificate's settings");
    let serving = tls::Serving::load("metrics", Some(metrics.dir.clone()))
        .expect("the metrics certificate's directory");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let addr = listener.local_addr().expect("a bound address");
    let router = axum::Router::new().route("/metrics", axum::routing::get(|| async { "" }));
    let (_stop, shutdown) = Shutdown::channel();
    let reload = Duration::from_millis(200);
    tokio::spawn(tls::serve(listener, serving, reload, router, shutdown));

    let admin = control_plane().admin().await;
    let config_maps: Api<ConfigMap> = Api::namespaced(admin, &settings.namespace);
    let published = eventually("the ConfigMap publishes the Secret's CA bundle", || async {
        let config_map = config_maps.get_opt(certs::METRICS_CA).await.ok()??;
        let bundle = config_map.data?.remove(certs::CA_BUNDLE_KEY)?;
        (bundle == ca_bundle().await).then_some(bundle)
    })
    .await;
    let dns_name = certs::service_dns_names(&metrics.service, &settings.namespace).remove(0);
    eventually(
        "the metrics server serves a certificate the bundle trusts",
        || async { certs::trusted(addr, &dns_name, &published).await.ok() },
    )
    .await;
}
