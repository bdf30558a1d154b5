// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Conversion of CronJob through its hub, v1, the storage version: every other served
//! version converts to and from v1 (in `<version>/cron_job_conversion.rs`), and so
//! to any other version through it. `rsbuilder create webhook --conversion` registers new
//! versions here.

use serde_json::Value;

use super::cron_job::{self as hub, CronJob};
use crate::api::batch as group;
use crate::webhooks::conversion::{ConversionError, Read, from_json, to_json, version_of};

/// Converts a CronJob of any served version into `version`, with the fields its types do
/// not know where `version` has their parents.
pub fn convert(object: Value, version: &str) -> Result<Value, ConversionError> {
    if version_of(&object)? == version {
        return Ok(object);
    }
    let (hub, unknown) = to_hub(object)?;
    Ok(unknown.put_into(from_hub(hub, version)?))
}

/// A CronJob of any served version, as the hub, and the fields its version's type does not
/// know.
pub fn to_hub(object: Value) -> Read<CronJob> {
    let version = version_of(&object)?.to_string();
    match version.as_str() {
        "v1" => from_json(object),
        "v1alpha1" => group::v1alpha1::cron_job_conversion::json_to_hub(object),
        "v1beta1" => group::v1beta1::cron_job_conversion::json_to_hub(object),
        // +rsbuilder:scaffold:to-hub
        other => Err(unknown_version(other)),
    }
}

/// The hub as `version`.
pub fn from_hub(hub: CronJob, version: &str) -> Result<Value, ConversionError> {
    match version {
        "v1" => to_json(&hub),
        "v1alpha1" => group::v1alpha1::cron_job_conversion::hub_to_json(hub),
        "v1beta1" => group::v1beta1::cron_job_conversion::hub_to_json(hub),
        // +rsbuilder:scaffold:from-hub
        other => Err(unknown_version(other)),
    }
}

fn unknown_version(version: &str) -> ConversionError {
    ConversionError::UnknownVersion {
        kind: "CronJob".into(),
        version: version.into(),
    }
}

/// A v1 CronJob with a value in every field and two items in every list, for the tests and the
/// benchmark.
pub fn sample() -> hub::CronJob {
    hub::CronJob {
        metadata: kube::core::ObjectMeta {
            name: Some("sample".into()),
            namespace: Some("default".into()),
            uid: Some("9d1f2c3e-0000-4000-8000-000000000001".into()),
            ..Default::default()
        },
        spec: hub::CronJobSpec {
            foo: Some("foo".into()),
        },
        status: Some(sample_cron_job_status()),
    }
}

fn sample_cron_job_status() -> hub::CronJobStatus {
    hub::CronJobStatus {
        conditions: vec![sample_condition(), sample_condition()],
        observed_generation: Some(1),
    }
}

