// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The conversion webhook, `POST /convert`: the API server sends objects of one version of
//! a kind and asks for another. Each kind converts through its hub, the storage version
//! (see `src/api/<group>/<hub>/<kind>_conversion.rs`); `rsbuilder create webhook
//! --conversion` registers the kind in [`convert_object`].
//!
//! The conversions keep every value: what the target version cannot hold is kept in an
//! annotation on the converted object, and restored when the object is converted back
//! (see [`super::lossless`]).

use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use kube::core::Resource;
use kube::core::Status;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::lossless::Unknown;

/// Why an object cannot be converted; the API server shows the message to the user.
#[derive(Debug, thiserror::Error)]
pub enum ConversionError {
    #[error("the object has no {0}")]
    Missing(&'static str),
    #[error("{kind} has no version {version} to convert to or from")]
    UnknownVersion { kind: String, version: String },
    #[error("this webhook does not convert {kind} of the group {group}")]
    UnknownKind { group: String, kind: String },
    #[error("the object cannot be read: {0}")]
    Unreadable(serde_json::Error),
    #[error("the object is not a valid {version} {kind}: {source}")]
    Invalid {
        kind: String,
        version: String,
        source: serde_json::Error,
    },
    #[error("cannot serialize the converted object: {0}")]
    Serialize(serde_json::Error),
    #[error(
        "cannot put back the values kept in the annotation {annotation}: {reason}; \
         remove the annotation to give them up"
    )]
    Kept { annotation: String, reason: String },
    #[error(
        "what this version cannot hold ({size} bytes, most of it at {field}) does not fit in the \
         annotation {annotation}: the API server takes {limit} bytes of annotations in all"
    )]
    TooLarge {
        annotation: String,
        size: usize,
        field: String,
        limit: usize,
    },
}

/// `POST /convert`. A review of a LIST holds every object of it, and converting them takes
/// a while: it runs off the async runtime, so that probes, leader election and the
/// controllers go on meanwhile.
pub async fn convert(body: Bytes) -> Response {
    match tokio::task::spawn_blocking(move || review(&body)).await {
        Ok(answer) => super::json_body(answer),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// A ConversionReview as the API server sends it, each object left as its text in the
/// body until it is converted: as `serde_json::Value`s, the objects of a LIST would take
/// several times the body at once.
#[derive(Deserialize)]
struct Review<'a> {
    #[serde(borrow)]
    request: Request<'a>,
}

#[derive(Deserialize)]
struct Request<'a> {
    uid: String,
    #[serde(rename = "desiredAPIVersion")]
    desired_api_version: String,
    #[serde(borrow)]
    objects: Vec<&'a RawValue>,
}

/// Answers a ConversionReview, as the body of the response: every object converted to
/// the desired version, or a failure Status naming the first object that could not be.
/// Objects are converted one at a time and written straight into the answer, so that
/// converting a review takes little more memory than its body and the answer.
pub fn review(body: &[u8]) -> Vec<u8> {
    let request = match serde_json::from_slice::<Review>(body) {
        Ok(review) => review.request,
        Err(error) => {
            let message = format!("not a ConversionReview: {error}");
            return failure("", Status::failure(&message, "BadRequest").with_code(400));
        }
    };
    let desired = &request.desired_api_version;
    let mut answer = Vec::with_capacity(body.len());
    // The envelope is written by hand around the objects, which are written as they
    // are converted; `result` comes first, as an answer that fails is written anew.
    answer.extend_from_slice(
        br#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"#,
    );
    answer.extend_from_slice(Value::from(request.uid.as_str()).to_string().as_bytes());
    answer.extend_from_slice(br#","result":{"status":"Success"},"convertedObjects":["#);
    for (index, object) in request.objects.iter().enumerate() {
        if index > 0 {
            answer.push(b',');
        }
        let converted = serde_json::from_str(object.get())
            .map_err(ConversionError::Unreadable)
            .and_then(|object| convert_object(object, desired))
            .and_then(|converted| {
                serde_json::to_writer(&mut answer, &converted).map_err(ConversionError::Serialize)
            });
        if let Err(error) = converted {
            let message = format!("cannot convert object {index} to {desired}: {error}");
            return failure(
                &request.uid,
                Status::failure(&message, "Invalid").with_code(422),
            );
        }
    }
    answer.extend_from_slice(b"]}}");
    answer
}

/// The answer to the review `uid` that failed with `status`.
fn failure(uid: &str, status: Status) -> Vec<u8> {
    let answer = serde_json::json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "response": {"uid": uid, "result": status},
    });
    answer.to_string().into_bytes()
}

