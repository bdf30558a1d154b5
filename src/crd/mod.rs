//! `generate crds`: Rust source -> schema -> structural rewrite -> CRD -> YAML.
//!
//! A pure pipeline over in-memory sources (no IO except [`collect_sources`]) and never runs
//! user code:
//!
//! 1. `sources`/`cfg`/`modules`/`model`/`attrs`: parse with syn, strip `#[cfg]` as rustc
//!    would (features from the crate's manifest, `krate`), place files in the module tree,
//!    index modules, read `#[kube]`/`#[serde]`/`#[schemars]`/`#[x_kube]` into typed values;
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
//!
//! Each stage's modules use only earlier stages (and `diagnostics`/`literals`, below them
//! all), so a stage can be read without the ones after it; this file, the entry, is the
//! only one that uses every stage, and no stage uses it.

pub mod assemble;
pub mod attrs;
pub mod builder;
pub mod cfg;
pub mod consts;
pub mod defaults;
pub mod deps;
pub mod diagnostics;
pub mod emit;
pub mod hidden;
pub mod k8s_types;
pub mod krate;
pub mod literals;
pub mod locate;
pub mod model;
pub mod modules;
pub mod name_clashes;
pub mod resolve;
pub mod resource;
pub mod schema;
pub mod sealed;
pub mod sources;
pub mod std_types;
pub mod structural;
pub mod structural_rewrite;
pub mod transforms;
pub mod typeops;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

pub use diagnostics::{Diagnostic, Diagnostics};
pub use krate::Crate;
use sources::parse_sources;
pub use sources::{SourceFile, collect_sources, collect_sources_in};

/// What a run produced: the CRDs, and warnings about what it could not read.
pub struct Generated<T> {
    pub output: T,
    /// Macros from elsewhere and `include!`s of files not given that could hide a custom
    /// resource, files no `mod` declares: each as `file:line:col: warning: ...`.
    pub warnings: Vec<Diagnostic>,
}

/// Generates every CRD found in `sources`: file name (`<group>_<plural>.yaml`) → YAML.
/// Either all files, or every diagnostic of the run. The sources are read as a crate
/// without a manifest (no feature is known to be on); see [`generate_in`].
pub fn generate(sources: &[SourceFile]) -> Result<BTreeMap<String, String>, Diagnostics> {
    generate_in(&Crate::default(), sources).map(|g| g.output)
}

/// [`generate`] for the sources of `krate`.
pub fn generate_in(
    krate: &Crate,
    sources: &[SourceFile],
) -> Result<Generated<BTreeMap<String, String>>, Diagnostics> {
    let crds = crds_in(krate, sources)?;
    let output = emit::render(&crds.output).map_err(|e| {
        Diagnostics(vec![Diagnostic {
            path: PathBuf::new(),
            line: 0,
            column: 0,
            message: format!("{e:#}"),
        }])
    })?;
    Ok(Generated {
        output,
        warnings: crds.warnings,
    })
}

/// The merged CRDs, one per group/kind, sorted by group and kind. Below the children of an
/// embedded Kubernetes type, a schema is a placeholder (see [`sealed`]): [`emit::render`]
/// writes it in full, and [`sealed::expand`] puts it back for code that reads that deep.
pub fn generate_crds(sources: &[SourceFile]) -> Result<Vec<CustomResourceDefinition>, Diagnostics> {
    crds_in(&Crate::default(), sources).map(|g| g.output)
}

/// [`generate_crds`] for the sources of `krate`. The types of kinds the project does not
/// own (under `src/api/external/`) have no CRD of the project's: they are passed over.
pub fn crds_in(
    krate: &Crate,
    sources: &[SourceFile],
) -> Result<Generated<Vec<CustomResourceDefinition>>, Diagnostics> {
    let sources: Vec<&SourceFile> = sources
        .iter()
        .filter(|s| !crate::external::is_external(&s.path))
        .collect();
    let mut diags = Vec::new();
    let base = common_dir(&sources);
    let files = parse_sources(sources.iter().copied(), &mut diags);
    let placed = modules::place(files, &krate.cfg, &base);
    let mut warnings = placed.warnings;
    let mut files = placed.files;
    let mut undecided = placed.undecided;
    let dependencies = deps::load(krate, &mut diags);
    files.extend(dependencies.files);
    undecided.extend(dependencies.undecided);
    warnings.extend(dependencies.warnings);
    let index = model::Index::build(&files, krate, undecided);
    diags.extend(index.refusals.iter().cloned());
    warnings.extend(index.warnings.iter().cloned());
    let hidden = hidden::find(&index, &sources);
    diags.extend(hidden.refusals);
    warnings.extend(hidden.warnings);
    let resources = assemble::find_resources(&index, &mut diags);
    let mut built = Vec::new();
    for r in &resources {
        if let Some(crd) = assemble::crd_for(&index, r, &mut diags) {
            let refusals = structural_refusals(&index, r, &crd);
            if !refusals.is_empty() {
                diags.extend(refusals);
                continue;
            }
            built.push(assemble::Built {
                crd,
                path: index.path_of(r.item.file).to_path_buf(),
                span: r.kube.span,
                storage_span: r.kube.storage_span,
            });
        }
    }
    diags.extend(name_clashes::refusals(&built));
    let crds = assemble::merge(built, &mut diags);
    if diags.is_empty() {
        warnings.sort();
        Ok(Generated {
            output: crds,
            warnings,
        })
    } else {
        Err(Diagnostics(diags).finish())
    }
}

/// The deepest directory containing every source (module paths are taken relative to it
/// when a file is not under a `src/` directory).
fn common_dir(sources: &[&SourceFile]) -> PathBuf {
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

/// The structural-schema violations of one version's CRD, each at the Rust field that makes
/// the offending schema (or at the kind when no field does): kube-derive emits the same
/// schema, and the API server rejects a CRD whose schema is not structural
/// (<https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#specifying-a-structural-schema>).
fn structural_refusals(
    index: &model::Index<'_>,
    r: &resource::Resource<'_>,
    crd: &k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
) -> Vec<Diagnostic> {
    const ROOT: &str = ".schema.openAPIV3Schema";
    structural::check(crd)
        .into_iter()
        .map(|v| {
            let (path, why) = v.split_once(": ").unwrap_or((v.as_str(), ""));
            let schema_path = path.split_once(ROOT).map_or("", |(_, p)| p);
            let field = locate::field_at(index, r, schema_path);
            let (file, span, what) = match &field {
                Some(f) => (f.file, f.span, format!("field `{}`", f.name)),
                None => (r.item.file, r.kube.span, format!("kind `{}`", r.kube.kind)),
            };
            Diagnostic::at(
                index.path_of(file),
                span,
                format!(
                    "{what} makes a schema the API server rejects: {why} at {path} \
                     (kube-derive emits the same; CRD schemas must be structural)"
                ),
            )
        })
        .collect()
}
