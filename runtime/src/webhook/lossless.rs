//! Conversions that lose nothing: what the target version cannot hold is kept in an
//! annotation on the converted object, `conversion.rsbuilder.io/<kind>-<version>`, and put
//! back when the object is converted back ([`lossless`]).
//!
//! A client may change the object in between, through a version that holds less. A kept
//! value is put back only where the object still converts to what it converted to when the
//! value was kept; where the client changed it, its change wins. Objects are compared field
//! by field; list items have no identity across versions, so a list is compared item by
//! item, each whole, when the conversion keeps its length, and whole otherwise. An
//! annotation that cannot be read is an error, which the API server shows the client; it
//! is never silently dropped.

use kube::core::{ObjectMeta, Resource};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::conversion::ConversionError;

/// How large an object's annotations may be in all, keys and values: the API server
/// refuses more (apimachinery's `TotalAnnotationSizeLimitB`).
pub const ANNOTATIONS_LIMIT: usize = 256 * 1024;

/// The annotation that keeps the values of `version` of `kind` that another version
/// cannot hold.
pub fn annotation(kind: &str, version: &str) -> String {
    format!("conversion.rsbuilder.io/{}-{version}", kind.to_lowercase())
}

/// Converts `src` with `forward`, losing nothing: values that `back` cannot restore from
/// the result are kept in the annotation `keep_in` on the result, and values an earlier
/// conversion kept on `src` (in `restore_from`) are put back where `src` still converts to
/// what they were kept from.
///
/// What is kept is exactly what a round trip would lose: fields only one version has, and
/// fields whose conversion is still a `TODO(rsbuilder)`. It shrinks as the conversions
/// improve.
pub fn lossless<S, D>(
    mut src: S,
    forward: fn(S) -> D,
    back: fn(D) -> S,
    keep_in: &str,
    restore_from: &str,
) -> Result<D, ConversionError>
where
    S: Serialize + Resource,
    D: Serialize + DeserializeOwned + Resource + Clone,
{
    // Read before anything is dropped: an annotation that cannot be read fails the
    // conversion with the object untouched.
    let kept = match src
        .meta()
        .annotations
        .as_ref()
        .and_then(|a| a.get(restore_from))
    {
        Some(text) => Some(Kept::parse(text).map_err(|reason| stash_error(restore_from, reason))?),
        None => None,
    };
    remove_annotation(src.meta_mut(), restore_from);
    let original = fields(&src);
    let mut dst = forward(src);
    if let Some(kept) = kept {
        dst = kept
            .restore(dst)
            .map_err(|reason| stash_error(restore_from, reason))?;
    }
    // What the source may have carried under this name is stale: it is computed again.
    remove_annotation(dst.meta_mut(), keep_in);
    let lost = Kept::lost(&fields(&back(dst.clone())), &original);
    if !lost.is_empty() {
        let annotations = dst.meta_mut().annotations.get_or_insert_default();
        annotations.insert(keep_in.to_string(), lost.to_string());
        // An object the API server would refuse fails every read at this version: fail
        // this conversion instead, and say which field does not fit.
        let size: usize = annotations.iter().map(|(k, v)| k.len() + v.len()).sum();
        if size > ANNOTATIONS_LIMIT {
            return Err(ConversionError::TooLarge {
                annotation: keep_in.to_string(),
                size,
                field: lost.largest(),
                limit: ANNOTATIONS_LIMIT,
            });
        }
    }
    Ok(dst)
}

fn stash_error(annotation: &str, reason: String) -> ConversionError {
    ConversionError::Kept {
        annotation: annotation.to_string(),
        reason,
    }
}

/// The object's fields other than `apiVersion`, `kind` and `metadata`.
fn fields<K: Serialize>(object: &K) -> Value {
    match serde_json::to_value(object) {
        Ok(Value::Object(mut map)) => {
            for key in ["apiVersion", "kind", "metadata"] {
                map.remove(key);
            }
            Value::Object(map)
        }
        _ => Value::Null,
    }
}

/// Removes the annotation `key`; drops `annotations` when it empties it.
fn remove_annotation(meta: &mut ObjectMeta, key: &str) {
    if let Some(annotations) = meta.annotations.as_mut() {
        annotations.remove(key);
        if annotations.is_empty() {
            meta.annotations = None;
        }
    }
}

