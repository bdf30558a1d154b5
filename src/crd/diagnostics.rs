//! Positioned diagnostics, collected over a whole run (controller-tools style) instead of
//! stopping at the first problem. The [`Diagnostic`] itself is `crate::diagnostic`'s: the
//! scaffolders report with it too.

use std::fmt;
use std::path::Path;

use proc_macro2::Span;

pub use crate::diagnostic::{Diagnostic, in_file};

// Inherent, but here: the refusal names `generate crds`' own way out (`--exact`).
impl Diagnostic {
    /// The standard refusal: static generation cannot be exact here.
    pub fn not_static(
        path: &Path,
        span: Span,
        what: impl fmt::Display,
        why: impl fmt::Display,
    ) -> Self {
        Self::at(
            path,
            span,
            format!("{what} cannot be generated statically: {why}; use --exact"),
        )
    }
}

/// Every diagnostic of a run, sorted by place so the report is stable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }

    pub(crate) fn finish(mut self) -> Self {
        self.0.sort();
        self.0.dedup();
        self
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}
