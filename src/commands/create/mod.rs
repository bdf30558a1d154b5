//! `rsbuilder create ...`: grow a project by an API (kind, version, controller).

pub mod api;
pub mod builtin;
pub mod source;
pub mod webhook;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::crd::SourceFile;
use crate::scaffold::Change;

/// Every `.rs` file under `root/dir`, with paths relative to `root`, sorted; then `changes`
/// (a resolved plan) laid over them, so generators see the tree as it will be.
pub fn sources_with(root: &Path, dir: &str, changes: &[Change]) -> Result<Vec<SourceFile>> {
    let mut files = std::collections::BTreeMap::new();
    let start = root.join(dir);
    if start.is_dir() {
        let mut stack = vec![start];
        while let Some(d) = stack.pop() {
            let entries =
                std::fs::read_dir(&d).with_context(|| format!("cannot read {}", d.display()))?;
            for entry in entries {
                let path = entry?.path();
                let name = path.file_name().unwrap_or_default().to_string_lossy();
                if name.starts_with('.') {
                    continue;
                }
                if path.is_dir() {
                    stack.push(path);
                } else if name.ends_with(".rs") {
                    let text = std::fs::read_to_string(&path)
                        .with_context(|| format!("cannot read {}", path.display()))?;
                    let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
                    files.insert(rel, text);
                }
            }
        }
    }
    for change in changes {
        if change.path.starts_with(dir) && change.path.extension().is_some_and(|e| e == "rs") {
            files.insert(change.path.clone(), change.new.clone());
        }
    }
    Ok(files
        .into_iter()
        .map(|(path, text): (PathBuf, String)| SourceFile { path, text })
        .collect())
}
