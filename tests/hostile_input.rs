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

fn init(dir: &Path) {
    ok(&rsbuilder(
        dir,
        &["init", "--domain", "example.com", "--project-name", "demo"],
    ));
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

// ---- item 1: names that become paths ---------------------------------------------------

/// `generate crds` over `types.rs`, outside a project.
const GENERATE_TYPES: &[&str] = &[
    "generate",
    "crds",
    "--paths",
    "types.rs",
    "--output-dir",
    "out",
];

/// A kind whose `#[kube(...)]` says `attrs`.
fn kind_source(attrs: &str) -> String {
    format!(
        "use kube::CustomResource;\nuse schemars::JsonSchema;\nuse serde::{{Deserialize, Serialize}};\n\n\
         #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]\n\
         #[kube({attrs})]\n\
         pub struct ThingSpec {{\n    pub a: String,\n}}\n"
    )
}

#[test]
fn crd_names_that_would_leave_the_output_directory_are_refused_at_their_line() {
    let outer = tempfile::tempdir().unwrap();
    let project = outer.path().join("p");
    fs::create_dir(&project).unwrap();
    let absolute = outer.path().join("abs").join("evil");
    let absolute = absolute.to_str().unwrap();
    for (attrs, bad) in [
        (
            r#"group = "../../x/evil", version = "v1", kind = "Thing""#.to_string(),
            "group \"../../x/evil\"",
        ),
        (
            format!(r#"group = "{absolute}", version = "v1", kind = "Thing""#),
            "group \"/",
        ),
        (
            r#"group = "a.example.com", version = "v1", kind = "Thing", plural = "../../../x""#
                .to_string(),
            "plural \"../../../x\"",
        ),
        (
            r#"group = "a.example.com", version = "v1/../../x", kind = "Thing""#.to_string(),
            "version \"v1/../../x\"",
        ),
        (
            r#"group = "a.example.com", version = "v1", kind = "Thing", singular = "a/b""#
                .to_string(),
            "singular \"a/b\"",
        ),
        // The API server refuses a group without a dot: it would take one of Kubernetes'.
        (
            r#"group = "batch", version = "v1", kind = "Thing""#.to_string(),
            "group \"batch\"",
        ),
    ] {
        fs::write(project.join("types.rs"), kind_source(&attrs)).unwrap();
        let before = snapshot(outer.path());
        let err = fails(&rsbuilder(&project, GENERATE_TYPES), 1);
        assert_eq!(
            snapshot(outer.path()),
            before,
            "{attrs}: files were written"
        );
        assert!(
            err.contains("types.rs:6:") && err.contains(&format!("invalid {bad}")),
            "{attrs}: {err}"
        );
    }
}

#[test]
fn any_version_the_api_server_accepts_is_generated() {
    // DESIGN §1: rsbuilder scaffolds v<N>[alpha|beta<M>], but reads any DNS-1035 label.
    let dir = tempfile::tempdir().unwrap();
    let mut types = kind_source(r#"group = "a.example.com", version = "v1", kind = "Thing""#);
    types.push_str(
        "\n#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]\n\
         #[kube(group = \"a.example.com\", version = \"stable\", kind = \"Thing\", storage = false)]\n\
         pub struct StableThingSpec {\n    pub a: String,\n}\n",
    );
    fs::write(dir.path().join("types.rs"), types).unwrap();
    ok(&rsbuilder(dir.path(), GENERATE_TYPES));
    let crd: serde_yaml::Value = serde_yaml::from_str(
        &fs::read_to_string(dir.path().join("out/a.example.com_things.yaml")).unwrap(),
    )
    .unwrap();
    let versions: Vec<(&str, bool)> = crd["spec"]["versions"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|v| (v["name"].as_str().unwrap(), v["storage"].as_bool().unwrap()))
        .collect();
    assert_eq!(versions, [("v1", true), ("stable", false)]);
}

#[test]
fn a_plural_the_api_server_would_refuse_is_refused_by_create_api() {
    let dir = tempfile::tempdir().unwrap();
    init(dir.path());
    let err = refused(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "batch",
            "--version",
            "v1",
            "--kind",
            "CronJob",
            "--plural",
            "1jobs",
        ],
    );
    assert!(err.contains("invalid plural \"1jobs\""), "{err}");
}
