//! Input a careless or hostile user gives rsbuilder (issue 10): every case is one clear
//! error, exit 1, and the tree exactly as it was. The property tests over the same input
//! spaces are in `robustness.rs`.

mod common;

use std::fs;
use std::path::Path;

use common::*;

/// Runs `args` in `dir`, asserts exit 1 and that nothing under `dir` changed; returns stderr.
#[track_caller]
fn refused(dir: &Path, args: &[&str]) -> String {
    let before = snapshot(dir);
    let err = fails(&rsbuilder(dir, args), 1);
    assert_eq!(
        snapshot(dir),
        before,
        "`rsbuilder {}` changed the tree",
        args.join(" ")
    );
    assert!(!err.contains("panicked"), "{err}");
    err
}

// ---- item 10: free text ----------------------------------------------------------------

#[test]
fn an_owner_with_a_newline_or_a_control_character_is_refused() {
    for owner in [
        "Evil\npub fn injected() {}",
        "Evil\r\n",
        "Tab\there",
        "Esc\u{1b}[2J",
        "Bidi \u{202e}txet",
        "Line\u{2028}separator",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let err = refused(
            dir.path(),
            &[
                "init",
                "--domain",
                "example.com",
                "--project-name",
                "demo",
                "--owner",
                owner,
            ],
        );
        assert!(err.starts_with("error: invalid owner"), "{owner:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    }
    // Printable Unicode is anyone's name.
    let dir = tempfile::tempdir().unwrap();
    ok(&rsbuilder(
        dir.path(),
        &[
            "init",
            "--domain",
            "example.com",
            "--project-name",
            "demo",
            "--owner",
            "Jörg & Söhne <j@example.com>",
        ],
    ));
    let main = fs::read_to_string(dir.path().join("src/main.rs")).unwrap();
    assert!(
        main.starts_with("// Copyright Jörg & Söhne <j@example.com>\n"),
        "{main}"
    );
}
