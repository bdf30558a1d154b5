//! Input a careless or hostile user gives rsbuilder (issue 10): every case is one clear
//! error, exit 1, and the tree exactly as it was. The property tests over the same input
//! spaces are in `robustness.rs`.
#![allow(clippy::disallowed_methods)] // reads rsbuilder's and the tools' own YAML output

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::*;
use rsbuilder::crd::{SourceFile, generate};
use rsbuilder::webhook::conversion;

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

// ---- item 7: nesting that would overflow the stack -------------------------------------

/// The three reproductions of the issue: 1,500 nested generics, 2,000 nested `mod a {`
/// (a 16 KB file) and 100,000 nested parentheses.
fn deep_sources() -> [(&'static str, String); 3] {
    [
        (
            "generics",
            format!("type T = {}u8{};\n", "Vec<".repeat(1500), ">".repeat(1500)),
        ),
        (
            "modules",
            format!("{}{}\n", "mod a {".repeat(2000), "}".repeat(2000)),
        ),
        (
            "parentheses",
            format!(
                "const X: u8 = {}1{};\n",
                "(".repeat(100_000),
                ")".repeat(100_000)
            ),
        ),
    ]
}

#[test]
fn deeply_nested_sources_are_one_error_at_their_line() {
    for (name, text) in deep_sources() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("types.rs"), &text).unwrap();
        let err = refused(dir.path(), GENERATE_TYPES);
        assert!(
            err.contains("types.rs:1:") && err.contains("nests too deeply"),
            "{name}: {err}"
        );
    }
}

/// The words of a command line without quotes.
fn line(words: &str) -> Vec<&str> {
    words.split(' ').collect()
}

#[test]
fn every_command_that_reads_rust_refuses_deep_nesting_without_aborting() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    init(root);
    for version in ["v1", "v2"] {
        ok(&rsbuilder(
            root,
            &[
                "create",
                "api",
                "--group",
                "batch",
                "--version",
                version,
                "--kind",
                "CronJob",
            ],
        ));
    }
    let types = root.join("src/api/batch/v1/cron_job.rs");
    let clean = fs::read_to_string(&types).unwrap();
    let deep_line = clean.lines().count() + 1;
    let out = root.parent().unwrap().join(format!(
        "{}-regenerated",
        root.file_name().unwrap().to_string_lossy()
    ));
    for (name, deep) in deep_sources() {
        fs::write(&types, format!("{clean}{deep}")).unwrap();
        for args in [
            line("generate crds"),
            line("generate manifests"),
            line("create api --group batch --version v3 --kind CronJob"),
            line("create api --group apps --version v1 --kind Other"),
            line("edit --storage-version v2 --kind CronJob"),
            line("create webhook --group batch --version v1 --kind CronJob --defaulting"),
            line(
                "create webhook --group batch --version v1 --kind CronJob --conversion --spoke v2",
            ),
            line("alpha generate"),
        ] {
            let err = refused(root, &args);
            assert!(
                err.contains(&format!("cron_job.rs:{deep_line}:"))
                    && err.contains("nests too deeply"),
                "{name}, `rsbuilder {}`: {err}",
                args.join(" ")
            );
            assert!(!out.exists(), "alpha generate left {}", out.display());
        }
    }
}

// ---- issue 21 item 1: deep nesting in every Rust file a command reads ------------------

/// The inputs of issue 21: 50,000 nested generics, 100,000 nested parentheses and as many
/// brackets, each a line appended to a file.
fn deeper_sources() -> [(&'static str, String); 3] {
    [
        (
            "generics",
            format!(
                "type T = {}u8{};\n",
                "Vec<".repeat(50_000),
                ">".repeat(50_000)
            ),
        ),
        (
            "parentheses",
            format!(
                "const X: u8 = {}1{};\n",
                "(".repeat(100_000),
                ")".repeat(100_000)
            ),
        ),
        (
            "brackets",
            format!(
                "const X: u8 = {}1{};\n",
                "[".repeat(100_000),
                "]".repeat(100_000)
            ),
        ),
    ]
}

/// A copy of the golden project `project-v1`.
fn project_v1() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    runtime_copy::copy_golden("project-v1", dir.path());
    dir
}

