//! One object of the chart as a tree: the YAML kustomize rendered, in which some values are
//! template expressions and some entries are conditional. It is written as block YAML
//! whose control lines (`{{- if ... }}`) stand on lines of their own, so a template reads
//! like the object it renders. [`Helpers`] names what its expressions include from
//! `_helpers.tpl`.

use serde_yaml::Value;

/// A value of the tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// A YAML scalar, written as YAML (quoted where a YAML 1.1 reader could misread it).
    Scalar(Value),
    /// A scalar the template computes, written as is: `{{ .Values.replicas }}`.
    Expr(String),
    /// A block the template renders from values, under its key:
    /// `{{- toYaml EXPR | nindent N }}`.
    Yaml(String),
    /// A mapping, and the values of `extra` (a map expression) rendered after its entries.
    Map {
        entries: Vec<Entry>,
        extra: Option<String>,
    },
    /// A sequence, and the items of `extra` (a list expression) rendered after its items.
    List {
        items: Vec<Item>,
        extra: Option<String>,
    },
}

/// An entry of a mapping, rendered only where `gate` (`if COND` or `with EXPR`) holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub key: String,
    pub node: Node,
    pub gate: Option<String>,
}

/// An item of a sequence, rendered only where `gate` holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub node: Node,
    pub gate: Option<String>,
}

impl Node {
    pub fn from_value(value: &Value) -> Node {
        match value {
            Value::Mapping(map) => Node::Map {
                entries: map
                    .iter()
                    .map(|(k, v)| Entry {
                        key: scalar_text(k),
                        node: Node::from_value(v),
                        gate: None,
                    })
                    .collect(),
                extra: None,
            },
            Value::Sequence(items) => Node::List {
                items: items
                    .iter()
                    .map(|v| Item {
                        node: Node::from_value(v),
                        gate: None,
                    })
                    .collect(),
                extra: None,
            },
            Value::Tagged(tagged) => Node::from_value(&tagged.value),
            scalar => Node::Scalar(scalar.clone()),
        }
    }

    /// The entry `key` of a mapping.
    pub fn entry_mut(&mut self, key: &str) -> Option<&mut Entry> {
        match self {
            Node::Map { entries, .. } => entries.iter_mut().find(|e| e.key == key),
            _ => None,
        }
    }

    /// The value at `path` of nested mappings.
    pub fn at_mut(&mut self, path: &[&str]) -> Option<&mut Node> {
        let mut node = self;
        for key in path {
            node = &mut node.entry_mut(key)?.node;
        }
        Some(node)
    }

    pub fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Map { entries, .. } => entries.iter().find(|e| e.key == key).map(|e| &e.node),
            _ => None,
        }
    }

    pub fn at(&self, path: &[&str]) -> Option<&Node> {
        path.iter().try_fold(self, |node, key| node.get(key))
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::Scalar(Value::String(s)) => Some(s),
            _ => None,
        }
    }

    /// Sets `key` of a mapping, replacing its value where it exists (and keeping its place)
    /// or appending it.
    pub fn set(&mut self, key: &str, node: Node, gate: Option<String>) {
        if let Some(entry) = self.entry_mut(key) {
            entry.node = node;
            entry.gate = gate;
        } else if let Node::Map { entries, .. } = self {
            entries.push(Entry {
                key: key.to_string(),
                node,
                gate,
            });
        }
    }

    pub fn empty_map() -> Node {
        Node::Map {
            entries: Vec::new(),
            extra: None,
        }
    }

    pub fn string(text: &str) -> Node {
        Node::Scalar(Value::String(text.to_string()))
    }

    /// The value as one flow scalar (JSON is YAML), for a choice between two values.
    pub fn inline_json(&self) -> String {
        match self {
            Node::Scalar(value) if !value.as_str().is_some_and(|s| s.contains("{{")) => {
                serde_json::to_string(value).unwrap_or_default()
            }
            other => inline(other),
        }
    }

    /// Rewrites every string scalar `f` maps to `Some` (keys excepted), depth first.
    pub fn rewrite_strings(&mut self, f: &dyn Fn(&str) -> Option<Node>) {
        match self {
            Node::Scalar(Value::String(s)) => {
                if let Some(new) = f(s) {
                    *self = new;
                }
            }
            Node::Map { entries, .. } => entries.iter_mut().for_each(|e| e.node.rewrite_strings(f)),
            Node::List { items, .. } => items.iter_mut().for_each(|i| i.node.rewrite_strings(f)),
            _ => {}
        }
    }
}

