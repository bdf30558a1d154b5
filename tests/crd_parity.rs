//! CRD parity: for every case in `testdata/crds/<case>/`, rsbuilder's static output must
//! equal (as data) the YAML that kube-derive produced for the same sources
//! (`testdata/crds/<case>/expected/`, written only by the oracle:
//! `cargo run --manifest-path testdata/crds/oracle/Cargo.toml`), and be byte-stable.
//!
//! A case with a `Cargo.toml` is a crate of its own: rsbuilder reads it as `generate crds`
//! reads a project's manifest, with the `--features` the oracle's Cargo.toml enables on it.
#![allow(clippy::disallowed_methods)] // reads rsbuilder's and the tools' own YAML output

mod common;

use std::path::{Path, PathBuf};

use common::crd_cases::{cases, expected, generate};

fn check(case: &Path) -> Result<(), String> {
    let got = generate(case)?;
    let again = generate(case).map_err(|d| format!("second run: {d}"))?;
    if got != again {
        return Err("output is not byte-stable between runs".into());
    }
    let want = expected(case);
    let (got_names, want_names): (Vec<_>, Vec<_>) = (got.keys().collect(), want.keys().collect());
    if got_names != want_names {
        return Err(format!(
            "files differ: got {got_names:?}, expected {want_names:?}"
        ));
    }
    for (name, text) in &got {
        let g: serde_yaml::Value = serde_yaml::from_str(text).map_err(|e| e.to_string())?;
        let w: serde_yaml::Value = serde_yaml::from_str(&want[name]).map_err(|e| e.to_string())?;
        if g != w {
            let diff = similar::TextDiff::from_lines(want[name].as_str(), text.as_str())
                .unified_diff()
                .header("expected (kube-derive)", "rsbuilder")
                .to_string();
            return Err(format!("{name} differs:\n{diff}"));
        }
    }
    Ok(())
}

#[test]
fn static_output_equals_kube_derive() {
    let cases = cases();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| {
            check(c).err().map(|e| {
                format!(
                    "== case {}: {e}",
                    c.file_name().unwrap_or_default().to_string_lossy()
                )
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(
        cases.len() >= 15,
        "expected at least 15 parity cases, found {}",
        cases.len()
    );
}

/// The expected files must still be what kube-derive produces: the oracle rebuilds them
/// from the case sources and fails on any difference.
#[test]
#[ignore = "slow: compiles kube-derive; run with `cargo test -- --include-ignored`"]
fn expected_files_are_what_kube_derive_produces() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = std::env::var_os("RSBUILDER_SAMPLES_TARGET")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/sample-projects/target"));
    let out = std::process::Command::new("cargo")
        .args([
            "run",
            "--quiet",
            "--manifest-path",
            "testdata/crds/oracle/Cargo.toml",
            "--",
            "--check",
        ])
        .current_dir(root)
        .env("CARGO_TARGET_DIR", target)
        // The oracle's build script mounts the cases of this checkout, not of another one
        // that built into the same shared target directory.
        .env("RSBUILDER_CRD_CASES", root.join("testdata/crds"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "the oracle disagrees with testdata/crds/*/expected (re-bless with \
         `cargo run --manifest-path testdata/crds/oracle/Cargo.toml`):\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
