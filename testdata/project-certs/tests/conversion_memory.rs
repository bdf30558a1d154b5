// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! What converting a ConversionReview takes in memory, with Frigate as the example. The API
//! server converts every object of a LIST in one review, so the largest review the webhook
//! reads (`webhooks::CONVERSION_BODY_LIMIT`) must convert within the manager's memory
//! limit (`config/default/manager_webhook_patch.yaml`): objects are converted one at a
//! time, and the review takes little more than its body and its answer.
//!
//! A test binary of its own, with one test: its allocator counts every byte allocated.

use serde_json::{Value, json};

use project_certs::api::ship::v2::frigate_conversion::sample;
use project_certs::webhooks::conversion::review;

#[path = "support/allocations.rs"]
mod allocations;

#[global_allocator]
static ALLOCATOR: allocations::Counting = allocations::Counting;

/// Objects in the review: a LIST of 10,000, as the envtest test of the conversion lists.
const OBJECTS: usize = 10_000;

#[test]
fn a_review_of_ten_thousand_objects_converts_in_about_twice_its_size() {
    let object = serde_json::to_value(sample()).expect("a serializable sample");
    let objects: Vec<Value> = (0..OBJECTS)
        .map(|n| {
            let mut object = object.clone();
            object["metadata"]["name"] = json!(format!("sample-{n}"));
            object
        })
        .collect();
    let body = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {
            "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
            "desiredAPIVersion": "ship.example.com/v1",
            "objects": objects,
        }
    })
    .to_string()
    .into_bytes();
    drop(objects);

    let measure = allocations::Peak::start();
    let answer = review(&body);
    let peak = measure.bytes();

    let answer: Value = serde_json::from_slice(&answer).expect("a JSON answer");
    let response = &answer["response"];
    let result = &response["result"];
    assert_eq!(result["status"], "Success", "{result}");
    let converted = response["convertedObjects"].as_array().map_or(0, Vec::len);
    assert_eq!(converted, OBJECTS);
    // The answer, about the size of the body (more where v1 keeps what it cannot
    // hold in an annotation), and room for one object at a time.
    let size = body.len();
    println!("a review of {size} bytes took {peak} bytes more at its peak");
    assert!(
        peak <= 3 * size,
        "converting a review of {size} bytes took {peak} bytes more at its peak"
    );
}
