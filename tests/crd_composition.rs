//! Zero wrong on combinations kube-derive was not run on: every spec struct of the parity
//! corpus, cut down to a random subset of its fields in a random order, must give each
//! remaining property exactly the schema the oracle gave it in the full spec, `required`
//! the oracle's required fields that remain, and everything outside the spec unchanged.
//!
//! A struct's properties are built field by field (schemars' `expr_for_struct`), so the
//! oracle's output for the full spec is the oracle for every subset and order: this checks
//! random combinations of the supported constructs against kube-derive without compiling
//! each one (which takes a minute per case). Crate cases (with a Cargo.toml) and `no_spec`
//! kinds are left out: their layout is not one spec struct in one file.
#![allow(clippy::disallowed_methods)] // reads rsbuilder's and the tools' own YAML output

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::sample::Index as Pick;
use quote::ToTokens;
use rsbuilder::crd::{Crate, SourceFile, collect_sources, generate_in};
use serde_yaml::Value;

/// A spec struct of the corpus: its case's sources, the file and the struct's name.
struct Spec {
    sources: Vec<SourceFile>,
    file: usize,
    name: String,
    fields: usize,
    expected: Vec<(String, Value)>,
}

fn specs() -> Vec<Spec> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/crds");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("corpus")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("expected").is_dir() && !p.join("Cargo.toml").is_file())
        .collect();
    cases.sort();
    let mut out = Vec::new();
    for case in cases {
        let sources = collect_sources(&[case.join("src")]).expect("case sources");
        let mut expected: Vec<(String, Value)> = std::fs::read_dir(case.join("expected"))
            .expect("expected dir")
            .map(|e| {
                let p = e.expect("entry").path();
                let text = std::fs::read_to_string(&p).expect("expected file");
                let name = p.file_name().expect("name").to_string_lossy().to_string();
                (name, serde_yaml::from_str(&text).expect("expected YAML"))
            })
            .collect();
        expected.sort_by(|a, b| a.0.cmp(&b.0));
        for (i, src) in sources.iter().enumerate() {
            let file = rsbuilder::syntax::parse_file(&src.text).expect("case parses");
            for item in &file.items {
                let syn::Item::Struct(s) = item else { continue };
                let is_kind = s.attrs.iter().any(|a| {
                    a.path().is_ident("derive")
                        && a.to_token_stream().to_string().contains("CustomResource")
                });
                let no_spec = s.attrs.iter().any(|a| {
                    a.path().is_ident("kube") && a.to_token_stream().to_string().contains("no_spec")
                });
                let syn::Fields::Named(named) = &s.fields else {
                    continue;
                };
                if is_kind && !no_spec && s.generics.params.is_empty() {
                    out.push(Spec {
                        sources: sources.clone(),
                        file: i,
                        name: s.ident.to_string(),
                        fields: named.named.len(),
                        expected: expected.clone(),
                    });
                }
            }
        }
    }
    out
}

/// The sources with the spec struct's fields replaced by `keep` (indices, in that order);
/// flattened fields always stay, their properties are not theirs alone.
fn cut(spec: &Spec, keep: &[usize]) -> Vec<SourceFile> {
    let mut sources = spec.sources.clone();
    let mut file = rsbuilder::syntax::parse_file(&sources[spec.file].text).expect("parses");
    for item in &mut file.items {
        let syn::Item::Struct(s) = item else { continue };
        if s.ident != spec.name {
            continue;
        }
        let syn::Fields::Named(named) = &mut s.fields else {
            continue;
        };
        let all: Vec<syn::Field> = named.named.iter().cloned().collect();
        let flattened = |f: &syn::Field| {
            f.attrs
                .iter()
                .any(|a| a.to_token_stream().to_string().contains("flatten"))
        };
        let mut chosen: Vec<syn::Field> = keep.iter().map(|&i| all[i].clone()).collect();
        for (i, f) in all.iter().enumerate() {
            if flattened(f) && !keep.contains(&i) {
                chosen.push(f.clone());
            }
        }
        named.named = chosen.into_iter().collect();
    }
    sources[spec.file].text = file.to_token_stream().to_string();
    sources
}