/// The places where converting back does not give the original, as the annotation keeps
/// them: a JSON list of [`Place`]s.
#[derive(Debug, Default, PartialEq)]
struct Kept(Vec<Place>);

/// One place: its path among the object's fields, what the conversion back gives there,
/// and the original value (each absent when there is nothing there).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Place {
    path: Vec<Step>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    converted: Option<Value>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    value: Option<Value>,
}

/// A step of a path: a field of an object, or an item of a list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
enum Step {
    Field(String),
    Item(usize),
}

/// A field that is there, even when it is `null`.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

impl Kept {
    /// The places where `round_trip` differs from `original`.
    fn lost(round_trip: &Value, original: &Value) -> Self {
        let mut places = Vec::new();
        diff(round_trip, original, &mut Vec::new(), &mut places);
        Self(places)
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The path of the place that takes the most room, as `spec.items[0].name`.
    fn largest(&self) -> String {
        let size = |place: &&Place| serde_json::to_string(place).map_or(0, |text| text.len());
        let Some(place) = self.0.iter().max_by_key(size) else {
            return String::new();
        };
        let mut path = String::new();
        for step in &place.path {
            match step {
                Step::Field(name) if path.is_empty() => path.push_str(name),
                Step::Field(name) => {
                    path.push('.');
                    path.push_str(name);
                }
                Step::Item(index) => path.push_str(&format!("[{index}]")),
            }
        }
        path
    }

    fn parse(text: &str) -> Result<Self, String> {
        let places: Vec<Place> = serde_json::from_str(text).map_err(|error| error.to_string())?;
        if let Some(place) = places.iter().find(|place| {
            !matches!(place.path.first(), Some(Step::Field(top))
                if !matches!(top.as_str(), "apiVersion" | "kind" | "metadata"))
        }) {
            return Err(format!("it names no field of the object: {:?}", place.path));
        }
        Ok(Self(places))
    }

    /// `object` with the kept values put back where it still holds what the conversion
    /// back gave when they were kept.
    fn restore<D: Serialize + DeserializeOwned>(&self, object: D) -> Result<D, String> {
        let mut value = serde_json::to_value(&object).map_err(|error| error.to_string())?;
        for place in &self.0 {
            place.restore(&mut value);
        }
        serde_json::from_value(value)
            .map_err(|error| format!("the object with its values put back is invalid: {error}"))
    }
}

impl std::fmt::Display for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = serde_json::to_string(&self.0).map_err(|_| std::fmt::Error)?;
        f.write_str(&text)
    }
}

impl Place {
    fn at(path: &[Step], converted: Option<&Value>, value: Option<&Value>) -> Self {
        Self {
            path: path.to_vec(),
            converted: converted.cloned(),
            value: value.cloned(),
        }
    }

    fn restore(&self, object: &mut Value) {
        let Some((last, parents)) = self.path.split_last() else {
            return;
        };
        let mut parent = object;
        for step in parents {
            let child = match step {
                Step::Field(key) => parent.get_mut(key),
                Step::Item(index) => parent.get_mut(index),
            };
            match child {
                Some(child) => parent = child,
                // The client removed what held the value: its change wins.
                None => return,
            }
        }
        match (last, parent) {
            (Step::Field(key), Value::Object(fields)) => {
                if fields.get(key) != self.converted.as_ref() {
                    return;
                }
                match &self.value {
                    Some(value) => fields.insert(key.clone(), value.clone()),
                    None => fields.remove(key),
                };
            }
            (Step::Item(index), Value::Array(items)) => {
                if let (Some(item), Some(value)) = (items.get_mut(*index), &self.value)
                    && Some(&*item) == self.converted.as_ref()
                {
                    *item = value.clone();
                }
            }
            _ => {}
        }
    }
}

/// The places where `round_trip` differs from `original`: objects key by key, lists of the
/// same length item by item (each item whole), anything else whole.
fn diff(round_trip: &Value, original: &Value, path: &mut Vec<Step>, out: &mut Vec<Place>) {
    if round_trip == original {
        return;
    }
    match (round_trip, original) {
        (Value::Object(round_trip), Value::Object(original)) => {
            let keys: std::collections::BTreeSet<&String> =
                round_trip.keys().chain(original.keys()).collect();
            for key in keys {
                path.push(Step::Field(key.clone()));
                match (round_trip.get(key), original.get(key)) {
                    (Some(converted), Some(value)) => diff(converted, value, path, out),
                    (converted, value) => out.push(Place::at(path, converted, value)),
                }
                path.pop();
            }
        }
        (Value::Array(round_trip), Value::Array(original))
            if round_trip.len() == original.len() =>
        {
            for (index, (converted, value)) in round_trip.iter().zip(original).enumerate() {
                if converted != value {
                    path.push(Step::Item(index));
                    out.push(Place::at(path, Some(converted), Some(value)));
                    path.pop();
                }
            }
        }
        _ => out.push(Place::at(path, Some(round_trip), Some(original))),
    }
}

