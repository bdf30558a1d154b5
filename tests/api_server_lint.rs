//! `lint` judged by the real API server: where both decide, `lint`'s verdict must be the
//! server's — every sample or CRD the server refuses is a `lint` error, and every `lint`
//! error of a class the server decides is refused by it.
//!
//! - Samples: every CRD rsbuilder generates (the parity corpus and the golden projects), one
//!   object per served version setting every field, and variations of it that each change
//!   one thing (`common::instances`).
//! - CRDs: the same CRDs with one printer column, selectable field or CEL rule changed
//!   (`common::crd_mutations`), and `testdata/lint-seeded`'s CRD; for each mutated rule the
//!   server accepts, the object that sets every field, judged by the rule.
//!
//! The server's verdict is a dry-run `kubectl create`, with the strict field validation
//! kubectl asks for by default: the object is decoded, defaulted, validated against the
//! schema and its CEL rules (a CRD: against the CRD validation rules, CEL compilation and
//! cost included), and not stored
//! (https://kubernetes.io/docs/reference/using-api/api-concepts/#dry-run,
//! https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation,
//! https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation-rules).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use common::api_server::ApiServer;
use common::api_server::api_server;
use common::{crd_cases, crd_mutations, golden_projects, instances, repo_root};
use serde_json::{Value, json};

/// At most this many variations per CRD version, spread over its fields.
const PER_VERSION: usize = 60;

/// A set of CRDs judged together (they may share names with another set's).
struct Case {
    name: String,
    crds: Vec<(String, String)>,
}

fn corpus() -> Vec<Case> {
    let mut cases = Vec::new();
    for case in crd_cases::cases() {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let crds = crd_cases::generate(&case).unwrap_or_else(|e| panic!("{name}: {e}"));
        cases.push(Case {
            name: format!("testdata/crds/{name}"),
            crds: crds.into_iter().collect(),
        });
    }
    for project in golden_projects() {
        let bases = repo_root()
            .join("testdata")
            .join(&project)
            .join("config/crd/bases");
        let Ok(entries) = fs::read_dir(&bases) else {
            continue;
        };
        let mut crds: Vec<(String, String)> = entries
            .map(|e| e.unwrap().path())
            .map(|p| {
                let text = fs::read_to_string(&p).unwrap();
                (p.file_name().unwrap().to_string_lossy().into_owned(), text)
            })
            .collect();
        crds.sort();
        cases.push(Case {
            name: format!("testdata/{project}"),
            crds,
        });
    }
    cases
}

/// A sample shown to both: where it came from and what it varies.
struct Sample {
    case: String,
    crd: String,
    what: String,
}

/// The outcome of one sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    BothRefuse,
    BothAccept,
    OnlyLintRefuses,
    OnlyServerRefuses,
    /// The server refuses, lint says it cannot evaluate a rule of the kind.
    Unsupported,
}

/// Every variation of every served version's full object: what it varies, and the object
/// named `s<n>`, counting from `first`.
fn samples_of(crd: &Value, first: usize) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    let kind = crd["spec"]["names"]["kind"].as_str().unwrap();
    for version in crd["spec"]["versions"].as_array().unwrap() {
        if version["served"] != true {
            continue;
        }
        let schema = &version["schema"]["openAPIV3Schema"];
        let object = full_object(crd, version, json!({}));
        let mut variations: Vec<instances::Variation> = instances::variations(schema, &object)
            .into_iter()
            .filter(|v| {
                // The root and its head are what every object has; varied below.
                ![":", ".apiVersion", ".kind", ".metadata"]
                    .iter()
                    .any(|head| v.what.starts_with(head))
            })
            .collect();
        let step = variations.len().div_ceil(PER_VERSION).max(1);
        variations = variations.into_iter().step_by(step).collect();
        variations.insert(
            0,
            instances::Variation {
                what: "every field".into(),
                object: object.clone(),
            },
        );
        let mut bad_name = object.clone();
        bad_name["metadata"]["name"] = json!("Not_A_DNS_Name");
        variations.push(instances::Variation {
            what: ".metadata.name: not a DNS subdomain".into(),
            object: bad_name,
        });
        for variation in variations {
            let name = format!("s{}", first + out.len());
            let mut object = variation.object;
            if object["metadata"]["name"].is_null() {
                object["metadata"]["name"] = json!(name);
            }
            let what = format!(
                "{kind} {}: {}",
                version["name"].as_str().unwrap(),
                variation.what
            );
            out.push((what, name, object));
        }
    }
    out
}

