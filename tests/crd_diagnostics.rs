//! Each construct static generation refuses (or that is simply wrong) gives its
//! `file:line:col` message, and all diagnostics of a run come back together.

use std::path::PathBuf;

use rsbuilder::crd::{SourceFile, generate};

const HEAD: &str =
    "use kube::CustomResource;\nuse schemars::JsonSchema;\nuse serde::{Deserialize, Serialize};\n";

fn src(name: &str, body: &str) -> SourceFile {
    SourceFile {
        path: PathBuf::from(format!("src/api/{name}")),
        text: format!("{HEAD}{body}"),
    }
}

/// The diagnostics of a run as `file:line:col: message` lines.
fn diags(files: &[SourceFile]) -> Vec<String> {
    match generate(files) {
        Ok(out) => panic!(
            "expected diagnostics, got files {:?}",
            out.keys().collect::<Vec<_>>()
        ),
        Err(d) => d.iter().map(ToString::to_string).collect(),
    }
}

fn kind(extra_kube: &str, spec_body: &str) -> String {
    format!(
        "#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]\n\
         #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Thing\"{extra_kube})]\n\
         pub struct ThingSpec {{\n{spec_body}\n}}\n"
    )
}

fn check(body: &str, expected: &str) {
    let got = diags(&[src("t.rs", body)]);
    assert!(
        got.iter().any(|d| d == expected),
        "expected\n  {expected}\ngot\n  {}",
        got.join("\n  ")
    );
}

#[test]
fn type_from_unknown_crate() {
    check(
        &format!("use billing::Money;\n{}", kind("", "    pub price: Money,")),
        "src/api/t.rs:8:16: type `Money` cannot be generated statically: `billing::Money` comes from outside the given sources and is not a known std or k8s-openapi type; use --exact",
    );
}

#[test]
fn manual_json_schema_impl() {
    let body = format!(
        "{}#[derive(Clone, Debug, Deserialize, Serialize)]\npub struct Custom;\nimpl JsonSchema for Custom {{}}\n",
        kind("", "    pub c: Custom,")
    );
    check(
        &body,
        "src/api/t.rs:10:12: type `Custom` cannot be generated statically: it has a hand-written `impl JsonSchema`; use --exact",
    );
}

#[test]
fn schema_with() {
    check(
        &kind(
            "",
            "    #[schemars(schema_with = \"my_schema\")]\n    pub c: String,",
        ),
        "src/api/t.rs:7:16: `#[schemars(schema_with = ...)]` cannot be generated statically: the schema is produced by user code (`my_schema` is not a function of the given sources); use --exact",
    );
}

#[test]
fn schema_with_computing_its_schema_is_refused() {
    let body = format!(
        "{}fn computed(g: &mut schemars::SchemaGenerator) -> schemars::Schema {{ g.subschema_for::<String>() }}\n",
        kind(
            "",
            "    #[schemars(schema_with = \"computed\")]\n    pub c: String,"
        )
    );
    check(
        &body,
        "src/api/t.rs:7:16: `#[schemars(schema_with = ...)]` cannot be generated statically: the schema is produced by user code (the body of `computed` is not one literal schema (`json_schema!({..})`, or `json!({..})` into a `Schema`)); use --exact",
    );
}

#[test]
fn non_literal_default() {
    let body = format!(
        "{}fn compute() -> u32 {{ let x = 2; x * 3 }}\n",
        kind("", "    #[serde(default = \"compute\")]\n    pub n: u32,")
    );
    check(
        &body,
        "src/api/t.rs:7:23: `#[serde(default = \"compute\")]` cannot be generated statically: its body is not a single literal expression; use --exact",
    );
}

#[test]
fn default_with_hand_written_default_impl_that_computes() {
    let body = format!(
        "{}#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\npub struct Opts {{ pub a: u8 }}\nimpl Default for Opts {{ fn default() -> Self {{ Opts {{ a: 1 + 2 }} }} }}\n",
        kind("", "    #[serde(default)]\n    pub opts: Opts,")
    );
    check(
        &body,
        "src/api/t.rs:7:13: the default of `Opts` cannot be generated statically: its hand-written `Default` impl is not a literal value rsbuilder can evaluate; use --exact",
    );
}