/// Each command that reads Rust, with the files of `project-v1` it reads (the
/// registration files it inserts into, the types it generates from).
const READERS: &[(&str, &[&str])] = &[
    (
        "create api --group batch --version v2 --kind Zed",
        &[
            "src/controllers/mod.rs",
            "tests/envtest/main.rs",
            "src/api/mod.rs",
            "src/api/batch/mod.rs",
        ],
    ),
    (
        "create api --group apps --version v1 --kind Other",
        &["src/controllers/mod.rs", "src/api/mod.rs"],
    ),
    (
        "create webhook --group infra --version v1 --kind Tenant --defaulting",
        &[
            "src/webhooks/mod.rs",
            "tests/envtest/main.rs",
            "src/api/infra/v1/tenant.rs",
        ],
    ),
    (
        "create webhook --group batch --version v1alpha1 --kind CronJob --programmatic-validation",
        &["src/webhooks/mod.rs", "src/api/batch/v1alpha1/cron_job.rs"],
    ),
    (
        "generate crds",
        &["src/api/mod.rs", "src/api/infra/v1/mod.rs"],
    ),
    ("generate manifests", &["src/api/batch/v1/cron_job.rs"]),
];

#[test]
fn deep_nesting_in_any_file_a_command_reads_is_one_error_naming_it() {
    for (name, deep) in deeper_sources() {
        for (command, files) in READERS {
            for file in *files {
                let dir = project_v1();
                let path = dir.path().join(file);
                let text = fs::read_to_string(&path).unwrap();
                fs::write(&path, format!("{text}\n{deep}")).unwrap();
                let err = refused(dir.path(), &line(command));
                assert!(
                    err.contains(&format!("{file}:")) && err.contains("nests too deeply"),
                    "{name} in {file}, `rsbuilder {command}`: {err}"
                );
            }
        }
    }
}

// ---- issue 21 item 2: registrations decided by the Rust, not the text ------------------

/// Whether `line` stands in `file` of `dir` as code: a line of its own, not commented out.
fn has_line(dir: &Path, file: &str, line: &str) -> bool {
    read(dir, file).lines().any(|l| l.trim() == line)
}

/// Puts `line` above the first line of `file` in `dir`.
fn prepend(dir: &Path, file: &str, line: &str) {
    let text = read(dir, file);
    fs::write(dir.join(file), format!("{line}\n{text}")).unwrap();
}

#[test]
fn commented_out_registrations_do_not_count_as_registered() {
    let dir = project_v1();
    let root = dir.path();
    prepend(root, "src/api/mod.rs", "//        batch::zed_crd()?,");
    prepend(root, "src/controllers/mod.rs", "// pub mod zed;");
    prepend(root, "src/controllers/mod.rs", "/* zed::CONTROLLER, */");
    ok(&rsbuilder(
        root,
        &line("create api --group batch --version v2 --kind Zed"),
    ));
    assert!(has_line(root, "src/api/mod.rs", "batch::zed_crd()?,"));
    assert!(has_line(root, "src/controllers/mod.rs", "pub mod zed;"));
    assert!(has_line(root, "src/controllers/mod.rs", "zed::CONTROLLER,"));
}

#[test]
fn a_version_listed_only_in_a_comment_is_listed_again() {
    // A new version below the storage version goes above the next higher one, found by
    // its line: the line inside a comment is not it.
    let dir = project_v1();
    let root = dir.path();
    let group = "src/api/batch/mod.rs";
    let text = read(root, group).replace(
        "    let versions = vec![\n",
        "    /*\n        v1::cron_job::CronJob::crd(),\n        v1beta2::cron_job::CronJob::crd(),\n    */\n    let versions = vec![\n",
    );
    fs::write(root.join(group), text).unwrap();
    ok(&rsbuilder(
        root,
        &line("create api --group batch --version v1beta2 --kind CronJob"),
    ));
    let text = read(root, group);
    let listed = text.find("    let versions = vec![").unwrap();
    assert!(
        text[listed..].contains(
            "v1beta1::cron_job::CronJob::crd(),\n        v1beta2::cron_job::CronJob::crd(),\n        v1::cron_job::CronJob::crd(),"
        ),
        "{text}"
    );
}

