//! Reading YAML that may be hostile: PROJECT, kustomizations, manifests, `--from-crd`
//! files, what crdgen prints, the envtest index. Every such text goes through [`events`]
//! (or a function here built on it) before any parser builds a tree of it, so that one
//! rule bounds them all, as `syntax.rs` does for Rust:
//!
//! - **depth**: at most [`MAX_DEPTH`] collections nested in one another. libyaml (behind
//!   serde_yaml) and saphyr keep, for every token, a list as long as the flow nesting, so
//!   a line of 100,000 `[` costs seconds to minutes before serde_yaml's own recursion limit
//!   (128) is reached; trees that deep also overflow recursive walks and drops.
//! - **aliases**: at most [`MAX_ALIAS_NODES`] nodes added by expanding aliases. Eight
//!   levels of nine aliases each (500 bytes) expand to 9^9 nodes: 36 s and 8 GB in `lint`.
//!
//! The check runs on saphyr's event stream, which is built lazily and never recurses: it
//! stops at the first event past a bound, so the cost of a refusal is linear in the bytes
//! read up to there. That is the quick pre-scan, and it is exact: it counts the nesting
//! the parser sees, not brackets in strings or comments. A text that saphyr cannot parse is
//! refused with saphyr's message, so no parser after it ever reads unchecked YAML.
//!
//! clippy.toml forbids the unchecked entry points (`serde_yaml::from_str`, saphyr's
//! `Parser::new_from_str`, ...) outside this module.

use std::collections::HashMap;
use std::fmt;

use anyhow::{Result, anyhow};
use saphyr_parser::{Event, Parser, Span, StrInput};
use serde::de::DeserializeOwned;

/// How deep collections may nest. Kubernetes objects stay far below: a CRD's schema nests
/// two levels per Rust struct, and the deepest CRD of the parity corpus is 30 deep.
/// serde_yaml refuses beyond 128, so nothing it read before is refused now for depth
/// unless it was between 101 and 128 deep.
pub const MAX_DEPTH: usize = 100;

/// How many nodes aliases may add to one file, all documents together. Manifests rarely
/// use aliases at all; a hand-written file that shares a block a few times stays far below.
/// The bound is low because the readers after the check pay far more than it does for an
/// expanded node: 37,000 of them take serde_yaml about a second (a debug build).
pub const MAX_ALIAS_NODES: u64 = 10_000;

/// A text refused: where, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// Line and column, both from 1.
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for Refusal {}

/// The events of `text`, checked: an event past [`MAX_DEPTH`] or an alias past
/// [`MAX_ALIAS_NODES`] is a [`Refusal`], and so is a syntax error; nothing follows one.
pub fn events(text: &str) -> Events<'_> {
    Events {
        // The one place that may open saphyr's parser: it is wrapped in the guard here.
        #[allow(clippy::disallowed_methods)]
        parser: Parser::new_from_str(text),
        guard: Guard::default(),
        failed: false,
    }
}

/// Whether `text` passes [`events`] to its end.
pub fn check(text: &str) -> Result<(), Refusal> {
    events(text).try_for_each(|event| event.map(drop))
}

/// `serde_yaml::from_str`, after [`check`].
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T> {
    check(text)?;
    #[allow(clippy::disallowed_methods)]
    Ok(serde_yaml::from_str(text)?)
}

/// Every document of `text` as a value (an empty one is `Null`), after [`check`]; an
/// error names the document by its number when there are several.
pub fn documents(text: &str) -> Result<Vec<serde_yaml::Value>> {
    use serde::Deserialize;
    check(text)?;
    #[allow(clippy::disallowed_methods)]
    let documents = serde_yaml::Deserializer::from_str(text);
    documents
        .enumerate()
        .map(|(i, document)| {
            serde_yaml::Value::deserialize(document).map_err(|e| anyhow!("document {}: {e}", i + 1))
        })
        .collect()
}

/// `text` as a `yaml_edit` document (comments and layout kept, for editing), after
/// [`check`].
pub fn edit(text: &str) -> Result<yaml_edit::Document> {
    check(text)?;
    text.parse().map_err(|e| anyhow!("{e}"))
}

/// The checked event stream of [`events`].
pub struct Events<'a> {
    parser: Parser<'a, StrInput<'a>>,
    guard: Guard,
    failed: bool,
}

impl<'a> Iterator for Events<'a> {
    type Item = Result<(Event<'a>, Span), Refusal>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let next = match self.parser.next()? {
            Ok((event, span)) => {
                self.guard
                    .admit(&event)
                    .map(|()| (event, span))
                    .map_err(|message| Refusal {
                        line: span.start.line(),
                        column: span.start.col() + 1,
                        message,
                    })
            }
            Err(e) => Err(Refusal {
                line: e.marker().line(),
                column: e.marker().col() + 1,
                // saphyr's scanner reads ahead and has a depth limit of its own, which a
                // line of brackets can reach before the parser hands over the event past
                // ours: the same refusal, in the same words.
                message: match e.info() {
                    "recursion limit exceeded" => too_deep(),
                    info => info.to_string(),
                },
            }),
        };
        self.failed = next.is_err();
        Some(next)
    }
}

