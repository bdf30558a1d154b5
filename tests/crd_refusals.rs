//! Every construct README.md lists as refused by `generate crds` still
//! refuses, with `--exact` as the way out: a static schema for any of them would be a guess.
//! `crd_diagnostics.rs` checks the exact wording and position of most of them.

use std::path::PathBuf;

use rsbuilder::crd::{Crate, SourceFile, generate, generate_in};

const HEAD: &str =
    "use kube::CustomResource;\nuse schemars::JsonSchema;\nuse serde::{Deserialize, Serialize};\n";

/// A kind whose spec has `fields`, followed by `items`.
fn kind(kube: &str, fields: &str, items: &str) -> String {
    format!(
        "{HEAD}#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]\n\
         #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Thing\"{kube})]\n\
         pub struct ThingSpec {{\n{fields}\n}}\n{items}"
    )
}

const DERIVES: &str = "#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]";

/// (README entry, source, a fragment of the refusal).
fn refused() -> Vec<(&'static str, String, &'static str)> {
    vec![
        (
            "schema_with computed in code",
            kind(
                "",
                "    #[schemars(schema_with = \"f\")]\n    pub a: String,",
                "fn f(g: &mut schemars::SchemaGenerator) -> schemars::Schema { g.subschema_for::<u8>() }\n",
            ),
            "the schema is produced by user code",
        ),
        (
            "schema_with on an enum variant computed in code",
            kind(
                "",
                "    pub a: E,",
                &format!(
                    "{DERIVES}\npub enum E {{ #[schemars(schema_with = \"f\")] A(String) }}\nfn f(g: &mut schemars::SchemaGenerator) -> schemars::Schema {{ g.subschema_for::<u8>() }}\n"
                ),
            ),
            "the schema is produced by user code",
        ),
        (
            "schemars transform",
            kind("", "    #[schemars(transform = f)]\n    pub a: String,", ""),
            "the schema is produced by user code",
        ),
        (
            "hand-written impl JsonSchema",
            kind(
                "",
                "    pub a: Custom,",
                "#[derive(Clone, Debug, Deserialize, Serialize)]\npub struct Custom;\nimpl JsonSchema for Custom {}\n",
            ),
            "hand-written `impl JsonSchema`",
        ),
        (
            "schema = \"manual\"",
            kind(", schema = \"manual\"", "    pub a: String,", ""),
            "the schema is set by user code",
        ),
        (
            "serde with naming a module",
            kind(
                "",
                "    #[serde(with = \"m\")]\n    pub a: String,",
                "mod m {}\n",
            ),
            "schemars reads `with` as a type",
        ),
        (
            "computed default function",
            kind(
                "",
                "    #[serde(default = \"f\")]\n    pub a: u32,",
                "fn f() -> u32 { let x = 2; x * 3 }\n",
            ),
            "its body is not a single literal expression",
        ),
        (
            "default from a hand-written Default impl that computes",
            kind(
                "",
                "    #[serde(default)]\n    pub a: Opts,",
                &format!(
                    "{DERIVES}\npub struct Opts {{ pub n: u8 }}\nimpl Default for Opts {{ fn default() -> Self {{ Opts {{ n: 1 + 2 }} }} }}\n"
                ),
            ),
            "hand-written `Default` impl",
        ),
        (
            "serialize_with default that is written",
            kind(
                "",
                "    #[serde(default, serialize_with = \"s\")]\n    pub a: u32,",
                "fn s<S: serde::Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> { s.serialize_u32(*v) }\n",
            ),
            "the default is serialized by user code",
        ),
        (
            "computed example, extend or doc",
            kind(
                "",
                "    #[doc = include_str!(\"a.md\")]\n    pub a: String,",
                "",
            ),
            "its text is only known after macro expansion",
        ),
        (
            "computed validation value",
            kind(
                "",
                "    #[validate(length(max = MAX))]\n    pub a: String,",
                "const MAX: usize = 8 * 8;\n",
            ),
            "this validation bound",
        ),
        (
            "computed CEL rule",
            kind(", validation = rule()", "    pub a: String,", ""),
            "this CEL `validation` expression",
        ),
        (
            "storage chosen at build time",
            format!(
                "{HEAD}#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]\n\
                 #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Thing\")]\n\
                 #[cfg_attr(debug_assertions, kube(storage = false))]\n\
                 pub struct ThingSpec {{ pub a: String }}\n"
            ),
            "`#[cfg(debug_assertions)]`",
        ),
        (
            "type from outside the sources",
            kind("", "    pub a: billing::Money,", ""),
            "comes from outside the given sources",
        ),
        (
            "recursive type",
            kind(
                "",
                "    pub a: Node,",
                &format!("{DERIVES}\npub struct Node {{ pub children: Vec<Node> }}\n"),
            ),
            "schemars would emit a `$ref`",
        ),
        (
            "tuple struct",
            kind(
                "",
                "    pub a: Pair,",
                &format!("{DERIVES}\npub struct Pair(pub u8, pub String);\n"),
            ),
            "tuple schemas (`prefixItems`) are not structural",
        ),
        (
            "empty tuple variant",
            kind(
                "",
                "    pub a: E,",
                &format!("{DERIVES}\npub enum E {{ A {{ x: u8 }}, V() }}\n"),
            ),
            "tuple schemas (`prefixItems`) are not structural",
        ),
        (
            "empty tuple variant of an untagged enum",
            kind(
                "",
                "    pub a: E,",
                &format!("{DERIVES}\n#[serde(untagged)]\npub enum E {{ A {{ x: u8 }}, V() }}\n"),
            ),
            "tuple schemas (`prefixItems`) are not structural",
        ),
        (
            "internally tagged enum",
            kind(
                "",
                "    pub a: E,",
                &format!(
                    "{DERIVES}\n#[serde(tag = \"t\")]\npub enum E {{ A {{ x: u8 }}, B {{ y: u8 }} }}\n"
                ),
            ),
            "cannot merge the variants' shared tag property",
        ),
        (
            "enum mixing unit and data variants",
            kind(
                "",
                "    pub a: E,",
                &format!("{DERIVES}\npub enum E {{ A(String), B }}\n"),
            ),
            "makes a schema kube-derive rejects",
        ),
        (
            "untagged enum of scalars",
            kind(
                "",
                "    pub a: E,",
                &format!("{DERIVES}\n#[serde(untagged)]\npub enum E {{ N(u16), S(String) }}\n"),
            ),
            "makes a schema the API server rejects",
        ),
        (
            "serde_json::Value",
            kind("", "    pub a: serde_json::Value,", ""),
            "makes a schema the API server rejects",
        ),
        (
            "map with integer keys (patternProperties)",
            kind("", "    pub a: std::collections::BTreeMap<u8, String>,", ""),
            "`patternProperties` is not supported in CRDs",
        ),
        (
            "map with patterned string keys (patternProperties)",
            kind(
                "",
                "    pub a: std::collections::BTreeMap<Key, String>,",
                &format!(
                    "{DERIVES}\npub struct Key(#[schemars(regex(pattern = \"^a\"))] String);\n"
                ),
            ),
            "`patternProperties` is not supported in CRDs",
        ),
        (
            "tuple",
            kind("", "    pub a: (u8, String),", ""),
            "tuple schemas (`prefixItems`) are not structural",
        ),
        (
            "an array of length 0",
            kind("", "    pub a: [u8; 0],", ""),
            "without `items`",
        ),
        (
            "schema = \"disabled\"",
            kind(", schema = \"disabled\"", "    pub a: u8,", ""),
            "without a schema",
        ),
        (
            "optional_old_self on a rule without oldSelf",
            kind(
                ", validation = Rule::new(\"self.spec.a > 0\").optional_old_self(true)",
                "    pub a: u8,",
                "",
            ),
            "does not use `oldSelf`",
        ),
        (
            "default with a skip_serializing_if of user code",
            kind(
                "",
                "    #[serde(default, skip_serializing_if = \"is_zero\")]\n    pub a: u32,",
                "fn is_zero(v: &u32) -> bool { *v == 0 }\n",
            ),
            "skip_serializing_if = \"is_zero\"",
        ),
        (
            // `self` is no plain name: the path is read by syn's parser.
            "default with a skip_serializing_if of user code, by a path syn reads",
            kind(
                "",
                "    #[serde(default, skip_serializing_if = \"self::is_zero\")]\n    pub a: u32,",
                "fn is_zero(v: &u32) -> bool { *v == 0 }\n",
            ),
            "skip_serializing_if = \"self::is_zero\"",
        ),
        (
            "default written through into",
            kind(
                "",
                "    #[serde(default)]\n    pub a: Label,",
                "#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]\n#[serde(into = \"String\")]\npub struct Label { pub s: String }\nimpl From<Label> for String { fn from(l: Label) -> String { l.s } }\n",
            ),
            "user code",
        ),
        (
            "default variant written with serialize_with",
            kind(
                "",
                "    #[serde(default = \"d\")]\n    pub a: E,",
                &format!(
                    "{DERIVES}\npub enum E {{ #[serde(serialize_with = \"f\")] A(u8), B(u8) }}\nfn d() -> E {{ E::A(1) }}\nfn f<S: serde::Serializer>(v: &u8, s: S) -> Result<S::Ok, S::Error> {{ s.serialize_u8(*v + 1) }}\n"
                ),
            ),
            "user code",
        ),
        (
            "a macro_rules! whose body derives CustomResource",
            kind(
                "",
                "    pub a: u8,",
                "macro_rules! kinds { () => { #[derive(CustomResource)] #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Other\")] struct OtherSpec {} } }\nkinds!();\n",
            ),
            "does not expand macros",
        ),
        (
            "a CustomResource derive through an alias",
            format!(
                "use kube::CustomResource as Crd;\n{}",
                kind("", "    pub a: u8,", "").replace("derive(CustomResource", "derive(Crd")
            ),
            "a derive through an alias",
        ),
    ]
}

