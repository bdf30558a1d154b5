//! `--webhook-certs`: who issues the webhook server's certificate. Both modes render with
//! kubectl kustomize and pass kubernetes-validate; `self` has no cert-manager object or
//! annotation and grants the manager only its own Secret and its own objects' CA bundles;
//! `edit --webhook-certs` switches both ways back to the very same tree, which is also the
//! tree `init --webhook-certs` makes; `alpha generate` replays the mode.
#![allow(clippy::disallowed_methods)] // reads rsbuilder's and the tools' own YAML output

mod common;

use std::fs;
use std::path::Path;
use std::process::Command;

use common::*;
use serde_yaml::Value;

/// A kind in two versions converting through v2, with defaulting and validation on v2.
fn project(dir: &Path, mode: &str) {
    ok(&rsbuilder(
        dir,
        &[
            "init",
            "--domain",
            "example.com",
            "--project-name",
            "certs",
            "--webhook-certs",
            mode,
        ],
    ));
    add_webhooks(dir);
}

/// The kind and its webhooks of [`project`], added to an initialized project.
fn add_webhooks(dir: &Path) {
    let steps: &[&[&str]] = &[
        &[
            "create",
            "api",
            "--group",
            "batch",
            "--version",
            "v1",
            "--kind",
            "CronJob",
        ],
        &[
            "create",
            "api",
            "--group",
            "batch",
            "--version",
            "v2",
            "--kind",
            "CronJob",
        ],
        &["edit", "--storage-version", "v2", "--kind", "CronJob"],
        &[
            "create",
            "webhook",
            "--group",
            "batch",
            "--version",
            "v2",
            "--kind",
            "CronJob",
            "--conversion",
            "--spoke",
            "v1",
        ],
        &[
            "create",
            "webhook",
            "--group",
            "batch",
            "--version",
            "v2",
            "--kind",
            "CronJob",
            "--defaulting",
            "--programmatic-validation",
        ],
    ];
    for args in steps {
        ok(&rsbuilder(dir, args));
    }
}

/// `config/default` rendered, checked by kubernetes-validate, as YAML documents.
fn render(dir: &Path) -> Vec<Value> {
    let rendered = kustomize(&dir.join("config/default"));
    let file = dir.join("target-rendered.yaml");
    fs::write(&file, &rendered).unwrap();
    let validate = Command::new(tool("kubernetes-validate"))
        .args(["--strict", "--quiet", "-k", "1.37.0"])
        .arg(&file)
        .output()
        .expect("kubernetes-validate runs");
    assert!(
        validate.status.success(),
        "{}{}",
        String::from_utf8_lossy(&validate.stdout),
        String::from_utf8_lossy(&validate.stderr)
    );
    fs::remove_file(&file).unwrap();
    documents(&rendered)
}

fn find<'a>(docs: &'a [Value], kind: &str, name: &str) -> &'a Value {
    docs.iter()
        .find(|d| d["kind"] == kind && d["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name}"))
}

