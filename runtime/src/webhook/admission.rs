//! The defaulting and validating webhooks: a project's kind supplies typed `default` and
//! `validate_*` functions, and [`defaulting`] and [`validating`] make them handlers that
//! speak AdmissionReview.
//!
//! Nothing here panics on what the API server (or anyone else) sends: a request that
//! cannot be read is denied with the reason.

use axum::body::Bytes;
use axum::routing::{MethodRouter, post};
use kube::core::admission::{AdmissionRequest, AdmissionResponse, AdmissionReview, Operation};
use kube::core::{DynamicObject, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// What a validating function decides: `Err` denies the request with its message.
pub type Verdict = Result<(), String>;

/// The defaulting webhook of `K`: `POST`ed AdmissionReviews are answered with a patch of
/// what `default` changed ([`mutate`]).
pub fn defaulting<K>(default: fn(&mut K)) -> MethodRouter
where
    K: Resource + Serialize + DeserializeOwned + Send + 'static,
{
    post(move |body: Bytes| async move { super::json(&mutate(&body, default)) })
}

/// [`defaulting`] whose patch also removes what `K` does not read ([`mutate_pruning`]).
pub fn defaulting_pruning<K>(default: fn(&mut K)) -> MethodRouter
where
    K: Resource + Serialize + DeserializeOwned + Send + 'static,
{
    post(move |body: Bytes| async move { super::json(&mutate_pruning(&body, default)) })
}

/// The validating webhook of `K`: `POST`ed AdmissionReviews are answered with the verdict
/// of `create`, `update` (old object, new object) or `delete` ([`validate`]).
pub fn validating<K>(
    create: fn(&K) -> Verdict,
    update: fn(&K, &K) -> Verdict,
    delete: fn(&K) -> Verdict,
) -> MethodRouter
where
    K: Resource + Serialize + DeserializeOwned + Send + 'static,
{
    post(move |body: Bytes| async move { super::json(&validate(&body, create, update, delete)) })
}

/// Answers a defaulting (mutating) AdmissionReview: runs `default` on the object and
/// answers with a JSON patch of what `default` changed. The API server applies the patch to
/// the object as it sent it (<https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#response>),
/// so fields the type does not know (from a newer CRD, during a rolling upgrade) and values
/// the type writes differently stay as they were: controller-runtime's defaulter keeps
/// them too, unless asked to remove them ([`mutate_pruning`]).
pub fn mutate<K>(body: &[u8], default: impl Fn(&mut K)) -> AdmissionReview<DynamicObject>
where
    K: Resource + Serialize + DeserializeOwned,
{
    answer_defaulting(body, default, Unknown::Keep)
}

/// [`mutate`], whose patch also removes what the type does not read: the object stored is
/// exactly the type's (controller-runtime's `DefaulterRemoveUnknownOrOmitableFields`).
pub fn mutate_pruning<K>(body: &[u8], default: impl Fn(&mut K)) -> AdmissionReview<DynamicObject>
where
    K: Resource + Serialize + DeserializeOwned,
{
    answer_defaulting(body, default, Unknown::Remove)
}

/// What a defaulting patch does with what the type does not read.
#[derive(Clone, Copy)]
enum Unknown {
    Keep,
    Remove,
}

fn answer_defaulting<K>(
    body: &[u8],
    default: impl Fn(&mut K),
    unknown: Unknown,
) -> AdmissionReview<DynamicObject>
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
    let before = serde_json::to_value(&object);
    default(&mut object);
    let (before, after) = match (before, serde_json::to_value(&object)) {
        (Ok(before), Ok(after)) => (before, after),
        (Err(error), _) | (_, Err(error)) => {
            return response
                .deny(format!("cannot serialize the object: {error}"))
                .into_review();
        }
    };
    let target = match unknown {
        Unknown::Keep => rebase(&sent, &before, &after),
        Unknown::Remove => after,
    };
    let patch = json_patch::diff(&sent, &target);
    if patch.0.is_empty() {
        return response.into_review();
    }
    match response.clone().with_patch(patch) {
        Ok(patched) => patched.into_review(),
        Err(error) => response.deny(error).into_review(),
    }
}