#[test]
fn a_marker_inside_a_comment_or_a_string_is_refused_at_its_line() {
    let marker = "// +rsbuilder:scaffold:controller-modules";
    for (how, hidden) in [
        ("block comment", format!("/*\n{marker}\n*/")),
        ("nested block comment", format!("/* /* */\n{marker}\n*/")),
        ("doc comment", format!("/{marker}")),
        ("string", format!("const S: &str = \"\n{marker}\n\";")),
        (
            "raw string",
            format!("const S: &str = r#\"\n{marker}\n\"#;"),
        ),
    ] {
        let dir = project_v1();
        let root = dir.path();
        let file = "src/controllers/mod.rs";
        let text = read(root, file);
        let at = text.lines().position(|l| l == marker).unwrap();
        let line_no = at
            + 1
            + hidden
                .lines()
                .position(|l| l.contains("+rsbuilder"))
                .unwrap();
        fs::write(root.join(file), text.replacen(marker, &hidden, 1)).unwrap();
        let err = refused(
            root,
            &line("create api --group batch --version v2 --kind Zed"),
        );
        assert!(
            err.contains(&format!("{file}:{line_no}:")) && err.contains("controller-modules"),
            "{how}: {err}"
        );
    }
}

#[test]
fn a_chain_of_thousands_of_types_is_refused_quickly() {
    let types = (0..3000).map(|i| {
        format!("#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\npub struct A{i} {{ pub a: Option<A{}> }}\n", i + 1)
    });
    let last = "#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]\npub struct A3000;\n";
    let err = refused_quickly("pub a: A0", types.chain([last.to_string()]));
    assert!(err.contains("nested more than 64 types deep"), "{err}");
}

#[test]
fn a_lattice_of_types_that_doubles_at_every_level_is_refused_quickly() {
    // Each level uses the next twice: kube-derive would inline 2^40 structs, in the schema
    // and again in the default.
    let types = (0..40).map(|i| {
        format!("#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]\npub struct L{i} {{ pub left: L{n}, pub right: L{n} }}\n", n = i + 1)
    });
    let last = "#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]\npub struct L40 { pub v: u8 }\n";
    let err = refused_quickly(
        "#[serde(default)]\n    pub a: L0",
        types.chain([last.to_string()]),
    );
    assert!(
        err.contains("more than 10000 struct or enum instances"),
        "{err}"
    );
}

