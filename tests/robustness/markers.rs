//! Registration in Rust files that hold commented-out fragments and markers moved into
//! comments or strings (issue 21 item 2): a command either registers the new code where
//! code stands, or refuses naming `file:line` with the tree as it was; it never reports
//! success without registering.

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rsbuilder::scaffold::rust_markers;
use rsbuilder::syntax;

use crate::common;

/// The registration files of `project-v1`, each with a marker and a fragment `create api`
/// or `create webhook` would insert there (none of them registered yet).
const SITES: &[(&str, &str, &str)] = &[
    ("src/api/mod.rs", "crds", "batch::zed_crd()?,"),
    ("src/api/mod.rs", "api-groups", "pub mod zed_group;"),
    ("src/api/batch/mod.rs", "versions", "pub mod v2;"),
    ("src/api/batch/mod.rs", "kinds", "pub use v2::zed;"),
    (
        "src/controllers/mod.rs",
        "controller-modules",
        "pub mod zed;",
    ),
    ("src/controllers/mod.rs", "controllers", "zed::CONTROLLER,"),
    (
        "src/webhooks/mod.rs",
        "webhook-modules",
        "pub mod infra_v1_tenant;",
    ),
    (
        "src/webhooks/mod.rs",
        "webhook-routes",
        "(\n    \"/mutate-infra-example-com-v1-tenant\",\n    admission::defaulting(infra_v1_tenant::default),\n),",
    ),
];

/// What a careless user leaves in a registration file.
#[derive(Debug, Clone)]
enum Damage {
    /// `// <fragment>`, `/* <fragment> */`, a fragment on lines of a block comment, a doc
    /// comment or a string literal: text that registers nothing.
    Fragment(usize),
    /// A copy of the marker in a block comment, a doc comment or a string: it marks nothing.
    Decoy(usize),
    /// The marker itself moved into a block comment or a raw string.
    HideMarker(usize),
}

/// `damage` applied at `line` (a fraction of the file) of `text`, for `marker`/`fragment`.
fn damaged(text: &str, marker: &str, fragment: &str, damage: &Damage, at: f64) -> String {
    let marker_line = format!("// +rsbuilder:scaffold:{marker}");
    let one_line = fragment.replace('\n', " ");
    let insert = match damage {
        Damage::Fragment(how) => match how % 5 {
            0 => format!("// {one_line}"),
            1 => format!("/* {one_line} */"),
            2 => format!("/*\n{fragment}\n*/"),
            3 => format!("/// {one_line}"),
            _ => format!("const _S: &str = {one_line:?};"),
        },
        Damage::Decoy(how) => match how % 3 {
            0 => format!("/*\n{marker_line}\n*/"),
            1 => format!("/{marker_line}"),
            _ => format!("const _R: &str = r#\"\n{fragment}\n{marker_line}\n\"#;"),
        },
        Damage::HideMarker(how) => {
            let hidden = match how % 3 {
                0 => format!("/*\n{marker_line}\n*/"),
                1 => format!("/* /* */\n{marker_line}\n*/"),
                _ => format!("const _R: &str = r#\"\n{marker_line}\n\"#;"),
            };
            return text
                .lines()
                .map(|l| {
                    if l.trim() == marker_line {
                        hidden.as_str()
                    } else {
                        l
                    }
                })
                .collect::<Vec<_>>()
                .join("\n")
                + "\n";
        }
    };
    let mut lines: Vec<&str> = text.lines().collect();
    let i = ((lines.len() as f64) * at) as usize;
    lines.insert(i.min(lines.len()), &insert);
    lines.join("\n") + "\n"
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        (0usize..5).prop_map(Damage::Fragment),
        (0usize..3).prop_map(Damage::Decoy),
        (0usize..3).prop_map(Damage::HideMarker),
    ]
}

/// How often the fragment's tokens stand as code in `text` (comments and strings apart).
fn in_code(text: &str, fragment: &str) -> usize {
    let code = syntax::tokens(text).unwrap().to_string();
    let wanted = syntax::tokens(fragment).unwrap().to_string();
    code.matches(&wanted).count()
}

/// Whether `err` names `file` and a line: `file:<line>:`.
fn names_line(err: &str, file: &str) -> bool {
    err.match_indices(&format!("{file}:")).any(|(i, m)| {
        let rest = &err[i + m.len()..];
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        digits > 0 && rest[digits..].starts_with(':')
    })
}

#[derive(Default)]
struct Counts {
    inputs: AtomicUsize,
    registered: AtomicUsize,
    refused: AtomicUsize,
    /// Any of these fails the property; counted for the report.
    silent_drops: AtomicUsize,
    panics: AtomicUsize,
    changed_on_failure: AtomicUsize,
}

impl Counts {
    fn report(&self, what: &str) {
        let n = |c: &AtomicUsize| c.load(Ordering::Relaxed);
        eprintln!(
            "{what}: {} inputs, {} registered, {} refused at file:line, {} silent drops, \
             {} panics/aborts, {} trees changed on failure",
            n(&self.inputs),
            n(&self.registered),
            n(&self.refused),
            n(&self.silent_drops),
            n(&self.panics),
            n(&self.changed_on_failure),
        );
    }
}

fn bump(c: &AtomicUsize) {
    c.fetch_add(1, Ordering::Relaxed);
}

fn golden(file: &str) -> String {
    common::read(&common::repo_root().join("testdata/project-v1"), file)
}