#[test]
fn internally_tagged_enum() {
    let body = format!(
        "{}#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\n#[serde(tag = \"type\")]\npub enum Shape {{ Circle {{ r: f64 }}, Square {{ side: f64 }} }}\n",
        kind("", "    pub shape: Shape,")
    );
    check(
        &body,
        "src/api/t.rs:11:10: internally tagged enum `Shape` cannot be generated statically: kube-derive's structural rewrite cannot merge the variants' shared tag property (it panics at run time); use --exact",
    );
}

#[test]
fn adjacently_tagged_enum() {
    let body = format!(
        "{}#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\n#[serde(tag = \"t\", content = \"c\")]\npub enum Shape {{ A(u8), B(String) }}\n",
        kind("", "    pub shape: Shape,")
    );
    check(
        &body,
        "src/api/t.rs:11:10: adjacently tagged enum `Shape` cannot be generated statically: kube-derive's structural rewrite cannot merge the variants' shared tag property (it panics at run time); use --exact",
    );
}

#[test]
fn conflicting_variant_properties_are_kubes_own_error() {
    let body = format!(
        "{}#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\n#[serde(untagged)]\npub enum Either {{ A {{ x: String }}, B {{ x: u8 }} }}\n",
        kind("", "    pub e: Either,")
    );
    let got = diags(&[src("t.rs", &body)]);
    assert!(
        got.iter().any(|d| d.starts_with("src/api/t.rs:7:5: field `ThingSpec.e` makes a schema kube-derive rejects (`Thing::crd()` panics): Property \"x\" has the schema")),
        "{got:?}"
    );
}

#[test]
fn unparsable_rust() {
    let got = diags(&[src("bad.rs", "pub struct {")]);
    assert_eq!(got.len(), 1);
    assert!(
        got[0].starts_with("src/api/bad.rs:4:12: cannot parse Rust:"),
        "{got:?}"
    );
}

#[test]
fn wrong_kube_attribute_value() {
    check(
        &kind(", namespaced = \"yes\"", "    pub a: u8,"),
        "src/api/t.rs:5:78: invalid #[kube] attribute: expected `true` or `false`, found \"yes\"",
    );
}

#[test]
fn two_storage_versions() {
    let v1 = kind("", "    pub a: u8,");
    let v2 = kind("", "    pub a: u8,").replace("\"v1\"", "\"v2\"");
    let got = diags(&[src("v1.rs", &v1), src("v2.rs", &v2)]);
    assert_eq!(
        got,
        [
            "src/api/v1.rs:6:12: Thing.t.example.com has 2 storage versions (v1, v2): mark all but one with `#[kube(storage = false)]`",
            "src/api/v2.rs:6:12: Thing.t.example.com has 2 storage versions (v1, v2): mark all but one with `#[kube(storage = false)]`",
        ]
    );
}

#[test]
fn no_storage_version() {
    let v1 = kind(", storage = false", "    pub a: u8,");
    let v2 = kind(", storage = false", "    pub a: u8,").replace("\"v1\"", "\"v2\"");
    let got = diags(&[src("v1.rs", &v1), src("v2.rs", &v2)]);
    assert_eq!(
        got,
        [
            "src/api/v1.rs:6:12: Thing.t.example.com has no storage version: exactly one version must not have `#[kube(storage = false)]`"
        ]
    );
}

#[test]
fn versions_disagree_on_scope() {
    let v1 = kind(", namespaced", "    pub a: u8,");
    let v2 = kind(", storage = false", "    pub a: u8,").replace("\"v1\"", "\"v2\"");
    let got = diags(&[src("v1.rs", &v1), src("v2.rs", &v2)]);
    assert_eq!(
        got,
        [
            "src/api/v1.rs:6:12: the versions of Thing.t.example.com cannot be merged: mismatching scope property from given CRDs"
        ]
    );
}

#[test]
fn non_structural_schema_is_refused_with_its_path() {
    let body = format!(
        "{}#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\npub struct Marker;\n",
        kind("", "    pub m: Option<Marker>,")
    );
    let got = diags(&[src("t.rs", &body)]);
    assert_eq!(
        got,
        [
            "src/api/t.rs:7:5: field `ThingSpec.m` makes a schema the API server rejects: must have a `type` (or x-kubernetes-int-or-string / x-kubernetes-preserve-unknown-fields) at spec.versions[v1].schema.openAPIV3Schema.properties[spec].properties[m] (kube-derive emits the same; CRD schemas must be structural)"
        ]
    );
}