/// The refusal of `generate crds` for a kind whose spec field is `field`, followed by
/// `types`; it must come within 30 seconds and name the file.
fn refused_quickly(field: &str, types: impl Iterator<Item = String>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut text = kind_source(r#"group = "a.example.com", version = "v1", kind = "Thing""#)
        .replace("pub a: String", field);
    text.extend(types);
    fs::write(dir.path().join("types.rs"), text).unwrap();
    let started = std::time::Instant::now();
    let err = refused(dir.path(), GENERATE_TYPES);
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
    assert!(err.contains("types.rs:"), "{err}");
    err
}

/// A kind in `t.example.com` whose spec holds a chain of `n` structs; `derives` are added
/// to each struct of the chain.
fn chain(n: usize, derives: &str, field: &str) -> SourceFile {
    let mut text = kind_source(r#"group = "t.example.com", version = "v1", kind = "Thing""#)
        .replace("pub a: String", field);
    for i in 0..n {
        text.push_str(&format!(
            "#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema{derives})]\npub struct A{i} {{ pub a: A{} }}\n",
            i + 1
        ));
    }
    text.push_str(&format!(
        "#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema{derives})]\npub struct A{n} {{ pub b: String }}\n"
    ));
    SourceFile {
        path: PathBuf::from("src/api/t/v1/thing.rs"),
        text,
    }
}

#[test]
fn a_deep_chain_of_optional_structs_is_built_once_per_level() {
    // kopium-style types nest `Option<Struct>` dozens deep; building the schema of each
    // level twice (with and without its `Option`) would be 2^60 struct instances.
    rsbuilder::syntax::with_big_stack(|| {
        let mut source = chain(60, "", "pub a: Option<A0>");
        for i in 1..=60 {
            source.text = source.text.replace(
                &format!("pub a: A{i} }}"),
                &format!("pub a: Option<A{i}> }}"),
            );
        }
        let started = std::time::Instant::now();
        let out = generate(std::slice::from_ref(&source));
        assert!(
            out.is_ok(),
            "{}",
            out.err().map(|d| d.to_string()).unwrap_or_default()
        );
        assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
    })
    .unwrap();
}

#[test]
fn a_deep_chain_of_lists_of_optional_structs_is_built_once_per_level() {
    // `Vec<Option<Struct>>` asks nothing of the `Option` but its schema: building the
    // schema without the `Option` too would double the work at every level.
    rsbuilder::syntax::with_big_stack(|| {
        let mut source = chain(60, "", "pub a: Vec<Option<A0>>");
        for i in 1..=60 {
            source.text = source.text.replace(
                &format!("pub a: A{i} }}"),
                &format!("pub a: Vec<Option<A{i}>> }}"),
            );
        }
        let started = std::time::Instant::now();
        let out = generate(std::slice::from_ref(&source));
        assert!(
            out.is_ok(),
            "{}",
            out.err().map(|d| d.to_string()).unwrap_or_default()
        );
        assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
    })
    .unwrap();
}

#[test]
fn walks_over_the_types_of_the_sources_stop_at_a_depth() {
    // On the stack every command runs on (a test thread's 2 MiB is not enough for 64
    // nested types in a debug build).
    rsbuilder::syntax::with_big_stack(walks_stop_at_a_depth).unwrap();
}

fn walks_stop_at_a_depth() {
    // Within the limit, both walks go all the way down.
    let shallow = chain(60, ", Default", "#[serde(default)]\n    pub a: A0");
    assert!(generate(std::slice::from_ref(&shallow)).is_ok());
    let sources = conversion::Sources::parse(std::slice::from_ref(&shallow)).unwrap();
    conversion::sample_code(&sources, "t.example.com", "Thing", "v1", "kind", "", 0).unwrap();

    // Derived defaults made of defaults, and conversion samples, stop at 64 structs.
    let deep = chain(200, ", Default", "#[serde(default)]\n    pub a: A0");
    let err = generate(std::slice::from_ref(&deep))
        .unwrap_err()
        .to_string();
    assert!(err.contains("nested more than 64"), "{err}");
    let sources = conversion::Sources::parse(std::slice::from_ref(&deep)).unwrap();
    let err = conversion::sample_code(&sources, "t.example.com", "Thing", "v1", "kind", "", 0)
        .unwrap_err()
        .to_string();
    assert!(err.contains("nested more than 64 types deep"), "{err}");
    // Without `Default`, a field the other version lacks gets a default built by hand.
    let deep = chain(200, "", "pub a: A0");
    let sources = conversion::Sources::parse(std::slice::from_ref(&deep)).unwrap();
    let err = conversion::sample_code(&sources, "t.example.com", "Thing", "v1", "kind", "", 0)
        .unwrap_err()
        .to_string();
    assert!(err.contains("nested more than 64 types deep"), "{err}");
}

// ---- item 11: PROJECT is validated on read ---------------------------------------------

/// A project with CronJob v1 (stored) and v2, whose PROJECT then says what `edit` makes it say.
fn project_with_two_versions() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    init(dir.path());
    for version in ["v1", "v2"] {
        ok(&rsbuilder(
            dir.path(),
            &line(&format!(
                "create api --group batch --version {version} --kind CronJob"
            )),
        ));
    }
    dir
}

fn edit_project(dir: &Path, edit: impl FnOnce(String) -> String) {
    let path = dir.join("PROJECT");
    let text = fs::read_to_string(&path).unwrap();
    let edited = edit(text.clone());
    assert_ne!(edited, text, "the edit changed nothing");
    fs::write(&path, edited).unwrap();
}

/// Every command that reads PROJECT.
const READERS_OF_PROJECT: &[&str] = &[
    "create api --group batch --version v3 --kind CronJob",
    "create api --group apps --version v1 --kind Deployment --resource=false",
    "create webhook --group batch --version v1 --kind CronJob --defaulting",
    "edit --storage-version v2 --kind CronJob",
    "generate webhooks",
    "generate manifests",
    "alpha generate --output-dir ../regenerated",
];

#[test]
fn a_project_file_of_another_version_or_layout_is_refused() {
    for (from, to, expected) in [
        (
            "version: '1'",
            "version: '99'",
            "version \"99\" is not the version",
        ),
        (
            "layout: rsbuilder.io/v1",
            "layout: go.kubebuilder.io/v4",
            "layout \"go.kubebuilder.io/v4\" is not \"rsbuilder.io/v1\"",
        ),
        ("layout: rsbuilder.io/v1", "layout: x", "layout \"x\""),
    ] {
        let dir = project_with_two_versions();
        edit_project(dir.path(), |t| t.replace(from, to));
        for command in READERS_OF_PROJECT {
            let err = refused(dir.path(), &line(command));
            assert!(
                err.starts_with("error: ")
                    && err.contains("PROJECT is not a valid PROJECT file: ")
                    && err.contains(expected),
                "{to}, `rsbuilder {command}`: {err}"
            );
        }
    }
}

#[test]
fn resource_paths_outside_the_project_are_refused() {
    for path in [
        "/tmp/evil/cron_job.rs",
        "../outside/cron_job.rs",
        "src/../../x.rs",
    ] {
        let dir = project_with_two_versions();
        // What the path points at, when it resolves at all, holds a kind of its own.
        let outside = dir.path().parent().unwrap().join("outside");
        fs::create_dir_all(&outside).unwrap();
        fs::copy(
            dir.path().join("src/api/batch/v2/cron_job.rs"),
            outside.join("cron_job.rs"),
        )
        .unwrap();
        edit_project(dir.path(), |t| {
            t.replace(
                "path: src/api/batch/v2/cron_job.rs",
                &format!("path: {path}"),
            )
        });
        let before_outside = snapshot(&outside);
        for command in READERS_OF_PROJECT {
            let err = refused(dir.path(), &line(command));
            assert!(
                err.contains(&format!("invalid path {path:?}")),
                "{path}, `rsbuilder {command}`: {err}"
            );
        }
        assert_eq!(snapshot(&outside), before_outside);
        fs::remove_dir_all(&outside).unwrap();
    }
}

#[test]
fn names_in_project_follow_the_command_line_rules() {
    for (from, to, expected) in [
        (
            "kind: CronJob",
            "kind: ../../Evil",
            "invalid kind \"../../Evil\"",
        ),
        (
            "group: batch",
            "group: ../../x",
            "invalid group \"../../x\"",
        ),
        (
            "plural: cronjobs",
            "plural: ../x",
            "invalid plural \"../x\"",
        ),
        (
            "version: v2",
            "version: v2/../../x",
            "invalid version \"v2/../../x\"",
        ),
        (
            "projectName: demo",
            "projectName: Demo Op",
            "invalid project name",
        ),
        (
            "domain: example.com",
            "domain: ../x",
            "invalid domain \"../x\"",
        ),
    ] {
        let dir = project_with_two_versions();
        edit_project(dir.path(), |t| t.replacen(from, to, 1));
        let err = refused(dir.path(), &line(READERS_OF_PROJECT[0]));
        assert!(err.contains(expected), "{to}: {err}");
    }
}

// ---- item 12: the storage version of a kind with a conversion webhook -----------------

#[test]
fn the_storage_version_stays_the_conversion_hub() {
    let dir = project_with_two_versions();
    ok(&rsbuilder(
        dir.path(),
        &line("create webhook --group batch --version v1 --kind CronJob --conversion --spoke v2"),
    ));
    let err = refused(
        dir.path(),
        &line("edit --storage-version v2 --kind CronJob"),
    );
    assert!(
        err.starts_with("error: CronJob (batch.example.com) converts through the hub v1")
            && err.contains("src/api/batch/*/cron_job_conversion.rs")
            && err.trim_end().lines().count() == 1,
        "{err}"
    );
    // The hub itself is the storage version already: nothing to do, and alpha generate
    // still replays the project.
    ok(&rsbuilder(
        dir.path(),
        &line("edit --storage-version v1 --kind CronJob"),
    ));
    ok(&rsbuilder(
        dir.path(),
        &line("alpha generate --output-dir regenerated"),
    ));
}

// ---- item 9: kustomization files are edited as YAML ------------------------------------

/// Parses a kustomization, which fails on a key written twice.
fn kustomization(path: &Path) -> serde_yaml::Value {
    let text = fs::read_to_string(path).unwrap();
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()))
}

