//! rsbuilder-runtime is a library other people's code calls: its public API is documented
//! (`#![deny(missing_docs)]`) and its documentation builds without a warning (no broken
//! intra-doc link, no invalid HTML), with every feature a project may enable.

mod common;

use std::process::Command;

use common::repo_root;

#[test]
#[ignore = "slow: documents the runtime crate; run with `cargo test -- --include-ignored`"]
fn the_runtime_documents_cleanly_with_every_feature() {
    let out = Command::new(env!("CARGO"))
        .args([
            "doc",
            "-p",
            "rsbuilder-runtime",
            "--all-features",
            "--no-deps",
        ])
        .current_dir(repo_root())
        // Its own target directory: the test binary's cargo holds the workspace's.
        .env("CARGO_TARGET_DIR", repo_root().join("target/runtime-docs"))
        .env("RUSTDOCFLAGS", "-D warnings")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo doc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