/// The API server rejects CRDs whose schema is not structural; the refusal names the Rust
/// field deep inside the spec (through renames, `Vec`, maps and `Option`), not only the
/// YAML path. Contract: apiextensions.k8s.io/v1 "Specifying a structural schema"
/// (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#specifying-a-structural-schema).
#[test]
fn non_structural_schemas_name_the_rust_field() {
    let body = format!(
        "{}#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\n\
         #[serde(rename_all = \"camelCase\")]\n\
         pub struct Rule {{\n    pub name: String,\n    pub match_value: Scalar,\n}}\n\
         #[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\n\
         #[serde(untagged)]\n\
         pub enum Scalar {{ S(String), N(i64) }}\n",
        kind("", "    pub rules: Option<Vec<Rule>>,")
    );
    assert_eq!(
        diags(&[src("t.rs", &body)]),
        [
            "src/api/t.rs:13:5: field `Rule.match_value` makes a schema the API server rejects: must have a `type` (or x-kubernetes-int-or-string / x-kubernetes-preserve-unknown-fields) at spec.versions[v1].schema.openAPIV3Schema.properties[spec].properties[rules].items.properties[matchValue] (kube-derive emits the same; CRD schemas must be structural)"
        ]
    );
}

#[test]
fn every_problem_of_a_run_is_reported_at_once() {
    let a = kind(
        "",
        "    pub a: chrono::DateTime,\n    #[schemars(schema_with = \"f\")]\n    pub b: String,",
    );
    let b = "pub struct {";
    let got = diags(&[src("a.rs", &a), src("b.rs", b)]);
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(
        got[0].starts_with("src/api/a.rs:7:12: type `chrono::DateTime`"),
        "{got:?}"
    );
    assert!(
        got[1].starts_with("src/api/a.rs:8:16: `#[schemars(schema_with = ...)]`"),
        "{got:?}"
    );
    assert!(
        got[2].starts_with("src/api/b.rs:4:12: cannot parse Rust"),
        "{got:?}"
    );
}

#[test]
fn recursive_types_are_refused() {
    let body = format!(
        "{}#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\npub struct Node {{ pub children: Vec<Node> }}\n",
        kind("", "    pub root: Node,")
    );
    check(
        &body,
        "src/api/t.rs:10:12: recursive type `Node` cannot be generated statically: schemars would emit a `$ref`, which CRDs do not allow; use --exact",
    );
}

#[test]
fn cfg_the_source_does_not_decide_is_refused_where_it_matters() {
    let body = kind(
        "",
        "    #[cfg(debug_assertions)]\n    pub verbose: bool,\n    #[cfg_attr(unix, serde(rename = \"p\"))]\n    pub port: u16,\n    #[cfg_attr(unix, allow(dead_code))]\n    pub fine: u16,",
    );
    let got = diags(&[src("t.rs", &body)]);
    assert_eq!(
        got,
        [
            "src/api/t.rs:7:11: field `verbose` cannot be generated statically: it is under `#[cfg(debug_assertions)]`, and it depends on the build profile, which the source does not fix; use --exact",
            "src/api/t.rs:9:16: field `port` cannot be generated statically: it is under `#[cfg(unix)]`, and it depends on the target or the build, which the source does not fix; use --exact",
        ],
        "the undecided `cfg_attr(unix, allow(..))` changes nothing and is not refused"
    );
}

#[test]
fn cfg_feature_without_a_manifest_is_refused() {
    check(
        &kind("", "    #[cfg(feature = \"metrics\")]\n    pub port: u16,"),
        "src/api/t.rs:7:11: field `port` cannot be generated statically: it is under `#[cfg(feature = \"metrics\")]`, and no Cargo.toml was found to say which features are enabled; use --exact",
    );
}

