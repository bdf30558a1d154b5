//! Every YAML reader (issue 21, items 3 and 4): arbitrary nesting depth, alias bombs,
//! mixed flow and block collections and token soup answer quickly with a value or one
//! error, never a panic; an error for depth or aliases says so, and where the reader knows
//! the file, names it. Each property counts its trials and prints them (`--nocapture`).

use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rsbuilder::scaffold::{Edit, ListEntries};
use rsbuilder::yaml::read::{MAX_ALIAS_NODES, MAX_DEPTH};

use super::{KUSTOMIZATION, PROJECT, common};

/// What one reader said: `Ok` or the error's text.
type Answer = Result<(), String>;

/// A reader, given the value to add to its file.
type Reader = fn(&str) -> Answer;

/// Every reader of YAML that may be hostile, by the name of what it reads, given the text
/// of that file with `extra` (a top-level key's value, or a document) added.
fn readers() -> Vec<(&'static str, Reader)> {
    vec![
        ("PROJECT", |extra| {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(
                dir.path().join("PROJECT"),
                format!("{PROJECT}extra: {extra}\n"),
            )
            .unwrap();
            rsbuilder::project::Project::load(dir.path())
                .map(drop)
                .map_err(|e| format!("{e:#}"))
        }),
        ("kustomization list", |extra| {
            ListEntries::new("resources", "crd-resources", "- b.yaml\n")
                .apply(&format!("{KUSTOMIZATION}extra: {extra}\n"))
                .map(drop)
                .map_err(|e| format!("{e:#}"))
        }),
        ("kustomization section", |extra| {
            Edit::YamlSection {
                marker: "rbac-resources".into(),
                block: "resources:\n- role.yaml\n# +rsbuilder:scaffold:rbac-resources\n".into(),
            }
            .apply(&format!("{KUSTOMIZATION}extra: {extra}\n"))
            .map(drop)
            .map_err(|e| format!("{e:#}"))
        }),
        ("crd.yaml", |extra| {
            rsbuilder::external::crd_file::parse(&format!("extra: {extra}\n"), "crd.yaml")
                .map(drop)
                .map_err(|e| format!("{e:#}"))
        }),
        ("lint", |extra| {
            rsbuilder::lint::yaml::parse(&format!("kind: Role\nextra: {extra}\n"))
                .map(drop)
                .map_err(|e| e.to_string())
        }),
        ("documents (crdgen, envtest index)", |extra| {
            rsbuilder::yaml::read::documents(&format!("---\nextra: {extra}\n"))
                .map(drop)
                .map_err(|e| format!("{e:#}"))
        }),
    ]
}

/// Runs every reader on `extra`; each must answer within the time limit, without a panic
/// (the runner reports one as a failure). Returns the answers.
fn read_everywhere(extra: &str) -> Vec<(&'static str, Answer)> {
    readers()
        .into_iter()
        .map(|(name, read)| {
            let start = Instant::now();
            let answer = read(extra);
            let took = start.elapsed();
            assert!(
                took < Duration::from_secs(3),
                "{name} took {took:?} on {} bytes",
                extra.len()
            );
            if let Err(e) = &answer
                && name.ends_with(".yaml")
            {
                assert!(e.contains(name), "{name} not named: {e}");
            }
            if let Err(e) = &answer
                && name == "PROJECT"
            {
                assert!(e.contains("PROJECT"), "PROJECT not named: {e}");
            }
            (name, answer)
        })
        .collect()
}

/// One level of nesting.
#[derive(Debug, Clone, Copy)]
enum Level {
    BlockMap,
    BlockSeq,
    FlowSeq,
    FlowMap,
}

/// A value nested `block` levels in block style, then `flow` in flow style (block inside
/// flow is not YAML), as the value of a top-level key.
fn nested(block: &[Level], flow: &[Level]) -> String {
    let mut text = String::from("\n");
    let mut indent = 2;
    for (i, level) in block.iter().enumerate() {
        let pad = " ".repeat(indent);
        match level {
            Level::BlockSeq => writeln!(text, "{pad}-").unwrap(),
            _ => writeln!(text, "{pad}k{i}:").unwrap(),
        }
        indent += 2;
    }
    text.push_str(&" ".repeat(indent));
    for level in flow {
        text.push_str(match level {
            Level::FlowMap => "{k: ",
            _ => "[",
        });
    }
    text.push('x');
    for level in flow.iter().rev() {
        text.push(match level {
            Level::FlowMap => '}',
            _ => ']',
        });
    }
    text
}

