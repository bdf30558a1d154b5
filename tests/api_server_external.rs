//! The generated types of the external kinds (`create api --from-crd`) read what the API
//! server serves, and write it back unchanged. For every external kind of
//! `testdata/project-external`, its CRD installed in the real API server:
//!
//! 1. the samples of `testdata/external-crds/samples`, which together set every field the
//!    schema of the kind's version names, are created by server-side apply, as the manager
//!    `round-trip`;
//! 2. a program of the project (`tests/api_server_external/round_trip.rs`) reads each
//!    through `kube::Api` of its type: serialized again, it must be the object the server
//!    returns (`kubectl get -o json`), nothing lost, nothing changed;
//! 3. it applies that typed object back server-side as the same manager, which removes
//!    every field the manager applied before and leaves out now
//!    (https://kubernetes.io/docs/reference/using-api/server-side-apply/#field-management):
//!    what the server then holds must be what it held, but for the bookkeeping of a write.
//!
//! Then the same with a newer CRD of the kind, as its owner may publish after the types were
//! generated: every string enum has one value more, which the samples then use. Adding an
//! enum value is a compatible API change that old clients must survive
//! (https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/api_changes.md#on-compatibility,
//! "adding a new value to an enum"): an operator on the older types must read it, and must
//! not change it when it writes the object back.
#![allow(clippy::disallowed_methods)] // reads rsbuilder's and the tools' own YAML output

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::process::Command;

use serde::Deserialize as _;
use serde_json::{Value, json};

use common::api_server::{ApiServer, api_server};
use common::golden_copy::{run, working_copy};
use common::{repo_root, samples_target};

/// The string each enum of the newer CRDs gains.
const NEWER_ENUM_VALUE: &str = "AddedLater";

/// An external kind of the project, as PROJECT records it, with its CRD.
struct Kind {
    kind: String,
    api_version: String,
    crd: Value,
    /// The CRD's name, `<plural>.<group>`.
    name: String,
    /// The resource as kubectl names it at this version: `<plural>.<version>.<group>`.
    resource: String,
    schema: Value,
    namespaced: bool,
    status_subresource: bool,
}

fn external_kinds(project: &Path) -> Vec<Kind> {
    let record: serde_yaml::Value =
        serde_yaml::from_str(&fs::read_to_string(project.join("PROJECT")).unwrap()).unwrap();
    let resources = record["resources"].as_sequence().unwrap();
    let externals = resources
        .iter()
        .filter(|r| r["external"].as_bool() == Some(true));
    externals
        .map(|r| {
            let text = fs::read_to_string(project.join(r["crd"].as_str().unwrap())).unwrap();
            let crd: Value = serde_yaml::from_str(&text).unwrap();
            let (group, version) = (r["group"].as_str().unwrap(), r["version"].as_str().unwrap());
            let served = crd["spec"]["versions"].as_array().unwrap();
            let served = served.iter().find(|v| v["name"] == version).unwrap();
            let plural = crd["spec"]["names"]["plural"].as_str().unwrap();
            Kind {
                kind: r["kind"].as_str().unwrap().to_string(),
                api_version: format!("{group}/{version}"),
                name: crd["metadata"]["name"].as_str().unwrap().to_string(),
                resource: format!("{plural}.{version}.{group}"),
                schema: served["schema"]["openAPIV3Schema"].clone(),
                namespaced: crd["spec"]["scope"] == "Namespaced",
                status_subresource: served["subresources"]["status"].is_object(),
                crd,
            }
        })
        .collect()
}

/// Every path of a field the schema names: `.spec.rules[].matches`, a map's values as
/// `.*`. It stops where the schema keeps any JSON (`x-kubernetes-preserve-unknown-fields`);
/// the root's `apiVersion`, `kind` and `metadata` are the API machinery's.
fn schema_paths(schema: &Value, path: &str, out: &mut BTreeSet<String>) {
    if !path.is_empty() {
        out.insert(path.to_string());
    }
    if schema["x-kubernetes-preserve-unknown-fields"] == true {
        return;
    }
    for (key, property) in schema["properties"].as_object().into_iter().flatten() {
        if !(path.is_empty() && ["apiVersion", "kind", "metadata"].contains(&key.as_str())) {
            schema_paths(property, &format!("{path}.{key}"), out);
        }
    }
    if schema["additionalProperties"].is_object() {
        schema_paths(&schema["additionalProperties"], &format!("{path}.*"), out);
    }
    if schema["items"].is_object() {
        schema_paths(&schema["items"], &format!("{path}[]"), out);
    }
}

