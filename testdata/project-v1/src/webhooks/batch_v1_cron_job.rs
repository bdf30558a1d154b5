// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The admission webhooks of CronJob (batch.example.com/v1): the API server calls
//! them before it stores a CronJob. Write the defaults and the rules in the functions
//! below; `rsbuilder_runtime::webhook::admission` answers the AdmissionReviews with them
//! (`super::routes`).

use kube::ResourceExt;
use tracing::debug;

use crate::api::batch::v1::cron_job::CronJob;

/// What `default` gives `spec.foo` when a CronJob comes without one.
pub const DEFAULT_FOO: &str = "default";

/// Sets the defaults of a CronJob that is created or updated. The API server receives
/// them as a JSON patch.
pub fn default(cron_job: &mut CronJob) {
    debug!(name = %cron_job.name_any(), "defaulting a CronJob");
    // TODO(user): the defaults of a CronJob; this example fills in `spec.foo`.
    if cron_job.spec.foo.is_none() {
        cron_job.spec.foo = Some(DEFAULT_FOO.to_string());
    }
}

/// Why `validate_create` refuses a CronJob: the example rule.
pub const EMPTY_FOO: &str = "spec.foo must not be empty";

/// Checks a CronJob that is created; an `Err` rejects it with its message.
pub fn validate_create(cron_job: &CronJob) -> Result<(), String> {
    debug!(name = %cron_job.name_any(), "validating a new CronJob");
    // TODO(user): the rules of a new CronJob; this example refuses an empty `spec.foo`.
    if cron_job.spec.foo.as_deref() == Some("") {
        return Err(EMPTY_FOO.into());
    }
    Ok(())
}

/// Checks a change of a CronJob, from `old` to `new`.
pub fn validate_update(old: &CronJob, new: &CronJob) -> Result<(), String> {
    debug!(name = %new.name_any(), "validating a change of a CronJob");
    // TODO(user): the rules of a change, e.g. fields that must not change; this example
    // keeps those of a new CronJob.
    let _ = old;
    validate_create(new)
}

/// Checks the deletion of a CronJob. The API server asks only once DELETE is added to
/// the webhook's operations, as `config/webhook/kustomization.yaml` shows.
pub fn validate_delete(cron_job: &CronJob) -> Result<(), String> {
    debug!(name = %cron_job.name_any(), "validating the deletion of a CronJob");
    // TODO(user): what must hold before a CronJob may be deleted.
    Ok(())
}

// +rsbuilder:scaffold:webhook-functions

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use rsbuilder_runtime::webhook::testing::{admission_review, admit};

    use crate::api::batch::v1::cron_job as kind;

    /// The answer of the webhook at `path` to an AdmissionReview, as the API server sends it.
    async fn call(path: &str, operation: &str, object: Value, old_object: Value) -> Value {
        let review = admission_review::<kind::CronJob>(operation, object, old_object);
        admit(crate::webhooks::routes(), path, review).await
    }

    /// A CronJob, as JSON.
    fn object() -> Value {
        serde_json::to_value(sample()).expect("a serializable sample")
    }

    /// A v1 CronJob with a value in every field and two items in every list, for the tests and the
    /// benchmark.
    fn sample() -> kind::CronJob {
        kind::CronJob {
            metadata: kube::core::ObjectMeta {
                name: Some("sample".into()),
                namespace: Some("default".into()),
                uid: Some("9d1f2c3e-0000-4000-8000-000000000001".into()),
                ..Default::default()
            },
            spec: kind::CronJobSpec {
                foo: Some("foo".into()),
            },
            status: Some(sample_cron_job_status()),
        }
    }

    fn sample_cron_job_status() -> kind::CronJobStatus {
        kind::CronJobStatus {
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

    /// The example default: a CronJob sent without `spec.foo` gets `DEFAULT_FOO` by a
    /// JSON patch; one sent with it gets no patch.
    #[tokio::test]
    async fn the_defaulting_webhook_fills_in_foo_and_keeps_a_given_one() {
        let path = "/mutate-batch-example-com-v1-cronjob";
        let mut sent = object();
        sent["spec"].as_object_mut().expect("a spec").remove("foo");
        let answer = call(path, "CREATE", sent, Value::Null).await;
        assert_eq!(answer["allowed"], true, "{answer}");
        let patch: Vec<u8> = serde_json::from_value(answer["patch"].clone()).expect("a patch");
        let patch: Value = serde_json::from_slice(&patch).expect("a JSON patch");
        let added = serde_json::json!([
            {"op": "add", "path": "/spec/foo", "value": super::DEFAULT_FOO}
        ]);
        assert_eq!(patch, added);
        let answer = call(path, "CREATE", object(), Value::Null).await;
        assert_eq!(answer["allowed"], true, "{answer}");
        assert_eq!(answer["patch"], Value::Null, "{answer}");
    }

    /// A field this version of the manager does not know (from a newer CRD, during a rolling
    /// upgrade) is data the API server stores: the defaulting patch leaves it alone.
    #[tokio::test]
    async fn the_defaulting_webhook_keeps_fields_it_does_not_know() {
        let path = "/mutate-batch-example-com-v1-cronjob";
        let mut sent = object();
        sent["spec"]["fieldOfANewerVersion"] = serde_json::json!({"kept": true});
        let answer = call(path, "CREATE", sent, Value::Null).await;
        assert_eq!(answer["allowed"], true, "{answer}");
        let patch: Vec<u8> = serde_json::from_value(answer["patch"].clone()).unwrap_or_default();
        let patch = String::from_utf8_lossy(&patch);
        assert!(!patch.contains("fieldOfANewerVersion"), "{patch}");
    }
    #[tokio::test]
    async fn the_validating_webhook_answers_every_operation() {
        let path = "/validate-batch-example-com-v1-cronjob";
        for (operation, object, old_object) in [
            ("CREATE", object(), Value::Null),
            ("UPDATE", object(), object()),
            ("DELETE", Value::Null, object()),
        ] {
            let answer = call(path, operation, object, old_object).await;
            assert_eq!(answer["allowed"], true, "{operation}: {answer}");
        }
    }

    /// The example rule: a CronJob created or changed with an empty `spec.foo` is refused,
    /// with the rule's message.
    #[tokio::test]
    async fn the_validating_webhook_refuses_an_empty_foo() {
        let path = "/validate-batch-example-com-v1-cronjob";
        let mut empty = object();
        empty["spec"]["foo"] = serde_json::json!("");
        for (operation, object, old_object) in [
            ("CREATE", empty.clone(), Value::Null),
            ("UPDATE", empty, object()),
        ] {
            let answer = call(path, operation, object, old_object).await;
            assert_eq!(answer["allowed"], false, "{operation}: {answer}");
            let message = &answer["status"]["message"];
            assert_eq!(message, super::EMPTY_FOO, "{operation}: {answer}");
        }
    }
    // +rsbuilder:scaffold:webhook-tests
}