/// The insertion itself, on each registration file, many times over.
#[test]
fn a_fragment_is_registered_where_code_stands_or_refused_at_a_line() {
    let counts = Counts::default();
    let (hidden_markers, not_rust) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let mut runner = TestRunner::new(Config {
        cases: 1024,
        ..Config::default()
    });
    let input = (
        0..SITES.len(),
        prop::collection::vec((damage(), 0.0..1.0f64), 1..4),
    );
    runner
        .run(&input, |(site, damages)| {
            let (file, marker, fragment) = SITES[site];
            let mut text = golden(file);
            for (damage, at) in &damages {
                text = damaged(&text, marker, fragment, damage, *at);
            }
            bump(&counts.inputs);
            let path = Path::new(file);
            let result = std::panic::catch_unwind(|| {
                rust_markers::insert(path, &text, marker, fragment, None)
            });
            let Ok(result) = result else {
                bump(&counts.panics);
                return Err(TestCaseError::fail(format!("panicked on:\n{text}")));
            };
            match result {
                Ok(Some(new)) => {
                    bump(&counts.registered);
                    prop_assert_eq!(in_code(&new, fragment), in_code(&text, fragment) + 1);
                    prop_assert!(syntax::parse_file(&new).is_ok(), "{}", new);
                    let again = rust_markers::insert(path, &new, marker, fragment, None);
                    prop_assert!(matches!(again, Ok(None)), "not idempotent: {:?}", again);
                }
                Ok(None) => {
                    // No damage registers the fragment: nothing to do is a silent drop.
                    bump(&counts.silent_drops);
                    prop_assert!(false, "{} left unregistered in:\n{}", fragment, text);
                }
                Err(e) => {
                    bump(&counts.refused);
                    let e = e.to_string();
                    prop_assert!(names_line(&e, file), "{}", e);
                    // A marker is refused only when none is left where code stands.
                    let hidden = damages
                        .iter()
                        .any(|(d, _)| matches!(d, Damage::HideMarker(_)));
                    if e.contains("marks nothing") {
                        bump(&hidden_markers);
                        prop_assert!(hidden, "a marker in code was not found: {}\n{}", e, text);
                    } else {
                        prop_assert!(e.contains("cannot parse Rust"), "{}", e);
                        bump(&not_rust);
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    counts.report("rust_markers::insert");
    eprintln!(
        "  refusals: {} markers hidden in a comment or string, {} files the damage left no longer Rust",
        hidden_markers.load(Ordering::Relaxed),
        not_rust.load(Ordering::Relaxed)
    );
}

/// The same damage in the files `create api` and `create webhook` register code in, through
/// the binary: exit 0 with the registrations in code, or exit 1 at `file:line` and the
/// tree as it was.
#[test]
fn commands_register_where_code_stands_or_change_nothing() {
    let counts = Counts::default();
    let mut runner = TestRunner::new(Config {
        cases: 24,
        ..Config::default()
    });
    let input = (
        prop::collection::vec((0..SITES.len(), damage(), 0.0..1.0f64), 1..4),
        any::<bool>(),
    );
    runner
        .run(&input, |(damages, webhook)| {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path();
            common::copy_tree(&common::repo_root().join("testdata/project-v1"), root);
            let mut damaged_files = Vec::new();
            for (site, damage, at) in &damages {
                let (file, marker, fragment) = SITES[*site];
                let text = fs::read_to_string(root.join(file)).unwrap();
                fs::write(
                    root.join(file),
                    damaged(&text, marker, fragment, damage, *at),
                )
                .unwrap();
                damaged_files.push(file);
            }
            bump(&counts.inputs);
            let (command, expected): (&str, Vec<(&str, &str)>) = if webhook {
                let sites = SITES[6..].iter().map(|(f, _, fragment)| (*f, *fragment));
                (
                    "create webhook --group infra --version v1 --kind Tenant --defaulting",
                    sites.collect(),
                )
            } else {
                let expected = vec![
                    ("src/api/mod.rs", "batch::zed_crd()?,"),
                    ("src/controllers/mod.rs", "pub mod zed;"),
                    ("src/controllers/mod.rs", "zed::CONTROLLER,"),
                ];
                ("create api --group batch --version v2 --kind Zed", expected)
            };
            let args: Vec<&str> = command.split(' ').collect();
            let before = common::snapshot(root);
            let out = common::rsbuilder(root, &args);
            let err = common::stderr(&out);
            match out.status.code() {
                Some(0) => {
                    bump(&counts.registered);
                    for (file, fragment) in expected {
                        let text = common::read(root, file);
                        if in_code(&text, fragment) == 0 {
                            bump(&counts.silent_drops);
                            prop_assert!(false, "{fragment} not registered in {file}:\n{text}");
                        }
                    }
                }
                Some(1) => {
                    bump(&counts.refused);
                    if common::snapshot(root) != before {
                        bump(&counts.changed_on_failure);
                        prop_assert!(false, "the tree changed: {err}");
                    }
                    prop_assert!(
                        damaged_files.iter().any(|f| names_line(&err, f)),
                        "{:?}: {}",
                        damaged_files,
                        err
                    );
                }
                other => {
                    bump(&counts.panics);
                    prop_assert!(false, "exit {other:?}: {err}");
                }
            }
            Ok(())
        })
        .unwrap();
    counts.report("create api / create webhook");
}
