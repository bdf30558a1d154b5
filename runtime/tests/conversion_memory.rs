//! What converting a ConversionReview takes in memory. The API server converts every
//! object of a LIST in one review, so the largest review the webhook reads
//! (`webhook::CONVERSION_BODY_LIMIT`) must convert within the manager's memory limit
//! (`config/default/manager_webhook_patch.yaml`): objects are converted one at a time,
//! and the review takes little more than its body and its answer.
//!
//! A test binary of its own, with one test: its allocator counts every byte allocated.

use serde_json::{Value, json};

use rsbuilder_runtime::webhook::conversion::{ConversionError, review};

#[path = "support/allocations.rs"]
mod allocations;

#[global_allocator]
static ALLOCATOR: allocations::Counting = allocations::Counting;

/// Objects in the review: a LIST of 10,000, as the envtest tests of the conversions list.
const OBJECTS: usize = 10_000;

/// A Widget of `example.com/<version>`, each version holding what the others do.
fn relabel(mut object: Value, version: &str) -> Result<Value, ConversionError> {
    object["apiVersion"] = json!(format!("example.com/{version}"));
    Ok(object)
}

#[test]
fn a_review_of_ten_thousand_objects_converts_in_about_twice_its_size() {
    let objects: Vec<Value> = (0..OBJECTS)
        .map(|n| {
            json!({
                "apiVersion": "example.com/v1",
                "kind": "Widget",
                "metadata": {"name": format!("sample-{n}"), "namespace": "default"},
                "spec": {"size": n, "labels": {"app": "widget", "tier": "backend"}},
                "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "Reason"}]}
            })
        })
        .collect();
    let body = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {
            "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
            "desiredAPIVersion": "example.com/v1alpha1",
            "objects": objects,
        }
    })
    .to_string()
    .into_bytes();
    drop(objects);

    let measure = allocations::Peak::start();
    let answer = review(&body, &[("example.com", "Widget", relabel)]);
    let peak = measure.bytes();

    let answer: Value = serde_json::from_slice(&answer).expect("a JSON answer");
    let response = &answer["response"];
    let result = &response["result"];
    assert_eq!(result["status"], "Success", "{result}");
    let converted = response["convertedObjects"].as_array().map_or(0, Vec::len);
    assert_eq!(converted, OBJECTS);
    // The answer, about the size of the body, and room for one object at a time.
    let size = body.len();
    println!("a review of {size} bytes took {peak} bytes more at its peak");
    assert!(
        peak <= 3 * size,
        "converting a review of {size} bytes took {peak} bytes more at its peak"
    );
}
