//! Checks of a project's webhooks, for the tests `rsbuilder create webhook` generates: its
//! admission webhooks called as the API server calls them, and its conversions through
//! every version and back, losing nothing.

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::http::StatusCode;
use kube::Resource;
use serde_json::{Value, json};
use tower::ServiceExt;

use super::conversion::{Convert, Spoke, hub_to_spoke, review, spoke_to_hub, version_of};
use super::lossless::annotation;
use super::{Limits, Routes, router};

pub use super::lossless::testing::assert_edits_survive;

/// The uid of the reviews these checks send.
const UID: &str = "705ab4f5-6393-11e8-b7cc-42010a800002";

/// Posts `body` to the webhook at `path` of `router`, as the API server does: the HTTP
/// status, and the answer (`null` when it is not JSON).
pub async fn send(router: Router, path: &str, body: String) -> (StatusCode, Value) {
    let request = http::Request::post(path)
        .header("content-type", "application/json")
        .body(Body::from(body))
        .expect("a valid request");
    let response = router
        .oneshot(request)
        .await
        .expect("the router is infallible");
    let status = response.status();
    let body = to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("a readable body");
    (status, serde_json::from_slice(&body).unwrap_or_default())
}

/// An AdmissionReview about an object of `K`, as the API server sends it
/// (<https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#request>):
/// `object` is `null` for a DELETE, `old_object` for a CREATE. The request is named and
/// namespaced as the object (or the old one) is.
pub fn admission_review<K: Resource<DynamicType = ()>>(
    operation: &str,
    object: Value,
    old_object: Value,
) -> Value {
    let known = if object.is_null() {
        &old_object
    } else {
        &object
    };
    let mut request = json!({
        "uid": UID,
        "kind": {"group": K::group(&()), "version": K::version(&()), "kind": K::kind(&())},
        "resource": {"group": K::group(&()), "version": K::version(&()), "resource": K::plural(&())},
        "name": known["metadata"]["name"],
        "operation": operation,
        "userInfo": {"username": "kubernetes-admin", "groups": ["system:masters"]},
        "object": object,
        "oldObject": old_object,
        "dryRun": false
    });
    if let Some(namespace) = known["metadata"]["namespace"].as_str() {
        request["namespace"] = json!(namespace);
    }
    json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": request,
    })
}

/// Posts `review` to the webhook at `path` among `routes`: the response of the
/// AdmissionReview it answers, which must be about the review sent.
pub async fn admit(routes: Routes, path: &str, review: Value) -> Value {
    let (status, answer) = send(router(routes, Limits::default()), path, review.to_string()).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["kind"], "AdmissionReview", "{answer}");
    let response = answer["response"].clone();
    assert_eq!(response["uid"], UID, "{answer}");
    response
}

/// The JSON patch of a defaulting webhook's response, as operations (`null` without one).
pub fn patch_of(response: &Value) -> Value {
    let bytes: Vec<u8> = serde_json::from_value(response["patch"].clone()).unwrap_or_default();
    serde_json::from_slice(&bytes).unwrap_or(Value::Null)
}

/// `spoke` converted to the hub and back is `spoke` again.
pub fn assert_spoke_round_trip<S: Spoke>(spoke: S) {
    let there = spoke_to_hub(spoke.clone()).expect("converts to the hub");
    let back = hub_to_spoke::<S>(there).expect("converts back");
    assert_eq!(
        serde_json::to_value(back).ok(),
        serde_json::to_value(spoke).ok()
    );
}

/// `hub` converted to the spoke `S` and back is `hub` again.
pub fn assert_hub_round_trip<S: Spoke>(hub: S::Hub) {
    let there = hub_to_spoke::<S>(hub.clone()).expect("converts to the spoke");
    let back = spoke_to_hub(there).expect("converts back");
    assert_eq!(
        serde_json::to_value(back).ok(),
        serde_json::to_value(hub).ok()
    );
}