/// Lint's rules whose verdicts the API server does not share (it stores such CRDs and
/// objects): left out of the comparison.
const NOT_THE_SERVERS: &[&str] = &[
    "version-field-dropped",
    "version-type-changed",
    "storage-version-changed",
    "rbac-missing",
    "api-deprecated",
    "api-removed",
];

/// Counts of verdicts, and the disagreements in words.
#[derive(Default)]
struct Judged {
    verdicts: BTreeMap<Verdict, usize>,
    disagreements: Vec<String>,
}

impl Judged {
    /// Records what lint and the server said of `file`, shown as `what`; `unsupported`: lint
    /// said it cannot evaluate a rule that applies.
    fn record(
        &mut self,
        what: &str,
        lint: Option<&String>,
        server: Option<&String>,
        unsupported: bool,
    ) {
        let verdict = match (lint, server) {
            (Some(_), Some(_)) => Verdict::BothRefuse,
            (None, None) => Verdict::BothAccept,
            (Some(_), None) => Verdict::OnlyLintRefuses,
            (None, Some(_)) if unsupported => Verdict::Unsupported,
            (None, Some(_)) => Verdict::OnlyServerRefuses,
        };
        *self.verdicts.entry(verdict).or_default() += 1;
        if matches!(
            verdict,
            Verdict::OnlyLintRefuses | Verdict::OnlyServerRefuses
        ) {
            self.disagreements.push(format!(
                "{what}\n    lint: {}\n    server: {}",
                lint.map_or("accepts", String::as_str),
                server.map_or("accepts", String::as_str),
            ));
        }
    }

    /// The counts, and an error where lint and the server disagree or fewer than
    /// `at_least` were judged.
    fn verdicts(&self, what: &str, at_least: usize) -> Result<(), String> {
        let total: usize = self.verdicts.values().sum();
        eprintln!("lint and the API server on {what}: {:?}", self.verdicts);
        if !self.disagreements.is_empty() {
            return Err(format!(
                "{} of {total} {what} judged differently:\n{}",
                self.disagreements.len(),
                self.disagreements.join("\n")
            ));
        }
        if total < at_least {
            return Err(format!("only {total} {what}"));
        }
        Ok(())
    }
}

#[test]
#[ignore = "needs kube-apiserver and etcd (KUBEBUILDER_ASSETS); run with --include-ignored"]
fn lint_refuses_the_samples_the_api_server_refuses() {
    let server = api_server();
    let mut judged = Judged::default();
    for case in corpus() {
        let dir = tempfile::tempdir().unwrap();
        let (crd_dir, sample_dir) = (dir.path().join("crds"), dir.path().join("samples"));
        fs::create_dir_all(&crd_dir).unwrap();
        fs::create_dir_all(&sample_dir).unwrap();
        let mut samples: BTreeMap<String, Sample> = BTreeMap::new();
        let mut names = Vec::new();
        for (file, text) in &case.crds {
            fs::write(crd_dir.join(file), text).unwrap();
            for doc in common::documents(text) {
                let crd: Value = serde_json::to_value(&doc).unwrap();
                let crd_name = crd["metadata"]["name"].as_str().unwrap().to_string();
                for (what, file, object) in samples_of(&crd, samples.len()) {
                    write_json(&sample_dir.join(format!("{file}.yaml")), &object);
                    let crd = crd_name.clone();
                    samples.insert(
                        file,
                        Sample {
                            case: case.name.clone(),
                            crd,
                            what,
                        },
                    );
                }
                names.push(crd_name);
            }
        }
        for name in &names {
            let _ = server.kubectl(&["delete", &format!("crd/{name}"), "--ignore-not-found"]);
        }
        server
            .apply(&crd_dir)
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        for name in &names {
            server.established(name).unwrap();
        }
        let findings = lint_errors(dir.path());
        let server_refuses = refused_by_server(server, &sample_dir);
        for (file, sample) in &samples {
            let what = format!("{} {file}: {}", sample.case, sample.what);
            let lint = findings.errors.get(&format!("samples/{file}.yaml"));
            let by_server = server_refuses.get(file);
            let unsupported = findings.unsupported.contains(&sample.crd);
            judged.record(&what, lint, by_server, unsupported);
        }
        for name in &names {
            server.delete_crd(name);
        }
    }
    judged
        .verdicts("samples", 300)
        .unwrap_or_else(|e| panic!("{e}"));
}

/// The label of the mutated CRDs, to delete them together.
const MUTATION_LABEL: &str = "rsbuilder.test/mutation";

/// Each source CRD contributes every this many of its mutations.
const MUTATION_STEP: usize = 8;

/// How many mutated CRDs are installed at once to judge samples by their rules.
const INSTALL_CHUNK: usize = 40;

