//! Scaffold markers: `// +rsbuilder:scaffold:<name>` or `# +rsbuilder:scaffold:<name>`.
//! A fragment goes right above its marker, indented like it, and only once. This is the
//! reading of markers as lines of text, for YAML and Makefiles; Rust files are read as
//! Rust ([`rust_markers`](super::rust_markers)).

use anyhow::{Result, bail};

pub(super) const PREFIX: &str = "+rsbuilder:scaffold:";

/// Inserts `fragment` above the line holding marker `name`, unless the file already
/// contains it. Returns the new text, or `None` when the fragment was already present.
pub fn insert_before_marker(text: &str, name: &str, fragment: &str) -> Result<Option<String>> {
    let Some(line_start) = find_marker(text, name) else {
        bail!(
            "scaffold marker `{PREFIX}{name}` not found; restore that comment line so rsbuilder can register code there"
        );
    };
    let line = &text[line_start..];
    let indented = indented(fragment, indentation(line));
    if text.contains(indented.trim_end()) {
        return Ok(None);
    }
    Ok(Some(format!("{}{indented}{}", &text[..line_start], line)))
}

/// The spaces and tabs `line` starts with.
pub(super) fn indentation(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// `fragment`, each line indented by `indent` (blank lines left blank), ending in a newline.
pub(super) fn indented(fragment: &str, indent: &str) -> String {
    fragment
        .lines()
        .map(|l| {
            if l.is_empty() {
                "\n".to_string()
            } else {
                format!("{indent}{l}\n")
            }
        })
        .collect()
}

/// Whether `text` has the marker `name`.
pub fn has_marker(text: &str, name: &str) -> bool {
    find_marker(text, name).is_some()
}

/// Byte offset of the start of the line that carries the marker.
fn find_marker(text: &str, name: &str) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim();
        let comment = body.strip_prefix("//").or_else(|| body.strip_prefix('#'));
        if comment.is_some_and(|c| c.trim() == format!("{PREFIX}{name}")) {
            return Some(offset);
        }
        offset += line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_above_marker_with_its_indentation() {
        let text = "mod a {\n    // +rsbuilder:scaffold:mods\n}\n";
        let out = insert_before_marker(text, "mods", "pub mod b;")
            .unwrap()
            .unwrap();
        assert_eq!(
            out,
            "mod a {\n    pub mod b;\n    // +rsbuilder:scaffold:mods\n}\n"
        );
    }

    #[test]
    fn second_insertion_is_a_no_op() {
        let text = "resources:\n- a.yaml\n# +rsbuilder:scaffold:crd\n";
        let once = insert_before_marker(text, "crd", "- b.yaml")
            .unwrap()
            .unwrap();
        assert_eq!(
            once,
            "resources:\n- a.yaml\n- b.yaml\n# +rsbuilder:scaffold:crd\n"
        );
        assert_eq!(
            insert_before_marker(&once, "crd", "- b.yaml").unwrap(),
            None
        );
    }

    #[test]
    fn marker_names_must_match_exactly() {
        let text = "// +rsbuilder:scaffold:modules\n";
        assert!(insert_before_marker(text, "mod", "x").is_err());
    }

    #[test]
    fn multi_line_fragments_keep_blank_lines_unindented() {
        let text = "  # +rsbuilder:scaffold:x\n";
        let out = insert_before_marker(text, "x", "a:\n\n  b")
            .unwrap()
            .unwrap();
        assert_eq!(out, "  a:\n\n    b\n  # +rsbuilder:scaffold:x\n");
    }
}
