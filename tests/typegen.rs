//! The Rust types `create api --from-crd` generates from a CRD's schema (`typegen`): what
//! each schema construct becomes, and that every file is Rust as rustfmt writes it, for the
//! fixtures and for schemas made up at random. (That the types compile, pass clippy and
//! read and write objects of the kind unchanged is `tests/sample_projects.rs`' part: it
//! builds `testdata/project-external`.)

mod common;

use std::process::Command;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use rsbuilder::external::crd_file;
use rsbuilder::typegen::{self, Generated};
use serde_json::{Value, json};

use common::*;

/// A CRD of `Widget` (example.io) whose v1 has the root schema `schema`; `version` adds to
/// that version's fields.
fn crd_with(schema: Value, version: Value) -> CustomResourceDefinition {
    let mut v1 = json!({"name": "v1", "served": true, "storage": true,
                        "schema": {"openAPIV3Schema": schema}});
    for (k, val) in version.as_object().unwrap() {
        v1[k] = val.clone();
    }
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.io"},
        "spec": {
            "group": "example.io",
            "names": {"kind": "Widget", "plural": "widgets", "shortNames": ["wd"]},
            "scope": "Namespaced",
            "versions": [v1],
        },
    }))
    .unwrap()
}

fn types_of(schema: Value) -> Generated {
    typegen::rust_types(&crd_with(schema, json!({})), "v1", "", &["Widgets.".into()]).unwrap()
}

