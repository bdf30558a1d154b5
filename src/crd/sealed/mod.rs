//! Sealed subschemas: the inside of a Kubernetes type is not rebuilt, transformed and
//! serialized on every run, but written from YAML precomputed at build time.
//!
//! Embedding a `PodTemplateSpec` means half a megabyte of schema, and kube's
//! `StructuralSchemaRewriter` clones and re-parses every subtree at every node of it, so
//! transforming it dominated `generate crds` (and serde_yaml the rest). Yet below the
//! children of a Kubernetes type's root, nothing a user's type or kube-derive's pipeline
//! does can change the result:
//!
//! - what the user's code controls (wrappers such as `Option`, `#[serde(flatten)]`, field
//!   attributes, docs, defaults, validation, kube's `#[x_kube]`) touches the root of the
//!   type's schema, never deeper;
//! - every transform decides a node from the node itself, its children and, for kube's
//!   variant hoisting, its grandchildren, and changes only those; a Kubernetes type has no
//!   `oneOf`/`anyOf`/`allOf` (checked at build time: `precompute::plain`), so from the type's
//!   root down the only influence of a parent on a child is `OptionalIntOrString`'s
//!   `nullable`, which depends on the parent's `required`, which nothing outside changes
//!   below the root.
//!
//! So the grandchildren of a Kubernetes type's root come out the same as when the type is
//! transformed alone, which is what `build.rs` does, with the real generators. At run time
//! the type's schema is its *skeleton* (root and children real, each grandchild a
//! placeholder), the pipeline runs unchanged on that small tree, and [`unseal`] puts the
//! precomputed YAML in place of each placeholder, indented where it lands.
//!
//! Anything outside that argument is redone the real way (`k8s_types::unsealed`): a
//! placeholder the transforms changed or moved under `allOf`/`anyOf`/`oneOf`/`not`, or any
//! diagnostic. The tests compare both paths on every Kubernetes type.

pub mod precompute;

use std::sync::OnceLock;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};
use schemars::Schema;
use serde_json::Value;

use crate::yaml::write::pad;

/// A piece of a precomputed unit: a span of [`data::TEXT`], or another unit
/// (`id`, indentation, as a sequence item).
pub enum Part {
    Text(usize, usize),
    Unit(usize, usize, bool),
}

mod data {
    use super::Part;

    include!(concat!(env!("OUT_DIR"), "/k8s_sealed.rs"));
    pub static TEXT: &str = include_str!(concat!(env!("OUT_DIR"), "/k8s_sealed.txt"));
}

/// The placeholder text of this process: `rsbuilder-sealed-<random>-`, so that no text in a
/// user's source (a doc comment, say) can be taken for a placeholder.
fn sentinel() -> &'static str {
    static SENTINEL: OnceLock<String> = OnceLock::new();
    SENTINEL.get_or_init(|| {
        use std::hash::{BuildHasher, RandomState};
        let random = RandomState::new().hash_one(std::process::id());
        format!("rsbuilder-sealed-{random:016x}-")
    })
}

/// The skeleton of a Kubernetes type (`k8s_openapi::api::core::v1::PodTemplateSpec`), if
/// one was precomputed: its untransformed schema with every grandchild of the root a
/// placeholder (`{"description": "<sentinel><unit>"}`).
pub fn skeleton(path: &str) -> Option<Schema> {
    let i = data::TYPES.binary_search_by_key(&path, |(p, _)| p).ok()?;
    let mut value: Value = serde_json::from_str(data::TYPES[i].1).ok()?;
    fill(&mut value);
    Schema::try_from(value).ok()
}

/// Turns the build's placeholder objects into this process's placeholders.
fn fill(value: &mut Value) {
    match value {
        Value::Object(obj) => {
            if let Some(id) = obj.get(precompute::SKELETON_KEY).and_then(Value::as_u64) {
                obj.clear();
                obj.insert("description".into(), format!("{}{id}", sentinel()).into());
                return;
            }
            obj.values_mut().for_each(fill);
        }
        Value::Array(items) => items.iter_mut().for_each(fill),
        _ => {}
    }
}

/// The unit a node stands for, if it is a placeholder.
pub fn placeholder(s: &JSONSchemaProps) -> Option<usize> {
    s.description
        .as_deref()?
        .strip_prefix(sentinel())?
        .parse()
        .ok()
}

