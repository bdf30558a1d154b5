//! The sample projects under `testdata/` are exactly what rsbuilder produces from their
//! documented command sequences (`testdata/<name>.cmd`).
//!
//! Re-bless after an intended change: `RSBUILDER_BLESS=1 cargo test --test golden`.

mod common;

use std::fs;
use std::path::Path;

use common::*;

fn bless(name: &str, produced: &Path) {
    let golden = repo_root().join("testdata").join(name);
    if golden.exists() {
        fs::remove_dir_all(&golden).expect("remove the old golden project");
    }
    copy_tree(produced, &golden);
    let copy = golden.join(runtime_copy::DIR);
    if copy.exists() {
        fs::write(runtime_copy::sum_file(), runtime_copy::digest(&golden)).unwrap();
        fs::remove_dir_all(copy).unwrap();
    }
}

/// The copy every golden project gets is the one whose version and digest are blessed.
fn check_runtime_copy(name: &str, produced: &Path) {
    let blessed = fs::read_to_string(runtime_copy::sum_file()).unwrap();
    assert_eq!(
        runtime_copy::digest(produced),
        blessed,
        "{name}: the runtime copy differs from testdata/rsbuilder-runtime.sum (run \
         RSBUILDER_BLESS=1 cargo test --test golden)"
    );
}

#[test]
fn golden_projects_are_what_rsbuilder_produces() {
    let projects = golden_projects();
    assert!(!projects.is_empty(), "no testdata/*.cmd found");
    for name in projects {
        let dir = tempfile::tempdir().unwrap();
        scaffold_golden(&name, dir.path());
        if std::env::var_os("RSBUILDER_BLESS").is_some() {
            bless(&name, dir.path());
            continue;
        }
        check_runtime_copy(&name, dir.path());
        let golden = repo_root().join("testdata").join(&name);
        let expected = snapshot(&golden);
        let actual = runtime_copy::without_copy(snapshot(dir.path()));
        let only = |a: &std::collections::BTreeMap<_, _>, b: &std::collections::BTreeMap<_, _>| {
            a.keys()
                .filter(|k| !b.contains_key(*k))
                .cloned()
                .collect::<Vec<std::path::PathBuf>>()
        };
        assert!(
            only(&actual, &expected).is_empty() && only(&expected, &actual).is_empty(),
            "{name}: files differ (run RSBUILDER_BLESS=1 cargo test --test golden)\nnew: {:?}\nmissing: {:?}",
            only(&actual, &expected),
            only(&expected, &actual),
        );
        for (path, contents) in &actual {
            if contents != &expected[path] {
                let text = |c: &Option<Vec<u8>>| {
                    String::from_utf8_lossy(c.as_deref().unwrap_or_default()).into_owned()
                };
                let diff = similar::TextDiff::from_lines(&text(&expected[path]), &text(contents))
                    .unified_diff()
                    .header("golden", "produced")
                    .to_string();
                panic!(
                    "{name}/{} differs (run RSBUILDER_BLESS=1 cargo test --test golden):\n{diff}",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn dry_run_of_every_golden_command_writes_nothing() {
    for name in golden_projects() {
        let dir = tempfile::tempdir().unwrap();
        for args in golden_commands(&name) {
            let before = snapshot(dir.path());
            let mut dry: Vec<&str> = vec!["--dry-run"];
            dry.extend(args.iter().map(String::as_str));
            let out = ok(&rsbuilder(dir.path(), &dry));
            assert_eq!(
                snapshot(dir.path()),
                before,
                "{name}: --dry-run {args:?} wrote files"
            );
            assert!(
                out.contains("would "),
                "{name}: --dry-run {args:?} printed no plan:\n{out}"
            );
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            ok(&rsbuilder(dir.path(), &args));
        }
    }
}
