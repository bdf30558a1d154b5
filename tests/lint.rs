//! `rsbuilder lint`, rule by rule: each rule has an input that fails it and one that
//! passes, both small edits of the golden project testdata/project-v1 (which lints clean).

mod common;

use std::path::Path;
use std::process::Command;

use common::*;
use serde_json::Value;

const CRD: &str = "config/crd/bases/batch.example.com_cronjobs.yaml";
const SAMPLE: &str = "config/samples/batch_v1_cronjob.yaml";
const WEBHOOK_PATCH: &str = "config/crd/patches/webhook_in_cronjobs.yaml";
const CONTROLLER: &str = "src/controllers/deployment.rs";

/// A copy of project-v1 with `edits`.
fn project(edits: &[Edit]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    runtime_copy::copy_golden("project-v1", dir.path());
    apply(dir.path(), edits);
    dir
}

/// `lint --format json` in `dir`: the findings and the exit code.
fn lint(dir: &Path, extra: &[&str]) -> (Vec<Value>, i32) {
    let mut args = vec!["lint", "--format", "json"];
    args.extend(extra);
    let out = rsbuilder(dir, &args);
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&out), stderr(&out)));
    (
        report["findings"].as_array().unwrap().clone(),
        out.status.code().unwrap(),
    )
}

/// A rule (CRD-level) validation added at the v1 spec of CronJob.
macro_rules! spec_rule {
    ($rule:literal) => {
        Edit::Replace(
            CRD,
            "            type: object\n          status:",
            concat!(
                "            type: object\n            x-kubernetes-validations:\n            - rule: \"",
                $rule,
                "\"\n              message: the rule failed\n          status:"
            ),
        )
    };
}

/// A second CRD of the batch group, beside CronJob's: `names` is its `spec.names`.
macro_rules! batch_crd {
    ($plural:literal, $names:literal) => {
        Edit::Write(
            concat!("config/crd/bases/batch.example.com_", $plural, ".yaml"),
            concat!(
                "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ",
                $plural,
                ".batch.example.com\nspec:\n  group: batch.example.com\n  names:\n",
                $names,
                "  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n"
            ),
        )
    };
}