/// Whether the pipeline left every placeholder of `schema` as it was and outside
/// `allOf`/`anyOf`/`oneOf`/`not` (where the structural rules differ). When not, the
/// schema is redone without sealing.
pub fn intact(schema: &JSONSchemaProps) -> bool {
    fn walk(s: &JSONSchemaProps, in_junctor: bool) -> bool {
        if placeholder(s).is_some() {
            let bare = JSONSchemaProps {
                description: s.description.clone(),
                ..Default::default()
            };
            return !in_junctor && *s == bare;
        }
        let mut ok = true;
        for (child, junctor) in subschemas(s) {
            ok &= walk(child, in_junctor || junctor);
        }
        ok
    }
    walk(schema, false)
}

/// Every subschema of a node, and whether it sits under a junctor.
fn subschemas(s: &JSONSchemaProps) -> Vec<(&JSONSchemaProps, bool)> {
    let mut out: Vec<(&JSONSchemaProps, bool)> = Vec::new();
    out.extend(
        s.properties
            .iter()
            .flat_map(|p| p.values())
            .map(|c| (c, false)),
    );
    match &s.items {
        Some(JSONSchemaPropsOrArray::Schema(c)) => out.push((c, false)),
        Some(JSONSchemaPropsOrArray::Schemas(cs)) => out.extend(cs.iter().map(|c| (c, false))),
        None => {}
    }
    if let Some(JSONSchemaPropsOrBool::Schema(c)) = &s.additional_properties {
        out.push((c, false));
    }
    for list in [&s.all_of, &s.any_of, &s.one_of].into_iter().flatten() {
        out.extend(list.iter().map(|c| (c, true)));
    }
    out.extend(s.not.iter().map(|c| (&**c, true)));
    out
}

/// How many placeholders a CRD holds.
pub fn count(crd: &CustomResourceDefinition) -> usize {
    fn walk(s: &JSONSchemaProps) -> usize {
        if placeholder(s).is_some() {
            return 1;
        }
        subschemas(s).into_iter().map(|(c, _)| walk(c)).sum()
    }
    crd.spec
        .versions
        .iter()
        .filter_map(|v| v.schema.as_ref()?.open_api_v3_schema.as_ref())
        .map(walk)
        .sum()
}

/// Replaces every placeholder of a CRD by the schema it stands for, read back from its YAML
/// (for code that reads schemas below a Kubernetes type's children; `emit` does not need it).
pub fn expand(crd: &mut CustomResourceDefinition) {
    fn walk(s: &mut JSONSchemaProps) {
        if let Some(id) = placeholder(s) {
            // A unit is rsbuilder's own precomputed YAML, not input.
            #[allow(clippy::disallowed_methods)]
            let unit = serde_yaml::from_str(&unit_yaml(id)).expect("a unit is a JSONSchemaProps");
            *s = unit;
            return;
        }
        precompute::child_props(s).into_iter().for_each(walk);
        let lists = [&mut s.all_of, &mut s.any_of, &mut s.one_of];
        lists.into_iter().flatten().flatten().for_each(walk);
        if let Some(not) = &mut s.not {
            walk(not);
        }
    }
    for v in &mut crd.spec.versions {
        if let Some(schema) = v
            .schema
            .as_mut()
            .and_then(|s| s.open_api_v3_schema.as_mut())
        {
            walk(schema);
        }
    }
}

/// The YAML of a sealed CRD (serde_yaml's, placeholders and all) with every placeholder line
/// replaced by its unit, and how many it replaced.
pub fn unseal(yaml: &str) -> (String, usize) {
    let mut out = String::with_capacity(yaml.len());
    let mut replaced = 0;
    for line in yaml.split_inclusive('\n') {
        match precompute::placeholder_line(line, sentinel()) {
            Some((indent, item, id)) if id < data::UNITS.len() => {
                write_unit(&mut out, id, indent, item);
                replaced += 1;
            }
            _ => out.push_str(line),
        }
    }
    (out, replaced)
}

