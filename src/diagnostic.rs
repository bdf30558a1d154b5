//! A problem at a place in a file (`path:line:col: message`), the way rsbuilder reports
//! what it finds in Rust sources: `generate crds`, the scaffolders' reading of the user's
//! files and the `create`/`edit` commands all point at the line that made it.

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