#[test]
fn a_kind_or_type_under_an_undecided_cfg_is_refused() {
    let body = format!(
        "#[cfg(unix)]\n{}#[cfg(target_os = \"linux\")]\npub type Port = u16;\n#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]\n#[kube(group = \"t.example.com\", version = \"v1\", kind = \"Other\")]\npub struct OtherSpec {{ pub port: Port }}\n",
        kind("", "    pub a: u8,")
    );
    let got = diags(&[src("t.rs", &body)]);
    assert_eq!(
        got,
        [
            "src/api/t.rs:7:12: custom resource `ThingSpec` cannot be generated statically: it is defined under `#[cfg(unix)]`, and it depends on the target or the build, which the source does not fix; use --exact",
            "src/api/t.rs:14:34: type `Port` cannot be generated statically: it is defined under `#[cfg(target_os = \"linux\")]` (src/api/t.rs:10), and it depends on the target or the build, which the source does not fix; use --exact",
        ]
    );
}

#[test]
fn macros_that_could_define_a_kind_are_warned_about() {
    let body = format!(
        "{}macro_rules! plain {{ () => {{}} }}\nplain!();\nmy_crate::define_kind!(Foo);\ninclude!(\"generated.rs\");\nthread_local! {{ static X: u8 = 0; }}\n",
        kind("", "    pub a: u8,")
    );
    let out = rsbuilder::crd::generate_in(&rsbuilder::crd::Crate::default(), &[src("t.rs", &body)])
        .expect("generates");
    let warnings: Vec<String> = out.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "src/api/t.rs:11:1: warning: macro `define_kind!` is not expanded by `generate crds`: a custom resource it defines is missed (use --exact)",
            "src/api/t.rs:12:1: warning: `include!` is not read by `generate crds`: a custom resource in the included file is missed (use --exact)",
        ]
    );
}

#[test]
fn a_file_no_mod_declares_is_skipped_with_a_warning() {
    let files = [
        SourceFile {
            path: PathBuf::from("src/api/mod.rs"),
            text: "pub mod v1;\n".into(),
        },
        src("v1.rs", &kind("", "    pub a: u8,")),
        src(
            "old.rs",
            &kind("", "    pub a: u8,").replace("Thing", "Old"),
        ),
    ];
    let out =
        rsbuilder::crd::generate_in(&rsbuilder::crd::Crate::default(), &files).expect("generates");
    assert_eq!(
        out.output.keys().collect::<Vec<_>>(),
        ["t.example.com_things.yaml"]
    );
    assert_eq!(
        out.warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        [
            "src/api/old.rs: warning: skipped: no `mod` item in src/api/mod.rs declares this file, so rustc does not compile it"
        ]
    );
}

/// The diagnostics of a run over `files` as the sources of a crate with `manifest`.
fn diags_in(manifest: &str, files: &[SourceFile]) -> Vec<String> {
    let krate = rsbuilder::crd::Crate::parse(manifest, None, &[]).expect("manifest parses");
    match rsbuilder::crd::generate_in(&krate, files) {
        Ok(out) => panic!("expected diagnostics, got {:?}", out.output.keys()),
        Err(d) => d.iter().map(ToString::to_string).collect(),
    }
}

#[test]
fn feature_crate_types_need_schemars_feature() {
    let body = kind(
        "",
        "    pub id: uuid::Uuid,\n    pub at: chrono::DateTime<chrono::Utc>,",
    );
    let without_manifest = diags(&[src("t.rs", &body)]);
    assert_eq!(
        without_manifest,
        [
            "src/api/t.rs:7:13: type `uuid::Uuid` cannot be generated statically: its `JsonSchema` impl is schemars' `uuid1` feature, and no Cargo.toml was found to say it is on; use --exact",
            "src/api/t.rs:8:13: type `chrono::DateTime<chrono::Utc>` cannot be generated statically: its `JsonSchema` impl is schemars' `chrono04` feature, and no Cargo.toml was found to say it is on; use --exact",
        ]
    );
    let with_chrono_only = diags_in(
        "[dependencies]\nschemars = { version = \"1\", features = [\"chrono04\"] }\n",
        &[src("t.rs", &body)],
    );
    assert_eq!(with_chrono_only.len(), 1, "{with_chrono_only:?}");
    assert!(
        with_chrono_only[0].contains("type `uuid::Uuid` cannot be generated statically: its `JsonSchema` impl is schemars' `uuid1` feature, which the crate's Cargo.toml and Cargo.lock do not turn on"),
        "{with_chrono_only:?}"
    );
}