/// `(rule, failing edits, passing edits)`.
fn cases() -> Vec<(&'static str, Vec<Edit>, Vec<Edit>)> {
    vec![
        (
            "yaml-syntax",
            vec![Edit::Write("config/extra/broken.yaml", "a: [1, 2\nb: 3\n")],
            vec![Edit::Write("config/extra/fine.yaml", "a: [1, 2]\nb: 3\n")],
        ),
        (
            "sample-kind",
            vec![Edit::Replace(
                SAMPLE,
                "batch.example.com/v1",
                "batch.example.com/v9",
            )],
            vec![Edit::Replace(
                SAMPLE,
                "batch.example.com/v1",
                "batch.example.com/v1beta1",
            )],
        ),
        (
            "sample-schema",
            vec![Edit::Replace(SAMPLE, "foo: an example CronJob", "foo: 12")],
            vec![Edit::Replace(
                SAMPLE,
                "foo: an example CronJob",
                "foo: \"12\"",
            )],
        ),
        (
            "sample-unknown-field",
            vec![Edit::Replace(
                SAMPLE,
                "  foo: an example",
                "  fooo: x\n  foo: an example",
            )],
            vec![Edit::Replace(
                SAMPLE,
                "  foo: an example",
                "  foo: another example",
            )],
        ),
        (
            "cel-invalid",
            vec![spec_rule!("self.fooo == 'x'")],
            vec![spec_rule!("self.foo == 'an example CronJob'")],
        ),
        (
            "cel-rejects-sample",
            vec![spec_rule!("self.foo.size() > 100")],
            vec![spec_rule!("!has(self.foo) || self.foo.size() > 3")],
        ),
        (
            "cel-unsupported",
            vec![spec_rule!("[self.foo].sortBy(x, x).size() == 1")],
            vec![spec_rule!("[self.foo].map(x, x).size() == 1")],
        ),
        (
            // A rule over the API server's per-rule cost budget: an unbounded string
            // matched against a 161-character regular expression.
            "cel-cost",
            vec![spec_rule!(
                "self.foo.size() < 100 || self.foo.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*[.]example[.]com$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*[.]example[.]org$')"
            )],
            vec![spec_rule!(
                "self.foo.size() < 100 || self.foo.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')"
            )],
        ),
        (
            // kubectl's braces are no JSONPath the API server takes for a column.
            "printer-column",
            vec![Edit::Replace(
                CRD,
                "- jsonPath: .metadata.creationTimestamp",
                "- jsonPath: '{.metadata.creationTimestamp}'",
            )],
            vec![Edit::Replace(
                CRD,
                "- jsonPath: .metadata.creationTimestamp",
                "- jsonPath: .spec.foo",
            )],
        ),
        (
            "printer-column-path",
            vec![Edit::Replace(
                CRD,
                "- jsonPath: .metadata.creationTimestamp",
                "- jsonPath: .spec.bar",
            )],
            vec![Edit::Replace(
                CRD,
                "- jsonPath: .metadata.creationTimestamp",
                "- jsonPath: .spec.foo",
            )],
        ),
        (
            "selectable-field",
            vec![Edit::Replace(
                CRD,
                "    name: v1\n",
                "    name: v1\n    selectableFields:\n    - jsonPath: .status.conditions\n",
            )],
            // CronJob's versions share one schema, so the API server takes selectable
            // fields only where all of them have the same.
            ["v1", "v1beta1", "v1alpha1"]
                .map(|v| {
                    Edit::Replace(
                        CRD,
                        &*format!("    name: {v}\n").leak(),
                        &*format!(
                            "    name: {v}\n    selectableFields:\n    - jsonPath: .spec.foo\n"
                        )
                        .leak(),
                    )
                })
                .to_vec(),
        ),
        (
            // Without the conversion webhook, a field only v1 has is lost in v1beta1; with
            // it, rsbuilder's generated conversions stash it.
            "version-field-dropped",
            vec![
                Edit::Remove(WEBHOOK_PATCH),
                Edit::Replace(
                    CRD,
                    "            properties:\n              foo:",
                    "            properties:\n              bar:\n                type: string\n              foo:",
                ),
            ],
            vec![Edit::Replace(
                CRD,
                "            properties:\n              foo:",
                "            properties:\n              bar:\n                type: string\n              foo:",
            )],
        ),
        (
            "version-type-changed",
            vec![
                Edit::Remove(WEBHOOK_PATCH),
                Edit::Replace(
                    CRD,
                    "                nullable: true\n                type: string",
                    "                nullable: true\n                type: integer",
                ),
            ],
            vec![
                Edit::Remove(WEBHOOK_PATCH),
                Edit::Replace(
                    CRD,
                    "                nullable: true\n                type: string",
                    "                nullable: true\n                maxLength: 100\n                type: string",
                ),
            ],
        ),
        (
            "crd-size",
            vec![Edit::Replace(
                CRD,
                "description: The desired state of a CronJob.",
                long_description(),
            )],
            vec![Edit::Replace(
                CRD,
                "description: The desired state of a CronJob.",
                "description: The desired state of a CronJob, described at some length.",
            )],
        ),
        (
            "rbac-missing",
            vec![Edit::Replace(
                CONTROLLER,
                "use super::{Context, Run};",
                "use super::{Context, Run};\n\npub fn pods(client: kube::Client) -> kube::Api<k8s_openapi::api::core::v1::Pod> {\n    kube::Api::all(client)\n}",
            )],
            vec![Edit::Replace(
                CONTROLLER,
                "use super::{Context, Run};",
                "use super::{Context, Run};\n\n// +rsbuilder:rbac:groups=\"\",resources=pods,verbs=get;list\npub fn pods(client: kube::Client) -> kube::Api<k8s_openapi::api::core::v1::Pod> {\n    kube::Api::all(client)\n}",
            )],
        ),
        (
            "api-removed",
            vec![Edit::Write(
                "config/extra/pdb.yaml",
                "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: x\n",
            )],
            vec![Edit::Write(
                "config/extra/pdb.yaml",
                "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: x\n",
            )],
        ),
        (
            // What `create api --kind CronJobs` wrote: the singular is CronJob's plural.
            "crd-name-clash",
            vec![batch_crd!(
                "cronjobses",
                "    kind: CronJobs\n    plural: cronjobses\n    singular: cronjobs\n"
            )],
            vec![batch_crd!(
                "sloops",
                "    kind: Sloop\n    plural: sloops\n    singular: sloop\n"
            )],
        ),
        (
            "short-name-built-in",
            vec![batch_crd!(
                "sloops",
                "    kind: Sloop\n    plural: sloops\n    shortNames:\n    - deploy\n    singular: sloop\n"
            )],
            vec![batch_crd!(
                "sloops",
                "    kind: Sloop\n    plural: sloops\n    shortNames:\n    - slp\n    singular: sloop\n"
            )],
        ),
        (
            "api-deprecated",
            vec![Edit::Write(
                "config/extra/ep.yaml",
                "apiVersion: v1\nkind: Endpoints\nmetadata:\n  name: x\n",
            )],
            vec![Edit::Write(
                "config/extra/ep.yaml",
                "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata:\n  name: x\n",
            )],
        ),
    ]
}

/// Over 256 KiB of description: more than client-side apply can annotate.
fn long_description() -> &'static str {
    Box::leak(format!("description: '{}'", "word ".repeat(60_000)).into_boxed_str())
}

#[test]
fn the_golden_project_lints_clean() {
    let dir = project(&[]);
    let (findings, code) = lint(dir.path(), &["--deny", "warnings"]);
    assert_eq!((findings, code), (vec![], 0));
}

