//! The CRD parity corpus, `testdata/crds/<case>/`: each case's Rust sources, what
//! rsbuilder generates from them, and what kube-derive did (`expected/`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rsbuilder::crd::{Crate, collect_sources, generate_in};

pub fn cases() -> Vec<PathBuf> {
    cases_in("testdata/crds")
}

/// The shapes `generate crds` refuses because kube-derive or the API server would:
/// `testdata/crds/refused/<shape>/`, with what kube-derive made of them in `expected/`.
pub fn refused_cases() -> Vec<PathBuf> {
    cases_in("testdata/crds/refused")
}

fn cases_in(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.join("src").is_dir() && p.join("expected").is_dir() && !p.ends_with("oracle"))
        .collect();
    cases.sort();
    cases
}

pub fn expected(case: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(case.join("expected")).expect("expected dir") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .to_string();
        out.insert(name, std::fs::read_to_string(&path).expect("read expected"));
    }
    out
}

/// The features the oracle's Cargo.toml enables on a crate case (its `--features`).
fn oracle_features(case: &Path) -> Vec<String> {
    let oracle = case
        .parent()
        .expect("testdata/crds")
        .join("oracle/Cargo.toml");
    let text = std::fs::read_to_string(oracle).expect("oracle manifest");
    let doc = toml_edit::Document::parse(text.as_str()).expect("oracle manifest parses");
    let name = format!(
        "crd-case-{}",
        case.file_name().unwrap_or_default().to_string_lossy()
    );
    let dep = doc.as_table()["dependencies"]
        .get(&name)
        .unwrap_or_else(|| {
            panic!(
                "{} has a Cargo.toml but the oracle does not depend on {name}",
                case.display()
            )
        });
    dep.get("features")
        .and_then(|f| f.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The crate a case's sources belong to: its own manifest, or none.
fn krate(case: &Path) -> Result<Crate, String> {
    let manifest = case.join("Cargo.toml");
    if !manifest.is_file() {
        return Ok(Crate::default());
    }
    Crate::read(&manifest, &oracle_features(case)).map_err(|e| format!("{e:#}"))
}

/// The CRDs rsbuilder generates from a case's sources, by file name; the diagnostics when
/// it refuses.
pub fn generate(case: &Path) -> Result<BTreeMap<String, String>, String> {
    let sources = collect_sources(&[case.join("src")]).map_err(|e| format!("{e:#}"))?;
    let krate = krate(case)?;
    generate_in(&krate, &sources)
        .map(|g| g.output)
        .map_err(|d| format!("diagnostics:\n{d}"))
}