/// The types of a spec with these properties (and `required`).
fn spec(properties: Value, required: &[&str]) -> String {
    types_of(json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": properties, "required": required}}}))
    .text
}

#[track_caller]
fn has(text: &str, lines: &[&str]) {
    for line in lines {
        assert!(text.contains(line), "no {line:?} in:\n{text}");
    }
}

#[test]
fn scalars_become_rust_scalars() {
    let text = spec(
        json!({
            "name": {"type": "string"},
            "at": {"type": "string", "format": "date-time"},
            "count": {"type": "integer"},
            "port": {"type": "integer", "format": "int32"},
            "ratio": {"type": "number"},
            "on": {"type": "boolean"},
            "target": {"x-kubernetes-int-or-string": true,
                       "anyOf": [{"type": "integer"}, {"type": "string"}]},
            "anything": {"x-kubernetes-preserve-unknown-fields": true},
        }),
        &[
            "name", "at", "count", "port", "ratio", "on", "target", "anything",
        ],
    );
    has(
        &text,
        &[
            "    pub name: String,",
            "    pub at: String,",
            "    pub count: i64,",
            "    pub port: i32,",
            "    pub ratio: f64,",
            "    pub on: bool,",
            "    pub target: IntOrString,",
            "    pub anything: serde_json::Value,",
            "use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;",
        ],
    );
}

#[test]
fn optional_fields_are_options_and_required_nullable_ones_are_written_as_null() {
    let text = spec(
        json!({
            "maybe": {"type": "string"},
            "always": {"type": "string"},
            "orNull": {"type": "string", "nullable": true},
        }),
        &["always", "orNull"],
    );
    has(
        &text,
        &[
            "    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub maybe: Option<String>,",
            "    pub always: String,",
            "    #[serde(rename = \"orNull\")]\n    pub or_null: Option<String>,",
        ],
    );
}

#[test]
fn keys_become_rust_names_without_clashes() {
    let text = spec(
        json!({
            "type": {"type": "string"},
            "self": {"type": "string"},
            "fooBar": {"type": "string"},
            "foo_bar": {"type": "string"},
            "2xx": {"type": "string"},
            "$ref": {"type": "string"},
        }),
        &["type", "self", "fooBar", "foo_bar", "2xx", "$ref"],
    );
    has(
        &text,
        &[
            "    pub field_2xx: String,",
            "    #[serde(rename = \"$ref\")]\n    pub r#ref: String,",
            "    #[serde(rename = \"fooBar\")]\n    pub foo_bar: String,",
            "    #[serde(rename = \"foo_bar\")]\n    pub foo_bar_2: String,",
            "    #[serde(rename = \"self\")]\n    pub self_: String,",
            "    pub r#type: String,",
        ],
    );
    rsbuilder::syntax::parse_file(&text).unwrap();
}

#[test]
fn objects_become_structs_named_by_their_path() {
    let text = spec(
        json!({
            "issuerRef": {"type": "object", "required": ["name"],
                          "properties": {"name": {"type": "string"}}},
            "rules": {"type": "array", "items": {"type": "object", "properties": {
                "matches": {"type": "array", "items": {"type": "array", "items": {
                    "type": "object", "properties": {"path": {"type": "string"}}}}}}}},
            "loose": {"type": "array"},
        }),
        &[],
    );
    has(
        &text,
        &[
            "    pub issuer_ref: Option<WidgetSpecIssuerRef>,",
            "pub struct WidgetSpecIssuerRef {\n    pub name: String,\n}",
            "    pub rules: Option<Vec<WidgetSpecRules>>,",
            "    pub matches: Option<Vec<Vec<WidgetSpecRulesMatches>>>,",
            "pub struct WidgetSpecRulesMatches {",
            "    pub loose: Option<Vec<serde_json::Value>>,",
            "/// The value of `.spec.issuerRef`.",
        ],
    );
    // Parents come before their children.
    let at = |name: &str| text.find(&format!("pub struct {name} ")).unwrap();
    assert!(at("WidgetSpec") < at("WidgetSpecRules"));
    assert!(at("WidgetSpecRules") < at("WidgetSpecRulesMatches"));
}

#[test]
fn paths_that_name_the_same_type_get_numbers() {
    let text = spec(
        json!({
            "aB": {"type": "object", "properties": {"x": {"type": "string"}}},
            "a": {"type": "object", "properties": {"b": {"type": "object", "properties": {
                "y": {"type": "string"}}}}},
        }),
        &[],
    );
    has(
        &text,
        &["pub struct WidgetSpecAB {", "pub struct WidgetSpecAB2 {"],
    );
}

#[test]
fn maps_become_btree_maps() {
    let text = spec(
        json!({
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "ports": {"type": "object", "additionalProperties": {
                "type": "object", "properties": {"number": {"type": "integer"}}}},
            "free": {"type": "object", "additionalProperties": true},
            "empty": {"type": "object"},
        }),
        &[],
    );
    has(
        &text,
        &[
            "use std::collections::BTreeMap;",
            "    pub labels: Option<BTreeMap<String, String>>,",
            "    pub ports: Option<BTreeMap<String, WidgetSpecPorts>>,",
            "pub struct WidgetSpecPorts {",
            "    pub free: Option<BTreeMap<String, serde_json::Value>>,",
            "    pub empty: Option<BTreeMap<String, serde_json::Value>>,",
        ],
    );
}

#[test]
fn fields_a_schema_keeps_without_naming_them_are_kept() {
    let text = spec(
        json!({"meta": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                        "properties": {"node": {"type": "boolean"}}}}),
        &[],
    );
    has(
        &text,
        &["    #[serde(flatten)]\n    pub other_fields: BTreeMap<String, serde_json::Value>,"],
    );
}

#[test]
fn string_enums_become_enums() {
    let text = spec(
        json!({"algorithm": {"type": "string", "enum": ["RSA", "ECDSA", "Ed25519", null, "rsa"]},
               "code": {"type": "integer", "enum": [301, 302]},
               "mixed": {"type": "string", "enum": ["a", 1]}}),
        &["algorithm"],
    );
    has(
        &text,
        &[
            "    pub algorithm: WidgetSpecAlgorithm,",
            "#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]\npub enum WidgetSpecAlgorithm {\n    #[default]\n    #[serde(rename = \"RSA\")]\n    Rsa,\n    #[serde(rename = \"ECDSA\")]\n    Ecdsa,\n    Ed25519,\n    #[serde(rename = \"rsa\")]\n    Rsa2,\n    /// A value these types do not know, kept as it is.\n    #[serde(untagged)]\n    Unknown(String),\n}",
            "    pub code: Option<i64>,",
            "    pub mixed: Option<String>,",
        ],
    );
}