#[test]
fn every_rule_fails_its_failing_input_and_passes_its_passing_one() {
    for (rule, fail, pass) in cases() {
        let dir = project(&fail);
        let (findings, code) = lint(dir.path(), &[]);
        let hits: Vec<&Value> = findings.iter().filter(|f| f["rule"] == rule).collect();
        assert!(
            !hits.is_empty(),
            "{rule}: no finding for the failing input: {findings:#?}"
        );
        let error = hits.iter().any(|f| f["severity"] == "error");
        assert_eq!(code, if error { 1 } else { 0 }, "{rule}: exit code");
        if !error {
            let (_, denied) = lint(dir.path(), &["--deny", "warnings"]);
            assert_eq!(denied, 1, "{rule}: --deny warnings must fail on a warning");
        }
        for f in &hits {
            assert!(f["line"].as_u64().unwrap() > 0, "{rule}: no position: {f}");
        }

        let dir = project(&pass);
        let (findings, code) = lint(dir.path(), &["--deny", "warnings"]);
        assert_eq!(
            (&findings, code),
            (&vec![], 0),
            "{rule}: the passing input has findings"
        );
    }
}

#[test]
fn every_registered_rule_has_cases_and_an_explanation() {
    let covered: Vec<&str> = cases().iter().map(|c| c.0).collect();
    for rule in rsbuilder::lint::registry::all() {
        // The storage-version rule needs a git history: see its own test below.
        assert!(
            covered.contains(&rule.id) || rule.id == "storage-version-changed",
            "{} has no failing and passing input",
            rule.id
        );
        let out = rsbuilder(Path::new("."), &["lint", "--explain", rule.id]);
        let text = ok(&out);
        assert!(
            text.starts_with(rule.id) && text.contains(rule.summary),
            "{text}"
        );
    }
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        status.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&status.stderr)
    );
}

/// Moves CronJob's storage version from v1 (first in the file) to v1beta1 (second)
/// after a commit.
fn storage_moved(edits: &[Edit]) -> tempfile::TempDir {
    let dir = project(edits);
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "base"]);
    apply(
        dir.path(),
        &[
            Edit::Replace(CRD, "    storage: true", "    storage: MOVED"),
            Edit::Replace(CRD, "    storage: false", "    storage: true"),
            Edit::Replace(CRD, "    storage: MOVED", "    storage: false"),
        ],
    );
    dir
}

#[test]
fn a_storage_version_moved_without_conversion_is_an_error() {
    let dir = storage_moved(&[Edit::Remove(WEBHOOK_PATCH)]);
    let (findings, code) = lint(dir.path(), &[]);
    let hits: Vec<&Value> = findings
        .iter()
        .filter(|f| f["rule"] == "storage-version-changed")
        .collect();
    assert_eq!(hits.len(), 1, "{findings:#?}");
    assert!(
        hits[0]["message"]
            .as_str()
            .unwrap()
            .contains("from v1 (last commit) to v1beta1"),
        "{hits:?}"
    );
    assert_eq!(code, 1);

    // With the conversion webhook the move is safe.
    let dir = storage_moved(&[]);
    let (findings, code) = lint(dir.path(), &["--deny", "warnings"]);
    assert_eq!((findings, code), (vec![], 0));
}

#[test]
fn findings_read_like_compiler_diagnostics() {
    let dir = project(&[Edit::Replace(SAMPLE, "foo: an example CronJob", "foo: 12")]);
    let out = rsbuilder(dir.path(), &["lint"]);
    let err = fails(&out, 1);
    let text = stdout(&out);
    assert!(
        text.starts_with("error[sample-schema]: `spec.foo`: 12 is an integer, the schema wants string\n  --> config/samples/batch_v1_cronjob.yaml:10:8\n"),
        "{text}"
    );
    assert!(text.ends_with("lint: 1 error, 0 warnings\n"), "{text}");
    assert!(err.contains("lint failed: 1 error, 0 warnings"), "{err}");
}

#[test]
fn outside_a_project_the_directories_are_named() {
    let dir = project(&[Edit::Replace(SAMPLE, "foo: an example CronJob", "foo: 12")]);
    let empty = tempfile::tempdir().unwrap();
    let err = fails(&rsbuilder(empty.path(), &["lint"]), 1);
    assert!(err.contains("--crds DIR"), "{err}");
    let crds = dir.path().join("config/crd/bases");
    let samples = dir.path().join("config/samples");
    let out = rsbuilder(
        empty.path(),
        &[
            "lint",
            "--format",
            "json",
            "--crds",
            crds.to_str().unwrap(),
            "--samples",
            samples.to_str().unwrap(),
        ],
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["errors"], 1, "{report:#}");
    assert_eq!(report["findings"][0]["rule"], "sample-schema");
}
