//! Build time: the final YAML of Kubernetes types' inner schemas, from the real generators.
//!
//! For every Kubernetes type rsbuilder can embed, this runs the very pipeline `generate crds`
//! runs (k8s-openapi's `JsonSchema` impl through kube-derive's generator and transforms, then
//! `JSONSchemaProps` and serde_yaml) on the type alone, and keeps two things:
//!
//! - its *skeleton*: the untransformed schema down to the grandchildren of its root, each
//!   grandchild replaced by `{"x-rsbuilder-sealed": <unit>}`;
//! - the *units*: the final YAML of every grandchild (and, shared between types, of every
//!   big node inside it), as text with holes where a big child goes.
//!
//! Why the grandchildren may be computed once, out of context, is argued in `super` (the
//! runtime side); [`plain`] is the shape that argument needs, and a type that is not plain
//! is simply not precomputed (it then takes the real path at run time).
//!
//! This file is compiled twice: by `build.rs` (with `#[path]`) and by the tests, so it uses
//! nothing from the crate.

use std::collections::HashMap;
use std::fmt::Write as _;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};
use schemars::{Schema, SchemaGenerator};
use serde_json::Value;

/// The key of a skeleton's placeholder object; its value is the unit's index.
pub const SKELETON_KEY: &str = "x-rsbuilder-sealed";
/// Placeholders in the YAML this file renders: `description: <PREFIX><id>`.
const BUILD_SENTINEL: &str = "rsbuilder-sealed-build-";
/// A node whose YAML is at least this long becomes a unit of its own (shared by every
/// node with the same YAML); smaller ones stay inline in their parent's text.
const CUT: usize = 2048;

/// A piece of a unit: literal YAML text (lines of a mapping at indentation 0), or another
/// unit, at `indent` spaces, as a sequence item (`- `) when `item`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Seg {
    Text(String),
    Unit {
        id: usize,
        indent: usize,
        item: bool,
    },
}

/// Everything precomputed, ready to be written as Rust by [`Tables::to_rust`].
#[derive(Default)]
pub struct Tables {
    pub units: Vec<Vec<Seg>>,
    ids: HashMap<Vec<Seg>, usize>,
    /// Type path → skeleton (JSON).
    pub skeletons: Vec<(String, String)>,
    /// Types left to the real path, and why (for the build log and the tests).
    pub skipped: Vec<(String, String)>,
}

/// What the build needs of the crate's own pipeline (`transforms::generator`/`apply`).
pub struct Pipeline {
    pub generator: fn() -> SchemaGenerator,
    pub apply: fn(&mut SchemaGenerator, &mut Schema) -> Result<(), String>,
}

impl Tables {
    /// Precomputes one type, whose schema is `subschema` (`generator.subschema_for::<T>()`).
    pub fn add(&mut self, path: &str, subschema: fn(&mut SchemaGenerator) -> Schema, p: &Pipeline) {
        if let Err(why) = self.try_add(path, subschema, p) {
            self.skipped.push((path.to_string(), why));
        }
    }

    fn try_add(
        &mut self,
        path: &str,
        subschema: fn(&mut SchemaGenerator) -> Schema,
        p: &Pipeline,
    ) -> Result<(), String> {
        let mut generator = (p.generator)();
        let before = subschema(&mut generator);
        if !generator.definitions().is_empty() {
            return Err("needs a $ref definition".into());
        }
        plain(before.as_value())?;
        let mut after = before.clone();
        (p.apply)(&mut generator, &mut after)?;
        if !indents_as_a_block(&after.as_value().to_string()) {
            return Err("a text holds a line break serde_yaml indents".into());
        }
        let after: JSONSchemaProps =
            serde_json::from_value(after.to_value()).map_err(|e| e.to_string())?;
        let mut skeleton = before.to_value();
        let mut sealed = 0;
        for (child, child_after) in children(&mut skeleton, &after)? {
            for (grandchild, final_node) in children(child, child_after)? {
                let (segs, _) = self.segments(final_node);
                let id = self.intern(segs);
                *grandchild = serde_json::json!({ SKELETON_KEY: id });
                sealed += 1;
            }
        }
        if sealed == 0 {
            return Err("nothing below its children".into());
        }
        self.skeletons
            .push((path.to_string(), skeleton.to_string()));
        Ok(())
    }

    /// The final YAML of `node` as segments (big children as units), and its full length.
    fn segments(&mut self, node: &JSONSchemaProps) -> (Vec<Seg>, usize) {
        let mut shell = node.clone();
        let mut full = 0;
        let mut cut = |child: &mut JSONSchemaProps, this: &mut Self| {
            let (segs, len) = this.segments(child);
            if len >= CUT {
                let id = this.intern(segs);
                *child = JSONSchemaProps {
                    description: Some(format!("{BUILD_SENTINEL}{id}")),
                    ..Default::default()
                };
                full += len;
            }
        };
        for child in child_props(&mut shell) {
            cut(child, self);
        }
        let text = serde_yaml::to_string(&shell).expect("JSONSchemaProps serializes");
        full += text.len();
        (split(&text, BUILD_SENTINEL), full)
    }

    fn intern(&mut self, segs: Vec<Seg>) -> usize {
        if let Some(id) = self.ids.get(&segs) {
            return *id;
        }
        let id = self.units.len();
        self.units.push(segs.clone());
        self.ids.insert(segs, id);
        id
    }