#[test]
fn kube_attributes_follow_the_crd() {
    let schema = json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
        "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}});
    let crd = crd_with(
        schema,
        json!({
            "storage": false,
            "deprecated": true,
            "deprecationWarning": "use v2",
            "subresources": {"status": {}, "scale": {
                "specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
            "additionalPrinterColumns": [{"name": "Ready", "type": "string",
                "jsonPath": ".status.conditions[?(@.type==\"Ready\")].status"}],
            "selectableFields": [{"jsonPath": ".spec.replicas"}],
        }),
    );
    let text = typegen::rust_types(&crd, "v1", "", &[]).unwrap().text;
    has(
        &text,
        &[
            "    group = \"example.io\",\n    version = \"v1\",\n    kind = \"Widget\",\n    plural = \"widgets\",\n    namespaced,\n    status = \"WidgetStatus\",",
            "    scale(\n        spec_replicas_path = \".spec.replicas\",\n        status_replicas_path = \".status.replicas\"\n    ),",
            "    shortname = \"wd\",",
            r##"    printcolumn = r#"{"jsonPath":".status.conditions[?(@.type==\"Ready\")].status","name":"Ready","type":"string"}"#,"##,
            "    selectable = \".spec.replicas\",",
            "    storage = false,",
            "    deprecated = \"use v2\",",
            "    schema = \"disabled\",\n    derive = \"Default\",\n    derive = \"PartialEq\"\n)]\npub struct WidgetSpec {",
            "pub struct WidgetStatus {",
        ],
    );
}

#[test]
fn a_crd_without_spec_puts_its_fields_at_the_root() {
    let generated = types_of(
        json!({"type": "object", "required": ["data"], "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "data": {"type": "object", "additionalProperties": {"type": "string"}}}}),
    );
    has(
        &generated.text,
        &[
            "    no_spec,",
            "pub struct WidgetSpec {\n    pub data: BTreeMap<String, String>,\n}",
        ],
    );
    assert!(generated.untyped.is_empty());
}

#[test]
fn top_level_fields_beside_spec_are_reported_untyped() {
    let generated = types_of(json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {}},
        "data": {"type": "string"}, "extra": {"type": "object"}}}));
    assert_eq!(generated.untyped, [".data", ".extra"]);
    has(&generated.text, &["pub struct WidgetSpec {}"]);
}

#[test]
fn schemas_deeper_than_64_levels_are_refused() {
    let mut schema = json!({"type": "string"});
    for _ in 0..70 {
        schema = json!({"type": "array", "items": schema});
    }
    let crd = crd_with(
        json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"deep": schema}}}}),
        json!({}),
    );
    let err = typegen::rust_types(&crd, "v1", "", &[]).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("the schema nests deeper than 64 levels (at .spec.deep[]"),
        "{err}"
    );
}

#[test]
fn descriptions_are_docs_that_compile_nothing() {
    let text = spec(
        json!({"x": {"type": "string",
               "description": "Example:\n\n    kubectl get widgets\n\n- a\nlazy\n```yaml\nx: 1\n```"}}),
        &[],
    );
    has(
        &text,
        &[
            "    /// Example:\n    ///\n    /// kubectl get widgets\n    ///\n    /// - a\n    ///\n    /// lazy\n    /// ```text\n    /// x: 1\n    /// ```\n",
        ],
    );
}

/// Runs rustfmt over `files` (name, text) in one go; `None` when rustfmt is not installed.
fn rustfmt_check(files: &[(String, String)]) -> Option<String> {
    if Command::new("rustfmt").arg("--version").output().is_err() {
        eprintln!("rustfmt is not installed; skipping the layout check");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        paths.push(path);
    }
    let out = Command::new("rustfmt")
        .args(["--edition", "2024", "--check"])
        .args(&paths)
        .output()
        .unwrap();
    Some(format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ))
}

#[test]
fn every_served_version_of_the_fixtures_is_rust_as_rustfmt_writes_it() {
    let dir = repo_root().join("testdata/external-crds");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        for crd in crd_file::parse(&text, &name).unwrap() {
            crd_file::check(&crd).unwrap();
            for v in crd.crd.spec.versions.iter().filter(|v| v.served) {
                let generated =
                    typegen::rust_types(&crd.crd, &v.name, "", &["Fixture.".into()]).unwrap();
                rsbuilder::syntax::parse_file(&generated.text).unwrap();
                assert!(generated.untyped.is_empty(), "{:?}", generated.untyped);
                files.push((format!("{}_{}.rs", crd.kind(), v.name), generated.text));
            }
        }
    }
    assert!(files.len() >= 6, "{} files", files.len());
    if let Some(out) = rustfmt_check(&files) {
        assert!(
            out.is_empty(),
            "rustfmt would change the generated types:\n{out}"
        );
    }
}