#[test]
fn a_type_kube_derive_cannot_put_in_a_crd_is_refused() {
    // schemars gives `bytes::Bytes` `"type": ["array", "string"]`, which kube-derive's
    // `crd()` cannot turn into a JSONSchemaProps (it panics).
    let got = diags_in(
        "[dependencies]\nschemars = { version = \"1\", features = [\"bytes1\"] }\n",
        &[src("t.rs", &kind("", "    pub digest: bytes::Bytes,"))],
    );
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0]
            .starts_with("src/api/t.rs:6:12: the schema of `Thing` is not a valid JSONSchemaProps"),
        "{got:?}"
    );
}

#[test]
fn generic_types_rustc_or_kube_derive_would_not_accept_are_refused() {
    // A borrowed field: a CRD type is `DeserializeOwned`, so kube-derive cannot have it
    // (lifetime parameters themselves are fine: `Cow<'a, str>`).
    let borrowed = format!(
        "{}#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\npub struct Borrowed<'a> {{ pub s: &'a str }}\n",
        kind("", "    pub b: Borrowed<'static>,")
    );
    check(
        &borrowed,
        "src/api/t.rs:10:34: type `&'astr` cannot be generated statically: only named types (structs, enums, std and k8s-openapi types) are supported; use --exact",
    );
    // A generic type that contains itself: schemars emits a `$ref` for it.
    let tree = format!(
        "{}#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\npub struct Tree<T> {{ pub value: T, pub children: Vec<Tree<T>> }}\n",
        kind("", "    pub root: Tree<u8>,")
    );
    check(
        &tree,
        "src/api/t.rs:10:12: recursive type `Tree` cannot be generated statically: schemars would emit a `$ref`, which CRDs do not allow; use --exact",
    );
}

#[test]
fn generic_enum_mixing_unit_and_data_variants_is_refused() {
    // kube-derive panics on it (a unit variant is a string, the others objects).
    let body = format!(
        "{}#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\npub enum Kind<T> {{ Some(T), Empty }}\n",
        kind("", "    pub k: Kind<String>,")
    );
    let got = diags(&[src("t.rs", &body)]);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].starts_with("src/api/t.rs:7:5: field `ThingSpec.k` makes a schema kube-derive rejects (`Thing::crd()` panics): Enum variant set [String(\"Empty\")]"),
        "{got:?}"
    );
}

#[test]
fn validation_values_the_source_does_not_fix_are_refused() {
    // A bound computed in code, and a regex built from a string made at run time.
    let body = format!(
        "{}const MAX: usize = 8 * 8;\nstatic RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| regex::Regex::new(&format!(\"^{{}}$\", \"a\")).unwrap());\n",
        kind(
            "",
            "    #[validate(length(max = MAX))]\n    pub a: String,\n    #[validate(regex(path = *RE))]\n    pub b: String,\n    #[garde(pattern(unknown::RE))]\n    pub c: String,",
        )
    );
    let got = diags(&[src("t.rs", &body)]);
    assert_eq!(
        got,
        [
            "src/api/t.rs:7:29: this validation bound cannot be generated statically: `MAX`: it is not a literal, nor a `const`/`static` with a literal value; use --exact",
            "src/api/t.rs:9:29: this validation pattern cannot be generated statically: `RE`: it is not a literal, nor a `const`/`static` with a literal value; use --exact",
            "src/api/t.rs:11:21: this validation pattern cannot be generated statically: `unknown::RE` is not a `const` or `static` of the given sources; use --exact",
        ]
    );
}

#[test]
fn validation_forms_schemars_rejects_are_refused() {
    // schemars itself fails to compile these, so kube-derive never runs.
    check(
        &kind(
            "",
            "    #[garde(email(message = \"x\"))]\n    pub a: String,",
        ),
        "src/api/t.rs:7:13: this `email` validation attribute cannot be generated statically: schemars rejects it (a format keyword takes no value), so kube-derive does not compile; use --exact",
    );
}

