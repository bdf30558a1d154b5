// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The CRDs and samples under `config/`, judged by the API server.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};
use serde_json::{Value, json};

use crate::control_plane::{control_plane, established};

#[tokio::test]
async fn every_crd_is_established() {
    let crds: Api<CustomResourceDefinition> = Api::all(control_plane().admin().await);
    for crd in control_plane().manifests_in("config/crd/bases") {
        let name = crd["metadata"]["name"].as_str().expect("a CRD name");
        let served = crds.get(name).await.expect("the CRD is installed");
        assert!(
            established(&served),
            "{name} is not Established: {:?}",
            served.status
        );
    }
}

/// The kind of a sample, as its CRD under `config/crd/bases` names it, and whether that
/// CRD is namespaced.
fn crd_of(sample: &Value) -> Option<Value> {
    let (group, _) = sample["apiVersion"].as_str()?.rsplit_once('/')?;
    control_plane()
        .manifests_in("config/crd/bases")
        .into_iter()
        .find(|crd| crd["spec"]["group"] == group && crd["spec"]["names"]["kind"] == sample["kind"])
}

/// Creates `sample` in `namespace` (when its kind is namespaced), named apart (the samples
/// of one kind's versions share a name), as a server-side dry run: the API server
/// validates, defaults and admits it as it would store it, and stores nothing that the
/// controllers of other tests would see.
async fn create(sample: &Value, namespace: &str) -> Result<Value, kube::Error> {
    let crd = crd_of(sample).expect("every sample is of a kind of the project");
    let namespaced = crd["spec"]["scope"] == "Namespaced";
    let mut object = sample.clone();
    let version = sample["apiVersion"]
        .as_str()
        .and_then(|v| v.rsplit('/').next())
        .unwrap_or("v");
    let name = format!(
        "{namespace}-{version}-{}",
        sample["metadata"]["name"].as_str().unwrap_or("sample")
    );
    object["metadata"]["name"] = json!(name);
    let client = control_plane().admin().await;
    let api = control_plane().dynamic_api(&client, namespaced.then_some(namespace), &object);
    let object = serde_json::from_value(object).expect("an object");
    let params = PostParams {
        dry_run: true,
        ..PostParams::default()
    };
    let created = api.create(&params, &object).await?;
    Ok(serde_json::to_value(created).expect("json"))
}

#[tokio::test]
async fn every_sample_is_accepted() {
    let namespace = control_plane().namespace("samples").await;
    let samples = control_plane().manifests_in("config/samples");
    for sample in &samples {
        let created = create(sample, &namespace).await.unwrap_or_else(|e| {
            panic!(
                "the API server refused the sample {}: {e}",
                sample["metadata"]["name"]
            )
        });
        assert_eq!(
            created["spec"], sample["spec"],
            "the API server changed the sample (pruned or defaulted a field)"
        );
    }
}

/// An object whose `spec` is no object breaks every CRD's schema: the API server refuses
/// it with 422 Invalid, naming the field (structural schemas are validated on create,
/// Kubernetes docs: "Validation" under CustomResourceDefinitions). What comes before that
/// check may refuse it first, as the real server shows: mutating admission runs before
/// schema validation (Kubernetes docs, "Admission Control"), so a defaulting webhook that
/// cannot read the object answers 400 Bad Request; and an object written at a version the
/// webhooks do not take is first converted, so a conversion webhook that cannot read it
/// fails the request (500). Each names the spec.
#[tokio::test]
async fn an_object_that_breaks_the_schema_is_refused() {
    let namespace = control_plane().namespace("invalid").await;
    for sample in control_plane().manifests_in("config/samples") {
        let mut broken = sample.clone();
        broken["spec"] = json!("not an object");
        match create(&broken, &namespace).await {
            Err(kube::Error::Api(status)) => {
                assert!(matches!(status.code, 400 | 422 | 500), "{status:?}");
                let message = status.message.to_lowercase();
                assert!(message.contains("spec"), "{}", status.message);
            }
            other => panic!("the API server accepted a string as spec: {other:?}"),
        }
    }
}