/// Every fixture is a CRD the API server would take: structural, as Kubernetes requires
/// of `apiextensions.k8s.io/v1` CRDs (checked with rsbuilder's own structural rules).
#[test]
fn the_fixtures_are_structural() {
    let dir = repo_root().join("testdata/external-crds");
    for name in [
        "certificate.yaml",
        "gateway-api.yaml",
        "servicemonitor.yaml",
        "rollout.yaml",
    ] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        for crd in crd_file::parse(&text, name).unwrap() {
            let violations = rsbuilder::crd::structural::check(&crd.crd);
            assert!(violations.is_empty(), "{name}: {violations:?}");
        }
    }
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-zA-Z0-9]{0,10}",
        "[A-Z][A-Za-z]{0,6}",
        "[a-z$@.-][a-z0-9_./-]{0,5}",
        prop::sample::select(vec![
            "type", "self", "match", "fooBar", "foo_bar", "", "2xx"
        ])
        .prop_map(String::from),
    ]
}

fn description() -> impl Strategy<Value = Option<String>> {
    prop::option::of(prop::sample::select(vec![
        "Plain.",
        "Lines:\n- one\n- two\nlazy continuation",
        "Code:\n\n    indented block\n\n```\nfenced\n```",
        "> quoted\nlazy",
        "Tabs\tand trailing spaces   \n\n\n\nand blank lines",
        "```yaml\nunclosed: fence",
        "1. ordered\n2) list\nafter",
    ]))
    .prop_map(|d| d.map(String::from))
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "string", "format": "date-time"})),
        Just(json!({"type": "integer", "format": "int32"})),
        Just(json!({"type": "integer"})),
        Just(json!({"type": "number"})),
        Just(json!({"type": "boolean"})),
        Just(json!({"x-kubernetes-int-or-string": true})),
        Just(json!({"x-kubernetes-preserve-unknown-fields": true})),
        prop::collection::vec(key(), 1..5)
            .prop_map(|values| json!({"type": "string", "enum": values})),
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(6, 48, 6, |inner| {
        prop_oneof![
            (
                prop::collection::btree_map(
                    key(),
                    (inner.clone(), any::<bool>(), description()),
                    0..6
                ),
                any::<bool>(),
            )
                .prop_map(|(properties, keep)| {
                    let required: Vec<&String> = properties
                        .iter()
                        .filter(|(_, (_, r, _))| *r)
                        .map(|(k, _)| k)
                        .collect();
                    let props: serde_json::Map<String, Value> = properties
                        .iter()
                        .map(|(k, (s, _, d))| {
                            let mut s = s.clone();
                            if let Some(d) = d {
                                s["description"] = json!(d);
                            }
                            (k.clone(), s)
                        })
                        .collect();
                    json!({"type": "object", "properties": props, "required": required,
                           "x-kubernetes-preserve-unknown-fields": keep})
                }),
            inner
                .clone()
                .prop_map(|items| json!({"type": "array", "items": items})),
            inner.prop_map(|values| json!({"type": "object", "additionalProperties": values})),
        ]
    })
}

/// Schemas made up at random, with every construct the generator knows, awkward keys and
/// Markdown: the types parse as Rust, and rustfmt would not change a character.
#[test]
fn random_schemas_give_rust_as_rustfmt_writes_it() {
    let mut runner = TestRunner::new(Config {
        cases: 64,
        ..Config::default()
    });
    let mut files = Vec::new();
    for i in 0..64 {
        let spec = schema().new_tree(&mut runner).unwrap().current();
        let status = schema().new_tree(&mut runner).unwrap().current();
        let root = json!({"type": "object", "properties": {"spec": spec, "status": status}});
        let generated = types_of(root.clone());
        if let Err(e) = rsbuilder::syntax::parse_file(&generated.text) {
            panic!(
                "not Rust ({e}) for the schema {root:#}:\n{}",
                generated.text
            );
        }
        files.push((format!("case_{i}.rs"), generated.text));
    }
    if let Some(out) = rustfmt_check(&files) {
        assert!(
            out.is_empty(),
            "rustfmt would change the generated types:\n{out}"
        );
    }
}
