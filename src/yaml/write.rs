//! serde_yaml's block YAML, written straight into a `String` for the values it lays out
//! simply: mappings, sequences, numbers, booleans and strings. A CRD of a few hundred
//! kilobytes goes through libyaml's emitter event by event, which cost `generate crds`
//! more than a tenth of its time; this writer makes the same text without it.
//!
//! The output is byte for byte serde_yaml's after [`super::quote_yaml11_booleans`] (width
//! unlimited, two-space indentation, sequences in a mapping not indented, `'y'` and `'no'`
//! quoted for Kubernetes' YAML 1.1). Strings are written plain, single-quoted or as
//! literal blocks where [`style`] follows serde_yaml and libyaml exactly, and rendered by
//! serde_yaml alone where it does not. Where the layout would depend on more of libyaml than
//! is written here (a long or quoted key, a multi-line string in a sequence, an enum, a
//! tuple), [`to_string`] gives up with [`Unsupported`] and the caller asks serde_yaml.

use std::fmt;

use serde::Serialize;
use serde::ser::{self, Impossible};

mod style;
use style::Style;

use super::is_yaml11_boolean;

/// Why a value was left to serde_yaml.
#[derive(Debug)]
pub struct Unsupported(String);

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not written without serde_yaml: {}", self.0)
    }
}

impl std::error::Error for Unsupported {}

impl ser::Error for Unsupported {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Self(msg.to_string())
    }
}

/// `value` as serde_yaml would write it, with the words YAML 1.1 reads as booleans quoted
/// (as [`super::quote_yaml11_booleans`] quotes them), or [`Unsupported`].
pub fn to_string(value: &impl Serialize) -> Result<String, Unsupported> {
    let mut writer = Writer {
        out: String::with_capacity(4096),
        slot: Slot::Root,
        stack: Vec::new(),
    };
    value.serialize(&mut writer)?;
    Ok(writer.out)
}

/// Where the next node goes.
#[derive(Clone, Copy)]
enum Slot {
    /// The document itself.
    Root,
    /// After `key:` of a mapping whose keys stand at this column.
    Value(usize),
    /// After `- ` of a sequence whose dashes stand at this column.
    Item(usize),
}

/// An open mapping or sequence.
struct Open {
    /// The column of its keys or dashes.
    indent: usize,
    /// Whether its first entry goes right after the `- ` already written.
    inline: bool,
    /// No entry written yet.
    empty: bool,
    from: Slot,
    mapping: bool,
}

struct Writer {
    out: String,
    slot: Slot,
    stack: Vec<Open>,
}

impl Writer {
    fn open(&mut self, mapping: bool) {
        let (indent, inline) = match self.slot {
            Slot::Root => (0, false),
            // libyaml indents a mapping under its key, but not a sequence.
            Slot::Value(n) if mapping => (n + 2, false),
            Slot::Value(n) => (n, false),
            Slot::Item(n) => (n + 2, true),
        };
        self.stack.push(Open {
            indent,
            inline,
            empty: true,
            from: self.slot,
            mapping,
        });
    }

    /// Starts an entry of the innermost open node: its indentation, then `- ` for an item.
    fn entry(&mut self) {
        let open = self
            .stack
            .last_mut()
            .expect("an entry is inside an open node");
        if open.empty {
            open.empty = false;
            if let Slot::Value(_) = open.from {
                self.out.push('\n');
            }
        }
        if open.inline {
            open.inline = false;
        } else {
            pad(&mut self.out, open.indent);
        }
        if open.mapping {
            self.slot = Slot::Value(open.indent);
        } else {
            self.out.push_str("- ");
            self.slot = Slot::Item(open.indent);
        }
    }

    fn close(&mut self) {
        let open = self.stack.pop().expect("a close matches an open");
        if open.empty {
            let empty = if open.mapping { "{}" } else { "[]" };
            if let Slot::Value(_) = open.from {
                self.out.push(' ');
            }
            self.out.push_str(empty);
            self.out.push('\n');
        }
    }

    /// Starts an entry of the innermost mapping with its key, as serde_yaml writes it on
    /// the key's line: libyaml writes a key of more than 128 bytes as a complex key
    /// (`? key`), and serde_yaml takes the `!` that starts the key of a one-entry mapping
    /// for a tag.
    fn key(&mut self, key: &str) -> Result<(), Unsupported> {
        self.entry();
        let simple = key.len() <= 128 && !key.starts_with('!');
        match style::of(key) {
            Style::Plain if simple && !is_yaml11_boolean(key) => self.out.push_str(key),
            Style::Plain | Style::SingleQuoted if simple => self.out.push_str(&single_quoted(key)),
            _ => return Err(Unsupported(format!("the key {key:?}"))),
        }
        self.out.push(':');
        Ok(())
    }

    /// A finite float in ryu's shortest digits, as serde_yaml writes it (it writes the
    /// others as `.inf` and `.nan`, which no CRD holds).
    fn float(&mut self, v: impl ryu::Float, finite: bool) -> Result<(), Unsupported> {
        if !finite {
            return unsupported("a float that is not finite");
        }
        self.plain(ryu::Buffer::new().format_finite(v));
        Ok(())
    }

