// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! Throughput of the conversion webhook: ConversionReviews of 100 objects, from each
//! version of a kind to its hub and back, and back again with what the hub holds and the
//! other version cannot kept in an annotation. Run it with `cargo bench --bench conversion`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde::Serialize;
use serde_json::{Value, json};

use rsbuilder_runtime::webhook::conversion::{convert_object, review};

use project_v1::webhooks::CONVERSIONS;

/// Objects in each ConversionReview.
const OBJECTS: usize = 100;

/// A ConversionReview of `OBJECTS` copies of `object`, asking for `api_version`.
fn conversion_review(object: &impl Serialize, api_version: &str) -> Vec<u8> {
    let object = serde_json::to_value(object).expect("a serializable object");
    let objects: Vec<Value> = (0..OBJECTS).map(|_| object.clone()).collect();
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {
            "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
            "desiredAPIVersion": api_version,
            "objects": objects,
        }
    })
    .to_string()
    .into_bytes()
}

/// `object` as a client of `api_version` reads it: with what that version cannot hold kept
/// in an annotation, put back when the object is converted back.
fn read_as(object: &impl Serialize, api_version: &str) -> Value {
    let object = serde_json::to_value(object).expect("a serializable object");
    convert_object(object, api_version, CONVERSIONS).expect("a convertible object")
}

/// Each case: a name, and a ConversionReview.
fn cases() -> Vec<(String, Vec<u8>)> {
    let mut cases = Vec::new();
    {
        use project_v1::api::batch::{v1, v1alpha1};
        let hub = v1::cron_job_conversion::sample();
        let spoke = v1alpha1::cron_job_conversion::sample();
        let read = read_as(&hub, "batch.example.com/v1alpha1");
        cases.push((
            "CronJob v1alpha1 to v1".to_string(),
            conversion_review(&spoke, "batch.example.com/v1"),
        ));
        cases.push((
            "CronJob v1 to v1alpha1".to_string(),
            conversion_review(&hub, "batch.example.com/v1alpha1"),
        ));
        cases.push((
            "CronJob v1 read as v1alpha1, back to v1".to_string(),
            conversion_review(&read, "batch.example.com/v1"),
        ));
    }
    {
        use project_v1::api::batch::{v1, v1beta1};
        let hub = v1::cron_job_conversion::sample();
        let spoke = v1beta1::cron_job_conversion::sample();
        let read = read_as(&hub, "batch.example.com/v1beta1");
        cases.push((
            "CronJob v1beta1 to v1".to_string(),
            conversion_review(&spoke, "batch.example.com/v1"),
        ));
        cases.push((
            "CronJob v1 to v1beta1".to_string(),
            conversion_review(&hub, "batch.example.com/v1beta1"),
        ));
        cases.push((
            "CronJob v1 read as v1beta1, back to v1".to_string(),
            conversion_review(&read, "batch.example.com/v1"),
        ));
    }
    // +rsbuilder:scaffold:conversion-benches
    cases
}

fn conversion(c: &mut Criterion) {
    let mut group = c.benchmark_group("conversion");
    group.throughput(Throughput::Elements(OBJECTS as u64));
    for (name, body) in cases() {
        group.bench_function(name, |b| b.iter(|| review(&body, CONVERSIONS)));
    }
    group.finish();
}

criterion_group!(benches, conversion);
criterion_main!(benches);
