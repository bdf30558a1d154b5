//! Items as Rust source, laid out the way rustfmt lays them out with its default settings
//! (generated files pass `cargo fmt --check` as they are; rsbuilder does not run rustfmt).
//! The shapes are few: `///` lines, attributes, structs of `pub` fields, enums of unit
//! variants. rustfmt keeps each of these on one line except attributes, whose arguments it
//! writes one per line when they are longer than `attr_fn_like_width` (70) or the line is
//! longer than `max_width` (100); a lone argument stays on a line that fits.

use super::model::{Enum, Field, Item, Presence, Struct, TypeNode};

const MAX_WIDTH: usize = 100;
const ATTR_FN_LIKE_WIDTH: usize = 70;
const INDENT: usize = 4;

/// An argument of an attribute: `namespaced`, `group = "..."`, or a nested list
/// `scale(...)`.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    Flat(String),
    List(String, Vec<Arg>),
}

impl Arg {
    /// `name = "value"`, the value a Rust string literal.
    pub fn string(name: &str, value: &str) -> Arg {
        Arg::Flat(format!("{name} = {}", literal(value)))
    }

    fn flat(&self) -> String {
        match self {
            Arg::Flat(text) => text.clone(),
            Arg::List(name, args) => format!("{name}({})", joined(args)),
        }
    }
}

/// A Rust string literal of `value`: `Debug` writes one, escapes included.
pub fn literal(value: &str) -> String {
    format!("{value:?}")
}

/// A raw Rust string literal of `value`, `r#"..."#` with as many `#` as it needs.
pub fn raw_literal(value: &str) -> String {
    let hashes = (1..)
        .map(|n| "#".repeat(n))
        .find(|h| !value.contains(&format!("\"{h}")))
        .expect("some number of hashes closes the literal");
    format!("r{hashes}\"{value}\"{hashes}")
}

fn joined(args: &[Arg]) -> String {
    args.iter().map(Arg::flat).collect::<Vec<_>>().join(", ")
}

/// `head(args)tail` at `indent`: on one line when rustfmt keeps it there, else one argument
/// per line.
fn list(indent: usize, head: &str, args: &[Arg], tail: &str) -> Vec<String> {
    let pad = " ".repeat(indent);
    let one = joined(args);
    let line = format!("{pad}{head}({one}){tail}");
    let fits = line.len() <= MAX_WIDTH;
    if fits && (args.len() == 1 || one.len() <= ATTR_FN_LIKE_WIDTH) {
        return vec![line];
    }
    let mut lines = vec![format!("{pad}{head}(")];
    for (i, arg) in args.iter().enumerate() {
        let end = if i + 1 == args.len() { "" } else { "," };
        match arg {
            Arg::Flat(text) => lines.push(format!("{pad}{}{text}{end}", " ".repeat(INDENT))),
            Arg::List(name, inner) => lines.extend(list(indent + INDENT, name, inner, end)),
        }
    }
    lines.push(format!("{pad}){tail}"));
    lines
}

/// `#[name(args)]` at `indent`.
pub fn attribute(indent: usize, name: &str, args: &[Arg]) -> Vec<String> {
    list(indent, &format!("#[{name}"), args, "]")
}

fn doc_lines(out: &mut Vec<String>, indent: usize, docs: &[String]) {
    let pad = " ".repeat(indent);
    for line in docs {
        if line.is_empty() {
            out.push(format!("{pad}///"));
        } else {
            out.push(format!("{pad}/// {line}"));
        }
    }
}

/// The derives of every generated struct; the root struct (the spec) adds `CustomResource`.
const STRUCT_DERIVES: &str = "Serialize, Deserialize, Clone, Debug, Default, PartialEq";
const ENUM_DERIVES: &str = "Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq";

/// The lines of `item`; `kube` holds the arguments of `#[kube(...)]` for the struct that
/// derives `CustomResource`.
pub fn item(item: &Item, kube: Option<&[Arg]>) -> Vec<String> {
    match item {
        Item::Struct(s) => structure(s, kube),
        Item::Enum(e) => enumeration(e),
    }
}