#[test]
fn a_user_patch_and_the_conversion_patch_both_reach_kustomize() {
    let dir = project_with_two_versions();
    let crd = dir.path().join("config/crd");
    fs::create_dir_all(crd.join("patches")).unwrap();
    fs::write(
        crd.join("patches/label.yaml"),
        "- op: add\n  path: /metadata/labels\n  value:\n    team: mine\n",
    )
    .unwrap();
    let kustomization_file = crd.join("kustomization.yaml");
    let mut text = fs::read_to_string(&kustomization_file).unwrap();
    text.push_str("# My own patch.\npatches:\n- path: patches/label.yaml\n  target:\n    kind: CustomResourceDefinition\n");
    fs::write(&kustomization_file, &text).unwrap();
    ok(&rsbuilder(
        dir.path(),
        &line("create webhook --group batch --version v1 --kind CronJob --conversion --spoke v2"),
    ));
    let k = kustomization(&kustomization_file);
    let patches: Vec<&str> = k["patches"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        patches,
        ["patches/label.yaml", "patches/webhook_in_cronjobs.yaml"]
    );
    let rendered = fs::read_to_string(&kustomization_file).unwrap();
    assert!(
        rendered.starts_with(&text),
        "the user's text changed:\n{rendered}"
    );
    let crds = documents(&kustomize(&crd));
    assert_eq!(crds.len(), 1);
    assert_eq!(crds[0]["metadata"]["labels"]["team"], "mine");
    assert_eq!(crds[0]["spec"]["conversion"]["strategy"], "Webhook");
}

