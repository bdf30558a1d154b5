// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! CronJob's versions through the real API server and the project's conversion webhook
//! (hub: v1). The contract: "the API server converts between versions, so a client
//! can read and write an object at any served version"
//! (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/);
//! a round trip through the hub must lose nothing.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::control_plane::{control_plane, eventually};

/// The prefix of the namespaces of these tests.
const PREFIX: &str = "cronjobs";
/// CronJob's CustomResourceDefinition.
const CRD: &str = "cronjobs.batch.example.com";
/// The hub, the storage version every other version converts through.
const HUB: &str = "batch.example.com/v1";
/// The versions that convert through the hub.
const SPOKES: &[&str] = &[
    "batch.example.com/v1alpha1",
    "batch.example.com/v1beta1",
    // +rsbuilder:scaffold:cron_job-spokes
];

/// The API of CronJob at `api_version`, in `namespace`.
async fn api(api_version: &str, namespace: &str) -> Api<DynamicObject> {
    let client = control_plane().admin().await;
    let kind = json!({"apiVersion": api_version, "kind": "CronJob"});
    control_plane().dynamic_api(&client, Some(namespace), &kind)
}

/// The sample of `api_version` in `config/samples`, named `name` and labelled with the
/// test's namespace.
fn sample(api_version: &str, namespace: &str, name: &str) -> DynamicObject {
    let mut sample = control_plane()
        .manifests_in("config/samples")
        .into_iter()
        .find(|s| s["apiVersion"] == api_version && s["kind"] == "CronJob")
        .unwrap_or_else(|| panic!("config/samples has no CronJob {api_version}"));
    sample["metadata"] = json!({"name": name, "labels": {"test": namespace}});
    serde_json::from_value(sample).expect("a sample")
}

/// A namespace for one test of this file.
async fn namespace(test: &str) -> String {
    control_plane().namespace(&format!("{PREFIX}-{test}")).await
}

fn spec(object: &DynamicObject) -> Value {
    object.data["spec"].clone()
}

