//! Arbitrary input never panics or aborts: the name validators and every reader of Rust
//! source either accept it or say why not.
#![allow(clippy::disallowed_methods)] // reads rsbuilder's and the tools' own YAML output

mod common;
#[path = "robustness/markers.rs"]
mod markers;
#[path = "robustness/yaml.rs"]
mod yaml;

use std::path::PathBuf;

use proptest::prelude::*;
use rsbuilder::commands::create::source;
use rsbuilder::crd::{SourceFile, generate};
use rsbuilder::scaffold::{ListAt, ListEntries};
use rsbuilder::webhook::conversion;
use rsbuilder::{names, syntax};

/// Valid sources from the parity corpus, the seeds for mutation.
fn corpus() -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/crds");
    let mut texts = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable corpus") {
            let path = entry.expect("entry").path();
            if path.is_dir() && !path.ends_with("oracle") && !path.ends_with("target") {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && path.to_string_lossy().contains("/src/")
            {
                texts.push(std::fs::read_to_string(&path).expect("readable source"));
            }
        }
    }
    texts.sort();
    texts
}

fn read(text: String) {
    let source = SourceFile {
        path: PathBuf::from("src/api/fuzz.rs"),
        text,
    };
    // Either CRDs or diagnostics; a panic fails the property.
    let _ = generate(&[source]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn validators_never_panic(s in "\\PC{0,80}") {
        let _ = names::label("name", &s);
        let _ = names::subdomain("domain", &s);
        let _ = names::version(&s);
        let _ = names::version_priority(&s);
        let _ = names::version_order(&s);
        let _ = names::kind(&s);
        let _ = names::plural(&s);
        let _ = names::crd_group(&s);
        let _ = names::served_version(&s);
        let _ = names::served_kind(&s);
        let _ = names::free_text("owner", &s);
    }

    #[test]
    fn validators_never_accept_path_tricks(prefix in "[a-z0-9]{0,5}", suffix in "[a-z0-9]{0,5}", trick in prop::sample::select(vec!["/", "..", "\\", "\0"])) {
        let s = format!("{prefix}{trick}{suffix}");
        prop_assert!(names::label("name", &s).is_err());
        prop_assert!(names::version(&s).is_err());
        prop_assert!(names::kind(&s).is_err());
        prop_assert!(names::plural(&s).is_err());
        prop_assert!(names::served_version(&s).is_err());
        prop_assert!(names::served_kind(&s).is_err());
        if trick != ".." {
            prop_assert!(names::subdomain("domain", &s).is_err());
            prop_assert!(names::crd_group(&s).is_err());
        }
    }

    /// Names every rule accepts make only paths inside the project: the types file, the
    /// CRD file `generate crds` writes, the conversion patch.
    #[test]
    fn accepted_names_make_paths_inside_the_project(
        group in "[a-z0-9./_-]{1,12}",
        version in "[a-z0-9./]{1,8}",
        kind in "[A-Za-z0-9./_]{1,10}",
        plural in "[a-z0-9./-]{1,10}",
    ) {
        let accepted = names::crd_group(&group).is_ok()
            && names::served_version(&version).is_ok()
            && names::served_kind(&kind).is_ok()
            && names::plural(&plural).is_ok();
        if accepted {
            for path in [
                format!("src/api/{}/{version}/{}.rs", group.replace(['-', '.'], "_"), kind.to_lowercase()),
                format!("config/crd/bases/{group}_{plural}.yaml"),
                format!("config/crd/patches/webhook_in_{plural}.yaml"),
            ] {
                let inside = std::path::Path::new(&path)
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)));
                prop_assert!(inside, "{path}");
            }
        }
    }

    /// Free text is one printable line.
    #[test]
    fn accepted_free_text_is_one_printable_line(s in "\\PC{0,40}|.{0,40}") {
        if names::free_text("owner", &s).is_ok() {
            let unprintable = s.chars().any(|c| {
                c.is_control()
                    || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
            });
            prop_assert!(!unprintable, "{:?}", s);
        }
    }

    #[test]
    fn the_source_reader_never_panics_on_arbitrary_text(text in "\\PC{0,200}") {
        read(text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Mutations of real CRD sources reach deep into the schema builder: delete a byte
    /// range, or splice in a token that changes a type or attribute.
    #[test]
    fn the_source_reader_never_panics_on_mutated_crds(
        seed in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        len in 0usize..40,
        token in prop::sample::select(vec![
            "", "Option<", ">", "Vec<", "#[serde(flatten)]", "#[serde(untagged)]", "#[serde(default)]",
            "#[schemars(range(min = 1))]", "(u8)", "{ a: u8 }", "storage = false,", "namespaced,",
            "Box<Self>", "u128", "f32", "()", "HashMap<u8, u8>", "#[serde(tag = \"t\")]", "crate::",
        ]),
    ) {
        let corpus = corpus();
        let text = seed.get(&corpus);
        let mut start = at.index(text.len().max(1));
        while !text.is_char_boundary(start) { start -= 1; }
        let mut end = (start + len).min(text.len());
        while !text.is_char_boundary(end) { end -= 1; }
        read(format!("{}{token}{}", &text[..start], &text[end..]));
    }
}

/// One way to nest Rust `depth` levels deep: what comes before the innermost value, the
/// value, and what closes each level.
struct Nesting {
    open: &'static str,
    inner: &'static str,
    close: &'static str,
}

/// Every construct syn (or rsbuilder's walks over its trees) handles by recursion.
const NESTINGS: &[Nesting] = &[
    Nesting {
        open: "Vec<",
        inner: "u8",
        close: ">",
    },
    Nesting {
        open: "Option<Vec<",
        inner: "u8",
        close: ">>",
    },
    Nesting {
        open: "(",
        inner: "u8",
        close: ",)",
    },
    Nesting {
        open: "[",
        inner: "u8",
        close: "; 1]",
    },
    Nesting {
        open: "&",
        inner: "u8",
        close: "",
    },
    Nesting {
        open: "&'static mut ",
        inner: "u8",
        close: "",
    },
    Nesting {
        open: "*const ",
        inner: "u8",
        close: "",
    },
    Nesting {
        open: "fn() -> ",
        inner: "u8",
        close: "",
    },
    Nesting {
        open: "Box<dyn Fn() -> ",
        inner: "u8",
        close: ">",
    },
    Nesting {
        open: "impl Iterator<Item = ",
        inner: "u8",
        close: ">",
    },
    Nesting {
        open: "<T as Tr<",
        inner: "u8",
        close: ">>::X",
    },
];

/// Expression constructs, nested inside a function body or a constant.
const EXPRESSIONS: &[Nesting] = &[
    Nesting {
        open: "(",
        inner: "1",
        close: ")",
    },
    Nesting {
        open: "[",
        inner: "1",
        close: "]",
    },
    Nesting {
        open: "{",
        inner: "1",
        close: "}",
    },
    Nesting {
        open: "!",
        inner: "true",
        close: "",
    },
    Nesting {
        open: "- ",
        inner: "1",
        close: "",
    },
    Nesting {
        open: "&",
        inner: "1",
        close: "",
    },
    Nesting {
        open: "|| ",
        inner: "1",
        close: "",
    },
    Nesting {
        open: "move |x| ",
        inner: "1",
        close: "",
    },
    Nesting {
        open: "return ",
        inner: "1",
        close: "",
    },
    Nesting {
        open: "unsafe { ",
        inner: "1",
        close: " }",
    },
    Nesting {
        open: "if a { ",
        inner: "1",
        close: " } else { 2 }",
    },
    Nesting {
        open: "a = ",
        inner: "1",
        close: "",
    },
    Nesting {
        open: "",
        inner: "a",
        close: ".b()",
    },
    Nesting {
        open: "",
        inner: "a",
        close: " + 1",
    },
    Nesting {
        open: "",
        inner: "a",
        close: " as u8",
    },
    Nesting {
        open: "",
        inner: "a",
        close: "?",
    },
    Nesting {
        open: "",
        inner: "a",
        close: "[0]",
    },
    Nesting {
        open: "",
        inner: "f",
        close: "(1)",
    },
    Nesting {
        open: "..",
        inner: "1",
        close: "",
    },
    Nesting {
        open: "",
        inner: "a",
        close: " else if b {}",
    },
];

fn nested(n: &Nesting, depth: usize) -> String {
    format!(
        "{}{}{}",
        n.open.repeat(depth),
        n.inner,
        n.close.repeat(depth)
    )
}

/// Where the nested code goes: a field type of a kind, a type alias, a module tree, an
/// expression, a `#[serde(default = "...")]` path or a `#[kube(status = "...")]` type.
fn place(context: usize, ty: &str, expr: &str, depth: usize) -> String {
    let kind = |field: &str, attrs: &str| {
        format!(
            "use kube::CustomResource;\nuse schemars::JsonSchema;\nuse serde::{{Deserialize, Serialize}};\n\
             #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]\n\
             #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Thing\"{attrs})]\n\
             pub struct ThingSpec {{\n{field}\n}}\n"
        )
    };
    match context {
        0 => kind(&format!("    pub a: {ty},"), ""),
        1 => format!("pub type T = {ty};\n"),
        2 => format!(
            "{}pub struct S;{}\n",
            "mod a {\n".repeat(depth),
            "}\n".repeat(depth)
        ),
        3 => format!("pub fn f() {{\n    let _ = {expr};\n}}\n"),
        4 => format!("pub const X: u8 = {expr};\n"),
        5 => kind(
            &format!("    #[serde(default = {:?})]\n    pub a: u8,", ty),
            "",
        ),
        _ => kind("    pub a: u8,", &format!(", status = {ty:?}")),
    }
}

/// Every reader of Rust in rsbuilder but `generate`, on one file.
fn read_everywhere(text: &str) {
    let source = SourceFile {
        path: PathBuf::from("src/api/deep.rs"),
        text: text.to_string(),
    };
    let _ = source::kube_info(text, "Thing");
    let _ = source::set_storage(text, "Thing", false);
    let _ = source::storage_alias(text, "thing");
    if let Ok(sources) = conversion::Sources::parse(std::slice::from_ref(&source)) {
        let _ = conversion::sample_code(&sources, "t.example.com", "Thing", "v1", "kind", "", 0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Nesting up to 100,000 levels deep never aborts: each reader answers on the stack
    /// every command runs on, and input nested deeper than the bound is refused at its
    /// line. (Every reader goes through `syntax::parse_file`, which lexes the whole file
    /// first; past the bound they are given 25,000 levels, which is refused just the same
    /// and lexes four times faster in a debug build.)
    #[test]
    fn nesting_up_to_100k_deep_never_aborts(
        ty in prop::sample::select((0..NESTINGS.len()).collect::<Vec<_>>()),
        expr in prop::sample::select((0..EXPRESSIONS.len()).collect::<Vec<_>>()),
        context in 0usize..7,
        depth in prop_oneof![
            3 => 1usize..64,
            3 => 64usize..4_000,
            2 => 4_000usize..30_000,
            1 => Just(100_000usize),
        ],
    ) {
        let text = |depth| {
            place(context, &nested(&NESTINGS[ty], depth), &nested(&EXPRESSIONS[expr], depth), depth)
        };
        let deepest = text(depth);
        let outcome = syntax::with_big_stack(|| {
            read_everywhere(&text(depth.min(25_000)));
            let source = SourceFile { path: PathBuf::from("src/api/deep.rs"), text: deepest.clone() };
            generate(&[source]).err().map(|d| d.to_string())
        })
        .expect("a thread");
        if depth > syntax::MAX_COST {
            let message = outcome.unwrap_or_default();
            prop_assert!(
                message.contains("src/api/deep.rs:") && message.contains("nests too deeply"),
                "depth {depth}, context {context}: {message}"
            );
        }
    }
}

/// A PROJECT file as `init` + `create api` (twice) + `create webhook --conversion` leave it.
const PROJECT: &str = "version: '1'
layout: rsbuilder.io/v1
domain: example.com
projectName: demo
cliVersion: 0.1.0
namespaced: false
resources:
- group: batch
  version: v1
  kind: CronJob
  plural: cronjobs
  domain: example.com
  namespaced: true
  controller: true
  path: src/api/batch/v1/cron_job.rs
  webhooks:
    conversion: true
    spoke:
    - v2
- group: apps
  version: v1
  kind: Deployment
  plural: deployments
  domain: ''
  namespaced: true
  controller: true
";

/// Values a hand-edited PROJECT may hold: names, path tricks, control characters.
fn project_value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-z0-9-]{0,10}",
        "[A-Z][a-zA-Z0-9]{0,10}",
        "v[0-9]{1,2}(alpha|beta)?[0-9]?",
        "(src/|/|\\.\\./|\\./)?([a-z.]{1,4}/){0,3}[a-z_]{1,8}(\\.rs)?",
        "\\PC{0,12}",
        ".{0,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Whatever a PROJECT file says in place of one value, reading it never panics, and
    /// what it accepts passes the command line's rules: no name or path leaves the project.
    #[test]
    fn project_files_are_accepted_only_with_valid_names_and_paths(
        field in prop::sample::select(vec![
            "version: '1'", "layout: rsbuilder.io/v1", "domain: example.com", "projectName: demo",
            "group: batch", "version: v1", "kind: CronJob", "plural: cronjobs",
            "path: src/api/batch/v1/cron_job.rs", "- v2", "group: apps", "kind: Deployment",
            "domain: ''",
        ]),
        value in project_value(),
    ) {
        let key = field.split(':').next().unwrap_or("-");
        let quoted = serde_yaml::to_string(&value).unwrap();
        let replacement = if key == "- v2" {
            format!("- {}", quoted.trim_end())
        } else {
            format!("{key}: {}", quoted.trim_end())
        };
        let text = PROJECT.replacen(field, &replacement, 1);
        let Ok(project) = rsbuilder::project::Project::parse(&text) else {
            return Ok(());
        };
        prop_assert_eq!(project.version.as_str(), "1");
        prop_assert_eq!(project.layout.as_str(), "rsbuilder.io/v1");
        prop_assert!(names::subdomain("domain", &project.domain).is_ok());
        prop_assert!(names::label("project name", &project.project_name).is_ok());
        for r in &project.resources {
            prop_assert!(names::subdomain("group", &r.group).is_ok(), "{:?}", r.group);
            prop_assert!(names::version(&r.version).is_ok(), "{:?}", r.version);
            prop_assert!(names::kind(&r.kind).is_ok(), "{:?}", r.kind);
            prop_assert!(names::plural(&r.plural).is_ok(), "{:?}", r.plural);
            for spoke in &r.webhooks.spoke {
                prop_assert!(names::version(spoke).is_ok(), "{:?}", spoke);
            }
            if let Some(path) = &r.path {
                let inside = std::path::Path::new(path)
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)));
                prop_assert!(inside && path.ends_with(".rs"), "{:?}", path);
            }
        }
    }

    /// Arbitrary damage to a PROJECT file is an error or a valid project, never a panic.
    #[test]
    fn damaged_project_files_never_panic(
        at in any::<prop::sample::Index>(),
        len in 0usize..20,
        insert in "\\PC{0,8}",
    ) {
        let mut start = at.index(PROJECT.len());
        while !PROJECT.is_char_boundary(start) { start -= 1; }
        let end = (start + len).min(PROJECT.len());
        let text = format!("{}{insert}{}", &PROJECT[..start], &PROJECT[end..]);
        let _ = rsbuilder::project::Project::parse(&text);
    }
}