#[test]
fn replacements_without_their_markers_are_merged_not_repeated() {
    let dir = project_with_two_versions();
    ok(&rsbuilder(
        dir.path(),
        &line("create webhook --group batch --version v1 --kind CronJob --defaulting"),
    ));
    // The user rewrote config/default without rsbuilder's marker comments.
    let default = dir.path().join("config/default/kustomization.yaml");
    let text = fs::read_to_string(&default).unwrap();
    let stripped: String = text
        .lines()
        .filter(|l| !l.contains("+rsbuilder:scaffold:"))
        .map(|l| format!("{l}\n"))
        .collect();
    fs::write(&default, &stripped).unwrap();
    let before = kustomization(&default);
    ok(&rsbuilder(
        dir.path(),
        &line("create webhook --group batch --version v1 --kind CronJob --conversion --spoke v2"),
    ));
    let after = kustomization(&default);
    // The replacements are one file the conversion webhook rewrites, listed once.
    assert_eq!(
        after["replacements"], before["replacements"],
        "replacements repeated"
    );
    let listed = after["replacements"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter(|r| r["path"] == "webhook_certs_replacements.yaml")
        .count();
    assert_eq!(listed, 1, "{:?}", after["replacements"]);
    let generated = dir
        .path()
        .join("config/default/webhook_certs_replacements.yaml");
    let replacements: serde_yaml::Value =
        serde_yaml::from_str(&fs::read_to_string(generated).unwrap()).unwrap();
    for (field, part) in [(".metadata.namespace", 0), (".metadata.name", 1)] {
        let targets = replacements
            .as_sequence()
            .unwrap()
            .iter()
            .find(|r| r["source"]["kind"] == "Certificate" && r["source"]["fieldPath"] == field)
            .unwrap()["targets"]
            .as_sequence()
            .unwrap();
        let crd = targets
            .iter()
            .find(|t| t["select"]["kind"] == "CustomResourceDefinition")
            .unwrap_or_else(|| panic!("no CRD target for {field}"));
        assert_eq!(crd["options"]["index"], part);
    }
    let rendered = documents(&kustomize(&dir.path().join("config/default")));
    let crd = rendered
        .iter()
        .find(|d| d["kind"] == "CustomResourceDefinition")
        .unwrap();
    assert_eq!(
        crd["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
        "demo-system/demo-serving-cert"
    );
}

// ---- messages: the first line names the cause ------------------------------------------

#[test]
fn a_source_that_is_not_utf8_is_named_with_the_cause() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("types.rs"), b"// caf\xe9\nstruct S;\n").unwrap();
    let err = refused(dir.path(), GENERATE_TYPES);
    assert!(
        err.starts_with("error: types.rs is not UTF-8 text"),
        "{err}"
    );
    let project = project_with_two_versions();
    fs::write(project.path().join("src/api/latin1.rs"), b"// caf\xe9\n").unwrap();
    for command in [
        "generate crds",
        "create api --group batch --version v3 --kind CronJob",
        "edit --storage-version v2 --kind CronJob",
    ] {
        let err = refused(project.path(), &line(command));
        assert!(
            err.starts_with("error: src/api/latin1.rs is not UTF-8 text"),
            "`{command}`: {err}"
        );
    }
}

