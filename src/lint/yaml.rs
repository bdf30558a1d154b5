//! YAML with positions: one parse per file (saphyr's event parser) into a tree whose every
//! node knows its line and column, so that a finding points at the field it is about.
//!
//! Plain scalars resolve the way `kubectl` reads them: sigs.k8s.io/yaml decodes with a
//! YAML 1.1 resolver (go-yaml v2), so `yes`/`on` are booleans and `1_000` an integer.

use std::collections::HashMap;
use std::fmt;

use saphyr_parser::{Event, ScalarStyle, Span, Tag};
use serde_json::Value;

/// A position in a file: line and column, both from 1.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

impl Pos {
    fn of(span: &Span) -> Self {
        Pos {
            line: span.start.line(),
            column: span.start.col() + 1,
        }
    }
}

/// One YAML node and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub pos: Pos,
    pub kind: Kind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<Entry>),
}

/// A mapping entry: the key (always text, as in JSON) and where it is written.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub key: String,
    pub key_pos: Pos,
    pub value: Node,
}

/// A YAML document that does not parse, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub pos: Pos,
    pub message: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.pos.line, self.pos.column, self.message)
    }
}

/// Every document of `text`, in order. Empty documents are left out.
pub fn parse(text: &str) -> Result<Vec<Node>, SyntaxError> {
    let mut builder = Builder::default();
    for event in crate::yaml::read::events(text) {
        let (event, span) = event.map_err(|e| SyntaxError {
            pos: Pos {
                line: e.line,
                column: e.column,
            },
            message: e.message,
        })?;
        builder.push(event, &span)?;
    }
    Ok(builder.documents)
}

/// A collection being filled: the node, its anchor, and for a map the key read last.
type Open = (Node, usize, Option<(String, Pos)>);

#[derive(Default)]
struct Builder {
    documents: Vec<Node>,
    /// Open collections: the node being filled, its anchor, and a pending key for maps.
    stack: Vec<Open>,
    anchors: HashMap<usize, Node>,
}

impl Builder {
    fn push(&mut self, event: Event<'_>, span: &Span) -> Result<(), SyntaxError> {
        let pos = Pos::of(span);
        match event {
            Event::SequenceStart(anchor, _) => self.stack.push((
                Node {
                    pos,
                    kind: Kind::Seq(Vec::new()),
                },
                anchor,
                None,
            )),
            Event::MappingStart(anchor, _) => self.stack.push((
                Node {
                    pos,
                    kind: Kind::Map(Vec::new()),
                },
                anchor,
                None,
            )),
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((node, anchor, _)) = self.stack.pop() {
                    self.complete(node, anchor, pos)?;
                }
            }
            Event::Scalar(text, style, anchor, tag) => {
                let node = Node {
                    pos,
                    kind: resolve(&text, style, tag.as_deref()),
                };
                self.complete(node, anchor, pos)?;
            }
            Event::Alias(id) => {
                let Some(node) = self.anchors.get(&id).cloned() else {
                    return Err(SyntaxError {
                        pos,
                        message: "alias to an unknown anchor".into(),
                    });
                };
                self.complete(node, 0, pos)?;
            }
            Event::Nothing
            | Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart(_)
            | Event::DocumentEnd => {}
        }
        Ok(())
    }

    /// Adds a finished node to its parent, or ends a document.
    fn complete(&mut self, node: Node, anchor: usize, pos: Pos) -> Result<(), SyntaxError> {
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
        let Some((parent, _, key)) = self.stack.last_mut() else {
            if node.kind != Kind::Null {
                self.documents.push(node);
            }
            return Ok(());
        };
        match &mut parent.kind {
            Kind::Seq(items) => items.push(node),
            Kind::Map(entries) => match key.take() {
                None => {
                    let text = match node.kind {
                        Kind::Str(s) => s,
                        Kind::Int(i) => i.to_string(),
                        Kind::Bool(b) => b.to_string(),
                        Kind::Float(f) => f.to_string(),
                        Kind::Null => "null".into(),
                        Kind::Seq(_) | Kind::Map(_) => {
                            return Err(SyntaxError {
                                pos,
                                message: "a mapping key must be a scalar".into(),
                            });
                        }
                    };
                    *key = Some((text, node.pos));
                }
                Some((key, key_pos)) => entries.push(Entry {
                    key,
                    key_pos,
                    value: node,
                }),
            },
            _ => {}
        }
        Ok(())
    }
}

