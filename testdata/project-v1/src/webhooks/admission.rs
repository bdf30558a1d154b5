// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The AdmissionReview plumbing of the defaulting and validating webhooks, shared by every
//! kind: each kind's module only supplies typed `default` and `validate_*` functions.
//!
//! Nothing here panics on what the API server (or anyone else) sends: a request that
//! cannot be read is denied with the reason.

use kube::core::admission::{AdmissionRequest, AdmissionResponse, AdmissionReview, Operation};
use kube::core::{DynamicObject, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// What a validating function decides: `Err` denies the request with its message.
pub type Verdict = Result<(), String>;

/// Answers a defaulting (mutating) AdmissionReview: runs `default` on the object and
/// answers with the JSON patch that turns the object as sent into the defaulted one.
pub fn mutate<K>(body: &[u8], default: impl Fn(&mut K)) -> AdmissionReview<DynamicObject>
where
    K: Resource + Serialize + DeserializeOwned,
{
    let (request, sent) = match read::<K>(body) {
        Ok(read) => read,
        Err(denied) => return denied.into_review(),
    };
    let response = AdmissionResponse::from(&request);
    let (Some(mut object), Some(sent)) = (request.object, sent) else {
        // DELETE and CONNECT carry no object to default.
        return response.into_review();
    };
    default(&mut object);
    let defaulted = match serde_json::to_value(&object) {
        Ok(value) => value,
        Err(error) => {
            return response
                .deny(format!("cannot serialize the object: {error}"))
                .into_review();
        }
    };
    let patch = json_patch::diff(&sent, &defaulted);
    if patch.0.is_empty() {
        return response.into_review();
    }
    match response.clone().with_patch(patch) {
        Ok(patched) => patched.into_review(),
        Err(error) => response.deny(error).into_review(),
    }
}

/// Answers a validating AdmissionReview with the verdict of `create`, `update` (old
/// object, new object) or `delete`, by the request's operation.
pub fn validate<K>(
    body: &[u8],
    create: impl Fn(&K) -> Verdict,
    update: impl Fn(&K, &K) -> Verdict,
    delete: impl Fn(&K) -> Verdict,
) -> AdmissionReview<DynamicObject>
where
    K: Resource + Serialize + DeserializeOwned,
{
    let (request, _) = match read::<K>(body) {
        Ok(read) => read,
        Err(denied) => return denied.into_review(),
    };
    let response = AdmissionResponse::from(&request);
    let verdict = match (&request.operation, &request.object, &request.old_object) {
        (Operation::Create, Some(new), _) => create(new),
        (Operation::Update, Some(new), Some(old)) => update(old, new),
        (Operation::Delete, _, Some(old)) => delete(old),
        (Operation::Connect, _, _) => Ok(()),
        (operation, _, _) => Err(format!(
            "a {operation:?} request without the object it is about"
        )),
    };
    match verdict {
        Ok(()) => response.into_review(),
        Err(message) => response.deny(message).into_review(),
    }
}

/// The typed request, and the object exactly as it was sent (what a patch applies to);
/// or a response that denies what cannot be read, with the request's uid when it has one.
fn read<K>(body: &[u8]) -> Result<(AdmissionRequest<K>, Option<Value>), Box<AdmissionResponse>>
where
    K: Resource + DeserializeOwned,
{
    let invalid = |uid: Option<&str>, message: String| {
        let mut response = AdmissionResponse::invalid(message);
        response.uid = uid.unwrap_or_default().to_string();
        Box::new(response)
    };
    let review: Value = serde_json::from_slice(body)
        .map_err(|error| invalid(None, format!("not an AdmissionReview: {error}")))?;
    let uid = review
        .pointer("/request/uid")
        .and_then(Value::as_str)
        .map(str::to_string);
    let sent = review
        .pointer("/request/object")
        .filter(|o| o.is_object())
        .cloned();
    let review: AdmissionReview<K> = serde_json::from_value(review).map_err(|error| {
        invalid(
            uid.as_deref(),
            format!("cannot read the AdmissionReview: {error}"),
        )
    })?;
    let request = review
        .try_into()
        .map_err(|error| invalid(uid.as_deref(), format!("{error}")))?;
    Ok((request, sent))
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;
    use serde_json::json;

    use super::*;

    fn review(operation: &str, object: Value, old: Value) -> Vec<u8> {
        json!({
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "request": {
                "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
                "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
                "resource": {"group": "", "version": "v1", "resource": "configmaps"},
                "name": "sample",
                "namespace": "default",
                "operation": operation,
                "userInfo": {"username": "admin", "groups": ["system:masters"]},
                "object": object,
                "oldObject": old,
                "dryRun": false
            }
        })
        .to_string()
        .into_bytes()
    }

    fn config_map(data: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "sample"}, "data": data})
    }

    fn response(review: AdmissionReview<DynamicObject>) -> Value {
        serde_json::to_value(review)
            .expect("a serializable review")
            .get("response")
            .cloned()
            .expect("a response")
    }

    #[test]
    fn defaulting_answers_with_the_json_patch_of_the_change() {
        let body = review("CREATE", config_map(json!({"a": "1"})), Value::Null);
        let answer = response(mutate(&body, |cm: &mut ConfigMap| {
            cm.data
                .get_or_insert_default()
                .insert("b".into(), "2".into());
        }));
        assert_eq!(answer["uid"], "705ab4f5-6393-11e8-b7cc-42010a800002");
        assert_eq!(answer["allowed"], true);
        assert_eq!(answer["patchType"], "JSONPatch");
        let patch: Value = serde_json::from_slice(
            &serde_json::from_value::<Vec<u8>>(answer["patch"].clone()).expect("patch bytes"),
        )
        .expect("a JSON patch");
        assert_eq!(
            patch,
            json!([{"op": "add", "path": "/data/b", "value": "2"}])
        );
    }

    #[test]
    fn defaulting_that_changes_nothing_sends_no_patch() {
        let body = review("CREATE", config_map(json!({"a": "1"})), Value::Null);
        let answer = response(mutate(&body, |_: &mut ConfigMap| {}));
        assert_eq!(answer["allowed"], true);
        assert!(answer.get("patch").is_none(), "{answer}");
    }

    #[test]
    fn validation_denies_with_the_message() {
        let create = |cm: &ConfigMap| match &cm.data {
            Some(data) if data.contains_key("forbidden") => Err("`forbidden` is forbidden".into()),
            _ => Ok(()),
        };
        let body = review("CREATE", config_map(json!({"forbidden": "x"})), Value::Null);
        let answer = response(validate(&body, create, |_, _| Ok(()), |_| Ok(())));
        assert_eq!(answer["allowed"], false);
        assert_eq!(answer["status"]["message"], "`forbidden` is forbidden");

        let body = review("CREATE", config_map(json!({"fine": "x"})), Value::Null);
        let answer = response(validate(&body, create, |_, _| Ok(()), |_| Ok(())));
        assert_eq!(answer["allowed"], true);
    }

    #[test]
    fn updates_and_deletes_see_the_old_object() {
        let update = |old: &ConfigMap, new: &ConfigMap| {
            if old.data == new.data {
                Ok(())
            } else {
                Err("immutable".to_string())
            }
        };
        let body = review(
            "UPDATE",
            config_map(json!({"a": "2"})),
            config_map(json!({"a": "1"})),
        );
        let answer = response(validate(&body, |_| Ok(()), update, |_| Ok(())));
        assert_eq!(answer["allowed"], false);

        let body = review("DELETE", Value::Null, config_map(json!({"keep": "x"})));
        let answer = response(validate(
            &body,
            |_| Ok(()),
            |_, _| Ok(()),
            |_: &ConfigMap| Err("keep it".to_string()),
        ));
        assert_eq!(answer["status"]["message"], "keep it");
    }

    #[test]
    fn malformed_requests_are_denied_not_panicked_on() {
        for body in [
            b"not json".to_vec(),
            b"{}".to_vec(),
            br#"{"request": {"uid": "u1"}}"#.to_vec(),
            review("CREATE", json!({"data": 42}), Value::Null),
        ] {
            let answer = response(validate(
                &body,
                |_: &ConfigMap| Ok(()),
                |_, _| Ok(()),
                |_| Ok(()),
            ));
            assert_eq!(answer["allowed"], false, "{answer}");
            let answer = response(mutate(&body, |_: &mut ConfigMap| {}));
            assert_eq!(answer["allowed"], false, "{answer}");
        }
        let answer = response(mutate(
            br#"{"request": {"uid": "u1"}}"#,
            |_: &mut ConfigMap| {},
        ));
        assert_eq!(answer["uid"], "u1");
    }
}