#[test]
fn generate_manifests_outside_a_project_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let err = refused(dir.path(), &line("generate manifests"));
    assert!(
        err.contains("is not an rsbuilder project (no PROJECT file); run `rsbuilder init` first")
            && !err.contains("--paths"),
        "{err}"
    );
}

#[test]
fn a_failed_copy_of_a_version_names_the_cause_first() {
    let dir = project_with_two_versions();
    let types = dir.path().join("src/api/batch/v2/cron_job.rs");
    let text = fs::read_to_string(&types).unwrap();
    fs::write(
        &types,
        text.replace("kind = \"CronJob\"", "kind = \"Renamed\""),
    )
    .unwrap();
    let err = refused(
        dir.path(),
        &line("create api --group batch --version v3 --kind CronJob"),
    );
    assert!(
        err.starts_with(
            "error: src/api/batch/v2/cron_job.rs: no `#[derive(CustomResource)]` with `#[kube(kind = \"CronJob\")]` found (while copying it into version v3)"
        ),
        "{err}"
    );
}

#[test]
fn a_failed_replay_names_the_cause_first() {
    let dir = tempfile::tempdir().unwrap();
    init(dir.path());
    ok(&rsbuilder(
        dir.path(),
        &line("create api --group my-group --version v1 --kind Thing"),
    ));
    // Valid names, but two groups that share one Rust module cannot be replayed.
    edit_project(dir.path(), |t| {
        let thing = &t[t.find("- group: my-group").unwrap()..];
        format!(
            "{t}{}",
            thing
                .replace("my-group", "my.group")
                .replace("Thing", "Other")
                .replace("things", "others")
        )
    });
    let err = refused(dir.path(), &line("alpha generate --output-dir regenerated"));
    assert!(
        err.starts_with("error: invalid group \"my.group\": it would share the Rust module")
            && err.contains("(while replaying `rsbuilder create api --group my.group"),
        "{err}"
    );
}

#[test]
fn a_group_named_target_is_read_like_any_other() {
    let dir = tempfile::tempdir().unwrap();
    init(dir.path());
    ok(&rsbuilder(
        dir.path(),
        &line("create api --group target --version v1 --kind Thing"),
    ));
    let out = ok(&rsbuilder(dir.path(), &line("generate crds --check")));
    assert!(
        out.contains("up to date") && !out.contains("no longer generated"),
        "{out}"
    );
}

// ---- item 8: names that compile nowhere -------------------------------------------------

/// The first line of an error, which must say everything.
fn first_line(err: &str) -> &str {
    err.lines().next().unwrap_or_default()
}

