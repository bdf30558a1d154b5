//! The seeded lint fixture: `testdata/lint-seeded/` is a project rsbuilder scaffolds
//! (COMMANDS), with one problem per lint rule seeded by the scripted edits below (EDITS in
//! the Rust types, then `generate manifests`, then MANIFEST_EDITS in what it wrote);
//! `testdata/lint-seeded.json` is what `rsbuilder lint --format json` reports on it.
//!
//! Both are blessed, never edited: `RSBUILDER_BLESS=1 cargo test --test lint_golden`.
//! `storage-version-changed` is not seeded: it compares with a git history, which a
//! fixture directory does not have (tests/lint.rs builds one).

mod common;

use std::fs;
use std::path::Path;

use common::*;

const COMMANDS: &[&[&str]] = &[
    &[
        "init",
        "--domain",
        "example.com",
        "--project-name",
        "lint-seeded",
    ],
    &[
        "create",
        "api",
        "--group",
        "ship",
        "--version",
        "v1beta1",
        "--kind",
        "Frigate",
    ],
    &[
        "create",
        "api",
        "--group",
        "ship",
        "--version",
        "v1",
        "--kind",
        "Frigate",
    ],
    &[
        "edit",
        "--storage-version",
        "v1",
        "--kind",
        "Frigate",
        "--group",
        "ship",
    ],
    &[
        "create",
        "api",
        "--group",
        "core",
        "--version",
        "v1",
        "--kind",
        "ConfigMap",
        "--resource=false",
        "--controller",
    ],
];

const V1: &str = "src/api/ship/v1/frigate.rs";
const V1BETA1: &str = "src/api/ship/v1beta1/frigate.rs";

/// In the Rust source, before `generate manifests`.
const EDITS: &[Edit] = &[
    // cel-invalid, cel-rejects-sample, cel-unsupported, cel-cost: four rules on v1.
    Edit::Replace(
        V1,
        "    shortname = \"frg\",",
        "    shortname = \"frg\",\n    validation = (\"self.spec.fooo == 'x'\", \"a typo\"),\n    validation = (\"!has(self.spec.foo) || self.spec.foo.size() > 100\", \"foo is too short\"),\n    validation = (\"[self.spec.foo].sortBy(x, x).size() == 1\", \"sorted\"),\n    validation = (\"self.spec.foo.size() < 100 || self.spec.foo.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?[.])*example[.]com$|^([a-z0-9]([-a-z0-9]*[a-z0-9])?[.])*example[.]org$|^([a-z0-9]([-a-z0-9]*[a-z0-9])?[.])*example[.]net$')\", \"a host of ours\"),\n    selectable = \".status.conditions\",",
    ),
    // printer-column-path (selectable-field is the line above).
    Edit::Replace(
        V1,
        "json_path = \".metadata.creationTimestamp\"",
        "json_path = \".spec.sped\"",
    ),
    // version-field-dropped (speed) and version-type-changed (crew).
    Edit::Replace(
        V1,
        "    pub foo: Option<String>,\n}",
        "    pub foo: Option<String>,\n    pub speed: Option<u32>,\n    pub crew: Option<i32>,\n}",
    ),
    Edit::Replace(
        V1BETA1,
        "    pub foo: Option<String>,\n}",
        "    pub foo: Option<String>,\n    pub crew: Option<String>,\n}",
    ),
    // rbac-missing: Secrets read without a marker.
    Edit::Replace(
        "src/controllers/config_map.rs",
        "use super::{Context, Run};",
        "use super::{Context, Run};\n\n/// The Secrets of the cluster (no RBAC marker: seeded for `rsbuilder lint`).\npub fn secrets(client: kube::Client) -> kube::Api<k8s_openapi::api::core::v1::Secret> {\n    kube::Api::all(client)\n}",
    ),
];