fn levels(kinds: &[Level], len: std::ops::Range<usize>) -> impl Strategy<Value = Vec<Level>> {
    prop::collection::vec(prop::sample::select(kinds.to_vec()), len)
}

/// A few levels repeated up to a depth far past any bound, cheaply.
fn deep_levels(kinds: &[Level]) -> impl Strategy<Value = Vec<Level>> {
    (levels(kinds, 1..4), 0usize..20_000)
        .prop_map(|(cycle, depth)| cycle.iter().copied().cycle().take(depth).collect())
}

/// Prints a property's trial counts.
fn report(name: &str, counts: &[(&str, &AtomicUsize)]) {
    let counts: Vec<String> = counts
        .iter()
        .map(|(what, n)| format!("{} {what}", n.load(Ordering::Relaxed)))
        .collect();
    eprintln!("{name}: {}", counts.join(", "));
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

#[test]
fn every_reader_answers_any_nesting_depth_quickly() {
    let (inputs, refused, accepted) = (
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    );
    let block = levels(&[Level::BlockMap, Level::BlockSeq], 0..MAX_DEPTH + 30);
    let flow = prop_oneof![
        levels(&[Level::FlowSeq, Level::FlowMap], 0..MAX_DEPTH + 30),
        deep_levels(&[Level::FlowSeq, Level::FlowMap]),
    ];
    runner(256)
        .run(&(block, flow), |(block, flow)| {
            // The document's mapping, the key's value and the levels.
            let depth = 1 + block.len() + flow.len();
            let text = nested(&block, &flow);
            for (name, answer) in read_everywhere(&text) {
                inputs.fetch_add(1, Ordering::Relaxed);
                match answer {
                    Err(e) => {
                        refused.fetch_add(1, Ordering::Relaxed);
                        if depth > MAX_DEPTH {
                            prop_assert!(e.contains("deep"), "{name}, depth {depth}: {e}");
                        } else {
                            prop_assert!(!e.contains("deep"), "{name}, depth {depth}: {e}");
                        }
                    }
                    Ok(()) => {
                        accepted.fetch_add(1, Ordering::Relaxed);
                        prop_assert!(depth <= MAX_DEPTH, "{name} read depth {depth}");
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    report(
        "nesting depth",
        &[
            ("inputs", &inputs),
            ("refused", &refused),
            ("accepted", &accepted),
        ],
    );
}

/// `levels` levels of anchored collections, each holding `width` aliases of the one below.
fn alias_bomb(levels: usize, width: usize, flow: bool, maps: bool) -> String {
    let mut text = String::from("\n");
    let item = |i: usize, value: &str| {
        if maps {
            format!("k{i}: {value}")
        } else {
            value.to_string()
        }
    };
    for level in 0..levels {
        let value = if level == 0 {
            "x".to_string()
        } else {
            format!("*a{}", level - 1)
        };
        let items: Vec<String> = (0..width).map(|i| item(i, &value)).collect();
        let (open, close) = if maps { ("{", "}") } else { ("[", "]") };
        if flow {
            writeln!(
                text,
                "  l{level}: &a{level} {open}{}{close}",
                items.join(", ")
            )
            .unwrap();
        } else {
            writeln!(text, "  l{level}: &a{level}").unwrap();
            for item in items {
                let dash = if maps { "" } else { "- " };
                writeln!(text, "    {dash}{item}").unwrap();
            }
        }
    }
    text
}

#[test]
fn every_reader_answers_alias_bombs_quickly() {
    let (inputs, refused, accepted) = (
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    );
    let strategy = (1usize..12, 1usize..12, any::<bool>(), any::<bool>());
    runner(256)
        .run(&strategy, |(levels, width, flow, maps)| {
            let text = alias_bomb(levels, width, flow, maps);
            // Nodes the aliases add: each level holds `width` copies of the one below.
            let mut size: f64 = 1.0 + width as f64;
            let mut added = 0.0;
            for _ in 1..levels {
                added += width as f64 * size;
                size = 1.0 + width as f64 * size;
            }
            for (name, answer) in read_everywhere(&text) {
                inputs.fetch_add(1, Ordering::Relaxed);
                match answer {
                    Err(e) => {
                        refused.fetch_add(1, Ordering::Relaxed);
                        if added > 2.0 * MAX_ALIAS_NODES as f64 {
                            prop_assert!(e.contains("alias"), "{name}: {e}");
                        }
                    }
                    Ok(()) => {
                        accepted.fetch_add(1, Ordering::Relaxed);
                        prop_assert!(
                            added <= 2.0 * MAX_ALIAS_NODES as f64,
                            "{name} expanded {added} nodes"
                        );
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    report(
        "alias bombs",
        &[
            ("inputs", &inputs),
            ("refused", &refused),
            ("accepted", &accepted),
        ],
    );
}

#[test]
fn every_reader_answers_token_soup_quickly() {
    let (inputs, refused) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let token = prop::sample::select(vec![
        "[", "]", "{", "}", "- ", ": ", ", ", "\n", "  ", "&a ", "&b ", "*a", "*b", "? ", "k",
        "'q'", "\"q\"", "# c\n", "|\n", ">\n", "---\n", "!t ", "<<: ",
    ]);
    let strategy = (prop::collection::vec(token, 1..64), 1usize..400);
    runner(512)
        .run(&strategy, |(tokens, repeat)| {
            let text = tokens.concat().repeat(repeat);
            for (_, answer) in read_everywhere(&text) {
                inputs.fetch_add(1, Ordering::Relaxed);
                if answer.is_err() {
                    refused.fetch_add(1, Ordering::Relaxed);
                }
            }
            Ok(())
        })
        .unwrap();
    report("token soup", &[("inputs", &inputs), ("refused", &refused)]);
}

/// The commands themselves, on a copy of project-v1 with a hostile value in one of its YAML
/// files: exit 0 or 1 (never a panic or an abort), quickly, and on 1 the tree as it was.
#[test]
fn commands_answer_hostile_yaml_files_and_change_nothing_on_failure() {
    let (inputs, failed, changed) = (
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    );
    let file = prop::sample::select(vec![
        "PROJECT",
        "config/crd/kustomization.yaml",
        "config/rbac/kustomization.yaml",
        "config/default/kustomization.yaml",
        "config/samples/kustomization.yaml",
        "config/rbac/role.yaml",
    ]);
    let hostile = prop_oneof![
        (1usize..10, 2usize..10, any::<bool>(), any::<bool>())
            .prop_map(|(l, w, flow, maps)| alias_bomb(l, w, flow, maps)),
        (
            levels(&[Level::BlockMap, Level::BlockSeq], 0..60),
            deep_levels(&[Level::FlowSeq, Level::FlowMap])
        )
            .prop_map(|(block, flow)| nested(&block, &flow)),
    ];
    let command = prop::sample::select(vec![
        vec![
            "create",
            "api",
            "--group",
            "batch",
            "--version",
            "v2",
            "--kind",
            "Zed",
        ],
        vec!["lint"],
        vec!["generate", "manifests"],
    ]);
    runner(24)
        .run(&(file, hostile, command), |(file, hostile, command)| {
            let dir = tempfile::tempdir().unwrap();
            common::copy_tree(&common::repo_root().join("testdata/project-v1"), dir.path());
            let path = dir.path().join(file);
            let old = std::fs::read_to_string(&path).unwrap();
            std::fs::write(&path, format!("{old}\nextra: {hostile}\n")).unwrap();
            let before = common::snapshot(dir.path());
            let start = Instant::now();
            let out = common::rsbuilder(dir.path(), &command);
            let took = start.elapsed();
            inputs.fetch_add(1, Ordering::Relaxed);
            let err = common::stderr(&out);
            prop_assert!(took < Duration::from_secs(10), "{command:?} took {took:?}");
            prop_assert!(!err.contains("panicked"), "{err}");
            match out.status.code() {
                Some(0) => {}
                Some(1) => {
                    failed.fetch_add(1, Ordering::Relaxed);
                    if common::snapshot(dir.path()) != before {
                        changed.fetch_add(1, Ordering::Relaxed);
                        prop_assert!(false, "{command:?} failed and changed the tree: {err}");
                    }
                }
                other => prop_assert!(false, "{command:?}: exit {other:?}: {err}"),
            }
            Ok(())
        })
        .unwrap();
    report(
        "commands on hostile YAML files",
        &[
            ("runs", &inputs),
            ("failed", &failed),
            ("trees changed on failure", &changed),
        ],
    );
}