/// The response to a ConversionReview of `objects` asking for `api_version`, answered with
/// `convert` (the conversion of the objects' kind).
fn answer(objects: &[Value], api_version: &str, convert: Convert) -> Value {
    let (group, _) = api_version.split_once('/').unwrap_or_default();
    let kind = objects
        .first()
        .and_then(|o| o["kind"].as_str())
        .unwrap_or_default();
    let request = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {
            "uid": UID,
            "desiredAPIVersion": api_version,
            "objects": objects,
        }
    });
    let kinds = [(group, kind, convert)];
    let answer: Value =
        serde_json::from_slice(&review(request.to_string().as_bytes(), &kinds)).expect("JSON");
    let response = answer["response"].clone();
    assert_eq!(response["uid"], UID);
    response
}

/// `objects` converted to `api_version` through a ConversionReview.
fn convert_all(objects: &[Value], api_version: &str, convert: Convert) -> Vec<Value> {
    let response = answer(objects, api_version, convert);
    assert_eq!(response["result"]["status"], "Success", "{response}");
    let converted = response["convertedObjects"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(converted.len(), objects.len(), "{response}");
    converted
}

/// A ConversionReview converts `samples` (one of each version of a kind) into every
/// version, and each converted object back into its own version as it was.
pub fn assert_every_version_converts_into_every_other_and_back(
    samples: &[Value],
    convert: Convert,
) {
    for target in samples {
        let api_version = target["apiVersion"].as_str().unwrap_or_default();
        let converted = convert_all(samples, api_version, convert);
        for (original, object) in samples.iter().zip(&converted) {
            assert_eq!(object["apiVersion"], api_version);
            assert_eq!(object["kind"], original["kind"]);
            assert_eq!(object["metadata"]["uid"], original["metadata"]["uid"]);
            let back = original["apiVersion"].as_str().unwrap_or_default();
            assert_eq!(
                convert_all(std::slice::from_ref(object), back, convert),
                std::slice::from_ref(original),
                "{back} -> {api_version} -> {back} lost data"
            );
        }
    }
}

/// A CRD newer than the binary may declare fields its types do not know: a conversion
/// carries them over where the other version has their parent, so that a round trip
/// keeps them.
pub fn assert_unknown_fields_survive_every_conversion(samples: &[Value], convert: Convert) {
    let samples: Vec<Value> = samples
        .iter()
        .cloned()
        .map(|mut sample| {
            sample["spec"]["addedLater"] = json!({"by": "a newer CRD"});
            sample
        })
        .collect();
    for target in &samples {
        let api_version = target["apiVersion"].as_str().unwrap_or_default();
        for (original, object) in samples
            .iter()
            .zip(convert_all(&samples, api_version, convert))
        {
            assert_eq!(object["spec"]["addedLater"], original["spec"]["addedLater"]);
            let back = original["apiVersion"].as_str().unwrap_or_default();
            assert_eq!(
                convert_all(&[object], back, convert),
                std::slice::from_ref(original),
                "{back} -> {api_version} -> {back} lost a field its types do not know"
            );
        }
    }
}

/// A review asking for a version the kind of `samples` does not have fails.
pub fn assert_an_unknown_version_fails(samples: &[Value], convert: Convert) {
    let api_version = samples
        .first()
        .and_then(|sample| sample["apiVersion"].as_str())
        .unwrap_or_default();
    let (group, _) = api_version.split_once('/').unwrap_or_default();
    let response = answer(samples, &format!("{group}/v999"), convert);
    assert_eq!(response["result"]["status"], "Failure", "{response}");
}

/// What a version cannot hold is kept in an annotation; one that cannot be read fails
/// the review (`result.status: Failure` with the reason, as the ConversionReview
/// contract has it: <https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/#response>),
/// never a silent loss of the values it kept.
pub fn assert_an_unreadable_annotation_fails_the_review(samples: &[Value], convert: Convert) {
    for target in samples {
        let api_version = target["apiVersion"].as_str().unwrap_or_default();
        let kind = target["kind"].as_str().unwrap_or_default();
        let key = annotation(kind, version_of(target).unwrap_or_default());
        for original in samples.iter().filter(|s| s["apiVersion"] != api_version) {
            let mut object = original.clone();
            object["metadata"]["annotations"][&key] = json!("not JSON");
            let response = answer(&[object], api_version, convert);
            assert_eq!(response["result"]["status"], "Failure", "{response}");
            let message = response["result"]["message"].as_str().unwrap_or_default();
            assert!(message.contains(&key), "{message}");
        }
    }
}