#[test]
#[ignore = "needs kube-apiserver and etcd (KUBEBUILDER_ASSETS); run with --include-ignored"]
fn lint_refuses_the_crds_the_api_server_refuses() {
    let server = api_server();
    let dir = tempfile::tempdir().unwrap();
    let (crd_dir, sample_dir) = (dir.path().join("crds"), dir.path().join("samples"));
    fs::create_dir_all(&crd_dir).unwrap();
    fs::create_dir_all(&sample_dir).unwrap();
    // What each CRD file is, and whether it changes a rule (then its sample is judged too).
    let mut mutated: BTreeMap<String, (String, bool)> = BTreeMap::new();
    let mut seen_sources = BTreeSet::new();
    for case in corpus() {
        for (file, text) in &case.crds {
            for doc in common::documents(text) {
                let crd: Value = serde_json::to_value(&doc).unwrap();
                // One CRD of a name (the goldens share some): mutations are of its fields.
                if !seen_sources.insert(crd["metadata"]["name"].to_string()) {
                    continue;
                }
                // Every source takes its own share of the mutations (the corpus has far
                // more than a test can install), so each kind of mutation meets several
                // shapes of schema.
                let source = seen_sources.len();
                let all = crd_mutations::mutations(&crd);
                let share = all
                    .into_iter()
                    .skip(source % MUTATION_STEP)
                    .step_by(MUTATION_STEP);
                for mutation in share {
                    let n = mutated.len();
                    let crd = crd_mutations::renamed(&mutation.crd, n, MUTATION_LABEL);
                    write_json(&crd_dir.join(format!("mut{n}.yaml")), &crd);
                    let what = format!("{} {file}: {}", case.name, mutation.what);
                    let rule = mutation.what.contains(": rule at");
                    mutated.insert(format!("mut{n}"), (what, rule));
                }
            }
        }
    }
    let seeded = repo_root().join("testdata/lint-seeded/config/crd/bases");
    for entry in fs::read_dir(&seeded).unwrap() {
        let path = entry.unwrap().path();
        let n = mutated.len();
        fs::copy(&path, crd_dir.join(format!("mut{n}.yaml"))).unwrap();
        let what = format!(
            "testdata/lint-seeded: {}",
            path.file_name().unwrap().to_string_lossy()
        );
        mutated.insert(format!("mut{n}"), (what, false));
    }

    let server_refuses = refused_by_server(server, &crd_dir);
    // The rules the server accepts, installed a few at a time, judge the object that sets
    // every field of their version.
    let accepted: Vec<&String> = mutated
        .iter()
        .filter(|(file, (_, rule))| *rule && !server_refuses.contains_key(*file))
        .map(|(file, _)| file)
        .collect();
    let mut sample_refusals = BTreeMap::new();
    for chunk in accepted.chunks(INSTALL_CHUNK) {
        let install = tempfile::tempdir().unwrap();
        let chunk_samples = tempfile::tempdir().unwrap();
        for file in chunk {
            let crd = read_json(&crd_dir.join(format!("{file}.yaml")));
            write_json(&install.path().join(format!("{file}.yaml")), &crd);
            let object = first_served_object(&crd, file);
            write_json(&sample_dir.join(format!("{file}.yaml")), &object);
            write_json(&chunk_samples.path().join(format!("{file}.yaml")), &object);
        }
        let created = server.kubectl(&["create", "-f", install.path().to_str().unwrap()]);
        assert!(created.status.success(), "{}", common::stderr(&created));
        let wait = server.kubectl(&[
            "wait",
            "--for=condition=Established",
            "crd",
            "-l",
            MUTATION_LABEL,
            "--timeout=120s",
        ]);
        assert!(wait.status.success(), "{}", common::stderr(&wait));
        sample_refusals.extend(refused_by_server(server, chunk_samples.path()));
        let label = format!("{MUTATION_LABEL}=true");
        let deleted = server.kubectl(&["delete", "crd", "-l", &label, "--wait=true"]);
        assert!(deleted.status.success(), "{}", common::stderr(&deleted));
    }

    let findings = lint_errors(dir.path());
    let mut crds = Judged::default();
    let mut samples = Judged::default();
    for (file, (what, _)) in &mutated {
        let path = format!("crds/{file}.yaml");
        let unsupported = findings.unsupported_files.contains(&path);
        let lint = findings.errors.get(&path);
        crds.record(what, lint, server_refuses.get(file), unsupported);
        if accepted.contains(&file) {
            let lint = findings.errors.get(&format!("samples/{file}.yaml"));
            let what = format!("{what}, the object setting every field");
            samples.record(&what, lint, sample_refusals.get(file), unsupported);
        }
    }
    let verdicts = [
        crds.verdicts("mutated CRDs", 300),
        samples.verdicts("objects under mutated rules", 100),
    ];
    let failed: Vec<&String> = verdicts.iter().filter_map(|v| v.as_ref().err()).collect();
    assert!(failed.is_empty(), "{failed:?}");
}