#[test]
fn a_generic_type_from_another_crate_says_where_it_comes_from() {
    check(
        &format!(
            "use other::SingleOrVec;\n{}",
            kind("", "    pub hosts: SingleOrVec<String>,")
        ),
        "src/api/t.rs:8:16: type `SingleOrVec<String>` cannot be generated statically: `other::SingleOrVec` comes from outside the given sources and is not a known std or k8s-openapi type; use --exact",
    );
}

/// KubeSchema re-derives the struct keeping only serde, schemars, doc and validate
/// attributes (kube-derive 5 `cel_schema`), so schemars never sees `#[garde]` there; under
/// JsonSchema it does. (No parity case: the oracle has no garde crate to accept the
/// attribute on a KubeSchema-only struct.)
#[test]
fn garde_attributes_do_not_reach_schemars_through_kube_schema() {
    let spec = |derive: &str| {
        format!(
            "use kube::{{CustomResource, KubeSchema}};\nuse schemars::JsonSchema;\nuse serde::{{Deserialize, Serialize}};\n\
             #[derive(CustomResource, {derive}, Clone, Debug, Deserialize, Serialize)]\n\
             #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Thing\")]\n\
             pub struct ThingSpec {{\n    #[garde(pattern(\"^a\"))]\n    #[validate(length(max = 9))]\n    pub a: String,\n}}\n"
        )
    };
    let yaml = |derive: &str| {
        let out = generate(&[SourceFile {
            path: PathBuf::from("src/api/t.rs"),
            text: spec(derive),
        }])
        .expect("generates");
        out["t.example.com_things.yaml"].clone()
    };
    let kube_schema = yaml("KubeSchema");
    assert!(
        kube_schema.contains("maxLength: 9") && !kube_schema.contains("pattern"),
        "{kube_schema}"
    );
    let json_schema = yaml("JsonSchema");
    assert!(
        json_schema.contains("maxLength: 9") && json_schema.contains("pattern: ^a"),
        "{json_schema}"
    );
}

/// A crate of `files` (`src/lib.rs` declares the others), as `generate crds` reads it.
fn crate_files(files: &[(&str, &str)]) -> Vec<SourceFile> {
    files
        .iter()
        .map(|(path, text)| SourceFile {
            path: PathBuf::from(path),
            text: text.to_string(),
        })
        .collect()
}

const TYPES: &str =
    "use kube::CustomResource;\nuse schemars::JsonSchema;\nuse serde::{Deserialize, Serialize};\n";

/// The file of a refusal is the file its span belongs to, wherever the construct is
/// found: a default function, a const, a `schema_with` function, a path dependency.
#[test]
fn a_refusal_names_the_file_of_its_span_for_a_default_function_in_another_file() {
    let files = crate_files(&[
        ("src/lib.rs", "pub mod defaults;\npub mod types;\n"),
        (
            "src/types.rs",
            &format!(
                "{TYPES}#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]\n\
                 #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Thing\")]\n\
                 pub struct ThingSpec {{\n    #[serde(default = \"crate::defaults::opts\")]\n    pub opts: Opts,\n}}\n\
                 #[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\npub struct Opts {{ pub a: u8 }}\n"
            ),
        ),
        (
            "src/defaults.rs",
            "use crate::types::Opts;\n\npub fn opts() -> Opts {\n    Opts {\n        a: 1 + 2,\n    }\n}\n",
        ),
    ]);
    let got = diags(&files);
    assert_eq!(
        got,
        [
            "src/defaults.rs:4:5: this default cannot be generated statically: it is not a literal value rsbuilder can evaluate; use --exact"
        ]
    );
}

#[test]
fn a_refusal_names_the_file_of_its_span_for_a_const_in_another_file() {
    let files = crate_files(&[
        ("src/lib.rs", "pub mod limits;\npub mod types;\n"),
        (
            "src/types.rs",
            &format!(
                "{TYPES}#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]\n\
                 #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Thing\")]\n\
                 pub struct ThingSpec {{\n    #[validate(length(max = crate::limits::MAX))]\n    pub name: String,\n}}\n"
            ),
        ),
        ("src/limits.rs", "\n\npub const MAX: u64 = 3 * 4;\n"),
    ]);
    let got = diags(&files);
    // The bound is written in types.rs; what cannot be evaluated is there too.
    assert!(
        got.iter().all(|d| d.starts_with("src/types.rs:7:")),
        "{got:#?}"
    );
}

