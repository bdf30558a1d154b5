//! `generate crds` writes its YAML without libyaml (`rsbuilder::yaml::write`); the text must
//! be serde_yaml's with YAML 1.1's booleans quoted (`quote_yaml11_booleans`), byte for
//! byte. Checked on every CRD kube-derive wrote for the parity corpus
//! (`testdata/crds/**/expected`), on the CRDs of the benchmarks' sources (the Pooler's
//! 437 KB among them, sealed Kubernetes schemas left as placeholders and put back) and on
//! the golden projects' CRDs.
#![allow(clippy::disallowed_methods)] // reads the corpus' own YAML

mod common;

use std::path::{Path, PathBuf};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use rsbuilder::crd::{collect_sources, generate_crds, sealed};
use rsbuilder::yaml::write;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The CRDs of `dir`'s YAML files, read back as CustomResourceDefinitions.
fn crds_in(dir: &Path) -> Vec<(String, CustomResourceDefinition)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "yaml") {
            let text = std::fs::read_to_string(&path).expect("read");
            for value in common::documents(&text) {
                if value["kind"] == "CustomResourceDefinition" {
                    let crd = serde_yaml::from_value(value).expect("a CRD");
                    out.push((path.display().to_string(), crd));
                }
            }
        }
    }
    out
}

/// Panics unless `crd` is written as serde_yaml writes it, or left to serde_yaml (`Err`).
fn check(what: &str, crd: &CustomResourceDefinition) -> Result<(), write::Unsupported> {
    let want =
        rsbuilder::yaml::quote_yaml11_booleans(&serde_yaml::to_string(crd).expect("serde_yaml"))
            .expect("quoted");
    let got = write::to_string(crd)?;
    if got != want {
        let diff = similar::TextDiff::from_lines(want.as_str(), got.as_str())
            .unified_diff()
            .header("serde_yaml", "yaml::write")
            .to_string();
        panic!("{what} is written differently:\n{diff}");
    }
    Ok(())
}

fn assert_written_as_serde_yaml_writes(what: &str, crd: &CustomResourceDefinition) {
    check(what, crd).unwrap_or_else(|e| panic!("{what}: {e}"));
}

#[test]
fn kube_derive_s_crds_are_written_as_serde_yaml_writes_them() {
    let mut dirs: Vec<PathBuf> = common::crd_cases::cases()
        .into_iter()
        .chain(common::crd_cases::refused_cases())
        .map(|c| c.join("expected"))
        .collect();
    for golden in std::fs::read_dir(root().join("testdata")).expect("testdata") {
        dirs.push(golden.expect("entry").path().join("config/crd/bases"));
    }
    let mut written = 0;
    for dir in dirs {
        for (path, crd) in crds_in(&dir) {
            match check(&path, &crd) {
                Ok(()) => written += 1,
                // Only a key serde_yaml quotes (a pattern of `patternProperties`) is left.
                Err(e) => assert!(e.to_string().contains(": the key "), "{path}: {e}"),
            }
        }
    }
    assert!(written >= 40, "only {written} CRDs written");
}

#[test]
fn the_benchmarks_crds_are_written_as_serde_yaml_writes_them() {
    for case in ["one-kind", "pod-template", "big", "pooler"] {
        let src = root().join("bench/crds").join(case).join("src");
        let sources = collect_sources(&[src]).expect("sources");
        let crds = generate_crds(&sources).unwrap_or_else(|d| panic!("{case}: {d}"));
        assert!(!crds.is_empty(), "{case}");
        for mut crd in crds {
            // With the placeholders of sealed schemas, as `generate crds` writes it...
            assert_written_as_serde_yaml_writes(case, &crd);
            // ...and with the Kubernetes schemas in full.
            sealed::expand(&mut crd);
            assert_written_as_serde_yaml_writes(case, &crd);
        }
    }
}