/// The manager container's environment, by name.
fn manager_env(docs: &[Value]) -> Vec<(String, String)> {
    let deployment = find(docs, "Deployment", "certs-controller-manager");
    let containers = deployment["spec"]["template"]["spec"]["containers"]
        .as_sequence()
        .unwrap();
    let manager = containers.iter().find(|c| c["name"] == "manager").unwrap();
    manager["env"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(|e| {
            Some((
                e["name"].as_str()?.to_string(),
                e["value"].as_str()?.to_string(),
            ))
        })
        .collect()
}

#[test]
fn self_issued_certificates_need_no_cert_manager_and_only_their_own_objects() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path(), "self");
    let docs = render(dir.path());
    let text = serde_yaml::to_string(&docs).unwrap();
    assert!(!text.contains("cert-manager"), "{text}");

    // The manager learns the names kustomize gave its objects.
    let env = manager_env(&docs);
    for (name, value) in [
        ("WEBHOOK_CERTS", "self"),
        ("WEBHOOK_SERVICE_NAME", "certs-webhook-service"),
        ("WEBHOOK_SERVICE_NAMESPACE", "certs-system"),
        (
            "MUTATING_WEBHOOK_CONFIGURATION",
            "certs-mutating-webhook-configuration",
        ),
        (
            "VALIDATING_WEBHOOK_CONFIGURATION",
            "certs-validating-webhook-configuration",
        ),
        ("CONVERSION_CRDS", "cronjobs.batch.example.com"),
    ] {
        assert!(
            env.contains(&(name.to_string(), value.to_string())),
            "{name}={value} not in {env:?}"
        );
    }
    find(
        &docs,
        "MutatingWebhookConfiguration",
        "certs-mutating-webhook-configuration",
    );
    find(
        &docs,
        "CustomResourceDefinition",
        "cronjobs.batch.example.com",
    );

    // A Role in the manager's namespace: creating Secrets and ConfigMaps, reading and
    // replacing only its Secret, applying only the ConfigMap of its metrics CA.
    let role = find(&docs, "Role", "certs-webhook-certs");
    assert_eq!(role["metadata"]["namespace"], "certs-system");
    for rule in role["rules"].as_sequence().unwrap() {
        let resource = rule["resources"][0].as_str().unwrap();
        let verbs: Vec<&str> = rule["verbs"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let own = match resource {
            "secrets" => "webhook-server-self-cert",
            "configmaps" => "metrics-ca",
            other => panic!("the manager may touch {other}: {rule:?}"),
        };
        if verbs != ["create"] {
            assert_eq!(rule["resourceNames"][0], own, "{rule:?}");
        }
    }
    // Webhook configurations and CRDs: get and patch, by their names after kustomize.
    let cluster_role = find(&docs, "ClusterRole", "certs-webhook-ca-injector");
    let named: Vec<(String, String)> = cluster_role["rules"]
        .as_sequence()
        .unwrap()
        .iter()
        .flat_map(|rule| {
            assert_eq!(
                rule["verbs"],
                serde_yaml::from_str::<Value>("[get, patch]").unwrap()
            );
            let resource = rule["resources"][0].as_str().unwrap().to_string();
            rule["resourceNames"]
                .as_sequence()
                .expect("every rule names its objects")
                .iter()
                .map(move |n| (resource.clone(), n.as_str().unwrap().to_string()))
        })
        .collect();
    assert_eq!(
        named,
        [
            (
                "mutatingwebhookconfigurations",
                "certs-mutating-webhook-configuration"
            ),
            (
                "validatingwebhookconfigurations",
                "certs-validating-webhook-configuration"
            ),
            ("customresourcedefinitions", "cronjobs.batch.example.com"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    let binding = find(&docs, "ClusterRoleBinding", "certs-webhook-ca-injector");
    assert_eq!(binding["subjects"][0]["name"], "certs-controller-manager");
    assert_eq!(binding["subjects"][0]["namespace"], "certs-system");
}

#[test]
fn cert_manager_certificates_are_injected_by_cert_manager() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path(), "cert-manager");
    let docs = render(dir.path());
    let certificate = find(&docs, "Certificate", "certs-serving-cert");
    assert_eq!(
        certificate["spec"]["dnsNames"][0],
        "certs-webhook-service.certs-system.svc"
    );
    for (kind, name) in [
        (
            "MutatingWebhookConfiguration",
            "certs-mutating-webhook-configuration",
        ),
        (
            "ValidatingWebhookConfiguration",
            "certs-validating-webhook-configuration",
        ),
        ("CustomResourceDefinition", "cronjobs.batch.example.com"),
    ] {
        assert_eq!(
            find(&docs, kind, name)["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
            "certs-system/certs-serving-cert",
            "{kind}"
        );
    }
    assert!(
        !manager_env(&docs)
            .iter()
            .any(|(name, _)| name == "WEBHOOK_CERTS")
    );
    assert!(!docs.iter().any(
        |d| d["kind"] == "ClusterRole" && d["metadata"]["name"] == "certs-webhook-ca-injector"
    ));
}

#[test]
fn switching_modes_both_ways_gives_back_the_same_tree() {
    for (from, to) in [("self", "cert-manager"), ("cert-manager", "self")] {
        let original = tempfile::tempdir().unwrap();
        project(original.path(), from);
        let fresh = tempfile::tempdir().unwrap();
        project(fresh.path(), to);

        let switched = tempfile::tempdir().unwrap();
        copy_tree(original.path(), switched.path());
        ok(&rsbuilder(
            switched.path(),
            &["edit", "--webhook-certs", to],
        ));
        // Switching gives what init with that mode gives, and switching back the original.
        assert_same_entries(
            &entries(switched.path()),
            &entries(fresh.path()),
            &format!("{from} switched to {to}"),
        );
        let out = ok(&rsbuilder(
            switched.path(),
            &["edit", "--webhook-certs", to],
        ));
        assert!(out.contains("nothing to do"), "{out}");
        ok(&rsbuilder(
            switched.path(),
            &["edit", "--webhook-certs", from],
        ));
        assert_same_entries(
            &entries(switched.path()),
            &entries(original.path()),
            &format!("{from} switched to {to} and back"),
        );
    }
}

#[test]
fn alpha_generate_replays_the_mode() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path(), "self");
    let out = dir.path().join("regenerated");
    ok(&rsbuilder(
        dir.path(),
        &["alpha", "generate", "--output-dir", out.to_str().unwrap()],
    ));
    for file in [
        "PROJECT",
        "config/webhook-certs/resources.yaml",
        "config/default/manager_webhook_patch.yaml",
        "config/default/webhook_certs_replacements.yaml",
        // The envtest binary's part: the manager's certificate task runs in the tests.
        "tests/envtest/webhook_certs.rs",
    ] {
        assert_eq!(
            fs::read_to_string(out.join(file)).unwrap(),
            fs::read_to_string(dir.path().join(file)).unwrap(),
            "{file}"
        );
    }
}