#[test]
fn a_refusal_names_the_file_of_its_span_for_a_schema_with_function_in_another_file() {
    let files = crate_files(&[
        ("src/lib.rs", "pub mod schemas;\npub mod types;\n"),
        (
            "src/types.rs",
            &format!(
                "{TYPES}#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]\n\
                 #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Thing\")]\n\
                 pub struct ThingSpec {{\n    pub labels: crate::schemas::Labels,\n}}\n"
            ),
        ),
        (
            "src/schemas.rs",
            "use schemars::JsonSchema;\n\n#[derive(JsonSchema)]\n#[schemars(schema_with = \"computed\")]\npub struct Labels(u8);\n\nfn computed(g: &mut schemars::SchemaGenerator) -> schemars::Schema {\n    g.subschema_for::<u8>()\n}\n",
        ),
    ]);
    let got = diags(&files);
    assert!(
        got.iter().all(|d| d.starts_with("src/schemas.rs:4:")),
        "{got:#?}"
    );
}

#[test]
fn a_refusal_names_the_file_of_its_span_for_a_path_dependency() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |path: &str, text: &str| {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "Cargo.toml",
        "[package]\nname = \"op\"\nversion = \"0.1.0\"\n\n[dependencies]\napi = { path = \"api\" }\n",
    );
    write(
        "api/Cargo.toml",
        "[package]\nname = \"api\"\nversion = \"0.1.0\"\n",
    );
    write(
        "api/src/lib.rs",
        "use schemars::JsonSchema;\nuse serde::{Deserialize, Serialize};\n\n#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\npub struct Opts {\n    #[serde(default = \"computed\")]\n    pub a: u8,\n}\n\nfn computed() -> u8 {\n    let x = 2;\n    x\n}\n",
    );
    let types = format!(
        "{TYPES}#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]\n\
         #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Thing\")]\n\
         pub struct ThingSpec {{\n    pub opts: api::Opts,\n}}\n"
    );
    write("src/lib.rs", &types);
    let krate = rsbuilder::crd::Crate::read(&root.join("Cargo.toml"), &[]).expect("manifest");
    let files = crate_files(&[("src/lib.rs", &types)]);
    let got: Vec<String> = match rsbuilder::crd::generate_in(&krate, &files) {
        Ok(out) => panic!("expected diagnostics, got {:?}", out.output.keys()),
        Err(d) => d.iter().map(ToString::to_string).collect(),
    };
    assert!(
        got.iter()
            .all(|d| d.contains("api/src/lib.rs:6:") && !d.starts_with("src/")),
        "{got:#?}"
    );
}

/// A kind `generate crds` cannot see is refused, never silently missing from the output.
#[test]
fn a_macro_rules_that_defines_a_kind_is_refused() {
    let body = format!(
        "macro_rules! kinds {{\n    ($name:ident) => {{\n        #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]\n        #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Other\")]\n        pub struct $name {{ pub a: u8 }}\n    }};\n}}\nkinds!(OtherSpec);\n{}",
        kind("", "    pub a: u8,")
    );
    assert_eq!(
        diags(&[src("t.rs", &body)]),
        [
            "src/api/t.rs:4:1: macro `kinds!` cannot be generated statically: its body derives `CustomResource`, and `generate crds` does not expand macros (the custom resources it defines would be missing); define the kind outside the macro, or use --exact"
        ]
    );
}

#[test]
fn an_include_of_a_file_that_defines_a_kind_is_refused() {
    let files = crate_files(&[
        ("src/lib.rs", "pub mod api;\n"),
        ("src/api/mod.rs", "\ninclude!(\"thing.rs\");\n"),
        (
            "src/api/thing.rs",
            &format!("{HEAD}{}", kind("", "    pub a: u8,")),
        ),
    ]);
    let got = diags(&files);
    assert_eq!(
        got,
        [
            "src/api/mod.rs:2:1: `include!(\"thing.rs\")` cannot be generated statically: src/api/thing.rs derives `CustomResource`, and `generate crds` does not follow `include!` (the custom resources it defines would be missing); declare it as a module (`mod thing;`), or use --exact"
        ]
    );
}

