//! The crate's source files: read from disk (the only IO of `generate crds`) and parsed,
//! before `modules` places them in the module tree. Every later stage works on these.

use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow};

use super::diagnostics::Diagnostic;

/// One Rust source file: its path (used for diagnostics and to derive its module path)
/// and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    pub path: PathBuf,
    pub text: String,
}

/// A parsed source file.
pub struct ParsedFile {
    pub path: PathBuf,
    pub ast: syn::File,
    /// The module path of the file inside its crate (`src/api/v1.rs` → `["api", "v1"]`).
    pub module: Vec<String>,
}

/// Reads every `.rs` file under `paths` (files or directories, recursively), sorted by path.
pub fn collect_sources(paths: &[PathBuf]) -> Result<Vec<SourceFile>> {
    collect_sources_in(Path::new(""), paths)
}

/// [`collect_sources`] for `paths` relative to `root`; the returned paths (and those in
/// errors) stay relative, so they read like the command line whatever `-C` said.
pub fn collect_sources_in(root: &Path, paths: &[PathBuf]) -> Result<Vec<SourceFile>> {
    let mut found = Vec::new();
    for p in paths {
        walk(root, p, &mut found)?;
    }
    found.sort();
    found.dedup();
    found
        .into_iter()
        .map(|path| {
            let text = read_source(&root.join(&path), &path)?;
            Ok(SourceFile { path, text })
        })
        .collect()
}

/// A source file's text; the error names the file as `shown` and the cause.
fn read_source(path: &Path, shown: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => anyhow!(
            "{} is not UTF-8 text; rsbuilder reads Rust sources as UTF-8",
            shown.display()
        ),
        _ => anyhow!("cannot read {}: {e}", shown.display()),
    })
}

/// Collects the `.rs` files at or under `root/rel`, as paths relative to `root`.
fn walk(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let cannot_read = |e: std::io::Error| anyhow!("cannot read {}: {e}", rel.display());
    let full = root.join(rel);
    let meta = std::fs::metadata(&full).map_err(cannot_read)?;
    if meta.is_file() {
        if rel.extension().is_some_and(|e| e == "rs") {
            out.push(rel.to_path_buf());
        }
        return Ok(());
    }
    for entry in std::fs::read_dir(&full).map_err(cannot_read)? {
        let name = entry.map_err(cannot_read)?.file_name();
        // Hidden directories, and cargo's build directory (which it marks with a
        // CACHEDIR.TAG), hold no sources; a group may well be called `target`.
        if name.to_string_lossy().starts_with('.')
            || full.join(&name).join("CACHEDIR.TAG").is_file()
        {
            continue;
        }
        walk(root, &rel.join(name), out)?;
    }
    Ok(())
}

/// The sources that parse, each not yet placed in a module; one diagnostic per other file.
pub(super) fn parse_sources<'a>(
    sources: impl IntoIterator<Item = &'a SourceFile>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<ParsedFile> {
    let mut files = Vec::new();
    for src in sources {
        match crate::syntax::parse_file_raw_docs(&src.text) {
            Ok(ast) => files.push(ParsedFile {
                module: Vec::new(),
                path: src.path.clone(),
                ast,
            }),
            Err(e) => diags.push(Diagnostic::at(
                &src.path,
                e.span(),
                format!("cannot parse Rust: {e}"),
            )),
        }
    }
    files
}