/// A kustomization as a user may have rewritten it: comments, indented and flow lists.
const KUSTOMIZATION: &str = "# The CRDs.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - bases/a.example.com_things.yaml
# +rsbuilder:scaffold:crd-resources
patches:
# my own patch
- path: patches/mine.yaml
  target:
    kind: CustomResourceDefinition
replacements:
- source:
    kind: Certificate
    name: serving-cert
  targets:
  - select:
      kind: ValidatingWebhookConfiguration
configurations: [kustomizeconfig.yaml]
";

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Whatever a kustomization holds, adding entries to its lists never panics; what it
    /// writes parses, has each list once, keeps every entry it had and adds the new ones.
    #[test]
    fn kustomization_lists_are_extended_or_refused(
        at in any::<prop::sample::Index>(),
        len in 0usize..30,
        insert in prop::sample::select(vec![
            "", "patches:\n", "- path: x.yaml\n", "  ", "\t", "[", "{", "}", "- ", ": ",
            "# +rsbuilder:scaffold:crd-patches\n", "patches: []\n", "---\n", "&a ", "*a",
            "resources:\n- a\n", "\n", "'", "\"",
        ]),
        which in 0usize..3,
    ) {
        let mut start = at.index(KUSTOMIZATION.len());
        while !KUSTOMIZATION.is_char_boundary(start) { start -= 1; }
        let end = (start + len).min(KUSTOMIZATION.len());
        let text = format!("{}{insert}{}", &KUSTOMIZATION[..start], &KUSTOMIZATION[end..]);
        let edit = match which {
            0 => ListEntries::new("patches", "crd-patches", "- path: patches/webhook_in_things.yaml\n").by("path"),
            1 => ListEntries::new("resources", "crd-resources", "- bases/b.example.com_others.yaml\n"),
            _ => ListEntries {
                list: ListAt::Within {
                    key: "replacements".into(),
                    select: "source".into(),
                    value: serde_yaml::from_str("kind: Certificate\nname: serving-cert").unwrap(),
                    field: "targets".into(),
                },
                marker: "ca-injection-namespace".into(),
                fragment: "- select:\n    kind: CustomResourceDefinition\n".into(),
                identity: None,
            },
        };
        let Ok(edited) = edit.apply(&text) else { return Ok(()); };
        let old: serde_yaml::Value = serde_yaml::from_str(&text).expect("accepted input parses");
        let new: serde_yaml::Value = serde_yaml::from_str(&edited).expect("the result parses");
        let list = |doc: &serde_yaml::Value| -> Vec<serde_yaml::Value> {
            let holder = match &edit.list {
                ListAt::Key(_) => Some(doc),
                ListAt::Within { key, select, value, .. } => doc.get(key.as_str())
                    .and_then(|l| l.as_sequence())
                    .and_then(|l| l.iter().find(|e| e.get(select.as_str()) == Some(value))),
            };
            let field = match &edit.list { ListAt::Key(k) => k, ListAt::Within { field, .. } => field };
            holder.and_then(|h| h.get(field.as_str())).and_then(|l| l.as_sequence()).cloned().unwrap_or_default()
        };
        let (before, after) = (list(&old), list(&new));
        prop_assert!(after.starts_with(&before), "entries lost:\n{text}\n---\n{edited}");
        let wanted: Vec<serde_yaml::Value> = serde_yaml::from_str(&edit.fragment).unwrap();
        for entry in wanted {
            prop_assert!(after.iter().any(|e| e.get("path").zip(entry.get("path")).map_or(e == &entry, |(a, b)| a == b)));
        }
        if let (Some(o), Some(n)) = (old.as_mapping(), new.as_mapping()) {
            for (key, value) in o {
                let field = match &edit.list { ListAt::Key(k) | ListAt::Within { key: k, .. } => k };
                if key.as_str() != Some(field.as_str()) {
                    prop_assert_eq!(n.get(key), Some(value), "{:?} changed", key);
                }
            }
        }
    }
}