/// The fields of an object that its Rust type does not know, as a CRD newer than this
/// binary declares them. [`from_json`](super::conversion::from_json) finds them, and the
/// conversion puts each back at its place in the converted object, where that has the
/// field's parent and not the field itself: a round trip keeps them, and the API server
/// prunes what the target version's schema does not declare.
#[derive(Debug, Default, PartialEq)]
pub struct Unknown(Vec<Place>);

impl Unknown {
    /// The fields of `original` that `known`, the object as its type writes it, lacks.
    pub fn of(original: &Value, known: &Value) -> Self {
        let mut places = Vec::new();
        unknown(original, known, &mut Vec::new(), &mut places);
        Self(places)
    }

    /// `object` with the unknown fields put back.
    pub fn put_into(&self, mut object: Value) -> Value {
        for place in &self.0 {
            place.restore(&mut object);
        }
        object
    }
}

/// The fields of `original` that `known` lacks: objects key by key and lists of the same
/// length item by item, down to the fields themselves.
fn unknown(original: &Value, known: &Value, path: &mut Vec<Step>, out: &mut Vec<Place>) {
    match (original, known) {
        (Value::Object(original), Value::Object(known)) => {
            for (key, value) in original {
                path.push(Step::Field(key.clone()));
                match known.get(key) {
                    Some(known) => unknown(value, known, path, out),
                    // A `null` holds nothing: the API server drops it too.
                    None if value.is_null() => {}
                    None => out.push(Place::at(path, None, Some(value))),
                }
                path.pop();
            }
        }
        (Value::Array(original), Value::Array(known)) if original.len() == known.len() => {
            for (index, (value, known)) in original.iter().zip(known).enumerate() {
                path.push(Step::Item(index));
                unknown(value, known, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Checks of the conversions, for the tests `rsbuilder create webhook --conversion`
/// generates.
#[cfg(any(test, feature = "testing"))]
pub mod testing {
    use super::*;

    /// Converts `origin` with `to`, changes one field of the result at a time (every value
    /// of the fields, and every list one item shorter), converts it back with `back`, and
    /// checks that the change reached `origin` where `plain_back` (the conversion without
    /// the annotations) carries it, that nothing else of `origin` changed, and that
    /// converting it once more gives the changed object.
    pub fn assert_edits_survive<O, T>(
        origin: O,
        to: fn(O) -> Result<T, ConversionError>,
        back: fn(T) -> Result<O, ConversionError>,
        plain_back: fn(T) -> O,
    ) where
        O: Serialize + Clone,
        T: Serialize + DeserializeOwned + Clone,
    {
        let before = fields(&origin);
        let through = to(origin).expect("the origin converts");
        let read = serde_json::to_value(&through).expect("a serializable object");
        let mut places = Vec::new();
        for (key, value) in fields(&through).as_object().into_iter().flatten() {
            editable(value, format!("/{}", escape(key)), &mut places);
        }
        for place in places {
            let mut edited = read.clone();
            if !edited.pointer_mut(&place).is_some_and(edit) {
                continue;
            }
            // Only what the version can hold: an edit that breaks a format or an enum is
            // not one a client could make.
            let Ok(edited) = serde_json::from_value::<T>(edited) else {
                continue;
            };
            let arrived = back(edited.clone()).expect("the edited object converts back");
            let expected = overlay(
                &before,
                &fields(&plain_back(through.clone())),
                &fields(&plain_back(edited.clone())),
            );
            assert_eq!(fields(&arrived), expected, "after an edit of {place}");
            let again = to(arrived).expect("the object converts again");
            assert_eq!(fields(&again), fields(&edited), "after an edit of {place}");
        }
    }

    /// JSON pointers to the values of `value` an edit can change.
    fn editable(value: &Value, at: String, out: &mut Vec<String>) {
        match value {
            Value::Null => {}
            Value::Object(map) => {
                for (key, item) in map {
                    editable(item, format!("{at}/{}", escape(key)), out);
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    editable(item, format!("{at}/{index}"), out);
                }
                if !items.is_empty() {
                    out.push(at);
                }
            }
            _ => out.push(at),
        }
    }

    /// Changes a value: text gets a suffix, numbers grow, booleans flip, lists lose their
    /// last item.
    fn edit(value: &mut Value) -> bool {
        match value {
            Value::String(text) => text.push_str("-edited"),
            Value::Bool(flag) => *flag = !*flag,
            Value::Number(number) => {
                *number = match (number.as_u64(), number.as_i64(), number.as_f64()) {
                    (Some(n), _, _) => n.saturating_add(1).into(),
                    (_, Some(n), _) => n.saturating_add(1).into(),
                    (_, _, Some(n)) => match serde_json::Number::from_f64(n + 1.0) {
                        Some(grown) => grown,
                        None => return false,
                    },
                    _ => return false,
                }
            }
            Value::Array(items) => return items.pop().is_some(),
            _ => return false,
        }
        true
    }

    fn escape(key: &str) -> String {
        key.replace('~', "~0").replace('/', "~1")
    }

    /// `base` with what changed from `from` to `to`: objects key by key, lists as long in
    /// `base` as in `from` item by item (each item whole), anything else whole.
    fn overlay(base: &Value, from: &Value, to: &Value) -> Value {
        if from == to {
            return base.clone();
        }
        if let (Value::Array(base), Value::Array(from), Value::Array(to)) = (base, from, to)
            && base.len() == from.len()
        {
            let items = to.iter().enumerate().map(|(index, item)| {
                match (from.get(index), base.get(index)) {
                    (Some(old), Some(kept)) if old == item => kept.clone(),
                    _ => item.clone(),
                }
            });
            return Value::Array(items.collect());
        }
        let (Value::Object(base), Value::Object(from), Value::Object(to)) = (base, from, to) else {
            return to.clone();
        };
        let mut out = base.clone();
        let keys: std::collections::BTreeSet<&String> = from.keys().chain(to.keys()).collect();
        for key in keys {
            match (base.get(key), from.get(key), to.get(key)) {
                (_, old, new) if old == new => {}
                (_, _, None) => {
                    out.remove(key);
                }
                (Some(base), Some(old), Some(new)) => {
                    out.insert(key.clone(), overlay(base, old, new));
                }
                (_, _, Some(new)) => {
                    out.insert(key.clone(), new.clone());
                }
            }
        }
        Value::Object(out)
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;
    use serde_json::json;

    use super::*;

    #[test]
    fn what_a_round_trip_loses_is_kept_place_by_place() {
        let round_trip = json!({
            "spec": {"a": 1, "list": [1], "items": [{"x": 1}, {"x": 2}], "gone": true},
            "same": "x"
        });
        let original = json!({
            "spec": {"a": 2, "list": [1, 2], "items": [{"x": 1}, {"x": 2, "y": 3}], "new": null},
            "same": "x"
        });
        let kept = Kept::lost(&round_trip, &original);
        assert_eq!(
            serde_json::from_str::<Value>(&kept.to_string()).expect("JSON"),
            json!([
                {"path": ["spec", "a"], "converted": 1, "value": 2},
                {"path": ["spec", "gone"], "converted": true},
                {"path": ["spec", "items", 1], "converted": {"x": 2}, "value": {"x": 2, "y": 3}},
                {"path": ["spec", "list"], "converted": [1], "value": [1, 2]},
                {"path": ["spec", "new"], "value": null},
            ])
        );
        assert_eq!(Kept::parse(&kept.to_string()), Ok(kept));
        assert!(Kept::lost(&original, &original).is_empty());
    }

    #[test]
    fn a_kept_value_comes_back_only_where_the_object_still_converts_to_what_it_did() {
        let kept = Kept::lost(
            &json!({"data": {"a": "1", "b": "2"}}),
            &json!({"data": {"a": "one", "b": "two", "c": "3"}}),
        );
        let config_map = |data: Value| -> ConfigMap {
            serde_json::from_value(json!({"metadata": {"name": "x"}, "data": data}))
                .expect("a ConfigMap")
        };
        // `b` changed since: the change wins; `a` and `c` come back.
        let restored = kept
            .restore(config_map(json!({"a": "1", "b": "changed"})))
            .expect("restores");
        assert_eq!(
            serde_json::to_value(restored.data).expect("JSON"),
            json!({"a": "one", "b": "changed", "c": "3"})
        );
        // `data` was removed since: nothing comes back into it.
        let restored = kept
            .restore(
                serde_json::from_value::<ConfigMap>(json!({"metadata": {"name": "x"}}))
                    .expect("a ConfigMap"),
            )
            .expect("restores");
        assert_eq!(restored.data, None);
    }

    #[test]
    fn list_items_come_back_one_by_one_where_they_are_unchanged() {
        let kept = Kept::lost(
            &json!({"items": [{"n": 1}, {"n": 2}]}),
            &json!({"items": [{"n": 1, "x": "a"}, {"n": 2, "x": "b"}]}),
        );
        let restore = |object: Value| kept.restore(object).expect("restores");
        // The second item was changed since: it stays as it is; the first comes back.
        assert_eq!(
            restore(json!({"items": [{"n": 1}, {"n": 20}]})),
            json!({"items": [{"n": 1, "x": "a"}, {"n": 20}]})
        );
        // Swapped: no item is what it was at its place, so none takes another's values.
        assert_eq!(
            restore(json!({"items": [{"n": 2}, {"n": 1}]})),
            json!({"items": [{"n": 2}, {"n": 1}]})
        );
        assert_eq!(
            restore(json!({"items": [{"n": 1}]})),
            json!({"items": [{"n": 1, "x": "a"}]})
        );
    }

    #[test]
    fn fields_the_type_does_not_know_go_back_where_their_parent_is() {
        let original = json!({
            "spec": {"a": 1, "new": {"x": 1}, "none": null, "items": [{"n": 1, "y": 2}]},
            "extra": [1]
        });
        let known = json!({"spec": {"a": 1, "items": [{"n": 1}]}});
        let unknown = Unknown::of(&original, &known);
        // The converted object renamed `a` and moved `items`: what has no parent there
        // stays out, and nothing the conversion wrote is overwritten.
        let converted = json!({"spec": {"b": 1, "new": "set"}, "other": {"items": [{"n": 1}]}});
        assert_eq!(
            unknown.put_into(converted),
            json!({"spec": {"b": 1, "new": "set"}, "other": {"items": [{"n": 1}]}, "extra": [1]})
        );
        assert_eq!(
            unknown.put_into(json!({"spec": {"items": [{"n": 1}]}})),
            json!({"spec": {"new": {"x": 1}, "items": [{"n": 1, "y": 2}]}, "extra": [1]})
        );
        assert_eq!(Unknown::of(&known, &known), Unknown::default());
    }

    #[test]
    fn an_annotation_that_cannot_be_read_fails_the_conversion() {
        for text in [
            "not JSON",
            r#"{"spec": {"a": 1}}"#,
            r#"[{"path": ["metadata", "name"], "value": "x"}]"#,
            r#"[{"path": [], "value": "x"}]"#,
            r#"[{"path": ["data"], "value": 42}]"#,
        ] {
            let mut object = ConfigMap::default();
            object
                .metadata
                .annotations
                .get_or_insert_default()
                .insert("kept".into(), text.into());
            let error = lossless(object, |c| c, |c| c, "other", "kept")
                .expect_err("an unreadable annotation");
            assert!(
                error.to_string().contains("the annotation kept"),
                "{text}: {error}"
            );
        }
    }

    /// The API server refuses annotations over 256 KiB in all: what a version cannot hold
    /// must fit, or the conversion fails and names the field, where the object would
    /// otherwise be refused at every read of that version.
    #[test]
    fn what_cannot_be_held_must_fit_in_the_annotations() {
        let object = |size: usize| {
            let mut object = ConfigMap::default();
            let data = [("big".to_string(), "x".repeat(size))];
            object.data = Some(data.into_iter().collect());
            object
        };
        let drop_data = |mut c: ConfigMap| {
            c.data = None;
            c
        };
        let kept = lossless(object(1024), drop_data, |c| c, "kept", "kept")
            .expect("a small value is kept");
        let annotations = kept.metadata.annotations.unwrap_or_default();
        assert!(annotations.contains_key("kept"), "{annotations:?}");
        let error = lossless(object(ANNOTATIONS_LIMIT), drop_data, |c| c, "kept", "kept")
            .expect_err("a value over the limit");
        let message = error.to_string();
        assert!(message.contains("at data)"), "{message}");
    }
}