fn spec_node(version: &mut Value) -> Option<Value> {
    let props = version
        .get_mut("schema")?
        .get_mut("openAPIV3Schema")?
        .get_mut("properties")?
        .as_mapping_mut()?;
    props.remove("spec")
}

/// Every difference between rsbuilder's CRD and the oracle's full one that a cut spec
/// does not explain.
fn compare(got: &Value, want: &Value) -> Result<(), String> {
    let (mut got, mut want) = (got.clone(), want.clone());
    let versions = |v: &mut Value| -> Vec<Value> {
        v.get_mut("spec")
            .and_then(|s| s.get_mut("versions"))
            .and_then(|v| v.as_sequence_mut())
            .map(|s| {
                s.iter_mut()
                    .map(|v| spec_node(v).unwrap_or(Value::Null))
                    .collect()
            })
            .unwrap_or_default()
    };
    let (got_specs, want_specs) = (versions(&mut got), versions(&mut want));
    if got != want {
        return Err(format!("outside the spec: {got:?}\n!=\n{want:?}"));
    }
    for (g, w) in got_specs.iter().zip(&want_specs) {
        let props = |v: &Value| v.get("properties").and_then(Value::as_mapping).cloned();
        let (gp, wp) = (props(g).unwrap_or_default(), props(w).unwrap_or_default());
        for (k, v) in &gp {
            if wp.get(k) != Some(v) {
                return Err(format!("property {k:?}: {v:?}\n!=\n{:?}", wp.get(k)));
            }
        }
        let required = |v: &Value| -> Vec<String> {
            let mut r: Vec<String> = v
                .get("required")
                .and_then(Value::as_sequence)
                .map(|s| {
                    s.iter()
                        .filter_map(|x| x.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            r.sort();
            r
        };
        let want_required: Vec<String> = required(w)
            .into_iter()
            .filter(|r| gp.contains_key(r.as_str()))
            .collect();
        if required(g) != want_required {
            return Err(format!("required {:?} != {want_required:?}", required(g)));
        }
        // kube's structural rewrite drops `additionalProperties: false` (deny_unknown_fields)
        // only beside properties, so a spec cut to no field keeps it where the full one did not.
        let cut_to_nothing = gp.is_empty() && !wp.is_empty();
        for (k, v) in g.as_mapping().into_iter().flatten() {
            let explained = cut_to_nothing && k == "additionalProperties";
            if k != "properties" && k != "required" && !explained && w.get(k) != Some(v) {
                return Err(format!("spec keyword {k:?}: {v:?} != {:?}", w.get(k)));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_subset_of_a_spec_in_any_order_stays_exact(
        which in any::<Pick>(),
        mask in any::<u64>(),
        order in any::<u64>(),
    ) {
        static SPECS: std::sync::OnceLock<Vec<Spec>> = std::sync::OnceLock::new();
        let all = SPECS.get_or_init(specs);
        prop_assume!(!all.is_empty());
        let spec = &all[which.index(all.len())];
        let mut keep: Vec<usize> = (0..spec.fields).filter(|i| mask >> (i % 64) & 1 == 1).collect();
        // A permutation drawn from `order`.
        let mut seed = order;
        for i in (1..keep.len()).rev() {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            keep.swap(i, (seed >> 33) as usize % (i + 1));
        }
        let sources = cut(spec, &keep);
        let out = generate_in(&Crate::default(), &sources)
            .map_err(|d| TestCaseError::fail(format!("{}: refused a cut spec:\n{d}", spec.name)))?
            .output;
        for (file, want) in &spec.expected {
            let got = out.get(file).ok_or_else(|| TestCaseError::fail(format!("no {file}")))?;
            let got: Value = serde_yaml::from_str(got).expect("rsbuilder YAML");
            compare(&got, want).map_err(|e| {
                TestCaseError::fail(format!("{} keeping fields {keep:?}: {file}: {e}", spec.name))
            })?;
        }
    }
}

/// The property draws from most of the corpus, not from a few cases.
#[test]
fn the_corpus_gives_many_specs() {
    let all = specs();
    let fields: usize = all.iter().map(|s| s.fields).sum();
    assert!(all.len() >= 20, "{} spec structs", all.len());
    assert!(fields >= 150, "{fields} fields");
}
