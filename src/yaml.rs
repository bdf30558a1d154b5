//! YAML as kubectl and the API server read it. serde_yaml writes YAML 1.2; Kubernetes reads
//! YAML 1.1 (sigs.k8s.io/yaml), where a few plain words are booleans.

pub mod read;
pub mod write;

use anyhow::{Result, bail};
use serde::Serialize;

/// `value` as YAML that reads the same in YAML 1.1 and 1.2.
pub fn to_string(value: &impl Serialize) -> Result<String> {
    quote_yaml11_booleans(&serde_yaml::to_string(value)?)
}

/// The plain scalars that YAML 1.1 reads as booleans. serde_yaml writes YAML 1.2, where
/// they are strings, but kubectl and the API server read YAML as 1.1 (sigs.k8s.io/yaml):
/// a property `y` there is `true`, and `required: [n]` holds `false`, which the server
/// refuses or, for a key, silently renames.
const YAML11_BOOLEANS: &[&str] = &[
    "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off",
    "OFF",
];

/// Whether YAML 1.1 reads the plain scalar `word` as a boolean.
pub fn is_yaml11_boolean(word: &str) -> bool {
    word.len() <= 3 && YAML11_BOOLEANS.contains(&word)
}

/// `yaml` as serde_yaml wrote it (block style, one scalar per line, multi-line strings as
/// `|` blocks) with every key and value that YAML 1.1 reads as a boolean single-quoted.
/// The result must read as the very same YAML 1.2 document, or this is an error.
pub fn quote_yaml11_booleans(yaml: &str) -> Result<String> {
    // Written straight into `out`: a CRD of a few hundred kilobytes has tens of thousands
    // of lines, and nearly all of them are copied unchanged.
    let push_word = |out: &mut String, word: &str| {
        if is_yaml11_boolean(word) {
            out.push('\'');
            out.push_str(word);
            out.push('\'');
        } else {
            out.push_str(word);
        }
    };
    let mut out = String::with_capacity(yaml.len() + 64);
    // Inside a block scalar: the column of its key; its lines are indented deeper.
    let mut block: Option<usize> = None;
    for line in yaml.split_inclusive('\n') {
        let text = line.trim_end_matches('\n');
        let indent = text.len() - text.trim_start_matches(' ').len();
        if let Some(column) = block {
            if text.trim().is_empty() || indent > column {
                out.push_str(line);
                continue;
            }
            block = None;
        }
        let mut column = indent;
        let mut rest = &text[indent..];
        while let Some(after) = rest.strip_prefix("- ") {
            rest = after;
            column += 2;
        }
        out.push_str(&text[..column]);
        match rest.split_once(": ") {
            Some((key, value)) => {
                if value.starts_with('|') || value.starts_with('>') {
                    block = Some(column);
                }
                push_word(&mut out, key);
                out.push_str(": ");
                push_word(&mut out, value);
            }
            None if rest.starts_with('|') || rest.starts_with('>') => {
                // A list item's block: its lines are indented deeper than the dash.
                block = Some(indent);
                out.push_str(rest);
            }
            None => match rest.strip_suffix(':') {
                Some(key) => {
                    push_word(&mut out, key);
                    out.push(':');
                }
                None => push_word(&mut out, rest),
            },
        }
        if line.ends_with('\n') {
            out.push('\n');
        }
    }
    // Both texts are serde_yaml's own output (and the same with quotes added): trusted.
    #[allow(clippy::disallowed_methods)]
    let read = |text: &str| serde_yaml::from_str::<serde_yaml::Value>(text);
    if out != yaml && read(&out)? != read(yaml)? {
        bail!("quoting the words YAML 1.1 reads as booleans changed the document");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the API server refused: a CRD whose properties `x`, `y` and `n` are required
    /// came to it with `required: [x, true, false]`.
    #[test]
    fn words_yaml_1_1_reads_as_booleans_are_quoted_wherever_they_stand() {
        let value = serde_json::json!({
            "properties": { "n": { "type": "string" }, "on": { "description": "a\nb\non\n" } },
            "required": ["x", "y", "n"],
            "examples": ["one\nn\n", "two\non"],
            "enum": ["no", "off", "fine"],
            "description": "y",
        });
        let yaml = serde_yaml::to_string(&value).unwrap();
        let quoted = quote_yaml11_booleans(&yaml).unwrap();
        for plain in [
            "- y\n",
            "- n\n",
            "  n:\n",
            "  on:\n",
            "- no\n",
            "- off\n",
            "description: y\n",
        ] {
            assert!(
                yaml.contains(plain),
                "serde_yaml now quotes {plain:?}:\n{yaml}"
            );
            assert!(!quoted.contains(plain), "{plain:?} left plain:\n{quoted}");
        }
        // The block scalar's line `on` is text, and stays as it is.
        assert!(quoted.contains("\n      on\n"), "{quoted}");
        assert!(quoted.contains("- fine\n"), "{quoted}");
        let read = |text: &str| read::from_str::<serde_json::Value>(text).unwrap();
        assert_eq!(read(&quoted), value);
    }
}