/// The paths of [`schema_paths`] that `value` sets.
fn set_paths(value: &Value, schema: &Value, path: &str, out: &mut BTreeSet<String>) {
    if !path.is_empty() {
        out.insert(path.to_string());
    }
    if schema["x-kubernetes-preserve-unknown-fields"] == true {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, field) in map {
                if let Some(property) = schema["properties"].get(key) {
                    set_paths(field, property, &format!("{path}.{key}"), out);
                } else if schema["additionalProperties"].is_object() {
                    let values = &schema["additionalProperties"];
                    set_paths(field, values, &format!("{path}.*"), out);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                set_paths(item, &schema["items"], &format!("{path}[]"), out);
            }
        }
        _ => {}
    }
}

/// The CRD as a newer release of its owner may ship it: every string enum of every version
/// has [`NEWER_ENUM_VALUE`] too.
fn with_newer_enum_values(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::Array(values)) = map.get_mut("enum")
                && values.iter().all(|v| v.is_string() || v.is_null())
            {
                values.push(json!(NEWER_ENUM_VALUE));
            }
            map.values_mut().for_each(with_newer_enum_values);
        }
        Value::Array(items) => items.iter_mut().for_each(with_newer_enum_values),
        _ => {}
    }
}

/// `value` with every string the schema restricts to an enum replaced by
/// [`NEWER_ENUM_VALUE`].
fn using_newer_enum_values(value: &mut Value, schema: &Value) {
    if schema["x-kubernetes-preserve-unknown-fields"] == true {
        return;
    }
    match value {
        Value::String(text) if schema["enum"].is_array() => *text = NEWER_ENUM_VALUE.into(),
        Value::Object(map) => {
            for (key, field) in map.iter_mut() {
                if let Some(property) = schema["properties"].get(key) {
                    using_newer_enum_values(field, property);
                } else if schema["additionalProperties"].is_object() {
                    using_newer_enum_values(field, &schema["additionalProperties"]);
                }
            }
        }
        // The items of a set are unique
        // (https://kubernetes.io/docs/reference/using-api/server-side-apply/#merge-strategy):
        // of a set of enum values, the first one becomes the newer value.
        Value::Array(items) if schema["items"]["enum"].is_array() => {
            if let Some(first) = items.first_mut() {
                using_newer_enum_values(first, &schema["items"]);
            }
        }
        Value::Array(items) => {
            for item in items {
                using_newer_enum_values(item, &schema["items"]);
            }
        }
        _ => {}
    }
}

/// Where `actual` differs from `expected`, one line per path. JSON does not tell `2` from
/// `2.0` (RFC 8259, section 6), and neither does the server's schema validation.
fn differences(path: &str, expected: &Value, actual: &Value, out: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (key, value) in e {
                match a.get(key) {
                    Some(other) => differences(&format!("{path}.{key}"), value, other, out),
                    None => out.push(format!("{path}.{key}: lost {value}")),
                }
            }
            let added = a.iter().filter(|(key, _)| !e.contains_key(*key));
            out.extend(added.map(|(key, value)| format!("{path}.{key}: added {value}")));
        }
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => {
            for (i, (e, a)) in e.iter().zip(a).enumerate() {
                differences(&format!("{path}[{i}]"), e, a, out);
            }
        }
        (Value::Number(e), Value::Number(a)) if e.as_f64() == a.as_f64() => {}
        (e, a) if e == a => {}
        (e, a) => out.push(format!("{path}: {e} became {a}")),
    }
}

/// The object without what the server writes on every write: its resourceVersion, its
/// generation and the record of its field managers (with their times).
fn without_write_bookkeeping(mut object: Value) -> Value {
    if let Some(meta) = object["metadata"].as_object_mut() {
        for field in ["resourceVersion", "generation", "managedFields"] {
            meta.remove(field);
        }
    }
    object
}