/// The value of a scalar: quoted and block scalars are text, plain ones resolve.
fn resolve(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> Kind {
    if let Some(tag) = tag
        && tag.is_yaml_core_schema()
        && tag.suffix == "str"
    {
        return Kind::Str(text.to_string());
    }
    if style != ScalarStyle::Plain {
        return Kind::Str(text.to_string());
    }
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Kind::Null,
        "true" | "True" | "TRUE" | "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => {
            return Kind::Bool(true);
        }
        "false" | "False" | "FALSE" | "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => {
            return Kind::Bool(false);
        }
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Kind::Float(f64::INFINITY);
        }
        "-.inf" | "-.Inf" | "-.INF" => return Kind::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Kind::Float(f64::NAN),
        _ => {}
    }
    if let Some(i) = integer(text) {
        return Kind::Int(i);
    }
    if is_float(text)
        && let Ok(f) = text.replace('_', "").parse::<f64>()
    {
        return Kind::Float(f);
    }
    Kind::Str(text.to_string())
}

fn integer(text: &str) -> Option<i64> {
    let (negative, digits) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let digits = digits.replace('_', "");
    let (radix, body) = if let Some(hex) = digits.strip_prefix("0x") {
        (16, hex.to_string())
    } else if let Some(bin) = digits.strip_prefix("0b") {
        (2, bin.to_string())
    } else if let Some(oct) = digits.strip_prefix("0o") {
        (8, oct.to_string())
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, digits[1..].to_string())
    } else {
        (10, digits)
    };
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let value = i64::from_str_radix(&body, radix).ok()?;
    Some(if negative { -value } else { value })
}

fn is_float(text: &str) -> bool {
    let t = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit() || c == '_');
    let mantissa_ok = match mantissa.split_once('.') {
        Some((a, b)) => {
            (a.is_empty() || digits(a))
                && (b.is_empty() || digits(b))
                && !(a.is_empty() && b.is_empty())
        }
        None => digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)));
    mantissa_ok && exponent_ok
}

impl Node {
    /// The value of `key` when this node is a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|e| &e.value)
    }

    /// The entry of `key` when this node is a mapping.
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        match &self.kind {
            Kind::Map(entries) => entries.iter().find(|e| e.key == key),
            _ => None,
        }
    }

    /// Follows `keys` through nested mappings.
    pub fn at(&self, keys: &[&str]) -> Option<&Node> {
        keys.iter().try_fold(self, |node, key| node.get(key))
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> &[Node] {
        match &self.kind {
            Kind::Seq(items) => items,
            _ => &[],
        }
    }

    pub fn entries(&self) -> &[Entry] {
        match &self.kind {
            Kind::Map(entries) => entries,
            _ => &[],
        }
    }

    /// Whether `key` is a key anywhere in this node.
    pub fn has_key(&self, key: &str) -> bool {
        match &self.kind {
            Kind::Map(entries) => entries.iter().any(|e| e.key == key || e.value.has_key(key)),
            Kind::Seq(items) => items.iter().any(|n| n.has_key(key)),
            _ => false,
        }
    }

    /// The same value as JSON, as the API server would decode it.
    pub fn to_json(&self) -> Value {
        match &self.kind {
            Kind::Null => Value::Null,
            Kind::Bool(b) => Value::Bool(*b),
            Kind::Int(i) => Value::from(*i),
            Kind::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Kind::Str(s) => Value::String(s.clone()),
            Kind::Seq(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            Kind::Map(entries) => Value::Object(
                entries
                    .iter()
                    .map(|e| (e.key.clone(), e.value.to_json()))
                    .collect(),
            ),
        }
    }

    /// Where the entry at `path` is written: its key when the last step is a key; the
    /// nearest written ancestor when the path goes where the document has nothing.
    pub fn pos_of(&self, path: &[Segment]) -> Pos {
        let Some((last, parent)) = path.split_last() else {
            return self.pos;
        };
        let Some(parent_node) = self.resolve(parent) else {
            return self.pos_of(parent);
        };
        match last {
            Segment::Key(key) => parent_node
                .entry(key)
                .map_or_else(|| self.pos_of(parent), |e| e.key_pos),
            Segment::Index(i) => parent_node
                .as_seq()
                .get(*i)
                .map_or_else(|| self.pos_of(parent), |n| n.pos),
        }
    }

    /// The node at `path`, if the document has one there.
    pub fn resolve(&self, path: &[Segment]) -> Option<&Node> {
        path.iter().try_fold(self, |node, segment| match segment {
            Segment::Key(key) => node.get(key),
            Segment::Index(i) => node.as_seq().get(*i),
        })
    }
}

/// One step of a path into a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    Key(String),
    Index(usize),
}

