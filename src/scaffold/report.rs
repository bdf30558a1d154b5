//! What the user sees: the list of written files, or under `--dry-run` the plan with
//! unified diffs. Colour only on a terminal and never under NO_COLOR.

use std::io::IsTerminal;

use similar::{ChangeTag, TextDiff};

use super::Change;

#[derive(Debug, Clone, Copy)]
pub struct Output {
    pub quiet: bool,
    pub verbose: bool,
    pub colour: bool,
}

impl Output {
    pub fn detect(quiet: bool, verbose: bool) -> Self {
        let colour = std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal();
        Self {
            quiet,
            verbose,
            colour,
        }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// A line of progress, silenced by `-q`.
    pub fn say(&self, line: &str) {
        if !self.quiet {
            crate::outln!("{line}");
        }
    }
}

/// Prints one line per changed file; with `dry_run`, also the unified diff of each.
pub fn print_changes(out: &Output, changes: &[Change], dry_run: bool) {
    if changes.is_empty() {
        out.say("nothing to do: every file is already up to date");
        return;
    }
    for change in changes {
        let (verb, code) = match (&change.old, &change.new) {
            (None, _) => ("create", "32"),
            (Some(_), Some(_)) => ("update", "33"),
            (Some(_), None) => ("remove", "31"),
        };
        let verb = if dry_run {
            format!("would {verb}")
        } else {
            verb.to_string()
        };
        if !out.quiet || dry_run {
            crate::outln!("{} {}", out.paint(code, &verb), change.path.display());
        }
        if dry_run {
            crate::out!("{}", unified_diff(out, change));
        }
    }
}

fn unified_diff(out: &Output, change: &Change) -> String {
    let old = change.old.as_deref().unwrap_or("");
    let path = change.path.display().to_string();
    let from = if change.old.is_some() {
        format!("a/{path}")
    } else {
        "/dev/null".into()
    };
    let (new, to) = match &change.new {
        Some(new) => (new.as_str(), format!("b/{path}")),
        None => ("", "/dev/null".into()),
    };
    let diff = TextDiff::from_lines(old, new);
    let mut text = format!("--- {from}\n+++ {to}\n");
    for hunk in diff.unified_diff().iter_hunks() {
        text.push_str(&out.paint("36", &hunk.header().to_string()));
        text.push('\n');
        for op in hunk.iter_changes() {
            let (sign, code) = match op.tag() {
                ChangeTag::Delete => ("-", "31"),
                ChangeTag::Insert => ("+", "32"),
                ChangeTag::Equal => (" ", ""),
            };
            let body = op.value().strip_suffix('\n').unwrap_or(op.value());
            let line = format!("{sign}{body}");
            text.push_str(&if code.is_empty() {
                line
            } else {
                out.paint(code, &line)
            });
            text.push('\n');
            if op.missing_newline() {
                text.push_str("\\ No newline at end of file\n");
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: Output = Output {
        quiet: false,
        verbose: false,
        colour: false,
    };

    #[test]
    fn diffs_are_unified_and_plain_without_colour() {
        let change = Change {
            path: "a.txt".into(),
            old: Some("one\ntwo\n".into()),
            new: Some("one\nthree\n".into()),
        };
        assert_eq!(
            unified_diff(&PLAIN, &change),
            "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n"
        );
    }

    #[test]
    fn new_files_diff_against_dev_null() {
        let change = Change {
            path: "n.txt".into(),
            old: None,
            new: Some("x".into()),
        };
        assert_eq!(
            unified_diff(&PLAIN, &change),
            "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n"
        );
    }

    #[test]
    fn colour_wraps_whole_lines_only() {
        let out = Output {
            colour: true,
            ..PLAIN
        };
        let change = Change {
            path: "a".into(),
            old: Some("x\n".into()),
            new: Some("y\n".into()),
        };
        let diff = unified_diff(&out, &change);
        assert!(
            diff.contains("\x1b[31m-x\x1b[0m\n\x1b[32m+y\x1b[0m\n"),
            "{diff:?}"
        );
    }
}