/// The objects of the kind in `testdata/external-crds/samples`, as a client would create
/// them: without what only the server sets.
fn samples(kind: &Kind) -> Vec<Value> {
    let dir = repo_root().join("testdata/external-crds/samples");
    let mut samples = Vec::new();
    for entry in fs::read_dir(&dir).unwrap() {
        let text = fs::read_to_string(entry.unwrap().path()).unwrap();
        for document in serde_yaml::Deserializer::from_str(&text) {
            let mut value = Value::deserialize(document).unwrap();
            if value["apiVersion"] != kind.api_version.as_str() || value["kind"] != *kind.kind {
                continue;
            }
            let meta = value["metadata"].as_object_mut().unwrap();
            for field in ["uid", "resourceVersion", "generation", "creationTimestamp"] {
                meta.remove(field);
            }
            samples.push(value);
        }
    }
    samples
}

#[track_caller]
fn kubectl(server: &ApiServer, args: &[&str]) -> String {
    let out = server.kubectl(args);
    assert!(
        out.status.success(),
        "kubectl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn install(server: &ApiServer, dir: &Path, crd: &Value, name: &str) {
    let file = dir.join(format!("{name}.json"));
    fs::write(&file, crd.to_string()).unwrap();
    server.apply(&file).unwrap_or_else(|e| panic!("{e}"));
    server.established(name).unwrap_or_else(|e| panic!("{e}"));
}

/// Creates `objects` by server-side apply as the manager `round-trip`, their status through
/// the status subresource where the kind has one; the error when the server refuses one.
fn create(server: &ApiServer, dir: &Path, kind: &Kind, objects: &[Value]) -> Result<(), String> {
    for object in objects {
        let file = dir.join("object.json");
        fs::write(&file, object.to_string()).unwrap();
        let file = file.display().to_string();
        let apply = [
            "apply",
            "--server-side",
            "--field-manager=round-trip",
            "-f",
            &file,
        ];
        let mut writes = vec![apply.to_vec()];
        if kind.status_subresource && object.get("status").is_some() {
            writes.push([&apply[..], &["--subresource=status"]].concat());
        }
        for args in writes {
            let out = server.kubectl(&args);
            if !out.status.success() {
                return Err(format!(
                    "{} {}: {}",
                    kind.kind,
                    object["metadata"]["name"],
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    Ok(())
}

/// The objects as the server serves them at the kind's version.
fn served(server: &ApiServer, kind: &Kind, objects: &[Value]) -> Vec<Value> {
    objects
        .iter()
        .map(|object| {
            let meta = &object["metadata"];
            let mut args = vec!["get", &kind.resource, meta["name"].as_str().unwrap()];
            if kind.namespaced {
                args.extend(["-n", meta["namespace"].as_str().unwrap_or("default")]);
            }
            args.extend(["-o", "json", "--show-managed-fields"]);
            serde_json::from_str(&kubectl(server, &args)).unwrap()
        })
        .collect()
}

/// Has the project's program read `objects` through their types and apply them back; what
/// it read, serialized from the types.
fn round_trip(
    server: &ApiServer,
    program: &Path,
    dir: &Path,
    kind: &Kind,
    objects: &[Value],
) -> Vec<Value> {
    let targets: Vec<Value> = objects
        .iter()
        .map(|object| {
            let meta = &object["metadata"];
            let namespace = kind.namespaced.then(|| meta["namespace"].as_str().unwrap_or("default"));
            json!({"kind": kind.kind, "namespace": namespace, "name": meta["name"], "status": kind.status_subresource})
        })
        .collect();
    let (input, output) = (dir.join("targets.json"), dir.join("read.json"));
    fs::write(&input, serde_json::to_vec(&targets).unwrap()).unwrap();
    let out = Command::new(program)
        .args([&input, &output])
        .env("KUBECONFIG", server.kubeconfig())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "round_trip failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&fs::read(&output).unwrap()).unwrap()
}

/// Creates the objects, round-trips them through the types; the disagreements.
fn judge(
    server: &ApiServer,
    program: &Path,
    dir: &Path,
    kind: &Kind,
    objects: &[Value],
) -> Vec<String> {
    if let Err(refused) = create(server, dir, kind, objects) {
        panic!("the API server refuses a sample: {refused}");
    }
    let before = served(server, kind, objects);
    let read = round_trip(server, program, dir, kind, objects);
    let after = served(server, kind, objects);
    let mut found = Vec::new();
    for ((before, read), after) in before.iter().zip(&read).zip(after) {
        let name = format!("{} {}", kind.kind, before["metadata"]["name"]);
        let mut lines = Vec::new();
        differences("", before, read, &mut lines);
        found.extend(
            lines
                .drain(..)
                .map(|l| format!("{name}, read through the type: {l}")),
        );
        let (before, after) = (
            without_write_bookkeeping(before.clone()),
            without_write_bookkeeping(after),
        );
        differences("", &before, &after, &mut lines);
        found.extend(
            lines
                .drain(..)
                .map(|l| format!("{name}, applied back: {l}")),
        );
    }
    found
}

#[test]
#[ignore = "needs kube-apiserver and etcd (KUBEBUILDER_ASSETS); run with --include-ignored"]
fn external_kinds_read_and_write_back_what_the_api_server_serves() {
    let project = working_copy(
        "project-external",
        &repo_root().join("target/api-server-external/project-external"),
    );
    fs::create_dir_all(project.join("examples")).unwrap();
    fs::copy(
        repo_root().join("tests/api_server_external/round_trip.rs"),
        project.join("examples/round_trip.rs"),
    )
    .unwrap();
    run(&project, "cargo", &["build", "--example", "round_trip"]);
    let program = samples_target().join("debug/examples/round_trip");

    let server = api_server();
    let dir = tempfile::tempdir().unwrap();
    let kinds = external_kinds(&project);
    assert_eq!(kinds.len(), 4, "the external kinds of project-external");
    let mut missing = Vec::new();
    let mut found = Vec::new();
    for kind in &kinds {
        let samples = samples(kind);
        let (mut declared, mut set) = (BTreeSet::new(), BTreeSet::new());
        schema_paths(&kind.schema, "", &mut declared);
        for sample in &samples {
            set_paths(sample, &kind.schema, "", &mut set);
        }
        let unset: Vec<&String> = declared.difference(&set).collect();
        missing.extend(unset.iter().map(|path| format!("{} {path}", kind.kind)));
        for namespace in samples
            .iter()
            .filter_map(|s| s["metadata"]["namespace"].as_str())
        {
            let yaml = format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {namespace}\n");
            let file = dir.path().join("namespace.yaml");
            fs::write(&file, yaml).unwrap();
            server.apply(&file).unwrap();
        }

        install(server, dir.path(), &kind.crd, &kind.name);
        let disagreements = judge(server, &program, dir.path(), kind, &samples);

        let mut newer_crd = kind.crd.clone();
        with_newer_enum_values(&mut newer_crd["spec"]["versions"]);
        install(server, dir.path(), &newer_crd, &kind.name);
        let newer: Vec<Value> = samples
            .iter()
            .map(|sample| {
                let mut newer = sample.clone();
                using_newer_enum_values(&mut newer, &kind.schema);
                let name = format!("{}-newer", sample["metadata"]["name"].as_str().unwrap());
                newer["metadata"]["name"] = json!(name);
                newer
            })
            .collect();
        let newer_disagreements = judge(server, &program, dir.path(), kind, &newer);
        eprintln!(
            "{}: {} objects and {} with newer enum values, {} of {} fields set, {} disagreements",
            kind.kind,
            samples.len(),
            newer.len(),
            declared.len() - unset.len(),
            declared.len(),
            disagreements.len() + newer_disagreements.len()
        );
        found.extend(disagreements);
        found.extend(newer_disagreements);
    }
    assert!(
        found.is_empty(),
        "the types and the API server disagree:\n{}",
        found.join("\n")
    );
    assert!(
        missing.is_empty(),
        "the samples of testdata/external-crds/samples set no value at:\n{}",
        missing.join("\n")
    );
}