/// In the manifests, after `generate manifests`.
const MANIFEST_EDITS: &[Edit] = &[
    // sample-schema (crew is an integer in v1) and sample-unknown-field.
    Edit::Replace(
        "config/samples/ship_v1_frigate.yaml",
        "  foo: an example Frigate",
        "  foo: an example Frigate\n  crew: many\n  fooo: x",
    ),
    // sample-kind.
    Edit::Write(
        "config/samples/ship_v2_frigate.yaml",
        "apiVersion: ship.example.com/v2\nkind: Frigate\nmetadata:\n  name: frigate-v2\nspec: {}\n",
    ),
    // crd-name-clash and short-name-built-in: a kind named as Frigate's list kind, with
    // Deployment's short name (what `generate crds` and `create api` now refuse or avoid).
    Edit::Write(
        "config/crd/bases/ship.example.com_frigatelists.yaml",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: frigatelists.ship.example.com\nspec:\n  group: ship.example.com\n  names:\n    kind: FrigateList\n    plural: frigatelists\n    shortNames:\n    - deploy\n    singular: frigatelist\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n",
    ),
    // printer-column: a type the API server does not know, in the CRD (`generate crds`
    // refuses it in the source).
    Edit::Replace(
        "config/crd/bases/ship.example.com_frigates.yaml",
        "      name: Ready\n      type: string\n    - jsonPath: .spec.sped",
        "      name: Ready\n      type: float\n    - jsonPath: .spec.sped",
    ),
    // yaml-syntax.
    Edit::Write(
        "config/samples/broken.yaml",
        "apiVersion: ship.example.com/v1\nkind: [Frigate\n",
    ),
    // api-removed and api-deprecated.
    Edit::Write(
        "config/manager/pdb.yaml",
        "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: controller-manager\nspec:\n  minAvailable: 1\n",
    ),
    Edit::Write(
        "config/manager/endpoints.yaml",
        "apiVersion: v1\nkind: Endpoints\nmetadata:\n  name: controller-manager\n",
    ),
];

/// crd-size: a description past the 256 KiB client-side apply can annotate.
fn inflate_crd(dir: &Path) {
    let path = dir.join("config/crd/bases/ship.example.com_frigates.yaml");
    let text = fs::read_to_string(&path).unwrap();
    let long = format!(
        "description: '{}'",
        "Frigates sail far. ".repeat(14_000).trim_end()
    );
    let text = text.replacen("description: The desired state of a Frigate.", &long, 1);
    fs::write(path, text).unwrap();
}

fn produce(dir: &Path) {
    for args in COMMANDS {
        ok(&rsbuilder(dir, args));
    }
    apply(dir, EDITS);
    ok(&rsbuilder(dir, &["generate", "manifests"]));
    apply(dir, MANIFEST_EDITS);
    inflate_crd(dir);
}

#[test]
fn the_seeded_fixture_yields_exactly_the_blessed_findings() {
    let fixture = repo_root().join("testdata/lint-seeded");
    let expected_json = repo_root().join("testdata/lint-seeded.json");
    let produced = tempfile::tempdir().unwrap();
    produce(produced.path());
    let out = rsbuilder(produced.path(), &["lint", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let json = stdout(&out);

    if std::env::var_os("RSBUILDER_BLESS").is_some() {
        if fixture.exists() {
            fs::remove_dir_all(&fixture).unwrap();
        }
        copy_tree(produced.path(), &fixture);
        fs::remove_dir_all(fixture.join(runtime_copy::DIR)).unwrap();
        fs::write(&expected_json, &json).unwrap();
        return;
    }
    // The runtime copy is the goldens' (tests/golden.rs checks it), not the fixture's.
    let (want, got) = (
        snapshot(&fixture),
        runtime_copy::without_copy(snapshot(produced.path())),
    );
    let differing: Vec<_> = want
        .keys()
        .chain(got.keys())
        .filter(|k| want.get(*k) != got.get(*k))
        .collect();
    assert!(
        differing.is_empty(),
        "testdata/lint-seeded differs from its recipe in {differing:?} (RSBUILDER_BLESS=1 cargo test --test lint_golden)"
    );
    let expected = fs::read_to_string(&expected_json).unwrap();
    assert_eq!(
        json, expected,
        "lint's findings changed (RSBUILDER_BLESS=1 cargo test --test lint_golden)"
    );

    // Lint reads the stored fixture the same way.
    let again = rsbuilder(&fixture, &["lint", "--format", "json"]);
    assert_eq!(stdout(&again), expected);
}

#[test]
fn the_seeded_fixture_has_a_finding_of_every_rule_but_the_git_one() {
    let expected = fs::read_to_string(repo_root().join("testdata/lint-seeded.json")).unwrap();
    let report: serde_json::Value = serde_json::from_str(&expected).unwrap();
    let rules: std::collections::BTreeSet<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    for rule in rsbuilder::lint::registry::all() {
        if rule.id != "storage-version-changed" {
            assert!(rules.contains(rule.id), "no seeded finding of {}", rule.id);
        }
    }
}