/// The object that sets every field of `version` of `crd`, with `metadata`.
fn full_object(crd: &Value, version: &Value, metadata: Value) -> Value {
    let mut object = instances::full(&version["schema"]["openAPIV3Schema"]);
    object["apiVersion"] = json!(format!(
        "{}/{}",
        crd["spec"]["group"].as_str().unwrap(),
        version["name"].as_str().unwrap()
    ));
    object["kind"] = crd["spec"]["names"]["kind"].clone();
    object["metadata"] = metadata;
    object
}

/// The object that sets every field of `crd`'s first served version, named `name`.
fn first_served_object(crd: &Value, name: &str) -> Value {
    let versions = crd["spec"]["versions"].as_array().unwrap();
    let version = versions.iter().find(|v| v["served"] == true).unwrap();
    let metadata = if crd["spec"]["scope"] == "Cluster" {
        json!({"name": name})
    } else {
        json!({"name": name, "namespace": "default"})
    };
    full_object(crd, version, metadata)
}

fn write_json(path: &Path, value: &Value) {
    // JSON is YAML, and nothing in it reads as a YAML 1.1 boolean.
    fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// What lint says of `dir/crds` and `dir/samples`.
struct LintErrors {
    /// The error findings of the classes the server decides, by file (`crds/x.yaml`).
    errors: BTreeMap<String, String>,
    /// The CRDs (by name) with a rule lint cannot evaluate.
    unsupported: BTreeSet<String>,
    /// The same, by file.
    unsupported_files: BTreeSet<String>,
}

fn lint_errors(dir: &Path) -> LintErrors {
    let out = common::rsbuilder(
        dir,
        &[
            "lint",
            "--crds",
            "crds",
            "--samples",
            "samples",
            "--format",
            "json",
        ],
    );
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("lint's JSON: {e}\n{}", common::stderr(&out)));
    let mut found = LintErrors {
        errors: BTreeMap::new(),
        unsupported: BTreeSet::new(),
        unsupported_files: BTreeSet::new(),
    };
    for finding in report["findings"].as_array().unwrap() {
        let file = finding["file"].as_str().unwrap().to_string();
        let rule = finding["rule"].as_str().unwrap();
        if rule == "cel-unsupported" {
            let text = fs::read_to_string(dir.join(&file)).unwrap();
            for doc in common::documents(&text) {
                let name = doc["metadata"]["name"].as_str().unwrap().to_string();
                found.unsupported.insert(name);
            }
            found.unsupported_files.insert(file.clone());
        }
        if finding["severity"] != "error" || NOT_THE_SERVERS.contains(&rule) {
            continue;
        }
        let line = format!("{rule} {}", finding["message"]);
        found
            .errors
            .entry(file)
            .and_modify(|all| {
                all.push_str("; ");
                all.push_str(&line)
            })
            .or_insert(line);
    }
    found
}

/// The files of `dir` the API server refuses to create, by file stem, with its reasons:
/// one dry-run `kubectl create` of the whole directory (kubectl goes on past a refused
/// object and names the file of each refusal).
fn refused_by_server(server: &ApiServer, dir: &Path) -> BTreeMap<String, String> {
    let out = server.kubectl(&[
        "create",
        "--dry-run=server",
        "-o",
        "name",
        "-f",
        dir.to_str().unwrap(),
    ]);
    let stderr = common::stderr(&out);
    let mut refused = BTreeMap::new();
    for error in stderr.split("Error from server").skip(1) {
        let file = error
            .split("error when creating \"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_else(|| panic!("kubectl names no file in: {error}"));
        let stem = Path::new(file)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        refused.insert(stem, error.trim().to_string());
    }
    // One refusal alone is printed without its file: `The <Kind> "<name>" is invalid: ...`
    // (kubectl's format for a single Invalid status). Every object is named as its file.
    if let Some(single) = stderr.strip_prefix("The ")
        && refused.is_empty()
    {
        let name = single
            .split('"')
            .nth(1)
            .unwrap_or_else(|| panic!("kubectl names no object in: {stderr}"));
        refused.insert(name.to_string(), stderr.trim().to_string());
    }
    let created = common::stdout(&out).lines().count();
    let files = fs::read_dir(dir).unwrap().count();
    assert_eq!(
        created + refused.len(),
        files,
        "kubectl judged {created} + {} of {files} files:\n{stderr}",
        refused.len()
    );
    refused
}