fn too_deep() -> String {
    format!(
        "the YAML nests too deep here (more than {MAX_DEPTH} levels of lists and mappings); \
         rsbuilder reads nothing that deep"
    )
}

/// What the bounds need to know of the events so far.
#[derive(Default)]
struct Guard {
    /// The open collections: their anchor (0 for none) and their size so far, in nodes
    /// with aliases expanded.
    open: Vec<(usize, u64)>,
    /// The expanded size of every anchored node.
    sizes: HashMap<usize, u64>,
    /// Nodes added by aliases so far.
    expanded: u64,
}

impl Guard {
    fn admit(&mut self, event: &Event<'_>) -> Result<(), String> {
        match event {
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                if self.open.len() >= MAX_DEPTH {
                    return Err(too_deep());
                }
                self.open.push((*anchor, 1));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((anchor, size)) = self.open.pop() {
                    self.close(anchor, size);
                }
            }
            Event::Scalar(_, _, anchor, _) => self.close(*anchor, 1),
            Event::Alias(id) => {
                // An unknown anchor is the parser's error to report; it counts as one node.
                let size = self.sizes.get(id).copied().unwrap_or(1);
                self.expanded = self.expanded.saturating_add(size);
                if self.expanded > MAX_ALIAS_NODES {
                    return Err(format!(
                        "the YAML's aliases expand to more than {MAX_ALIAS_NODES} nodes by \
                         here (an alias bomb?); write the repeated parts out or share less"
                    ));
                }
                self.close(0, size);
            }
            Event::Nothing
            | Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart(_)
            | Event::DocumentEnd => {}
        }
        Ok(())
    }

    /// A node of `size` nodes is complete: remember it under its anchor, count it in its
    /// parent.
    fn close(&mut self, anchor: usize, size: u64) {
        if anchor != 0 {
            self.sizes.insert(anchor, size);
        }
        if let Some((_, parent)) = self.open.last_mut() {
            *parent = parent.saturating_add(size);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn refusal(text: &str) -> Refusal {
        check(text).expect_err("refused")
    }

    #[test]
    fn ordinary_yaml_passes() {
        check("a: [1, {b: c}]\nd:\n- &x e\n- *x\n---\nf: g\n").unwrap();
        check("").unwrap();
    }

    #[test]
    fn depth_is_bounded_at_the_first_level_beyond() {
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        check(&ok).unwrap();
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        let r = refusal(&deep);
        assert_eq!((r.line, r.column), (1, MAX_DEPTH + 1), "{r}");
        assert!(r.message.contains("deep"), "{r}");
    }

    #[test]
    fn block_nesting_counts_too() {
        let mut text = String::new();
        for level in 0..=MAX_DEPTH {
            text.push_str(&format!("{}k:\n", " ".repeat(level)));
        }
        assert!(refusal(&text).message.contains("deep"));
        assert!(
            refusal(&"- ".repeat(MAX_DEPTH + 1))
                .message
                .contains("deep")
        );
    }

    #[test]
    fn a_very_deep_line_is_refused_quickly() {
        let depth = 1_000_000;
        let text = format!("deep: {}{}\n", "[".repeat(depth), "]".repeat(depth));
        let start = Instant::now();
        let r = refusal(&text);
        assert!(r.message.contains("deep"), "{r}");
        assert!(
            start.elapsed() < Duration::from_secs(1),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn an_alias_bomb_is_refused_at_the_alias_past_the_bound() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
        for level in 1..=8 {
            let items = vec![format!("*a{}", level - 1); 9].join(", ");
            text.push_str(&format!("a{level}: &a{level} [{items}]\n"));
        }
        let start = Instant::now();
        let r = refusal(&text);
        assert!(r.message.contains("alias"), "{r}");
        assert!(start.elapsed() < Duration::from_secs(1));
        // A few aliases of a small block are fine.
        check("base: &b {x: 1, y: [1, 2]}\none: *b\ntwo: *b\n").unwrap();
    }

    #[test]
    fn a_syntax_error_is_a_refusal_and_ends_the_stream() {
        let mut events = events("a: [1, 2\nb: }\n");
        assert!(events.any(|e| e.is_err()));
        assert!(events.next().is_none());
    }

    #[test]
    fn the_serde_readers_refuse_what_check_refuses() {
        let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
        assert!(from_str::<serde_yaml::Value>(&deep).is_err());
        assert!(documents(&deep).is_err());
        assert!(edit(&deep).is_err());
        assert_eq!(
            documents("a: 1\n---\n---\nb: 2\n").unwrap().len(),
            3,
            "an empty document is Null"
        );
    }
}
