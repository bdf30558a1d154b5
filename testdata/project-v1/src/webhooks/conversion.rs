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
use axum::response::Response;
use kube::core::Resource;
use kube::core::Status;
use kube::core::conversion::{ConversionRequest, ConversionResponse, ConversionReview};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Why an object cannot be converted; the API server shows the message to the user.
#[derive(Debug, thiserror::Error)]
pub enum ConversionError {
    #[error("the object has no {0}")]
    Missing(&'static str),
    #[error("{kind} has no version {version} to convert to or from")]
    UnknownVersion { kind: String, version: String },
    #[error("this webhook does not convert {kind} of the group {group}")]
    UnknownKind { group: String, kind: String },
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

/// `POST /convert`.
pub async fn convert(body: Bytes) -> Response {
    super::json(&review(&body))
}

/// Answers a ConversionReview: every object converted to the desired version, or a
/// failure Status naming the first object that could not be.
pub fn review(body: &[u8]) -> ConversionReview {
    let mut request = match serde_json::from_slice::<ConversionReview>(body)
        .map_err(|error| format!("not a ConversionReview: {error}"))
        .and_then(|review| ConversionRequest::try_from(review).map_err(|e| e.to_string()))
    {
        Ok(request) => request,
        Err(message) => {
            let status = Status::failure(&message, "BadRequest").with_code(400);
            return ConversionResponse::invalid(status).into_review();
        }
    };
    let desired = request.desired_api_version.clone();
    let mut objects = Vec::with_capacity(request.objects.len());
    let mut failure = None;
    for (index, object) in std::mem::take(&mut request.objects).into_iter().enumerate() {
        match convert_object(object, &desired) {
            Ok(converted) => objects.push(converted),
            Err(error) => {
                failure = Some(format!(
                    "cannot convert object {index} to {desired}: {error}"
                ));
                break;
            }
        }
    }
    let response = ConversionResponse::for_request(request);
    match failure {
        None => response.success(objects),
        Some(message) => response.failure(Status::failure(&message, "Invalid").with_code(422)),
    }
    .into_review()
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

/// Reads an object as the Rust type of its version.
pub fn from_json<K>(object: Value) -> Result<K, ConversionError>
where
    K: Resource<DynamicType = ()> + DeserializeOwned,
{
    serde_json::from_value(object).map_err(|source| ConversionError::Invalid {
        kind: K::kind(&()).into_owned(),
        version: K::version(&()).into_owned(),
        source,
    })
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
            let review = serde_json::to_value(review(body)).expect("serializable");
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
        let review =
            serde_json::to_value(review(body.to_string().as_bytes())).expect("serializable");
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