fn structure(s: &Struct, kube: Option<&[Arg]>) -> Vec<String> {
    let mut out = Vec::new();
    doc_lines(&mut out, 0, &s.docs);
    match kube {
        Some(args) => {
            out.push(format!("#[derive(CustomResource, {STRUCT_DERIVES})]"));
            out.extend(attribute(0, "kube", args));
        }
        None => out.push(format!("#[derive({STRUCT_DERIVES})]")),
    }
    if s.fields.is_empty() {
        out.push(format!("pub struct {} {{}}", s.name));
        return out;
    }
    out.push(format!("pub struct {} {{", s.name));
    // Fields with doc comments read better apart.
    let spaced = s.fields.iter().any(|f| !f.docs.is_empty());
    for (i, f) in s.fields.iter().enumerate() {
        if spaced && i > 0 {
            out.push(String::new());
        }
        field(&mut out, f);
    }
    out.push("}".into());
    out
}

fn field(out: &mut Vec<String>, f: &Field) {
    doc_lines(out, INDENT, &f.docs);
    if f.presence == Presence::Flatten {
        out.extend(attribute(INDENT, "serde", &[Arg::Flat("flatten".into())]));
    } else if f.serde_name() != f.json {
        out.extend(attribute(
            INDENT,
            "serde",
            &[Arg::string("rename", &f.json)],
        ));
    }
    if f.presence == Presence::Optional {
        out.extend(attribute(
            INDENT,
            "serde",
            &[
                Arg::Flat("default".into()),
                Arg::string("skip_serializing_if", "Option::is_none"),
            ],
        ));
    }
    out.extend(field_line(INDENT, &f.ident, &f.rust_type()));
}

/// `pub name: Type,` at `indent`, as rustfmt breaks it when it is longer than the line:
/// the type alone on the next line, else its generic arguments one per line (and theirs,
/// in turn). When nothing fits, rustfmt leaves the whole struct as it is written, so the
/// one line stands.
fn field_line(indent: usize, name: &str, ty: &TypeNode) -> Vec<String> {
    let pad = " ".repeat(indent);
    let one = format!("{pad}pub {name}: {},", ty.flat());
    if one.len() <= MAX_WIDTH {
        return vec![one];
    }
    let below = format!("{pad}{}{},", " ".repeat(INDENT), ty.flat());
    if below.len() <= MAX_WIDTH {
        return vec![format!("{pad}pub {name}:"), below];
    }
    type_lines(ty, indent, &format!("pub {name}: "), ",").unwrap_or_else(|| vec![one])
}

/// `prefix` + `ty` + `suffix` at `indent`, generic arguments one per line when the type
/// does not fit; `None` when even that does not fit.
fn type_lines(ty: &TypeNode, indent: usize, prefix: &str, suffix: &str) -> Option<Vec<String>> {
    let pad = " ".repeat(indent);
    let one = format!("{pad}{prefix}{}{suffix}", ty.flat());
    if one.len() <= MAX_WIDTH {
        return Some(vec![one]);
    }
    if ty.args.is_empty() {
        return None;
    }
    let mut lines = vec![format!("{pad}{prefix}{}<", ty.head)];
    for arg in &ty.args {
        lines.extend(type_lines(arg, indent + INDENT, "", ",")?);
    }
    lines.push(format!("{pad}>{suffix}"));
    Some(lines)
}