#[test]
fn a_kind_derived_through_an_alias_is_refused() {
    let body = "use kube::CustomResource as Crd;\n#[derive(Crd, Clone, Debug, Deserialize, Serialize, JsonSchema)]\n#[kube(group = \"t.example.com\", version = \"v1\", kind = \"Thing\")]\npub struct ThingSpec {\n    pub a: u8,\n}\n";
    assert_eq!(
        diags(&[src("t.rs", body)]),
        [
            "src/api/t.rs:7:12: struct `ThingSpec` cannot be generated statically: it has `#[kube(...)]` but no `#[derive(CustomResource)]` under that name (a derive through an alias, `use kube::CustomResource as ..`, is not followed); derive `CustomResource` by its own name, or use --exact"
        ]
    );
}

#[test]
fn versions_of_one_kind_with_different_names_are_refused() {
    let v = |version: &str, extra: &str| {
        src(
            &format!("{version}.rs"),
            &format!(
                "#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]\n\
                 #[kube(group = \"t.example.com\", version = \"{version}\", kind = \"Thing\"{extra})]\n\
                 pub struct ThingSpec {{\n    pub a: u8,\n}}\n"
            ),
        )
    };
    let got = diags(&[
        v("v1", ", plural = \"things\""),
        v("v2", ", plural = \"thingies\", storage = false"),
    ]);
    assert_eq!(
        got,
        [
            "src/api/v2.rs:6:12: Thing.t.example.com version v2 has the plural \"thingies\" where version v1 (the storage version) has \"things\": all versions of a kind are served under one plural, and merge_crds would keep only the storage version's (kube's clients of this version would ask for the other); give every version the same plural"
        ]
    );
}

#[test]
fn a_kube_key_given_twice_is_refused_as_darling_refuses_it() {
    let body = "#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]\n#[kube(group = \"t.example.com\", version = \"v1\", kind = \"Thing\", version = \"v2\")]\npub struct ThingSpec {\n    pub a: u8,\n}\n";
    assert_eq!(
        diags(&[src("t.rs", body)]),
        [
            "src/api/t.rs:5:65: invalid #[kube] attribute: `version` is given twice in #[kube(...)]: kube-derive refuses a key given more than once (darling: \"Duplicate field `version`\"); keep one"
        ]
    );
}

/// Values kube-derive writes as they are and the API server rejects
/// (`testdata/crds/refused/` shows the server's verdict on each).
#[test]
fn kube_values_the_api_server_rejects_are_refused() {
    for (extra, expected) in [
        (
            ", printcolumn(name = \"R\", type_ = \"float\", json_path = \".spec.a\")",
            "src/api/t.rs:5:65: invalid #[kube] attribute: invalid printer column type \"float\": the API server accepts only \"integer\", \"number\", \"string\", \"boolean\" and \"date\" (for a float, type \"number\" with format \"float\" or \"double\")",
        ),
        (
            ", printcolumn = r#\"{\"name\": \"R\", \"type\": \"integer\", \"format\": \"uint8\", \"jsonPath\": \".spec.a\"}\"#",
            "src/api/t.rs:5:65: invalid #[kube] attribute: invalid printer column format \"uint8\": the API server accepts only \"int32\", \"int64\", \"float\", \"double\", \"byte\", \"date\", \"date-time\" and \"password\"",
        ),
        (
            ", selectable = \"spec.a\"",
            "src/api/t.rs:5:78: invalid #[kube] attribute: invalid selectable field \"spec.a\": the API server needs a JSON path that starts with '.', e.g. \".spec.a\"",
        ),
        (
            ", label(\"example.com/team/name\", \"core\")",
            "src/api/t.rs:5:71: invalid #[kube] attribute: invalid label key \"example.com/team/name\": it must be a qualified name (an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit)",
        ),
        (
            ", label(\"team\", \"core team\")",
            "src/api/t.rs:5:79: invalid #[kube] attribute: invalid label value \"core team\": at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit (or empty)",
        ),
    ] {
        check(&kind(extra, "    pub a: u8,"), expected);
    }
}
