//! The conversion webhook, `POST /convert`: the API server sends objects of one version of
//! a kind and asks for another. Each kind converts through its hub, the storage version:
//! every other version is a [`Spoke`], converted to and from the hub field by field by the
//! project (`src/api/<group>/<spoke>/<kind>_conversion.rs`), and [`through_hub`] converts
//! between any two. The project lists its kinds as [`Conversion`]s for [`handler`].
//!
//! The conversions keep every value: what the target version cannot hold is kept in an
//! annotation on the converted object, and restored when the object is converted back
//! (see [`super::lossless`]).

use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, post};
use kube::core::Resource;
use kube::core::Status;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::lossless::{Unknown, annotation, lossless};

/// Why an object cannot be converted; the API server shows the message to the user.
#[derive(Debug, thiserror::Error)]
#[allow(missing_docs)] // the messages say what each field is
pub enum ConversionError {
    /// The object or the review lacks a part.
    #[error("the object has no {0}")]
    Missing(&'static str),
    /// The kind has no such version.
    #[error("{kind} has no version {version} to convert to or from")]
    UnknownVersion { kind: String, version: String },
    /// The webhook converts no such kind.
    #[error("this webhook does not convert {kind} of the group {group}")]
    UnknownKind { group: String, kind: String },
    /// The object is not JSON.
    #[error("the object cannot be read: {0}")]
    Unreadable(serde_json::Error),
    /// The object does not fit the Rust type of its version.
    #[error("the object is not a valid {version} {kind}: {source}")]
    Invalid {
        kind: String,
        version: String,
        source: serde_json::Error,
    },
    /// The converted object cannot be written as JSON.
    #[error("cannot serialize the converted object: {0}")]
    Serialize(serde_json::Error),
    /// The annotation of an earlier conversion cannot be read.
    #[error(
        "cannot put back the values kept in the annotation {annotation}: {reason}; \
         remove the annotation to give them up"
    )]
    Kept { annotation: String, reason: String },
    /// What the target version cannot hold is too large for an annotation.
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

/// How a kind converts an object of any of its versions into the version given (`v1`).
pub type Convert = fn(Value, &str) -> Result<Value, ConversionError>;

/// A kind the conversion webhook converts: its API group, its kind, and its conversion
/// (the `convert` of its hub's `<kind>_conversion.rs`, which calls [`through_hub`]).
pub type Conversion<'a> = (&'a str, &'a str, Convert);

/// The conversion webhook of `kinds`, served at [`CONVERSION_PATH`](super::CONVERSION_PATH).
pub fn handler(kinds: &'static [Conversion<'static>]) -> MethodRouter {
    post(move |body: Bytes| convert(body, kinds))
}