/// Renders a path as `spec.items[0].name`.
pub fn display_path(path: &[Segment]) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            Segment::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// Reads a path written as `spec.items[0].name` (the form kube-cel reports).
pub fn parse_path(text: &str) -> Vec<Segment> {
    let mut path = Vec::new();
    for part in text.split('.').filter(|p| !p.is_empty()) {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !key.is_empty() {
            path.push(Segment::Key(key.to_string()));
        }
        while let Some(stripped) = rest.strip_prefix('[') {
            let Some(end) = stripped.find(']') else { break };
            match stripped[..end].parse() {
                Ok(i) => path.push(Segment::Index(i)),
                Err(_) => path.push(Segment::Key(stripped[..end].to_string())),
            }
            rest = &stripped[end + 1..];
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_resolve_as_kubectl_reads_them() {
        let docs =
            parse("a: 1\nb: '1'\nc: yes\nd: 1.5\ne: ~\nf: 0x1f\ng: text\nh: |\n  block\n").unwrap();
        let json = docs[0].to_json();
        assert_eq!(
            json,
            serde_json::json!({"a": 1, "b": "1", "c": true, "d": 1.5, "e": null, "f": 31, "g": "text", "h": "block\n"})
        );
    }

    #[test]
    fn nodes_know_their_positions() {
        let text = "apiVersion: v1\nspec:\n  items:\n  - name: a\n    size: 3\n";
        let doc = &parse(text).unwrap()[0];
        let path = parse_path("spec.items[0].size");
        assert_eq!(doc.pos_of(&path), Pos { line: 5, column: 5 });
        assert_eq!(
            doc.resolve(&path).unwrap().pos,
            Pos {
                line: 5,
                column: 11
            }
        );
        let missing = parse_path("spec.items[0].size.deeper");
        assert_eq!(doc.pos_of(&missing), Pos { line: 5, column: 5 });
        assert_eq!(display_path(&path), "spec.items[0].size");
    }

    #[test]
    fn every_document_is_read() {
        let docs = parse("a: 1\n---\nb: 2\n---\n").unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].pos, Pos { line: 3, column: 1 });
    }

    #[test]
    fn anchors_and_aliases_resolve() {
        let docs = parse("a: &x {k: v}\nb: *x\n").unwrap();
        assert_eq!(docs[0].to_json()["b"], serde_json::json!({"k": "v"}));
    }

    #[test]
    fn syntax_errors_carry_a_position() {
        let err = parse("a: [1, 2\nb: 3\n").unwrap_err();
        assert!(err.pos.line >= 1, "{err}");
    }
}