    /// A scalar written as it is (a number, a boolean, a plain string).
    fn plain(&mut self, text: &str) {
        if let Slot::Value(_) = self.slot {
            self.out.push(' ');
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn string(&mut self, value: &str) -> Result<(), Unsupported> {
        match style::of(value) {
            Style::Plain if !is_yaml11_boolean(value) => self.plain(value),
            Style::Plain | Style::SingleQuoted => self.plain(&single_quoted(value)),
            Style::Literal(header) => match self.slot {
                Slot::Value(key) => {
                    self.plain(header);
                    let body = value.strip_suffix('\n').unwrap_or(value);
                    for line in body.split('\n') {
                        // libyaml leaves an empty line of a block empty.
                        if !line.is_empty() {
                            pad(&mut self.out, key + 2);
                            self.out.push_str(line);
                        }
                        self.out.push('\n');
                    }
                }
                _ => return self.string_alone(value),
            },
            Style::Other => return self.string_alone(value),
        }
        Ok(())
    }

    /// A string as serde_yaml writes it alone, where that is also how it writes it here: a
    /// single line, or a block under a key or as the document.
    fn string_alone(&mut self, value: &str) -> Result<(), Unsupported> {
        if value.contains(['\r', '\u{85}', '\u{2028}', '\u{2029}']) {
            // libyaml breaks the line there and indents what follows, as it stands.
            return Err(Unsupported("a line break other than LF".into()));
        }
        let alone = serde_yaml::to_string(value).map_err(|e| Unsupported(e.to_string()))?;
        let Some((first, rest)) = alone.split_once('\n') else {
            return Err(Unsupported(format!("serde_yaml wrote {alone:?}")));
        };
        if rest.is_empty() {
            self.plain(first);
            return Ok(());
        }
        match self.slot {
            Slot::Root => self.out.push_str(&alone),
            // Alone, a block's lines are indented by two; under a key, by two more than
            // the key.
            Slot::Value(key) if first.starts_with('|') => {
                self.plain(first);
                for line in rest.split_inclusive('\n') {
                    if line != "\n" {
                        pad(&mut self.out, key);
                    }
                    self.out.push_str(line);
                }
            }
            _ => return Err(Unsupported(format!("serde_yaml wrote {alone:?} here"))),
        }
        Ok(())
    }
}

fn single_quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// `n` spaces.
pub fn pad(out: &mut String, n: usize) {
    const SPACES: &str = "                                                                ";
    let mut n = n;
    while n > SPACES.len() {
        out.push_str(SPACES);
        n -= SPACES.len();
    }
    out.push_str(&SPACES[..n]);
}

fn unsupported<T>(what: &str) -> Result<T, Unsupported> {
    Err(Unsupported(what.into()))
}

/// Integers, written as serde_yaml writes them (itoa's digits are Rust's).
macro_rules! integers {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(fn $method(self, v: $ty) -> Result<(), Unsupported> {
            self.plain(&v.to_string());
            Ok(())
        })*
    };
}

impl ser::Serializer for &mut Writer {
    type Ok = ();
    type Error = Unsupported;
    type SerializeSeq = Self;
    type SerializeTuple = Impossible<(), Unsupported>;
    type SerializeTupleStruct = Impossible<(), Unsupported>;
    type SerializeTupleVariant = Impossible<(), Unsupported>;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), Unsupported>;