/// Converts one object to `desired_api_version` (`<group>/<version>`).
pub fn convert_object(object: Value, desired_api_version: &str) -> Result<Value, ConversionError> {
    let (group, version) = desired_api_version
        .split_once('/')
        .ok_or(ConversionError::Missing("group in the desired apiVersion"))?;
    let kind = object
        .get("kind")
        .and_then(Value::as_str)
        .ok_or(ConversionError::Missing("kind"))?
        .to_string();
    match (group, kind.as_str()) {
        ("batch.example.com", "CronJob") => {
            crate::api::batch::v1::cron_job_conversion::convert(object, version)
        }
        // +rsbuilder:scaffold:conversion-kinds
        _ => Err(ConversionError::UnknownKind {
            group: group.to_string(),
            kind,
        }),
    }
}

/// The version part of an object's `apiVersion`.
pub fn version_of(object: &Value) -> Result<&str, ConversionError> {
    object
        .get("apiVersion")
        .and_then(Value::as_str)
        .map(|api_version| api_version.rsplit('/').next().unwrap_or(api_version))
        .ok_or(ConversionError::Missing("apiVersion"))
}

/// An object read as the Rust type of its version, and the fields that type does not know,
/// for the conversion to carry over.
pub type Read<K> = Result<(K, Unknown), ConversionError>;

/// Reads an object as the Rust type of its version.
pub fn from_json<K>(object: Value) -> Read<K>
where
    K: Resource<DynamicType = ()> + DeserializeOwned + Serialize,
{
    let typed = K::deserialize(&object).map_err(|source| ConversionError::Invalid {
        kind: K::kind(&()).into_owned(),
        version: K::version(&()).into_owned(),
        source,
    })?;
    let unknown = Unknown::of(&object, &to_json(&typed)?);
    Ok((typed, unknown))
}

/// Writes an object, with the `apiVersion` of its type.
pub fn to_json<K: Serialize>(object: &K) -> Result<Value, ConversionError> {
    serde_json::to_value(object).map_err(ConversionError::Serialize)
}

/// A map with each value converted by `convert`: how conversions copy maps of structs.
pub fn map_values<M, A, B, N>(map: M, convert: fn(A) -> B) -> N
where
    M: IntoIterator<Item = (String, A)>,
    N: FromIterator<(String, B)>,
{
    map.into_iter()
        .map(|(key, value)| (key, convert(value)))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn malformed_reviews_get_a_failure_status() {
        for body in [
            &b"not json"[..],
            b"{}",
            br#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview"}"#,
        ] {
            let review: Value = serde_json::from_slice(&review(body)).expect("JSON");
            assert_eq!(
                review["response"]["result"]["status"], "Failure",
                "{review}"
            );
        }
    }

    #[test]
    fn unknown_kinds_and_objects_without_a_kind_fail() {
        let body = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "ConversionReview",
            "request": {
                "uid": "u1",
                "desiredAPIVersion": "other.example.com/v1",
                "objects": [{"apiVersion": "other.example.com/v2", "kind": "Other", "metadata": {"name": "x"}}]
            }
        });
        let review: Value =
            serde_json::from_slice(&review(body.to_string().as_bytes())).expect("JSON");
        assert_eq!(review["response"]["uid"], "u1");
        assert_eq!(review["response"]["result"]["status"], "Failure");
        let message = review["response"]["result"]["message"]
            .as_str()
            .unwrap_or_default();
        assert!(message.contains("does not convert Other"), "{message}");
        assert!(convert_object(json!({"apiVersion": "x/v1"}), "x/v2").is_err());
        assert!(convert_object(json!({"kind": "CronJob"}), "no-slash").is_err());
    }
}
