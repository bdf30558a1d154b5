//! Positioned diagnostics, collected over a whole run (controller-tools style) instead of
//! stopping at the first problem, and [`Unsupported`], a refusal every stage makes before
//! it knows the file. The [`Diagnostic`] itself is `crate::diagnostic`'s: the scaffolders
//! report with it too.

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

/// An attribute item (or a `#[cfg]`, a type, an expression) that static generation does not
/// reproduce.
#[derive(Debug, Clone)]
pub struct Unsupported {
    pub what: String,
    pub why: String,
    pub span: Span,
}

impl Unsupported {
    pub fn new(span: Span, what: impl Into<String>, why: impl Into<String>) -> Self {
        Self {
            what: what.into(),
            why: why.into(),
            span,
        }
    }
}

/// Where a refusal points: the span of any syntax.
pub fn span_of<T: quote::ToTokens>(t: &T) -> Span {
    syn::spanned::Spanned::span(t)
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