    fn serialize_bool(self, v: bool) -> Result<(), Unsupported> {
        self.plain(if v { "true" } else { "false" });
        Ok(())
    }
    integers!(
        serialize_i8: i8,
        serialize_i16: i16,
        serialize_i32: i32,
        serialize_i64: i64,
        serialize_u8: u8,
        serialize_u16: u16,
        serialize_u32: u32,
        serialize_u64: u64,
    );
    fn serialize_f32(self, v: f32) -> Result<(), Unsupported> {
        self.float(v, v.is_finite())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Unsupported> {
        self.float(v, v.is_finite())
    }
    fn serialize_char(self, _: char) -> Result<(), Unsupported> {
        unsupported("a char")
    }
    fn serialize_str(self, v: &str) -> Result<(), Unsupported> {
        self.string(v)
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Unsupported> {
        unsupported("bytes")
    }
    fn serialize_none(self) -> Result<(), Unsupported> {
        self.serialize_unit()
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), Unsupported> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Unsupported> {
        self.plain("null");
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Unsupported> {
        unsupported("a unit struct")
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<(), Unsupported> {
        unsupported("an enum")
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Unsupported> {
        unsupported("an enum")
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self, Unsupported> {
        self.open(false);
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Unsupported> {
        unsupported("a tuple")
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Unsupported> {
        unsupported("a tuple struct")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Unsupported> {
        unsupported("an enum")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self, Unsupported> {
        self.open(true);
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Unsupported> {
        self.open(true);
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Unsupported> {
        unsupported("an enum")
    }
}

impl ser::SerializeSeq for &mut Writer {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.entry();
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<(), Unsupported> {
        self.close();
        Ok(())
    }
}

impl ser::SerializeMap for &mut Writer {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), Unsupported> {
        // The keys of the maps in a CRD are strings (`BTreeMap<String, _>`).
        match serde_json::to_value(key) {
            Ok(serde_json::Value::String(key)) => self.key(&key),
            _ => unsupported("a key that is not a string"),
        }
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Unsupported> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<(), Unsupported> {
        self.close();
        Ok(())
    }
}

impl ser::SerializeStruct for &mut Writer {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        self.key(key)?;
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<(), Unsupported> {
        self.close();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::*;
    use crate::yaml::quote_yaml11_booleans;

    /// What `emit` writes either way: this writer's text, or serde_yaml's quoted after.
    fn same_as_serde_yaml(value: &Value) {
        let want = || quote_yaml11_booleans(&serde_yaml::to_string(value).unwrap()).unwrap();
        match to_string(value) {
            Ok(got) => assert_eq!(got, want(), "for {value}"),
            Err(e) => assert!(!is_plain_tree(value), "{e} for {value}"),
        }
    }

    /// A value with plain keys, no line break but `\n`, and no multi-line string in a
    /// sequence: always written.
    fn is_plain_tree(value: &Value) -> bool {
        match value {
            Value::Object(m) => m
                .iter()
                .all(|(k, v)| style::of(k) == Style::Plain && k.len() <= 128 && is_plain_tree(v)),
            Value::Array(a) => a
                .iter()
                .all(|v| !v.as_str().is_some_and(|s| s.contains('\n')) && is_plain_tree(v)),
            Value::String(s) => !s.contains(['\r', '\u{85}', '\u{2028}', '\u{2029}']),
            _ => true,
        }
    }

    #[test]
    fn layouts_are_serde_yaml_s() {
        for value in [
            json!({}),
            json!([]),
            json!("a"),
            json!("a\nb"),
            json!({ "a": {}, "b": [], "c": [[], {}, [1, [2, []]], { "d": {} }] }),
            json!({ "a": [{ "b": 1, "c": [true, null] }, { "d": { "e": -1.5 } }] }),
            json!({ "k": [[{ "a": 1 }, { "b": [[]] }]], "m": { "n": { "o": [] } } }),
            json!({ "a": 1e300, "b": 0.0, "c": 1e-7, "d": u64::MAX, "e": i64::MIN }),
        ] {
            same_as_serde_yaml(&value);
            assert!(to_string(&value).is_ok(), "{value}");
        }
    }

    #[test]
    fn strings_are_quoted_where_serde_yaml_quotes_them() {
        for s in [
            "",
            " ",
            "a ",
            " a",
            "true",
            "True",
            "null",
            "~",
            "1",
            "0x1",
            "1e3",
            "-",
            "- a",
            "a: b",
            "a:b",
            "a:",
            "a #b",
            "a#b",
            "#a",
            "'a'",
            "a'b",
            "\"a\"",
            "[a]",
            "a, b",
            "{a}",
            "&a",
            "*a",
            "!a",
            "|a",
            "%a",
            "@a",
            "`a`",
            "? a",
            "?a",
            "---",
            "...",
            "a\tb",
            "é",
            "a\u{85}b",
            "a\u{2028}b",
            "a\u{feff}",
            "a\rb",
            "a\nb",
            "a\n",
            "a\n\n",
            "\na",
            " a\nb",
            "a \nb",
            "a\n b",
            "a\n\nb\n",
            "y",
            "no",
            "on",
            ".inf",
            "inf",
            "nan",
            "0123",
            "+1",
            "_a",
            "a_b",
            "a/b.c(d)=e;f",
            "a  b",
            "a\\b",
            "x".repeat(200).as_str(),
        ] {
            for value in [
                json!(s),
                json!({ "k": s }),
                json!({ "k": { "k2": s } }),
                json!([s]),
                json!({ "k": [s, { "k3": s }] }),
                json!({ s: 1 }),
                json!({ "k": { s: [s] } }),
            ] {
                same_as_serde_yaml(&value);
            }
        }
    }

    fn tricky_string() -> impl Strategy<Value = String> {
        proptest::string::string_regex(
            "[a-cefnosxyNOY _:#'\"\\-\n\t!&*|>.,\\[\\]{}é0-9+~?%@`\r\u{85}\u{2028}\u{feff}]{0,6}",
        )
        .unwrap()
    }

    /// Mostly plain words, as in a CRD, so that most trees are written here.
    fn key() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => proptest::string::string_regex("[a-c_nyo][a-c_0-9$.nyo-]{0,5}").unwrap(),
            1 => tricky_string(),
        ]
    }

    fn tree() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            tricky_string().prop_map(Value::String),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            any::<bool>().prop_map(Value::from),
            Just(Value::Null),
        ];
        leaf.prop_recursive(4, 40, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::btree_map(key(), inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]
        #[test]
        fn any_value_is_written_as_serde_yaml_writes_it_or_left_to_it(value in tree()) {
            same_as_serde_yaml(&value);
        }
    }
}