/// Writes unit `id` where a placeholder line was: `indent` spaces, then `- ` if the
/// placeholder was a sequence item (its other lines then go two spaces further, as
/// serde_yaml lays out a mapping in a sequence). Empty lines (inside block scalars) stay
/// empty, as serde_yaml writes them.
fn write_unit(out: &mut String, id: usize, indent: usize, item: bool) {
    let (start, end) = data::UNITS[id];
    let mut first = true;
    for part in &data::PARTS[start as usize..end as usize] {
        match *part {
            Part::Text(a, b) => write_text(out, &data::TEXT[a..b], indent, item, &mut first),
            Part::Unit(child, at, child_item) => {
                write_unit(
                    out,
                    child,
                    indent + if item { 2 } else { 0 } + at,
                    child_item,
                );
                first = false;
            }
        }
    }
}

/// Writes lines of a mapping rendered at indentation 0 as a value at `indent` (see
/// [`write_unit`]); `first` says whether they start the mapping.
fn write_text(out: &mut String, text: &str, indent: usize, item: bool, first: &mut bool) {
    let base = indent + if item { 2 } else { 0 };
    for line in text.split_inclusive('\n') {
        if *first && item {
            pad(out, indent);
            out.push_str("- ");
        } else if line != "\n" {
            pad(out, base);
        }
        out.push_str(line);
        *first = false;
    }
}

/// The full YAML of unit `id` at indentation 0 (for the tests).
pub fn unit_yaml(id: usize) -> String {
    let mut out = String::new();
    write_unit(&mut out, id, 0, false);
    out
}