    /// The tables as Rust items (`PARTS`, `UNITS`, `TYPES`) over `TEXT`, which is returned
    /// separately (to be `include_str!`ed).
    pub fn to_rust(&self) -> (String, String) {
        let mut text = String::new();
        let mut spans: HashMap<&str, (usize, usize)> = HashMap::new();
        let mut segs = String::from("pub static PARTS: &[Part] = &[\n");
        let mut units = String::from("pub static UNITS: &[(u32, u32)] = &[\n");
        let mut n = 0;
        for unit in &self.units {
            let start = n;
            for seg in unit {
                match seg {
                    Seg::Text(t) => {
                        let (a, b) = *spans.entry(t).or_insert_with(|| {
                            let a = text.len();
                            text.push_str(t);
                            (a, text.len())
                        });
                        writeln!(segs, "Part::Text({a}, {b}),").unwrap();
                    }
                    Seg::Unit { id, indent, item } => {
                        writeln!(segs, "Part::Unit({id}, {indent}, {item}),").unwrap();
                    }
                }
                n += 1;
            }
            writeln!(units, "({start}, {n}),").unwrap();
        }
        segs.push_str("];\n");
        units.push_str("];\n");
        // Sorted by path, for a binary search.
        let mut skeletons: Vec<&(String, String)> = self.skeletons.iter().collect();
        skeletons.sort();
        let mut types = String::from("pub static TYPES: &[(&str, &str)] = &[\n");
        for (path, json) in skeletons {
            writeln!(types, "({path:?}, {json:?}),").unwrap();
        }
        types.push_str("];\n");
        (format!("{segs}{units}{types}"), text)
    }
}

/// Whether serde_yaml writes any text of `json` the same at every indentation: libyaml
/// breaks lines at NEL, LS and PS too, and indents what follows them (inside quotes), so a
/// schema with one of them is not precomputed (the tests check this property).
pub fn indents_as_a_block(json: &str) -> bool {
    !json.contains(['\u{85}', '\u{2028}', '\u{2029}'])
}

/// Splits rendered YAML at its placeholder lines (`<indent>[- ]description: <sentinel><id>`).
pub fn split(text: &str, sentinel: &str) -> Vec<Seg> {
    let mut out = Vec::new();
    let mut literal = String::new();
    for line in text.split_inclusive('\n') {
        match placeholder_line(line, sentinel) {
            Some((indent, item, id)) => {
                if !literal.is_empty() {
                    out.push(Seg::Text(std::mem::take(&mut literal)));
                }
                out.push(Seg::Unit { id, indent, item });
            }
            None => literal.push_str(line),
        }
    }
    if !literal.is_empty() {
        out.push(Seg::Text(literal));
    }
    out
}

/// `(indent, item, id)` of a placeholder line.
pub fn placeholder_line(line: &str, sentinel: &str) -> Option<(usize, bool, usize)> {
    let body = line.trim_start_matches(' ');
    let indent = line.len() - body.len();
    let (item, body) = match body.strip_prefix("- ") {
        Some(rest) => (true, rest),
        None => (false, body),
    };
    let rest = body.strip_prefix("description: ")?.strip_prefix(sentinel)?;
    let digits = rest.strip_suffix('\n').unwrap_or(rest);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((indent, item, digits.parse().ok()?))
}

/// Whether a schema (untransformed) has only the shape the sealing argument covers: objects
/// whose subschemas are `properties`, `items` and `additionalProperties`, each an object.
pub fn plain(v: &Value) -> Result<(), String> {
    let Some(obj) = v.as_object() else {
        return Err("a boolean schema".into());
    };
    for (key, value) in obj {
        match key.as_str() {
            "properties" => {
                for sub in value.as_object().ok_or("properties is not a map")?.values() {
                    plain(sub)?;
                }
            }
            "items" | "additionalProperties" => plain(value)?,
            "not"
            | "if"
            | "then"
            | "else"
            | "contains"
            | "propertyNames"
            | "additionalItems"
            | "allOf"
            | "anyOf"
            | "oneOf"
            | "prefixItems"
            | "patternProperties"
            | "$defs"
            | "definitions"
            | "$ref"
            | "unevaluatedProperties"
            | SKELETON_KEY => {
                return Err(format!("has `{key}`"));
            }
            _ => {}
        }
    }
    Ok(())
}

/// The subschemas of a node before transforms (`properties`, `items`,
/// `additionalProperties`), each paired with the same node after them.
fn children<'a, 'b>(
    before: &'a mut Value,
    after: &'b JSONSchemaProps,
) -> Result<Vec<(&'a mut Value, &'b JSONSchemaProps)>, String> {
    let mut out = Vec::new();
    let Some(obj) = before.as_object_mut() else {
        return Ok(out);
    };
    for (key, value) in obj.iter_mut() {
        match key.as_str() {
            "properties" => {
                let after = after.properties.as_ref().ok_or("properties vanished")?;
                for (name, sub) in value.as_object_mut().into_iter().flatten() {
                    out.push((sub, after.get(name).ok_or("a property vanished")?));
                }
            }
            "items" => match &after.items {
                Some(JSONSchemaPropsOrArray::Schema(s)) => out.push((value, &**s)),
                _ => return Err("items changed shape".into()),
            },
            "additionalProperties" => match &after.additional_properties {
                Some(JSONSchemaPropsOrBool::Schema(s)) => out.push((value, &**s)),
                _ => return Err("additionalProperties changed shape".into()),
            },
            _ => {}
        }
    }
    Ok(out)
}

/// The subschemas of a final node, mutably.
pub fn child_props(node: &mut JSONSchemaProps) -> Vec<&mut JSONSchemaProps> {
    let mut out: Vec<&mut JSONSchemaProps> = Vec::new();
    if let Some(p) = &mut node.properties {
        out.extend(p.values_mut());
    }
    if let Some(JSONSchemaPropsOrArray::Schema(s)) = &mut node.items {
        out.push(s);
    }
    if let Some(JSONSchemaPropsOrBool::Schema(s)) = &mut node.additional_properties {
        out.push(s);
    }
    out
}