fn enumeration(e: &Enum) -> Vec<String> {
    let mut out = Vec::new();
    doc_lines(&mut out, 0, &e.docs);
    out.push(format!("#[derive({ENUM_DERIVES})]"));
    out.push(format!("pub enum {} {{", e.name));
    for (i, v) in e.variants.iter().enumerate() {
        // `Default` needs one variant: the first the schema lists.
        if i == 0 {
            out.push("    #[default]".into());
        }
        if v.ident != v.value {
            out.extend(attribute(
                INDENT,
                "serde",
                &[Arg::string("rename", &v.value)],
            ));
        }
        out.push(format!("    {},", v.ident));
    }
    // A value the CRD allows since these types were generated must not fail every read of
    // the object (and wedge a watch): it is kept as it is, and written back unchanged.
    out.push("    /// A value these types do not know, kept as it is.".into());
    out.push("    #[serde(untagged)]".into());
    out.push(format!("    {}(String),", e.unknown));
    out.push("}".into());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(args: &[&str]) -> Vec<Arg> {
        args.iter().map(|a| Arg::Flat(a.to_string())).collect()
    }

    #[test]
    fn short_attributes_stay_on_one_line() {
        assert_eq!(
            attribute(
                0,
                "kube",
                &flat(&["group = \"x.io\"", "version = \"v1\"", "namespaced"])
            ),
            ["#[kube(group = \"x.io\", version = \"v1\", namespaced)]"]
        );
    }

    #[test]
    fn arguments_longer_than_70_go_one_per_line() {
        let args = flat(&[
            "group = \"cert-manager.io\"",
            "version = \"v1\"",
            "kind = \"Certificate\"",
            "plural = \"certificates\"",
        ]);
        assert_eq!(
            attribute(0, "kube", &args),
            [
                "#[kube(",
                "    group = \"cert-manager.io\",",
                "    version = \"v1\",",
                "    kind = \"Certificate\",",
                "    plural = \"certificates\"",
                ")]",
            ]
        );
    }

    #[test]
    fn nested_lists_follow_the_same_rule() {
        let args = vec![
            Arg::Flat("namespaced".into()),
            Arg::List(
                "scale".into(),
                flat(&[
                    "spec_replicas_path = \".spec.replicas\"",
                    "status_replicas_path = \".status.replicas\"",
                ]),
            ),
            Arg::List("printcolumn".into(), flat(&["name = \"Age\""])),
        ];
        assert_eq!(
            attribute(0, "kube", &args),
            [
                "#[kube(",
                "    namespaced,",
                "    scale(",
                "        spec_replicas_path = \".spec.replicas\",",
                "        status_replicas_path = \".status.replicas\"",
                "    ),",
                "    printcolumn(name = \"Age\")",
                ")]",
            ]
        );
    }

    #[test]
    fn raw_literals_close_after_their_contents() {
        assert_eq!(raw_literal(r#"{"a":"b"}"#), r##"r#"{"a":"b"}"#"##);
        assert_eq!(raw_literal(r##"say "#1""##), r###"r##"say "#1""##"###);
    }

    #[test]
    fn long_field_types_break_as_rustfmt_breaks_them() {
        let named = |n: usize| TypeNode::path(&"X".repeat(n));
        let option = |t| TypeNode::generic("Option", vec![t]);
        let map = |t| TypeNode::generic("BTreeMap", vec![TypeNode::path("String"), t]);
        // Fits.
        assert_eq!(
            field_line(4, "f", &named(20)),
            ["    pub f: XXXXXXXXXXXXXXXXXXXX,"]
        );
        // The type alone on the next line.
        assert_eq!(
            field_line(4, "field", &option(named(80))),
            [
                "    pub field:".to_string(),
                format!("        Option<{}>,", "X".repeat(80))
            ]
        );
        // Generic arguments one per line, nested.
        assert_eq!(
            field_line(4, "field", &option(map(named(80)))),
            [
                "    pub field: Option<".to_string(),
                "        BTreeMap<".to_string(),
                "            String,".to_string(),
                format!("            {},", "X".repeat(80)),
                "        >,".to_string(),
                "    >,".to_string(),
            ]
        );
        // Nothing fits: one line, which rustfmt leaves alone.
        assert_eq!(field_line(4, "field", &named(95)).len(), 1);
    }

    #[test]
    fn a_lone_argument_breaks_only_past_the_line_width() {
        let long = format!("rename = {}", literal(&"x".repeat(80)));
        assert_eq!(attribute(4, "serde", &flat(&[&long])).len(), 3);
        let fits = format!("rename = {}", literal(&"x".repeat(70)));
        assert_eq!(attribute(4, "serde", &flat(&[&fits])).len(), 1);
    }
}