#[test]
fn kinds_named_like_what_the_generated_code_uses_compile_or_are_refused_naming_the_clash() {
    let dir = tempfile::tempdir().unwrap();
    init(dir.path());
    // Types the generated code names through a module (`metav1::Condition`) can be kinds;
    // `testdata/project-multigroup` builds one named `Condition`. The runtime's Reconciler
    // holds kube's `Controller` and `Event`, so a kind's files no longer bind those names.
    for kind in ["Condition", "Time", "Controller", "Event"] {
        ok(&rsbuilder(
            dir.path(),
            &[
                "create",
                "api",
                "--group",
                "g",
                "--version",
                "v1",
                "--kind",
                kind,
            ],
        ));
    }
    // Names a generated file binds beside the kind, and the file and binding at fault.
    for (kind, clash) in [
        (
            "Reconciler",
            "`rsbuilder_runtime::controller::Reconciler`, which src/controllers/reconciler.rs imports",
        ),
        (
            "Context",
            "`super::Context`, which src/controllers/context.rs imports",
        ),
        ("Api", "`kube::Api`, which src/controllers/api.rs imports"),
        ("Error", "`Error`, which src/controllers/error.rs defines"),
        (
            "JsonSchema",
            "`schemars::JsonSchema`, which src/api/g/v1/json_schema.rs imports",
        ),
        (
            "Serialize",
            "`serde::Serialize`, which src/api/g/v1/serialize.rs imports",
        ),
        (
            "Resource",
            "`kube::Resource`, which tests/envtest/resource_controller.rs imports",
        ),
        (
            "Outcome",
            "`rsbuilder_runtime::controller::Outcome`, which src/controllers/outcome.rs imports",
        ),
    ] {
        let err = refused(
            dir.path(),
            &[
                "create",
                "api",
                "--group",
                "g",
                "--version",
                "v1",
                "--kind",
                kind,
            ],
        );
        assert_eq!(
            first_line(&err),
            format!(
                "error: kind \"{kind}\" clashes with {clash}; choose another kind name, e.g. \"{kind}Resource\""
            )
        );
    }
    // --force must not overwrite the helper either.
    for force in [&[][..], &["--force"][..]] {
        let args = [
            &[
                "create",
                "api",
                "--group",
                "g",
                "--version",
                "v1",
                "--kind",
                "Backoff",
            ][..],
            force,
        ]
        .concat();
        let err = refused(dir.path(), &args);
        assert!(
            first_line(&err).contains(
                "would put its controller in src/controllers/backoff.rs, which holds a helper"
            ),
            "{err}"
        );
    }
}

#[test]
fn a_kind_that_clashes_only_with_webhook_code_is_refused_by_create_webhook() {
    let dir = tempfile::tempdir().unwrap();
    init(dir.path());
    ok(&rsbuilder(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "g",
            "--version",
            "v1",
            "--kind",
            "ResourceExt",
            // The controller imports `ResourceExt` too: only the webhook is left to clash.
            "--controller=false",
        ],
    ));
    let err = refused(
        dir.path(),
        &[
            "create",
            "webhook",
            "--group",
            "g",
            "--version",
            "v1",
            "--kind",
            "ResourceExt",
            "--defaulting",
        ],
    );
    assert!(
        first_line(&err).starts_with(
            "error: kind \"ResourceExt\" clashes with `kube::ResourceExt`, which src/webhooks/"
        ),
        "{err}"
    );
}

#[test]
fn a_directory_whose_name_is_no_crate_name_is_refused_by_init() {
    for (name, why) in [
        ("type", "a Rust keyword or not a Rust identifier"),
        ("self", "a Rust keyword or not a Rust identifier"),
        ("1abc", "a Rust keyword or not a Rust identifier"),
        ("std", "a crate of Rust's own"),
        ("kube", "a crate the project depends on"),
    ] {
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().join(name);
        fs::create_dir(&dir).unwrap();
        let err = refused(&dir, &["init", "--domain", "example.com"]);
        assert_eq!(
            first_line(&err),
            format!(
                "error: invalid project name \"{name}\": its crate would be `{name}`, {why}; pass \
                 --project-name to choose another, e.g. \"my-{name}\""
            )
        );
        ok(&rsbuilder(
            &dir,
            &[
                "init",
                "--domain",
                "example.com",
                "--project-name",
                &format!("my-{name}"),
            ],
        ));
    }
}