/// What the chart's templates include from `_helpers.tpl`, named after the chart.
pub struct Helpers<'a>(pub &'a str);

impl Helpers<'_> {
    pub(super) fn include(&self, what: &str) -> String {
        format!("{{{{ include \"{}.{what}\" . }}}}", self.0)
    }
}

/// The template text of `node`, a whole document.
pub fn emit(node: &Node) -> String {
    let mut out = String::new();
    match node {
        Node::Map { entries, extra } => map(&mut out, entries, extra.as_deref(), 0, None),
        other => {
            out.push_str(&inline(other));
            out.push('\n');
        }
    }
    out
}

fn pad(n: usize) -> String {
    " ".repeat(n)
}

/// Entries at `indent`; `dash` is the `- ` that starts the first line when the mapping is
/// an item of a sequence.
fn map(
    out: &mut String,
    entries: &[Entry],
    extra: Option<&str>,
    indent: usize,
    dash: Option<usize>,
) {
    let mut dash = dash;
    // An item's first line carries its dash: it must be a plain entry.
    if let Some(at) = dash
        && entries.first().is_none_or(|e| e.gate.is_some())
    {
        out.push_str(&format!("{}-\n", pad(at)));
        dash = None;
    }
    for entry in entries {
        let lead = match dash.take() {
            Some(at) => format!("{}- ", pad(at)),
            None => pad(indent),
        };
        if let Some(gate) = &entry.gate {
            out.push_str(&format!("{}{{{{- {gate} }}}}\n", pad(indent)));
        }
        let key = scalar_text_quoted(&entry.key);
        match &entry.node {
            Node::Map { entries, extra } if !entries.is_empty() => {
                out.push_str(&format!("{lead}{key}:\n"));
                map(out, entries, extra.as_deref(), indent + 2, None);
            }
            Node::Map { extra: Some(e), .. } => {
                out.push_str(&format!("{lead}{key}:"));
                out.push_str(&format!(
                    " {{{{- with {e} }}}}{{{{- toYaml . | nindent {} }}}}{{{{- else }}}} {{}}{{{{- end }}}}\n",
                    indent + 2
                ));
            }
            Node::List { items, extra } if !items.is_empty() => {
                out.push_str(&format!("{lead}{key}:\n"));
                list(out, items, extra.as_deref(), indent);
            }
            Node::List { extra: Some(e), .. } => {
                out.push_str(&format!("{lead}{key}:"));
                out.push_str(&format!(
                    " {{{{- with {e} }}}}{{{{- toYaml . | nindent {indent} }}}}{{{{- else }}}} []{{{{- end }}}}\n"
                ));
            }
            Node::Yaml(expr) => {
                out.push_str(&format!("{lead}{key}:\n"));
                out.push_str(&format!(
                    "{}{{{{- toYaml {expr} | nindent {} }}}}\n",
                    pad(indent + 2),
                    indent + 2
                ));
            }
            scalar => out.push_str(&format!("{lead}{key}: {}\n", inline(scalar))),
        }
        if entry.gate.is_some() {
            out.push_str(&format!("{}{{{{- end }}}}\n", pad(indent)));
        }
    }
    if let Some(extra) = extra {
        out.push_str(&format!(
            "{p}{{{{- with {extra} }}}}\n{p}{{{{- toYaml . | nindent {indent} }}}}\n{p}{{{{- end }}}}\n",
            p = pad(indent)
        ));
    }
}

/// Items at `indent` (the column of their dashes).
fn list(out: &mut String, items: &[Item], extra: Option<&str>, indent: usize) {
    for item in items {
        if let Some(gate) = &item.gate {
            out.push_str(&format!("{}{{{{- {gate} }}}}\n", pad(indent)));
        }
        match &item.node {
            Node::Map { entries, extra } if !entries.is_empty() => {
                map(out, entries, extra.as_deref(), indent + 2, Some(indent))
            }
            Node::List { items, extra } if !items.is_empty() => {
                out.push_str(&format!("{}-\n", pad(indent)));
                list(out, items, extra.as_deref(), indent + 2);
            }
            Node::Yaml(expr) => out.push_str(&format!(
                "{}- {{{{- toYaml {expr} | nindent {} }}}}\n",
                pad(indent),
                indent + 2
            )),
            scalar => out.push_str(&format!("{}- {}\n", pad(indent), inline(scalar))),
        }
        if item.gate.is_some() {
            out.push_str(&format!("{}{{{{- end }}}}\n", pad(indent)));
        }
    }
    if let Some(extra) = extra {
        out.push_str(&format!(
            "{p}{{{{- with {extra} }}}}\n{p}{{{{- toYaml . | nindent {indent} }}}}\n{p}{{{{- end }}}}\n",
            p = pad(indent)
        ));
    }
}