fn sample_condition() -> k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition {
    k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition {
        last_transition_time: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
            Default::default(),
        ),
        message: "message".into(),
        observed_generation: Some(1),
        reason: "Reason".into(),
        status: "True".into(),
        type_: "Ready".into(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::webhooks::conversion::review;
    use crate::webhooks::lossless::annotation;

    /// A sample of every served version of CronJob.
    fn samples() -> Vec<Value> {
        vec![
            to_json(&sample()),
            to_json(&group::v1alpha1::cron_job_conversion::sample()),
            to_json(&group::v1beta1::cron_job_conversion::sample()),
            // +rsbuilder:scaffold:conversion-samples
        ]
        .into_iter()
        .collect::<Result<_, _>>()
        .expect("serializable samples")
    }

    /// The response to a ConversionReview of `objects` asking for `api_version`.
    fn answer(objects: &[Value], api_version: &str) -> Value {
        let request = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "ConversionReview",
            "request": {
                "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
                "desiredAPIVersion": api_version,
                "objects": objects,
            }
        });
        let answer: Value =
            serde_json::from_slice(&review(request.to_string().as_bytes())).expect("JSON");
        let response = answer["response"].clone();
        assert_eq!(response["uid"], "705ab4f5-6393-11e8-b7cc-42010a800002");
        response
    }

    /// `objects` converted to `api_version` through the ConversionReview handler.
    fn convert_all(objects: &[Value], api_version: &str) -> Vec<Value> {
        let response = answer(objects, api_version);
        assert_eq!(response["result"]["status"], "Success", "{response}");
        let converted = response["convertedObjects"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(converted.len(), objects.len(), "{response}");
        converted
    }

    #[test]
    fn a_conversion_review_converts_every_version_into_every_other_and_back() {
        let samples = samples();
        for target in &samples {
            let api_version = target["apiVersion"].as_str().unwrap_or_default();
            let converted = convert_all(&samples, api_version);
            for (original, object) in samples.iter().zip(&converted) {
                assert_eq!(object["apiVersion"], api_version);
                assert_eq!(object["kind"], "CronJob");
                assert_eq!(object["metadata"]["uid"], original["metadata"]["uid"]);
                let back = original["apiVersion"].as_str().unwrap_or_default();
                assert_eq!(
                    convert_all(std::slice::from_ref(object), back),
                    std::slice::from_ref(original),
                    "{back} -> {api_version} -> {back} lost data"
                );
            }
        }
    }

    /// A CRD newer than this binary may declare fields its types do not know: a conversion
    /// carries them over where the other version has their parent, so that a round trip
    /// keeps them.
    #[test]
    fn fields_the_types_do_not_know_survive_every_conversion() {
        let samples: Vec<Value> = samples()
            .into_iter()
            .map(|mut sample| {
                sample["spec"]["addedLater"] = json!({"by": "a newer CRD"});
                sample
            })
            .collect();
        for target in &samples {
            let api_version = target["apiVersion"].as_str().unwrap_or_default();
            for (original, object) in samples.iter().zip(convert_all(&samples, api_version)) {
                assert_eq!(object["spec"]["addedLater"], original["spec"]["addedLater"]);
                let back = original["apiVersion"].as_str().unwrap_or_default();
                assert_eq!(
                    convert_all(&[object], back),
                    std::slice::from_ref(original),
                    "{back} -> {api_version} -> {back} lost a field its types do not know"
                );
            }
        }
    }

    /// The API server converts every object of a LIST in one ConversionReview
    /// (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/#webhook-request-and-response):
    /// 5 MiB of them, beyond axum's default limit of 2 MiB, are read and converted.
    #[tokio::test]
    async fn a_conversion_review_of_five_mib_is_converted() {
        use crate::webhooks::{CONVERSION_PATH, Limits, router, send};

        let mut objects = Vec::new();
        let mut size = 0;
        for mut object in samples().into_iter().cycle() {
            if size >= 5 * 1024 * 1024 {
                break;
            }
            object["metadata"]["annotations"] =
                json!({"example.com/padding": "x".repeat(16 * 1024)});
            size += object.to_string().len();
            objects.push(object);
        }
        let request = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "ConversionReview",
            "request": {
                "uid": "u1",
                "desiredAPIVersion": "batch.example.com/v1",
                "objects": objects,
            }
        });
        let router = router(Limits::default());
        let (status, answer) = send(router, CONVERSION_PATH, request.to_string()).await;
        assert_eq!(status, 200);
        assert_eq!(answer["response"]["result"]["status"], "Success");
        let converted = answer["response"]["convertedObjects"]
            .as_array()
            .map_or(0, Vec::len);
        assert_eq!(converted, objects.len());
    }

    /// Converting the review of a big LIST takes a while: it runs off the async runtime,
    /// so that the other tasks go on meanwhile, here on a runtime of one thread.
    #[tokio::test(flavor = "current_thread")]
    async fn a_review_converts_off_the_async_runtime() {
        let objects: Vec<Value> = samples().into_iter().cycle().take(10_000).collect();
        let request = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "ConversionReview",
            "request": {
                "uid": "u1",
                "desiredAPIVersion": "batch.example.com/v1",
                "objects": objects,
            }
        });
        let body = request.to_string().into();
        let conversion = tokio::spawn(crate::webhooks::conversion::convert(body));
        tokio::task::yield_now().await;
        assert!(
            !conversion.is_finished(),
            "the conversion ran on the runtime's thread until it was done"
        );
        let response = conversion.await.expect("a conversion that does not panic");
        assert_eq!(response.status(), 200);
    }

    #[test]
    fn an_unknown_version_fails_the_review() {
        let unknown = "batch.example.com/v999";
        let response = answer(&samples(), unknown);
        assert_eq!(response["result"]["status"], "Failure");
    }

    /// What a version cannot hold is kept in an annotation; one that cannot be read fails
    /// the review (`result.status: Failure` with the reason, as the ConversionReview
    /// contract has it: https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/#response),
    /// never a silent loss of the values it kept.
    #[test]
    fn a_kept_annotation_that_cannot_be_read_fails_the_review() {
        let samples = samples();
        for target in &samples {
            let api_version = target["apiVersion"].as_str().unwrap_or_default();
            let kind = target["kind"].as_str().unwrap_or_default();
            let key = annotation(kind, version_of(target).unwrap_or_default());
            for original in samples.iter().filter(|s| s["apiVersion"] != api_version) {
                let mut object = original.clone();
                object["metadata"]["annotations"][&key] = json!("not JSON");
                let response = answer(&[object], api_version);
                assert_eq!(response["result"]["status"], "Failure", "{response}");
                let message = response["result"]["message"].as_str().unwrap_or_default();
                assert!(message.contains(&key), "{message}");
            }
        }
    }
}