/// The spec fields that `a` and `b` declare alike (same name, same schema), as the CRD
/// says: a conversion maps each to itself.
fn shared_fields(a: &str, b: &str) -> Vec<String> {
    let crd = control_plane()
        .manifests_in("config/crd/bases")
        .into_iter()
        .find(|crd| crd["metadata"]["name"] == CRD)
        .expect("the CRD of CronJob");
    let fields = |api_version: &str| {
        let name = api_version.rsplit('/').next().unwrap_or_default();
        crd["spec"]["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|v| v["name"] == name)
            .map(|v| v["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"].clone())
            .unwrap_or_default()
    };
    let (a, b) = (fields(a), fields(b));
    let a = a.as_object().cloned().unwrap_or_default();
    a.into_iter()
        .filter(|(field, schema)| b.get(field) == Some(schema))
        .map(|(field, _)| field)
        .collect()
}

fn api_version(object: &DynamicObject) -> Option<&str> {
    object.types.as_ref().map(|t| t.api_version.as_str())
}

#[tokio::test]
async fn every_version_reads_what_every_other_wrote_and_a_round_trip_keeps_it() {
    let namespace = namespace("versions").await;
    let versions: Vec<&str> = SPOKES.iter().copied().chain([HUB]).collect();
    for (n, written) in versions.iter().enumerate() {
        let name = format!("{namespace}-{n}");
        let created = api(written, &namespace)
            .await
            .create(&PostParams::default(), &sample(written, &namespace, &name))
            .await
            .unwrap_or_else(|e| panic!("create at {written}: {e}"));
        for read in &versions {
            let object = api(read, &namespace)
                .await
                .get(&name)
                .await
                .unwrap_or_else(|e| panic!("written at {written}, read at {read}: {e}"));
            assert_eq!(api_version(&object), Some(*read));
            for field in shared_fields(written, read) {
                assert_eq!(
                    object.data["spec"][&field], created.data["spec"][&field],
                    "spec.{field}, written at {written}, differs when read at {read}"
                );
            }
        }
        let back = api(written, &namespace)
            .await
            .get(&name)
            .await
            .expect("read back");
        assert_eq!(
            spec(&back),
            spec(&created),
            "{written} -> {HUB} -> {written} changed the spec"
        );
    }
}

/// A client that knows only an older version replaces the whole object (a PUT of what it
/// read): what its version cannot hold must survive, kept by the conversion.
#[tokio::test]
async fn a_replace_through_a_version_that_holds_less_keeps_what_it_cannot_hold() {
    let namespace = namespace("replace").await;
    for (n, spoke) in SPOKES.iter().enumerate() {
        let name = format!("{namespace}-{n}");
        let hub = api(HUB, &namespace).await;
        let created = hub
            .create(&PostParams::default(), &sample(HUB, &namespace, &name))
            .await
            .expect("a create at the hub");
        let spoke_api = api(spoke, &namespace).await;
        let mut old = spoke_api.get(&name).await.expect("a read at the spoke");
        old.metadata
            .labels
            .get_or_insert_default()
            .insert("edited".into(), n.to_string());
        spoke_api
            .replace(&name, &PostParams::default(), &old)
            .await
            .unwrap_or_else(|e| panic!("a replace at {spoke}: {e}"));
        let after = hub.get(&name).await.expect("a read at the hub");
        assert_eq!(
            spec(&after),
            spec(&created),
            "a replace through {spoke} lost or changed hub fields"
        );
        let labels = after.metadata.labels.unwrap_or_default();
        assert_eq!(
            labels.get("edited"),
            Some(&n.to_string()),
            "the edit through {spoke} did not arrive"
        );
    }
}

/// The API server converts every object of a LIST in one ConversionReview
/// (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/#webhook-request-and-response):
/// one of 10,000 objects converts, one object at a time (`tests/conversion_memory.rs`
/// measures what it takes).
#[tokio::test]
async fn a_list_of_ten_thousand_at_another_version_converts() {
    const COUNT: usize = 10_000;
    let namespace = namespace("list").await;
    let Some(spoke) = SPOKES.first() else {
        return;
    };
    let mut creates = tokio::task::JoinSet::new();
    for n in 0..COUNT {
        let namespace = namespace.clone();
        creates.spawn(async move {
            let name = format!("{namespace}-{n}");
            let object = sample(HUB, &namespace, &name);
            let api = api(HUB, &namespace).await;
            api.create(&PostParams::default(), &object).await.map(drop)
        });
        // A few at a time, as a client would.
        if creates.len() >= 32 {
            let created = creates.join_next().await.expect("a task");
            created.expect("no panic").expect("a create");
        }
    }
    while let Some(created) = creates.join_next().await {
        created.expect("no panic").expect("a create");
    }
    let selector = format!("test={namespace}");
    // The figure to compare with the manager's memory limit: the peak resident memory of
    // this test process, webhook server included, while the API server converts (Linux:
    // writing 5 to `clear_refs` resets the peak).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    // Not chunked: one review of all of them.
    let listed = api(spoke, &namespace)
        .await
        .list(&ListParams::default().labels(&selector))
        .await
        .expect("a LIST at the spoke");
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(peak) = status.lines().find(|line| line.starts_with("VmHWM:")) {
        println!("the LIST of {COUNT} at {spoke}: {peak}");
    }
    assert_eq!(listed.items.len(), COUNT);
    let converted = listed.items.iter().all(|o| api_version(o) == Some(*spoke));
    assert!(converted, "the LIST at {spoke} returned other versions");
}

/// A CRD newer than the manager may declare fields its types do not know; the API server
/// prunes what a version's schema does not declare, after the conversion
/// (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#field-pruning),
/// so the conversion must carry them, or a write at one version loses them at all.
#[tokio::test]
async fn fields_the_manager_does_not_know_survive_its_conversions() {
    let namespace = namespace("unknown").await;
    let client = control_plane().admin().await;
    let crds: Api<CustomResourceDefinition> = Api::all(client);
    let crd = crds.get(CRD).await.expect("the CRD");
    let added = json!({"type": "string"});
    let patch: Vec<Value> = (0..crd.spec.versions.len())
        .map(|n| {
            json!({
                "op": "add",
                "path": format!("/spec/versions/{n}/schema/openAPIV3Schema/properties/spec/properties/addedLater"),
                "value": added,
            })
        })
        .collect();
    let patch = serde_json::from_value(Value::Array(patch)).expect("a JSON patch");
    crds.patch(CRD, &PatchParams::default(), &Patch::Json::<()>(patch))
        .await
        .expect("a CRD with a field the manager does not know");
    // The API server serves the new schema once it has rebuilt the kind's handler: a
    // dry run at the hub (no conversion) keeps the field from then on.
    let with_field = |api_version: &str, name: &str| {
        let mut object = sample(api_version, &namespace, name);
        object.data["spec"]["addedLater"] = json!("kept");
        object
    };
    let hub = api(HUB, &namespace).await;
    let probe = with_field(HUB, &format!("{namespace}-probe"));
    eventually("the CRD's new field is served", || async {
        let dry_run = PostParams {
            dry_run: true,
            ..PostParams::default()
        };
        let created = hub.create(&dry_run, &probe).await.ok()?;
        (created.data["spec"]["addedLater"] == "kept").then_some(())
    })
    .await;
    for (n, spoke) in SPOKES.iter().enumerate() {
        let name = format!("{namespace}-{n}");
        let spoke_api = api(spoke, &namespace).await;
        spoke_api
            .create(&PostParams::default(), &with_field(spoke, &name))
            .await
            .unwrap_or_else(|e| panic!("a create at {spoke}: {e}"));
        let stored = hub.get(&name).await.expect("a read at the hub");
        assert_eq!(
            stored.data["spec"]["addedLater"], "kept",
            "written at {spoke}, the field is gone at {HUB}"
        );
        let back = spoke_api.get(&name).await.expect("a read at the spoke");
        assert_eq!(
            back.data["spec"]["addedLater"], "kept",
            "{spoke} -> {HUB} -> {spoke} lost the field"
        );
    }
}