#[test]
fn x_kube_on_a_flattened_field_is_refused_when_serde_json_preserves_order() {
    let text = "use kube::{CustomResource, KubeSchema};\nuse schemars::JsonSchema;\nuse serde::{Deserialize, Serialize};\n\
        #[derive(CustomResource, KubeSchema, Clone, Debug, Deserialize, Serialize)]\n\
        #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Thing\")]\n\
        pub struct ThingSpec {\n    #[serde(flatten)]\n    #[x_kube(validation = \"self.size() > 0\")]\n    pub p: Ports,\n}\n\
        #[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\npub struct Ports { pub b: Vec<u16>, pub a: Vec<u16> }\n";
    let source = || SourceFile {
        path: PathBuf::from("src/api/t.rs"),
        text: text.to_string(),
    };
    let manifest = |features: &str| {
        format!(
            "[package]\nname = \"t\"\n[dependencies]\nserde_json = {{ version = \"1\"{features} }}\n"
        )
    };
    let plain = Crate::parse(&manifest(""), None, &[]).expect("manifest parses");
    assert!(
        generate_in(&plain, &[source()]).is_ok(),
        "without preserve_order the first property is known"
    );
    let ordered = Crate::parse(&manifest(", features = [\"preserve_order\"]"), None, &[])
        .expect("manifest parses");
    let err = generate_in(&ordered, &[source()])
        .err()
        .expect("with preserve_order it must refuse")
        .to_string();
    assert!(
        err.contains("`preserve_order`") && err.contains("--exact"),
        "{err}"
    );
}

#[test]
fn every_listed_refusal_still_refuses() {
    let mut failures = Vec::new();
    for (what, text, fragment) in refused() {
        let source = SourceFile {
            path: PathBuf::from("src/api/t.rs"),
            text,
        };
        match generate(&[source]) {
            Ok(out) => failures.push(format!("{what}: generated {:?}", out.keys())),
            Err(d) => {
                let d = d.to_string();
                if !d.contains(fragment) || !(d.contains("--exact") || d.contains("rejects")) {
                    failures.push(format!("{what}: expected {fragment:?} in\n{d}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
