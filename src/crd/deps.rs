//! The crates a crate depends on by `path` (a workspace's own crates, such as an `api`
//! crate beside the operator): their sources are read and placed under a module root of
//! their own, `::name`, so that `mirrord_config::target::Target` resolves like a path into
//! the crate itself, and `crate::` inside them names their root.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use toml_edit::{Document, Item};

use super::diagnostics::{Diagnostic, Unsupported};
use super::krate::Crate;
use super::modules;
use super::sources::{ParsedFile, collect_sources, parse_sources};

/// Path dependencies read, transitively, before the rest is left alone (a workspace whose
/// crates all depend on each other).
const MAX_CRATES: usize = 32;

/// The module a path dependency's `lib.rs` becomes.
pub fn root(name: &str) -> String {
    format!("::{name}")
}

/// The module `crate::` names from `module`: a dependency's root, or the crate's own.
pub fn crate_root(module: &[String]) -> Vec<String> {
    module
        .first()
        .filter(|m| m.starts_with("::"))
        .cloned()
        .into_iter()
        .collect()
}

/// Whether `module` belongs to a path dependency (whose kinds are not this crate's CRDs).
pub fn is_dependency(module: &[String]) -> bool {
    !crate_root(module).is_empty()
}

/// The sources of the path dependencies of `krate`, placed under their roots.
#[derive(Default)]
pub struct Loaded {
    pub files: Vec<ParsedFile>,
    pub undecided: BTreeMap<Vec<String>, (PathBuf, Unsupported)>,
    pub warnings: Vec<Diagnostic>,
}

/// Reads every path dependency of `krate` (and theirs), each with the features it is
/// used with; files that cannot be read or parsed are reported in `diags`.
pub fn load(krate: &Crate, diags: &mut Vec<Diagnostic>) -> Loaded {
    let mut out = Loaded::default();
    let mut seen = BTreeSet::new();
    let mut todo: Vec<_> = krate.path_deps.clone();
    while let Some(dep) = todo.pop() {
        let Some(manifest) = dep.manifest.clone() else {
            continue;
        };
        if seen.len() >= MAX_CRATES || !seen.insert(dep.name.clone()) {
            continue;
        }
        let dep_crate = match Crate::read_dependency(&dep, &manifest) {
            Ok(c) => c,
            Err(e) => {
                // The error names the manifest.
                diags.push(Diagnostic::file(Path::new("dependency"), format!("{e:#}")));
                continue;
            }
        };
        let lib = lib_path(&manifest);
        let Some(src) = lib.parent() else {
            continue;
        };
        let sources = match collect_sources(&[src.to_path_buf()]) {
            Ok(s) => s,
            Err(e) => {
                diags.push(Diagnostic::file(&manifest, format!("{e:#}")));
                continue;
            }
        };
        let files = parse_sources(&sources, diags);
        let placed = modules::place(files, &dep_crate.cfg, src);
        let under = |module: &[String]| [&[root(&dep.name)][..], module].concat();
        for mut f in placed.files {
            f.module = under(&f.module);
            out.files.push(f);
        }
        for (module, u) in placed.undecided {
            out.undecided.insert(under(&module), u);
        }
        out.warnings.extend(placed.warnings);
        todo.extend(dep_crate.path_deps);
    }
    out
}

/// The library's root file: `[lib] path`, or `src/lib.rs` beside the manifest.
fn lib_path(manifest: &Path) -> PathBuf {
    let dir = manifest.parent().unwrap_or(Path::new(""));
    let declared = std::fs::read_to_string(manifest).ok().and_then(|text| {
        let doc = Document::parse(text.as_str()).ok()?;
        let path = doc.get("lib")?.get("path").and_then(Item::as_str)?;
        Some(dir.join(path))
    });
    declared.unwrap_or_else(|| dir.join("src/lib.rs"))
}