#[test]
fn a_bad_mode_is_one_error_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path(), "self");
    let before = snapshot(dir.path());
    let err = fails(
        &rsbuilder(dir.path(), &["edit", "--webhook-certs", "vault"]),
        2,
    );
    assert!(err.contains("vault"), "{err}");
    let err = fails(
        &rsbuilder(
            dir.path(),
            &[
                "edit",
                "--webhook-certs",
                "self",
                "--storage-version",
                "v1",
                "--kind",
                "CronJob",
            ],
        ),
        2,
    );
    assert!(err.contains("cannot be used with"), "{err}");
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn a_project_without_webhooks_keeps_the_mode_for_its_first_webhook() {
    let switched = tempfile::tempdir().unwrap();
    ok(&rsbuilder(
        switched.path(),
        &["init", "--domain", "example.com", "--project-name", "certs"],
    ));
    let out = ok(&rsbuilder(
        switched.path(),
        &["edit", "--webhook-certs", "self"],
    ));
    assert!(out.contains("PROJECT"), "{out}");
    assert!(!switched.path().join("config/webhook-certs").exists());
    let fresh = tempfile::tempdir().unwrap();
    ok(&rsbuilder(
        fresh.path(),
        &[
            "init",
            "--domain",
            "example.com",
            "--project-name",
            "certs",
            "--webhook-certs",
            "self",
        ],
    ));
    assert_same_entries(
        &entries(switched.path()),
        &entries(fresh.path()),
        "init, then edit --webhook-certs self",
    );
    // No certificate task runs without a webhook: cert-manager issues the metrics
    // certificate until the first webhook, then the manager does.
    let monitor = || read(fresh.path(), "config/prometheus/monitor.yaml");
    assert!(monitor().contains("kind: Certificate\n"), "{}", monitor());
    add_webhooks(fresh.path());
    assert!(!monitor().contains("kind: Certificate\n"), "{}", monitor());
    assert!(
        monitor().contains("configMap:\n          name: metrics-ca\n"),
        "{}",
        monitor()
    );
}

#[test]
fn a_project_of_the_older_certmanager_layout_is_refused_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path(), "cert-manager");
    apply(
        dir.path(),
        &[Edit::Write(
            "config/certmanager/kustomization.yaml",
            "resources:\n- certificate.yaml\n",
        )],
    );
    let before = snapshot(dir.path());
    let err = fails(
        &rsbuilder(dir.path(), &["edit", "--webhook-certs", "self"]),
        1,
    );
    assert!(
        err.contains("config/certmanager") && err.contains("alpha generate"),
        "{err}"
    );
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn generate_webhooks_checks_and_restores_the_certificate_files() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path(), "self");
    ok(&rsbuilder(dir.path(), &["generate", "webhooks", "--check"]));
    let before = snapshot(dir.path());
    apply(
        dir.path(),
        &[Edit::Replace(
            "config/webhook-certs/resources.yaml",
            "  - patch\n",
            "  - patch\n  - delete\n",
        )],
    );
    let err = fails(
        &rsbuilder(dir.path(), &["generate", "webhooks", "--check"]),
        1,
    );
    assert!(err.contains("config/webhook-certs/resources.yaml"), "{err}");
    ok(&rsbuilder(dir.path(), &["generate", "webhooks"]));
    assert_eq!(snapshot(dir.path()), before);
}