/// A value that fits on its key's line.
fn inline(node: &Node) -> String {
    match node {
        Node::Scalar(value) => scalar_yaml(value),
        Node::Expr(expr) => expr.clone(),
        Node::Map { .. } => "{}".into(),
        Node::List { .. } => "[]".into(),
        Node::Yaml(expr) => format!("{{{{ toJson {expr} }}}}"),
    }
}

fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => scalar_yaml(other),
    }
}

/// A scalar as YAML that Helm's reader (YAML 1.1) and Go's template parser both read back
/// as the same value.
fn scalar_yaml(value: &Value) -> String {
    match value {
        Value::String(s) => scalar_text_quoted(s),
        Value::Null => "null".into(),
        other => serde_yaml::to_string(other)
            .map(|s| s.trim_end().to_string())
            .unwrap_or_default(),
    }
}

/// A string, plain where that is unambiguous, else double-quoted. Text holding `{{` would
/// be read as template actions, so it becomes an action printing the string.
fn scalar_text_quoted(s: &str) -> String {
    let json = serde_json::to_string(s).expect("a string serializes");
    if s.contains("{{") {
        return format!("{{{{ {json} | toJson }}}}");
    }
    if plain_is_safe(s) {
        s.to_string()
    } else {
        json
    }
}

fn plain_is_safe(s: &str) -> bool {
    const YAML11_WORDS: [&str; 11] = [
        "y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", "=",
    ];
    let Some(first) = s.chars().next() else {
        return false;
    };
    let numeric_start = first.is_ascii_digit()
        || (matches!(first, '+' | '-' | '.') && s[1..].starts_with(|c: char| c.is_ascii_digit()));
    (first.is_ascii_alphanumeric() || matches!(first, '/' | '_' | '-' | '.'))
        && !numeric_start
        && !s.starts_with("- ")
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./:@=,+-".contains(c))
        && !s.ends_with(':')
        && !YAML11_WORDS.contains(&s.to_ascii_lowercase().as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(yaml: &str) -> Node {
        Node::from_value(&crate::yaml::read::from_str(yaml).unwrap())
    }

    #[test]
    fn plain_yaml_comes_back_as_written() {
        let text = "kind: Deployment\nspec:\n  replicas: 1\n  args:\n  - --leader-elect\n  - name: a\n    value: b\n  empty: {}\n  none: []\n";
        assert_eq!(emit(&node(text)), text);
    }

    #[test]
    fn scalars_a_yaml_1_1_reader_would_misread_are_quoted() {
        for s in [
            "on",
            "Yes",
            "1.0",
            "0755",
            "-1",
            "[::]:8443",
            "a: b",
            "",
            "x:",
            "*a",
            "#c",
        ] {
            assert!(scalar_text_quoted(s).starts_with('"'), "{s} was left plain");
        }
        for s in [
            "controller:latest",
            "--leader-elect",
            "/manager",
            "cronjobs.batch.example.com",
        ] {
            assert_eq!(scalar_text_quoted(s), s);
        }
        assert_eq!(scalar_text_quoted("a {{ b"), r#"{{ "a {{ b" | toJson }}"#);
    }

    #[test]
    fn gates_and_extras_stand_on_lines_of_their_own() {
        let mut doc = node("spec:\n  env:\n  - name: A\n    value: b\n");
        let env = doc.at_mut(&["spec", "env"]).unwrap();
        if let Node::List { items, extra } = env {
            items[0].gate = Some("if .Values.a".into());
            *extra = Some(".Values.env".into());
        }
        doc.at_mut(&["spec"]).unwrap().set(
            "replicas",
            Node::Expr("{{ .Values.replicas }}".into()),
            None,
        );
        assert_eq!(
            emit(&doc),
            "spec:\n  env:\n  {{- if .Values.a }}\n  - name: A\n    value: b\n  {{- end }}\n  {{- with .Values.env }}\n  {{- toYaml . | nindent 2 }}\n  {{- end }}\n  replicas: {{ .Values.replicas }}\n"
        );
    }
}
