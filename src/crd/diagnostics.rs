//! Positioned diagnostics, collected over a whole run (controller-tools style) instead of
//! stopping at the first problem.

use std::fmt;
use std::path::{Path, PathBuf};

use proc_macro2::Span;

/// One problem found in the sources, with the place it was found.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Diagnostic {
    pub path: PathBuf,
    /// 1-based line; 0 when the problem has no single place (e.g. two storage versions).
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    pub message: String,
}

impl Diagnostic {
    pub fn at(path: &Path, span: Span, message: impl Into<String>) -> Self {
        let start = span.start();
        Self {
            path: path.to_path_buf(),
            line: start.line,
            column: start.column + 1,
            message: message.into(),
        }
    }

    /// A problem with a whole file (a manifest that cannot be read).
    pub fn file(path: &Path, message: impl Into<String>) -> Self {
        Self {
            path: path.to_path_buf(),
            line: 0,
            column: 0,
            message: message.into(),
        }
    }

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

impl std::error::Error for Diagnostic {}

/// `e`, about the contents of `path`: a [`Diagnostic`] gets the path (`path:line:col: ...`),
/// any other error is prefixed with it.
pub fn in_file(path: impl AsRef<Path>, e: anyhow::Error) -> anyhow::Error {
    let path = path.as_ref();
    match e.downcast::<Diagnostic>() {
        Ok(d) => anyhow::Error::new(Diagnostic {
            path: path.to_path_buf(),
            ..d
        }),
        Err(e) => anyhow::anyhow!("{}: {e}", path.display()),
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.path.display(), self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.path.display(),
                self.line,
                self.column,
                self.message
            )
        }
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
