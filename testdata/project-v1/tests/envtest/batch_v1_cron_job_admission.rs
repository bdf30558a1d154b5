// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The admission webhooks of CronJob v1, called by the real API server as
//! `config/webhook/manifests.yaml` registers them: on CREATE, and on a dry run too
//! ("webhooks must not have side effects on dry-run requests ... they are still called",
//! https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#side-effects),
//! which stores nothing.

use kube::api::{Api, DynamicObject, PostParams};
use serde_json::json;

use crate::control_plane::control_plane;
use crate::webhooks::reviews_of;

const API_VERSION: &str = "batch.example.com/v1";
const KIND: &str = "CronJob";

/// The paths of CronJob v1's admission webhooks.
const PATHS: &[&str] = &[
    "/mutate-batch-example-com-v1-cronjob",
    "/validate-batch-example-com-v1-cronjob",
    // +rsbuilder:scaffold:batch_v1_cron_job-admission
];

async fn api(namespace: &str) -> Api<DynamicObject> {
    let client = control_plane().admin().await;
    let kind = json!({"apiVersion": API_VERSION, "kind": KIND});
    control_plane().dynamic_api(&client, Some(namespace), &kind)
}

/// The v1 sample of `config/samples`, named `name`.
fn sample(name: &str) -> DynamicObject {
    let mut sample = control_plane()
        .manifests_in("config/samples")
        .into_iter()
        .find(|s| s["apiVersion"] == API_VERSION && s["kind"] == KIND)
        .expect("a CronJob v1 sample in config/samples");
    sample["metadata"] = json!({"name": name});
    serde_json::from_value(sample).expect("a sample")
}

/// Whether every webhook of [`PATHS`] was asked about a CREATE of `name`, as a dry run or
/// not.
fn reviewed(name: &str, dry_run: bool) -> bool {
    let reviews = reviews_of(name);
    PATHS.iter().all(|path| {
        reviews
            .iter()
            .any(|r| r.path == *path && r.operation == "CREATE" && r.dry_run == dry_run)
    })
}

#[tokio::test]
async fn a_create_and_a_dry_run_go_through_every_webhook_and_only_the_create_stores() {
    let namespace = control_plane().namespace("admission").await;
    let api = api(&namespace).await;

    let dry = format!("{namespace}-dry");
    let dry_run = PostParams {
        dry_run: true,
        ..PostParams::default()
    };
    api.create(&dry_run, &sample(&dry))
        .await
        .expect("a dry-run create");
    assert!(
        reviewed(&dry, true),
        "not every webhook saw the dry run: {:?}",
        reviews_of(&dry)
    );
    assert!(
        matches!(api.get(&dry).await, Err(kube::Error::Api(s)) if s.code == 404),
        "a dry run stored the object"
    );

    let real = format!("{namespace}-real");
    api.create(&PostParams::default(), &sample(&real))
        .await
        .expect("a create");
    assert!(
        reviewed(&real, false),
        "not every webhook saw the create: {:?}",
        reviews_of(&real)
    );
    api.get(&real).await.expect("the created object is stored");
}

/// What the defaulting webhook sets is on the stored object: the API server applies its
/// patch before it stores
/// (https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#response).
#[tokio::test]
async fn the_stored_object_has_the_defaults_of_the_defaulting_webhook() {
    use project_v1::webhooks::batch_v1_cron_job::DEFAULT_FOO;
    let namespace = control_plane().namespace("defaults").await;
    let api = api(&namespace).await;
    let mut object = sample(&namespace);
    object.data["spec"]
        .as_object_mut()
        .expect("a spec")
        .remove("foo");
    let created = api
        .create(&PostParams::default(), &object)
        .await
        .expect("a create");
    assert_eq!(created.data["spec"]["foo"], DEFAULT_FOO);
    let stored = api.get(&namespace).await.expect("the stored object");
    assert_eq!(stored.data["spec"]["foo"], DEFAULT_FOO);
}

/// An object the validating webhook refuses is not stored, and the API server answers
/// with the webhook's message
/// (https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#response).
#[tokio::test]
async fn an_object_the_validating_webhook_refuses_gets_its_message_and_is_not_stored() {
    use project_v1::webhooks::batch_v1_cron_job::EMPTY_FOO;
    let namespace = control_plane().namespace("refused").await;
    let api = api(&namespace).await;
    let mut object = sample(&namespace);
    object.data["spec"]["foo"] = json!("");
    match api.create(&PostParams::default(), &object).await {
        Err(kube::Error::Api(status)) => {
            assert!(status.message.contains(EMPTY_FOO), "{}", status.message);
        }
        other => panic!("an empty spec.foo was not refused: {other:?}"),
    }
    assert!(
        matches!(api.get(&namespace).await, Err(kube::Error::Api(s)) if s.code == 404),
        "a refused object was stored"
    );
}
// +rsbuilder:scaffold:batch_v1_cron_job-admission-tests