/// `POST /convert`. A review of a LIST holds every object of it, and converting them takes
/// a while: it runs off the async runtime, so that probes, leader election and the
/// controllers go on meanwhile.
async fn convert(body: Bytes, kinds: &'static [Conversion<'static>]) -> Response {
    match tokio::task::spawn_blocking(move || review(&body, kinds)).await {
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
pub fn review(body: &[u8], kinds: &[Conversion]) -> Vec<u8> {
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
            .and_then(|object| convert_object(object, desired, kinds))
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

/// Converts one object to `desired_api_version` (`<group>/<version>`) with the conversion
/// of its kind among `kinds`.
pub fn convert_object(
    object: Value,
    desired_api_version: &str,
    kinds: &[Conversion],
) -> Result<Value, ConversionError> {
    let (group, version) = desired_api_version
        .split_once('/')
        .ok_or(ConversionError::Missing("group in the desired apiVersion"))?;
    let kind = object
        .get("kind")
        .and_then(Value::as_str)
        .ok_or(ConversionError::Missing("kind"))?
        .to_string();
    match kinds.iter().find(|(g, k, _)| *g == group && *k == kind) {
        Some((_, _, convert)) => convert(object, version),
        None => Err(ConversionError::UnknownKind {
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

/// A version of a kind other than its hub, converted to and from the hub field by field:
/// what a project writes for each such version (`<spoke>/<kind>_conversion.rs`). The
/// conversions may lose what one version cannot hold: [`spoke_to_hub`] and
/// [`hub_to_spoke`] keep it in an annotation.
pub trait Spoke: Resource<DynamicType = ()> + Serialize + DeserializeOwned + Clone {
    /// The kind at its hub, the storage version.
    type Hub: Resource<DynamicType = ()> + Serialize + DeserializeOwned + Clone;

    /// This version as the hub.
    fn to_hub(self) -> Self::Hub;

    /// The hub as this version.
    fn from_hub(hub: Self::Hub) -> Self;
}

/// The annotation that keeps what the other version of a conversion cannot hold of `K`.
fn annotation_of<K: Resource<DynamicType = ()>>() -> String {
    annotation(&K::kind(&()), &K::version(&()))
}

/// `spoke` as the hub, losing nothing: what the hub cannot hold is kept in an annotation,
/// and what an earlier conversion from the hub kept is put back. Fails only when that
/// annotation cannot be read, or what must be kept does not fit in one.
pub fn spoke_to_hub<S: Spoke>(spoke: S) -> Result<S::Hub, ConversionError> {
    let keep_in = annotation_of::<S>();
    let restore_from = annotation_of::<S::Hub>();
    lossless(spoke, S::to_hub, S::from_hub, &keep_in, &restore_from)
}

/// `hub` as the spoke `S`, losing nothing, as [`spoke_to_hub`] does the other way.
pub fn hub_to_spoke<S: Spoke>(hub: S::Hub) -> Result<S, ConversionError> {
    let keep_in = annotation_of::<S::Hub>();
    let restore_from = annotation_of::<S>();
    lossless(hub, S::from_hub, S::to_hub, &keep_in, &restore_from)
}

/// One spoke of a hub `H`, for [`through_hub`]: its version and its conversions from and
/// to the JSON the API server sends.
pub struct SpokeVersion<H> {
    version: fn() -> String,
    to_hub: fn(Value) -> Read<H>,
    from_hub: fn(H) -> Result<Value, ConversionError>,
}

/// The spoke `S`, for [`through_hub`].
pub fn spoke<S: Spoke>() -> SpokeVersion<S::Hub> {
    SpokeVersion {
        version: || S::version(&()).into_owned(),
        to_hub: |object| {
            let (spoke, unknown) = from_json::<S>(object)?;
            Ok((spoke_to_hub(spoke)?, unknown))
        },
        from_hub: |hub| to_json(&hub_to_spoke::<S>(hub)?),
    }
}

/// Converts an object of the hub `H` or of one of its `spokes` into `version`, through
/// the hub, with the fields its types do not know where `version` has their parents.
pub fn through_hub<H>(
    object: Value,
    version: &str,
    spokes: &[SpokeVersion<H>],
) -> Result<Value, ConversionError>
where
    H: Resource<DynamicType = ()> + Serialize + DeserializeOwned,
{
    let from = version_of(&object)?.to_owned();
    if from == version {
        return Ok(object);
    }
    let mut object = object;
    let managed_fields = set_aside_managed_fields(&mut object);
    let find = |wanted: &str| {
        spokes
            .iter()
            .find(|spoke| (spoke.version)() == wanted)
            .ok_or_else(|| ConversionError::UnknownVersion {
                kind: H::kind(&()).into_owned(),
                version: wanted.to_string(),
            })
    };
    let hub_version = H::version(&());
    let (hub, unknown) = if from == hub_version {
        from_json::<H>(object)?
    } else {
        (find(&from)?.to_hub)(object)?
    };
    let converted = if version == hub_version {
        to_json(&hub)?
    } else {
        (find(version)?.from_hub)(hub)?
    };
    let mut converted = unknown.put_into(converted);
    if let Some((managed_fields, metadata)) = managed_fields.zip(metadata_of(&mut converted)) {
        metadata.insert(MANAGED_FIELDS.into(), managed_fields);
    }
    Ok(converted)
}

const MANAGED_FIELDS: &str = "managedFields";

/// Takes `metadata.managedFields` out of `object`, to be put back as they came once the
/// object is converted: a conversion changes no metadata but labels and annotations, and
/// read into `ObjectMeta` they would be written otherwise (`Time` drops fractional
/// seconds). They are also the larger part of a small object as the API server sends
/// it: read into their types and written again by each conversion, they took a fifth of
/// all allocations of a manager making 5,000 new CronJobs Ready, six reviews each
/// (heaptrack).
fn set_aside_managed_fields(object: &mut Value) -> Option<Value> {
    metadata_of(object)?.remove(MANAGED_FIELDS)
}

fn metadata_of(object: &mut Value) -> Option<&mut serde_json::Map<String, Value>> {
    object.get_mut("metadata")?.as_object_mut()
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

    /// A kind whose versions differ in their `apiVersion` only: `example.com/<version>`.
    fn relabel(mut object: Value, version: &str) -> Result<Value, ConversionError> {
        object["apiVersion"] = json!(format!("example.com/{version}"));
        Ok(object)
    }

    const KINDS: &[Conversion<'static>] = &[("example.com", "Widget", relabel)];

    /// A ConversionReview of `objects` copies of a Widget, asking for `example.com/v2`.
    fn widgets(objects: usize) -> Value {
        let widget =
            json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}});
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "ConversionReview",
            "request": {
                "uid": "u1",
                "desiredAPIVersion": "example.com/v2",
                "objects": vec![widget; objects],
            }
        })
    }

    #[test]
    fn malformed_reviews_get_a_failure_status() {
        for body in [
            &b"not json"[..],
            b"{}",
            br#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview"}"#,
        ] {
            let review: Value = serde_json::from_slice(&review(body, KINDS)).expect("JSON");
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
            serde_json::from_slice(&review(body.to_string().as_bytes(), KINDS)).expect("JSON");
        assert_eq!(review["response"]["uid"], "u1");
        assert_eq!(review["response"]["result"]["status"], "Failure");
        let message = review["response"]["result"]["message"]
            .as_str()
            .unwrap_or_default();
        assert!(message.contains("does not convert Other"), "{message}");
        assert!(convert_object(json!({"apiVersion": "x/v1"}), "x/v2", KINDS).is_err());
        assert!(convert_object(json!({"kind": "Widget"}), "no-slash", KINDS).is_err());
    }

    #[test]
    fn every_object_of_a_review_is_converted_in_order() {
        let mut body = widgets(3);
        body["request"]["objects"][1]["metadata"]["name"] = json!("second");
        let answer: Value =
            serde_json::from_slice(&review(body.to_string().as_bytes(), KINDS)).expect("JSON");
        let response = &answer["response"];
        assert_eq!(response["result"]["status"], "Success", "{answer}");
        let converted = response["convertedObjects"].as_array().expect("objects");
        assert_eq!(converted.len(), 3);
        assert!(
            converted
                .iter()
                .all(|o| o["apiVersion"] == "example.com/v2")
        );
        assert_eq!(converted[1]["metadata"]["name"], "second");
    }

    /// A Widget at `example.com/<version>`, as kube-derive would write one.
    macro_rules! widget {
        ($name:ident, $version:literal, $spec:ident { $($field:ident: $ty:ty),* }) => {
            #[derive(Clone, Debug, Default, serde::Deserialize, Serialize)]
            #[serde(rename_all = "camelCase")]
            struct $name {
                api_version: String,
                kind: String,
                metadata: kube::core::ObjectMeta,
                spec: $spec,
            }

            #[derive(Clone, Debug, Default, serde::Deserialize, Serialize)]
            struct $spec {
                $($field: $ty),*
            }

            impl Resource for $name {
                type DynamicType = ();
                type Scope = kube::core::NamespaceResourceScope;

                fn kind(_: &()) -> std::borrow::Cow<'_, str> {
                    "Widget".into()
                }
                fn group(_: &()) -> std::borrow::Cow<'_, str> {
                    "example.com".into()
                }
                fn version(_: &()) -> std::borrow::Cow<'_, str> {
                    $version.into()
                }
                fn plural(_: &()) -> std::borrow::Cow<'_, str> {
                    "widgets".into()
                }
                fn meta(&self) -> &kube::core::ObjectMeta {
                    &self.metadata
                }
                fn meta_mut(&mut self) -> &mut kube::core::ObjectMeta {
                    &mut self.metadata
                }
            }
        };
    }

    widget!(
        Hub,
        "v2",
        HubSpec {
            size: i64,
            color: String
        }
    );
    widget!(Old, "v1", OldSpec { size: i64 });

    /// v1 has no color: what v2 holds there is kept in an annotation.
    impl Spoke for Old {
        type Hub = Hub;

        fn to_hub(self) -> Hub {
            Hub {
                api_version: "example.com/v2".into(),
                kind: self.kind,
                metadata: self.metadata,
                spec: HubSpec {
                    size: self.spec.size,
                    color: String::new(),
                },
            }
        }

        fn from_hub(hub: Hub) -> Self {
            Old {
                api_version: "example.com/v1".into(),
                kind: hub.kind,
                metadata: hub.metadata,
                spec: OldSpec {
                    size: hub.spec.size,
                },
            }
        }
    }

    fn widget_conversion(object: Value, version: &str) -> Result<Value, ConversionError> {
        through_hub::<Hub>(object, version, &[spoke::<Old>()])
    }

    #[test]
    fn through_the_hub_a_spoke_gets_back_what_it_cannot_hold() {
        let hub = json!({
            "apiVersion": "example.com/v2",
            "kind": "Widget",
            "metadata": {"name": "w"},
            "spec": {"size": 3, "color": "red", "addedLater": true}
        });
        let old = widget_conversion(hub.clone(), "v1").expect("converts to v1");
        assert_eq!(old["apiVersion"], "example.com/v1");
        assert_eq!(old["spec"], json!({"size": 3, "addedLater": true}));
        let kept = &old["metadata"]["annotations"]["conversion.rsbuilder.io/widget-v2"];
        assert!(kept.as_str().is_some_and(|k| k.contains("red")), "{old}");
        assert_eq!(
            widget_conversion(old.clone(), "v2").expect("converts back"),
            hub
        );
        assert_eq!(
            widget_conversion(old.clone(), "v1").expect("no conversion"),
            old
        );
        let error = widget_conversion(old, "v3").expect_err("no v3");
        assert!(error.to_string().contains("no version v3"), "{error}");
    }

    /// A conversion must not change metadata other than labels and annotations
    /// (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/#response):
    /// `managedFields` come back as they came, even where the typed `ObjectMeta` would
    /// write them otherwise (fractional seconds, which `Time` drops).
    #[test]
    fn managed_fields_come_back_as_they_came() {
        let managed = json!([{
            "manager": "kubectl",
            "operation": "Update",
            "apiVersion": "example.com/v2",
            "time": "2026-12-06T08:00:00.123456Z",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:spec": {"f:size": {}}}
        }]);
        let hub = json!({
            "apiVersion": "example.com/v2",
            "kind": "Widget",
            "metadata": {"name": "w", "managedFields": managed},
            "spec": {"size": 3, "color": "red"}
        });
        let old = widget_conversion(hub, "v1").expect("converts to v1");
        assert_eq!(old["metadata"]["managedFields"], managed);
        let back = widget_conversion(old, "v2").expect("converts back");
        assert_eq!(back["metadata"]["managedFields"], managed);
    }

    /// The API server converts every object of a LIST in one ConversionReview
    /// (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/#webhook-request-and-response):
    /// 5 MiB of them, beyond axum's default limit of 2 MiB, are read and converted.
    #[tokio::test]
    async fn a_conversion_review_of_five_mib_is_converted() {
        use super::super::{CONVERSION_PATH, Limits, router, testing::send};

        let mut body = widgets(5 * 1024 * 1024 / 1024);
        for object in body["request"]["objects"].as_array_mut().expect("objects") {
            object["metadata"]["annotations"] = json!({"example.com/padding": "x".repeat(1024)});
        }
        let routes = vec![(CONVERSION_PATH, handler(KINDS))];
        let (status, answer) = send(
            router(routes, Limits::default()),
            CONVERSION_PATH,
            body.to_string(),
        )
        .await;
        assert_eq!(status, 200);
        assert_eq!(answer["response"]["result"]["status"], "Success");
        let converted = answer["response"]["convertedObjects"]
            .as_array()
            .map_or(0, Vec::len);
        assert_eq!(converted, 5 * 1024);
    }

    /// Converting the review of a big LIST takes a while: it runs off the async runtime,
    /// so that the other tasks go on meanwhile, here on a runtime of one thread.
    #[tokio::test(flavor = "current_thread")]
    async fn a_review_converts_off_the_async_runtime() {
        let body = widgets(10_000).to_string().into();
        let conversion = tokio::spawn(convert(body, KINDS));
        tokio::task::yield_now().await;
        assert!(
            !conversion.is_finished(),
            "the conversion ran on the runtime's thread until it was done"
        );
        let response = conversion.await.expect("a conversion that does not panic");
        assert_eq!(response.status(), 200);
    }
}
