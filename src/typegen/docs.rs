//! A schema's `description` as doc comment lines that rustdoc and clippy accept as they
//! are: CRD descriptions are Markdown written for `kubectl explain`, and a generated file
//! must pass `cargo test` (where rustdoc compiles code blocks as doctests) and
//! `cargo clippy -- -D warnings` (which denies lazy list continuations) without edits.

/// The lines of `///` comments for `description` (without the `///`).
///
/// - Lines lose their indentation, so that nothing becomes an indented code block (which
///   rustdoc would compile) or an over-indented list item; fenced code blocks keep theirs,
///   and are marked `text` so that rustdoc does not compile them.
/// - A line after a list item or quote, which Markdown would lazily continue it with,
///   starts a paragraph of its own instead.
/// - Characters a comment may not hold (controls, bidirectional overrides, which rustc
///   rejects) are dropped; tabs become spaces; runs of blank lines become one.
pub fn lines(description: Option<&str>) -> Vec<String> {
    let Some(text) = description else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    let mut fence: Option<String> = None;
    let mut after_item = false;
    for raw in text.lines() {
        let line = clean(raw);
        let trimmed = line.trim();
        if let Some(marker) = &fence {
            if trimmed.starts_with(marker.as_str()) {
                out.push(marker.clone());
                fence = None;
            } else {
                out.push(line.trim_end().to_string());
            }
            continue;
        }
        if let Some(marker) = fence_marker(trimmed) {
            if after_item {
                out.push(String::new());
            }
            out.push(format!("{marker}text"));
            fence = Some(marker);
            after_item = false;
            continue;
        }
        if trimmed.is_empty() {
            if out.last().is_some_and(|l| !l.is_empty()) {
                out.push(String::new());
            }
            after_item = false;
            continue;
        }
        let item = starts_item(trimmed);
        if after_item && !item {
            out.push(String::new());
        }
        out.push(trimmed.to_string());
        after_item = item;
    }
    if let Some(marker) = fence {
        out.push(marker);
    }
    while out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out
}

/// The line without what a comment may not hold, tabs as spaces.
fn clean(line: &str) -> String {
    line.chars()
        .filter_map(|c| match c {
            '\t' => Some(' '),
            '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{2028}' | '\u{2029}' => None,
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => None,
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect()
}

/// "```" or "~~~" (as long as the line has them) when `line` opens a fenced code block.
fn fence_marker(line: &str) -> Option<String> {
    ['`', '~'].into_iter().find_map(|c| {
        let n = line.chars().take_while(|x| *x == c).count();
        (n >= 3).then(|| c.to_string().repeat(n))
    })
}

/// A list item (`- `, `* `, `+ `, `1. `, `1) `) or a block quote (`>`): Markdown continues
/// it with the next line unless a blank line separates them.
fn starts_item(line: &str) -> bool {
    if line.starts_with('>') {
        return true;
    }
    if let Some(rest) = line.strip_prefix(['-', '*', '+']) {
        return rest.is_empty() || rest.starts_with(' ');
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    digits > 0
        && digits < 10
        && line[digits..]
            .strip_prefix(['.', ')'])
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(description: &str, expected: &[&str]) {
        assert_eq!(lines(Some(description)), expected, "{description:?}");
    }

    #[test]
    fn plain_text_keeps_its_lines() {
        check("One line.", &["One line."]);
        check("First.\nSecond.", &["First.", "Second."]);
        check("\n\nA.\n\n\n\nB.\n\n", &["A.", "", "B."]);
        assert!(lines(None).is_empty());
    }

    #[test]
    fn indentation_never_makes_a_code_block() {
        check(
            "Example:\n\n    kubectl get certificates\n",
            &["Example:", "", "kubectl get certificates"],
        );
    }

    #[test]
    fn lists_are_not_continued_lazily() {
        check(
            "Values:\n- a\n- b\nthe rest.",
            &["Values:", "- a", "- b", "", "the rest."],
        );
        check("1. one\n  more\n2) two", &["1. one", "", "more", "2) two"]);
        check("> quoted\nnext", &["> quoted", "", "next"]);
        check("-1 means none", &["-1 means none"]);
    }

    #[test]
    fn fences_are_text_and_keep_their_indentation() {
        check(
            "For example:\n```yaml\nspec:\n  secretName: x\n```\nDone.",
            &[
                "For example:",
                "```text",
                "spec:",
                "  secretName: x",
                "```",
                "Done.",
            ],
        );
        check("```\nunclosed", &["```text", "unclosed", "```"]);
    }

    #[test]
    fn characters_comments_cannot_hold_are_dropped() {
        check("a\tb\u{202E}c\u{7}d\r", &["a bcd"]);
    }
}