/// `sent` with the changes that turned `before` into `after` (the object as the type reads
/// it, before and after defaulting), and nothing else of `after`: objects change key by
/// key, arrays item by item while defaulting keeps their length; any other value it
/// changed is taken whole from `after`, with the items it kept as they were sent.
fn rebase(sent: &Value, before: &Value, after: &Value) -> Value {
    if before == after {
        return sent.clone();
    }
    match (sent, before, after) {
        (Value::Object(sent), Value::Object(before), Value::Object(after)) => {
            let mut out = sent.clone();
            for (key, new) in after {
                match (sent.get(key), before.get(key)) {
                    (_, Some(old)) if old == new => {}
                    (Some(sent), Some(old)) => {
                        out.insert(key.clone(), rebase(sent, old, new));
                    }
                    _ => {
                        out.insert(key.clone(), new.clone());
                    }
                }
            }
            for key in before.keys().filter(|key| !after.contains_key(*key)) {
                out.remove(key);
            }
            Value::Object(out)
        }
        (Value::Array(sent), Value::Array(before), Value::Array(after))
            if sent.len() == before.len() =>
        {
            let items = if before.len() == after.len() {
                sent.iter()
                    .zip(before)
                    .zip(after)
                    .map(|((sent, old), new)| rebase(sent, old, new))
                    .collect()
            } else {
                after
                    .iter()
                    .map(|new| {
                        before
                            .iter()
                            .zip(sent)
                            .find(|(old, _)| *old == new)
                            .map_or_else(|| new.clone(), |(_, kept)| kept.clone())
                    })
                    .collect()
            };
            Value::Array(items)
        }
        _ => after.clone(),
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
    use k8s_openapi::api::core::v1::{ConfigMap, Container, Pod};
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

    /// The JSON patch of a defaulting answer, as operations.
    fn patch_of(answer: &Value) -> Value {
        let bytes: Vec<u8> = serde_json::from_value(answer["patch"].clone()).unwrap_or_default();
        serde_json::from_slice(&bytes).unwrap_or(Value::Null)
    }

    /// A field the type does not know (from a newer CRD, during a rolling upgrade) and a
    /// value the type writes differently (a timestamp's offset) are the API server's data:
    /// the patch holds what `default` changed and nothing else.
    #[test]
    fn defaulting_patches_only_what_it_changed() {
        let mut sent = config_map(json!({"a": "1"}));
        sent["fromANewerVersion"] = json!({"kept": [1, 2]});
        sent["metadata"]["creationTimestamp"] = json!("2024-05-01T10:00:00+00:00");
        let body = review("CREATE", sent.clone(), Value::Null);
        let answer = response(mutate(&body, |cm: &mut ConfigMap| {
            cm.data
                .get_or_insert_default()
                .insert("b".into(), "2".into());
        }));
        assert_eq!(answer["allowed"], true, "{answer}");
        assert_eq!(
            patch_of(&answer),
            json!([{"op": "add", "path": "/data/b", "value": "2"}])
        );

        let body = review("CREATE", sent, Value::Null);
        let answer = response(mutate(&body, |_: &mut ConfigMap| {}));
        assert!(answer.get("patch").is_none(), "{answer}");
    }

    /// Items of a list keep what the type does not know, whether defaulting changes an item
    /// or adds one.
    #[test]
    fn defaulting_keeps_unknown_fields_of_list_items() {
        let pod = json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "sample"},
            "spec": {"containers": [{"name": "app", "image": "app:1", "fromANewerVersion": 1}]}
        });
        let body = review("CREATE", pod, Value::Null);
        let answer = response(mutate(&body, |pod: &mut Pod| {
            if let Some(spec) = pod.spec.as_mut() {
                spec.containers[0].image_pull_policy = Some("Always".into());
            }
        }));
        assert_eq!(
            patch_of(&answer),
            json!([{"op": "add", "path": "/spec/containers/0/imagePullPolicy", "value": "Always"}])
        );
        let answer = response(mutate(&body, |pod: &mut Pod| {
            if let Some(spec) = pod.spec.as_mut() {
                spec.containers.push(Container {
                    name: "sidecar".into(),
                    ..Container::default()
                });
            }
        }));
        assert_eq!(
            patch_of(&answer),
            json!([{"op": "add", "path": "/spec/containers/1", "value": {"name": "sidecar"}}])
        );
    }

    #[test]
    fn pruning_defaulting_removes_what_the_type_does_not_know() {
        let mut sent = config_map(json!({"a": "1"}));
        sent["fromANewerVersion"] = json!(true);
        let body = review("CREATE", sent, Value::Null);
        let answer = response(mutate_pruning(&body, |_: &mut ConfigMap| {}));
        assert_eq!(
            patch_of(&answer),
            json!([{"op": "remove", "path": "/fromANewerVersion"}])
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