/// Every precomputed type path (for the tests).
pub fn precomputed() -> impl Iterator<Item = &'static str> {
    data::TYPES.iter().map(|(path, _)| *path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn placeholder_node(id: usize) -> JSONSchemaProps {
        JSONSchemaProps {
            description: Some(format!("{}{id}", sentinel())),
            ..Default::default()
        }
    }

    fn object(props: &[(&str, JSONSchemaProps)]) -> JSONSchemaProps {
        JSONSchemaProps {
            type_: Some("object".into()),
            properties: Some(props.iter().cloned().map(|(k, v)| (k.into(), v)).collect()),
            ..Default::default()
        }
    }

    /// `emit` quotes YAML 1.1's booleans as it writes a CRD, before the units are put in.
    #[test]
    fn no_unit_holds_a_word_yaml_1_1_reads_as_a_boolean() {
        for id in 0..data::UNITS.len() {
            let text = unit_yaml(id);
            assert_eq!(
                crate::yaml::quote_yaml11_booleans(&text).unwrap(),
                text,
                "unit {id}"
            );
        }
    }

    /// Every unit, as serde_yaml writes it nested as a property two levels down and as a
    /// sequence item, equals the YAML `unseal` writes in place of its placeholder.
    #[test]
    fn every_unit_reads_as_serde_yaml_writes_it_nested() {
        for id in 0..data::UNITS.len() {
            let unit: JSONSchemaProps = crate::yaml::read::from_str(&unit_yaml(id)).unwrap();
            assert_eq!(
                serde_yaml::to_string(&unit).unwrap(),
                unit_yaml(id),
                "unit {id}"
            );
            let nest = |inner: JSONSchemaProps| {
                let list = JSONSchemaProps {
                    all_of: Some(vec![inner.clone(), inner.clone()]),
                    ..Default::default()
                };
                object(&[("a", object(&[("b", inner)])), ("c", list)])
            };
            let want = serde_yaml::to_string(&nest(unit)).unwrap();
            let sealed = serde_yaml::to_string(&nest(placeholder_node(id))).unwrap();
            let (got, replaced) = unseal(&sealed);
            assert_eq!(replaced, 3);
            assert_eq!(got, want, "unit {id}");
        }
    }

    #[test]
    fn a_changed_or_junctor_placeholder_is_not_intact() {
        let id = 0;
        assert!(intact(&object(&[("a", placeholder_node(id))])));
        let mut changed = placeholder_node(id);
        changed.nullable = Some(true);
        assert!(!intact(&object(&[("a", changed)])));
        let under_one_of = JSONSchemaProps {
            one_of: Some(vec![object(&[("a", placeholder_node(id))])]),
            ..Default::default()
        };
        assert!(!intact(&under_one_of));
    }

    #[test]
    fn a_placeholder_needs_this_process_sentinel() {
        let forged = JSONSchemaProps {
            description: Some("rsbuilder-sealed-0000000000000000-1".into()),
            ..Default::default()
        };
        assert_eq!(placeholder(&forged), None);
        assert_eq!(placeholder(&placeholder_node(7)), Some(7));
        let yaml = serde_yaml::to_string(&object(&[("a", forged)])).unwrap();
        assert_eq!(unseal(&yaml), (yaml.clone(), 0));
    }

    #[test]
    fn skeletons_have_placeholders_below_the_children_only() {
        let s = skeleton("k8s_openapi::api::core::v1::PodTemplateSpec").unwrap();
        let spec = &s.as_value()["properties"]["spec"];
        assert!(spec["description"].is_string());
        let containers = &spec["properties"]["containers"];
        let id = containers["description"].as_str().unwrap();
        assert!(id.starts_with(sentinel()), "{containers}");
        assert_eq!(containers.as_object().unwrap().len(), 1);
        assert!(skeleton("k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition").is_none());
    }

    fn tricky_string() -> impl Strategy<Value = String> {
        let fixed = [
            "",
            " ",
            "yes",
            "no",
            "null",
            "~",
            "true",
            "1",
            "0x1F",
            "1e3",
            "-",
            "- a",
            "a: b",
            ": x",
            "#x",
            "a #b",
            "'q'",
            "\"dq\"",
            "x\n",
            "\ny",
            "a\n\nb",
            " lead",
            "trail ",
            "a\n  b",
            "tab\there",
            "ünïcødé ✓",
            "{a}",
            "[a]",
            "*x",
            "&x",
            "!x",
            "%x",
            "@x",
            "`x`",
            "|",
            ">",
            "line\r\nwin",
            "a\n \nb",
            "nbsp\u{a0}",
            "2024-01-01",
        ];
        // Texts with NEL, LS or PS are not precomputed (`precompute::indents_as_a_block`).
        prop_oneof![
            proptest::sample::select(fixed.to_vec()).prop_map(str::to_string),
            "[ -~\n\t]{0,40}",
            "\\PC{0,20}",
        ]
        .prop_filter("a line break libyaml indents", |s| {
            precompute::indents_as_a_block(s)
        })
    }

    fn value() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            tricky_string().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<f64>().prop_map(serde_json::Value::from),
            any::<bool>().prop_map(serde_json::Value::from),
            Just(serde_json::Value::Null),
        ];
        leaf.prop_recursive(4, 40, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
                proptest::collection::btree_map(tricky_string(), inner, 0..4)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    #[test]
    fn texts_with_breaks_libyaml_indents_are_not_precomputed() {
        let indented = |s: &str| {
            let alone = serde_yaml::to_string(&json!({ "a": s })).unwrap();
            let nested = serde_yaml::to_string(&json!({ "k": { "a": s } })).unwrap();
            let mut want = String::from("k:\n");
            write_text(&mut want, &alone, 2, false, &mut true);
            nested == want
        };
        assert!(!indented("x\u{2028}y"));
        for s in ["x\u{85}y", "x\u{2028}y", "x\u{2029}y"] {
            assert!(!precompute::indents_as_a_block(&json!(s).to_string()));
        }
        assert!(indented("x\ny\r\tz"));
        assert!(precompute::indents_as_a_block(
            &json!("x\ny\r\tz").to_string()
        ));
    }

    proptest! {
        /// The property `unseal` rests on: serde_yaml writes a non-empty mapping nested in a
        /// mapping or a sequence as it writes it alone, every non-empty line indented (and
        /// the first one after `- ` in a sequence).
        #[test]
        fn serde_yaml_nests_a_mapping_by_indenting_it(
            map in proptest::collection::btree_map(tricky_string(), value(), 1..5),
        ) {
            let inner = serde_json::Value::Object(map.into_iter().collect());
            let alone = serde_yaml::to_string(&inner).unwrap();
            let in_map = serde_yaml::to_string(&json!({ "k": { "k2": inner.clone() } })).unwrap();
            let mut want = String::from("k:\n  k2:\n");
            write_text(&mut want, &alone, 4, false, &mut true);
            prop_assert_eq!(&in_map, &want);
            let in_seq = serde_yaml::to_string(&json!({ "k": [inner] })).unwrap();
            let mut want = String::from("k:\n");
            write_text(&mut want, &alone, 0, true, &mut true);
            prop_assert_eq!(&in_seq, &want);
        }
    }
}