/// A freshly initialised project, made once and copied for each case.
fn initialised() -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        common::ok(&common::rsbuilder(
            dir.path(),
            &["init", "--domain", "example.com", "--project-name", "demo"],
        ));
        dir
    })
    .path()
}

/// A name as a careless or hostile user types it.
fn typed_name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-z0-9]{0,6}",
        "[A-Z][a-zA-Z0-9]{0,8}",
        "v[0-9](alpha|beta)?[0-9]?",
        "(\\.\\./|/|\\./)?[a-zA-Z0-9._/-]{0,12}",
        "\\PC{0,10}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// `create api` with any names either succeeds inside the project or exits 1 with the
    /// tree (and everything beside it) exactly as it was.
    #[test]
    fn create_api_with_any_names_succeeds_inside_or_changes_nothing(
        group in typed_name(),
        version in typed_name(),
        kind in typed_name(),
        plural in proptest::option::of(typed_name()),
    ) {
        let outer = tempfile::tempdir().unwrap();
        let project = outer.path().join("p");
        common::copy_tree(initialised(), &project);
        let before = common::snapshot(outer.path());
        let mut args = vec!["create", "api", "--group", &group, "--version", &version, "--kind", &kind];
        if let Some(plural) = &plural {
            args.extend(["--plural", plural.as_str()]);
        }
        let out = common::rsbuilder(&project, &args);
        let after = common::snapshot(outer.path());
        let stderr = common::stderr(&out);
        prop_assert!(!stderr.contains("panicked"), "{stderr}");
        match out.status.code() {
            Some(0) => {
                for path in after.keys().filter(|p| !before.contains_key(*p)) {
                    prop_assert!(path.starts_with("p"), "{} written outside", path.display());
                }
            }
            Some(1) | Some(2) => prop_assert_eq!(&after, &before, "{}", stderr),
            other => prop_assert!(false, "exit {other:?}: {stderr}"),
        }
    }
}
