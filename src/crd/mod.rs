//! `generate crds`: Rust source -> schema -> structural rewrite -> CRD -> YAML.
//!
//! A pure pipeline over in-memory sources (no IO except [`collect_sources`]) and never runs
//! user code:
//!
//! 1. `model`/`attrs`: parse with syn, index modules, read `#[kube]`/`#[serde]`/`#[schemars]`/
//!    `#[x_kube]` into typed values;
//! 2. `resolve` + `schema` (+ `defaults`, `typeops`, `k8s_types`): build the schema schemars'
//!    derive would build before transforms, asking a real `SchemaGenerator` for std and
//!    k8s-openapi types;
//! 3. `transforms`: run kube-derive's exact transform list;
//! 4. `assemble`: build each version's CRD like `Kind::crd()` and merge versions like
//!    `merge_crds`;
//! 5. `structural`: Kubernetes' structural-schema rules;
//! 6. `emit`: deterministic YAML.
//!
//! Whatever cannot be reproduced exactly is reported (all at once) instead of guessed.

pub mod assemble;
pub mod attrs;
pub mod defaults;
pub mod diagnostics;
pub mod emit;
pub mod k8s_types;
pub mod model;
pub mod resolve;
pub mod schema;
pub mod structural;
pub mod transforms;
pub mod typeops;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

pub use diagnostics::{Diagnostic, Diagnostics};

/// One Rust source file: its path (used for diagnostics and to derive its module path)
/// and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    pub path: PathBuf,
    pub text: String,
}

/// Generates every CRD found in `sources`: file name (`<group>_<plural>.yaml`) → YAML.
/// Either all files, or every diagnostic of the run.
pub fn generate(sources: &[SourceFile]) -> Result<BTreeMap<String, String>, Diagnostics> {
    let crds = generate_crds(sources)?;
    emit::render(&crds).map_err(|e| {
        Diagnostics(vec![Diagnostic {
            path: PathBuf::new(),
            line: 0,
            column: 0,
            message: format!("{e:#}"),
        }])
    })
}

/// The merged CRDs, one per group/kind, sorted by group and kind.
pub fn generate_crds(sources: &[SourceFile]) -> Result<Vec<CustomResourceDefinition>, Diagnostics> {
    let mut diags = Vec::new();
    let base = common_dir(sources);
    let mut files = Vec::new();
    for src in sources {
        match crate::syntax::parse_file(&src.text) {
            Ok(ast) => files.push(model::ParsedFile {
                module: model::module_path_for(&src.path, &base),
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
    let index = model::Index::build(&files);
    let resources = assemble::find_resources(&index, &mut diags);
    let mut built = Vec::new();
    for r in &resources {
        if let Some(crd) = assemble::crd_for(&index, r, &mut diags) {
            built.push(assemble::Built {
                crd,
                path: index.path_of(r.item.file).to_path_buf(),
                span: r.kube.span,
                storage_span: r.kube.storage_span,
            });
        }
    }
    let crds = assemble::merge(built, &mut diags);
    for crd in &crds {
        for v in structural::check(crd) {
            diags.push(Diagnostic {
                path: PathBuf::from(emit::file_name(crd)),
                line: 0,
                column: 0,
                message: format!("not a structural schema: {v}"),
            });
        }
    }
    if diags.is_empty() {
        Ok(crds)
    } else {
        Err(Diagnostics(diags).finish())
    }
}

/// Reads every `.rs` file under `paths` (files or directories, recursively), sorted by path.
pub fn collect_sources(paths: &[PathBuf]) -> Result<Vec<SourceFile>> {
    let mut found = Vec::new();
    for p in paths {
        walk(p, &mut found)
            .with_context(|| format!("reading Rust sources under {}", p.display()))?;
    }
    found.sort();
    found.dedup();
    found
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            Ok(SourceFile { path, text })
        })
        .collect()
}

/// [`collect_sources`] for `paths` relative to `root`; the returned paths stay relative,
/// so diagnostics read like the command line whatever `-C` said.
pub fn collect_sources_in(root: &Path, paths: &[PathBuf]) -> Result<Vec<SourceFile>> {
    let absolute: Vec<PathBuf> = paths.iter().map(|p| root.join(p)).collect();
    Ok(collect_sources(&absolute)?
        .into_iter()
        .map(|s| SourceFile {
            path: s
                .path
                .strip_prefix(root)
                .map(PathBuf::from)
                .unwrap_or(s.path),
            text: s.text,
        })
        .collect())
}

fn walk(p: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let meta = std::fs::metadata(p).with_context(|| format!("{} does not exist", p.display()))?;
    if meta.is_file() {
        if p.extension().is_some_and(|e| e == "rs") {
            out.push(p.to_path_buf());
        }
        return Ok(());
    }
    for entry in std::fs::read_dir(p)? {
        let path = entry?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        walk(&path, out)?;
    }
    Ok(())
}

/// The deepest directory containing every source (module paths are taken relative to it
/// when a file is not under a `src/` directory).
fn common_dir(sources: &[SourceFile]) -> PathBuf {
    let mut iter = sources
        .iter()
        .map(|s| s.path.parent().unwrap_or(Path::new("")).to_path_buf());
    let Some(mut common) = iter.next() else {
        return PathBuf::new();
    };
    for p in iter {
        while !p.starts_with(&common) {
            if !common.pop() {
                return PathBuf::new();
            }
        }
    }
    common
}
