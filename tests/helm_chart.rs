//! The golden projects' Helm charts (`dist/chart`), judged by real helm (v4, built by
//! `.ci/run`, found through HELM) and kubectl's kustomize.
//!
//! The contract is "one model, two renderings": `helm template` with the chart's default
//! values renders the objects `kubectl kustomize config/default` renders, and with a part of
//! config/default switched on (prometheus, network-policy) the chart renders the same
//! objects as kustomize with that part listed, and with `certManager.enabled` flipped the
//! objects kustomize renders after `rsbuilder edit --webhook-certs`. The only differences allowed are the
//! documented ones (README, "Installing with Helm"):
//! - the Namespace object is not in the chart (`helm install --create-namespace` makes it);
//! - every object carries Helm's labels `helm.sh/chart` and `app.kubernetes.io/instance`,
//!   and `app.kubernetes.io/managed-by: Helm` instead of kustomize's;
//! - CRDs carry `helm.sh/resource-policy: keep` while `crd.keep` is true (the default).
//!
//! Helm's chart contract (https://helm.sh/docs/topics/charts/): `values.schema.json` is
//! checked on install, upgrade, lint and template, and a value of the wrong type fails them.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

use common::*;
use serde_yaml::Value;

/// The golden projects that have a chart.
fn charted() -> Vec<String> {
    golden_projects()
        .into_iter()
        .filter(|name| {
            repo_root()
                .join("testdata")
                .join(name)
                .join("dist/chart/Chart.yaml")
                .is_file()
        })
        .collect()
}

/// `helm <args>` with helm's own files kept out of the user's home; its stdout, or a
/// failure with helm's stderr.
fn helm(args: &[&str]) -> Result<String, String> {
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(common::helm())
        .args(args)
        .env("HELM_CACHE_HOME", home.path().join("cache"))
        .env("HELM_CONFIG_HOME", home.path().join("config"))
        .env("HELM_DATA_HOME", home.path().join("data"))
        .output()
        .expect("helm runs");
    if out.status.success() {
        Ok(String::from_utf8(out.stdout).unwrap())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The namespace kustomize puts the project in.
fn namespace(project: &Path) -> String {
    let text = fs::read_to_string(project.join("config/default/kustomization.yaml")).unwrap();
    #[allow(clippy::disallowed_methods)] // a golden's own file
    let k: Value = serde_yaml::from_str(&text).unwrap();
    k["namespace"].as_str().unwrap().to_string()
}

fn render(project: &Path, values: &[&str]) -> Vec<Value> {
    let chart = project.join("dist/chart");
    let ns = namespace(project);
    let mut args = vec![
        "template",
        "release",
        chart.to_str().unwrap(),
        "--namespace",
        &ns,
    ];
    for value in values {
        args.extend(["--set", value]);
    }
    let text = helm(&args).unwrap_or_else(|e| panic!("helm template {}: {e}", chart.display()));
    documents(&text)
        .into_iter()
        .filter(|d| !d.is_null())
        .collect()
}

type Key = (String, String, String);

fn key(object: &Value) -> Key {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    (
        text(&object["kind"]),
        text(&object["metadata"]["namespace"]),
        text(&object["metadata"]["name"]),
    )
}

/// kustomize's objects as the chart is meant to render them: without the Namespace, with
/// Helm's labels (the documented differences).
fn as_the_chart_renders(objects: Vec<Value>, crd_keep: bool) -> BTreeMap<Key, Value> {
    objects
        .into_iter()
        .filter(|o| !o.is_null() && o["kind"] != "Namespace")
        .map(|mut o| {
            let meta = o["metadata"].as_mapping_mut().unwrap();
            let labels = meta
                .entry("labels".into())
                .or_insert(Value::Mapping(Default::default()))
                .as_mapping_mut()
                .unwrap();
            labels.insert("helm.sh/chart".into(), "project-0.1.0".into());
            labels.insert("app.kubernetes.io/instance".into(), "release".into());
            labels.insert("app.kubernetes.io/managed-by".into(), "Helm".into());
            if crd_keep && o["kind"] == "CustomResourceDefinition" {
                let meta = o["metadata"].as_mapping_mut().unwrap();
                meta.entry("annotations".into())
                    .or_insert(Value::Mapping(Default::default()))
                    .as_mapping_mut()
                    .unwrap()
                    .insert("helm.sh/resource-policy".into(), "keep".into());
            }
            (key(&o), o)
        })
        .collect()
}

/// The chart's objects, with the chart's name in its label made comparable.
fn by_key(objects: Vec<Value>) -> BTreeMap<Key, Value> {
    objects
        .into_iter()
        .map(|mut o| {
            if let Some(labels) = o["metadata"]["labels"].as_mapping_mut() {
                let chart = labels
                    .get("helm.sh/chart")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                assert!(chart.ends_with("-0.1.0"), "helm.sh/chart is {chart:?}");
                labels.insert("helm.sh/chart".into(), "project-0.1.0".into());
            }
            (key(&o), o)
        })
        .collect()
}

#[track_caller]
fn assert_same_objects(
    expected: &BTreeMap<Key, Value>,
    rendered: &BTreeMap<Key, Value>,
    what: &str,
) {
    let missing: Vec<_> = expected
        .keys()
        .filter(|k| !rendered.contains_key(*k))
        .collect();
    let extra: Vec<_> = rendered
        .keys()
        .filter(|k| !expected.contains_key(*k))
        .collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{what}: the chart lacks {missing:?} and adds {extra:?}"
    );
    for (k, object) in expected {
        let yaml = |v: &Value| serde_yaml::to_string(v).unwrap();
        assert!(
            object == &rendered[k],
            "{what}: {k:?} differs from kustomize's:\n{}",
            similar::TextDiff::from_lines(&yaml(object), &yaml(&rendered[k]))
                .unified_diff()
                .header("kustomize", "helm template")
        );
    }
}

/// A copy of `project` whose config/default lists its optional parts.
fn switched_on(project: &Path, dir: &Path) {
    copy_tree(project, dir);
    let path = dir.join("config/default/kustomization.yaml");
    let text = fs::read_to_string(&path).unwrap();
    let text = text
        .replace("components:\n", "components:\n- ../prometheus\n")
        .replace("resources:\n", "resources:\n- ../network-policy\n");
    fs::write(&path, text).unwrap();
}

#[test]
#[ignore = "needs helm (HELM, built by .ci/run) and kubectl"]
fn every_chart_lints_and_renders_what_kustomize_renders() {
    let projects = charted();
    assert!(
        projects.len() >= 2,
        "golden projects with a chart: {projects:?}"
    );
    for name in projects {
        let project = repo_root().join("testdata").join(&name);
        let chart = project.join("dist/chart");
        helm(&["lint", "--strict", chart.to_str().unwrap()])
            .unwrap_or_else(|e| panic!("helm lint --strict {name}: {e}"));

        let kustomized =
            as_the_chart_renders(documents(&kustomize(&project.join("config/default"))), true);
        assert_same_objects(
            &kustomized,
            &by_key(render(&project, &[])),
            &format!("{name}, default values"),
        );

        // The optional parts, switched on in both renderings.
        let on = tempfile::tempdir().unwrap();
        switched_on(&project, on.path());
        let kustomized = as_the_chart_renders(
            documents(&kustomize(&on.path().join("config/default"))),
            true,
        );
        let rendered = by_key(render(
            &project,
            &["prometheus.enabled=true", "networkPolicy.enabled=true"],
        ));
        assert_same_objects(
            &kustomized,
            &rendered,
            &format!("{name}, prometheus and network policies on"),
        );

        // The other certificate mode: what `edit --webhook-certs` would make kustomize render.
        let values = fs::read_to_string(chart.join("values.yaml")).unwrap();
        if let Some(mode) = values.split("certManager:\n  enabled: ").nth(1) {
            let cert_manager = mode.starts_with("true");
            let other = tempfile::tempdir().unwrap();
            copy_tree(&project, other.path());
            let flag = if cert_manager { "self" } else { "cert-manager" };
            ok(&rsbuilder(other.path(), &["edit", "--webhook-certs", flag]));
            let kustomized = as_the_chart_renders(
                documents(&kustomize(&other.path().join("config/default"))),
                true,
            );
            let set = format!("certManager.enabled={}", !cert_manager);
            let rendered = by_key(render(&project, &[&set]));
            assert_same_objects(&kustomized, &rendered, &format!("{name}, {set}"));
            // Prometheus is rendered in the project's mode only, and the chart says so.
            let err = helm(&[
                "template",
                "r",
                chart.to_str().unwrap(),
                "--set",
                &set,
                "--set",
                "prometheus.enabled=true",
            ])
            .expect_err("prometheus in the other certificate mode renders");
            assert!(
                err.contains("prometheus.enabled needs certManager.enabled"),
                "{err}"
            );
        }

        // What helm renders passes the validator the kustomize output passes.
        let text = helm(&[
            "template",
            "release",
            chart.to_str().unwrap(),
            "--namespace",
            "operators",
            "--set",
            "prometheus.enabled=false",
        ])
        .unwrap();
        let file = on.path().join("rendered.yaml");
        fs::write(&file, text).unwrap();
        let out = Command::new(tool("kubernetes-validate"))
            .args(["--strict", "--quiet", "-k", "1.37.0"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "kubernetes-validate refuses {name}'s chart: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The object of `kind` whose name ends with `name`.
fn object<'a>(objects: &'a [Value], kind: &str, name: &str) -> Option<&'a Value> {
    objects.iter().find(|o| {
        o["kind"] == kind
            && o["metadata"]["name"]
                .as_str()
                .is_some_and(|n| n.ends_with(name))
    })
}

fn manager(objects: &[Value]) -> &Value {
    &object(objects, "Deployment", "controller-manager").expect("the manager's Deployment")["spec"]
        ["template"]["spec"]
}

fn container(objects: &[Value]) -> &Value {
    &manager(objects)["containers"][0]
}

fn args(objects: &[Value]) -> Vec<String> {
    container(objects)["args"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect()
}

fn yaml(text: &str) -> Value {
    #[allow(clippy::disallowed_methods)] // the test's own literal
    serde_yaml::from_str(text).unwrap()
}

/// One value the user sets, and what must follow in the rendered objects.
struct Case {
    set: &'static [&'static str],
    holds: fn(&[Value]) -> bool,
}

#[test]
#[ignore = "needs helm (HELM, built by .ci/run)"]
fn each_value_reaches_its_field() {
    let project = repo_root().join("testdata/project-v1");
    let cases: &[(&str, Case)] = &[
        (
            "image",
            Case {
                set: &[
                    "image.repository=registry.example.com/op",
                    "image.tag=1.2.3",
                ],
                holds: |o| container(o)["image"] == "registry.example.com/op:1.2.3",
            },
        ),
        (
            "image.digest",
            Case {
                set: &["image.repository=r/op", "image.digest=sha256:abc123"],
                holds: |o| container(o)["image"] == "r/op@sha256:abc123",
            },
        ),
        (
            "image.pullPolicy",
            Case {
                set: &["image.pullPolicy=Always"],
                holds: |o| container(o)["imagePullPolicy"] == "Always",
            },
        ),
        (
            "imagePullSecrets",
            Case {
                set: &["imagePullSecrets[0].name=regcred"],
                holds: |o| manager(o)["imagePullSecrets"] == yaml("[{name: regcred}]"),
            },
        ),
        (
            "replicas",
            Case {
                set: &["replicas=3"],
                holds: |o| {
                    object(o, "Deployment", "controller-manager").unwrap()["spec"]["replicas"] == 3
                },
            },
        ),
        (
            "resources",
            Case {
                set: &["resources.limits.memory=1Gi"],
                holds: |o| container(o)["resources"]["limits"]["memory"] == "1Gi",
            },
        ),
        (
            "nodeSelector",
            Case {
                set: &["nodeSelector.disk=ssd"],
                holds: |o| manager(o)["nodeSelector"] == yaml("{disk: ssd}"),
            },
        ),
        (
            "tolerations",
            Case {
                set: &[
                    "tolerations[0].key=dedicated",
                    "tolerations[0].operator=Exists",
                ],
                holds: |o| {
                    manager(o)["tolerations"] == yaml("[{key: dedicated, operator: Exists}]")
                },
            },
        ),
        (
            "affinity",
            Case {
                set: &[
                    "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key=zone",
                ],
                holds: |o| manager(o)["affinity"]["nodeAffinity"].is_mapping(),
            },
        ),
        (
            "topologySpreadConstraints",
            Case {
                set: &[
                    "topologySpreadConstraints[0].maxSkew=1",
                    "topologySpreadConstraints[0].topologyKey=zone",
                    "topologySpreadConstraints[0].whenUnsatisfiable=DoNotSchedule",
                ],
                holds: |o| manager(o)["topologySpreadConstraints"][0]["maxSkew"] == 1,
            },
        ),
        (
            "priorityClassName",
            Case {
                set: &["priorityClassName=system-cluster-critical"],
                holds: |o| manager(o)["priorityClassName"] == "system-cluster-critical",
            },
        ),
        (
            "podSecurityContext",
            Case {
                set: &["podSecurityContext.runAsUser=1000"],
                holds: |o| manager(o)["securityContext"]["runAsUser"] == 1000,
            },
        ),
        (
            "securityContext",
            Case {
                set: &["securityContext.readOnlyRootFilesystem=false"],
                holds: |o| container(o)["securityContext"]["readOnlyRootFilesystem"] == false,
            },
        ),
        (
            "env",
            Case {
                set: &["env[0].name=EXTRA", "env[0].value=x"],
                holds: |o| {
                    let env = container(o)["env"].as_sequence().unwrap();
                    env.last() == Some(&yaml("{name: EXTRA, value: x}")) && env.len() > 1
                },
            },
        ),
        (
            "volumes and volumeMounts",
            Case {
                set: &[
                    "volumes[0].name=extra",
                    "volumes[0].emptyDir.medium=Memory",
                    "volumeMounts[0].name=extra",
                    "volumeMounts[0].mountPath=/extra",
                ],
                holds: |o| {
                    manager(o)["volumes"].as_sequence().unwrap().last().unwrap()["name"] == "extra"
                        && container(o)["volumeMounts"]
                            .as_sequence()
                            .unwrap()
                            .last()
                            .unwrap()["mountPath"]
                            == "/extra"
                },
            },
        ),
        (
            "podAnnotations and podLabels",
            Case {
                set: &["podAnnotations.team=core", "podLabels.tier=control"],
                holds: |o| {
                    let template = &object(o, "Deployment", "controller-manager").unwrap()["spec"]
                        ["template"]["metadata"];
                    template["annotations"]["team"] == "core"
                        && template["annotations"]["kubectl.kubernetes.io/default-container"]
                            == "manager"
                        && template["labels"]["tier"] == "control"
                },
            },
        ),
        (
            "serviceAccount.create=false and name",
            Case {
                set: &[
                    "serviceAccount.create=false",
                    "serviceAccount.name=existing",
                ],
                holds: |o| {
                    object(o, "ServiceAccount", "").is_none()
                        && manager(o)["serviceAccountName"] == "existing"
                        && object(o, "ClusterRoleBinding", "manager-rolebinding").unwrap()["subjects"]
                            [0]["name"]
                            == "existing"
                },
            },
        ),
        (
            "serviceAccount.annotations",
            Case {
                set: &["serviceAccount.annotations.eks\\.amazonaws\\.com/role-arn=arn"],
                holds: |o| {
                    object(o, "ServiceAccount", "controller-manager").unwrap()["metadata"]["annotations"]
                        ["eks.amazonaws.com/role-arn"]
                        == "arn"
                },
            },
        ),
        (
            "rbac.create=false",
            Case {
                set: &["rbac.create=false"],
                holds: |o| {
                    !o.iter().any(|x| {
                        x["kind"]
                            .as_str()
                            .is_some_and(|k| k.ends_with("Role") || k.ends_with("RoleBinding"))
                    })
                },
            },
        ),
        (
            "leaderElection.enabled=false",
            Case {
                set: &["leaderElection.enabled=false"],
                holds: |o| !args(o).contains(&"--leader-elect".to_string()),
            },
        ),
        (
            "metrics.port",
            Case {
                set: &["metrics.port=9000"],
                holds: |o| {
                    args(o).contains(&"--metrics-bind-address=[::]:9000".to_string())
                        && object(o, "Service", "metrics-service").unwrap()["spec"]["ports"][0]["targetPort"]
                            == 9000
                        && container(o)["ports"]
                            .as_sequence()
                            .unwrap()
                            .iter()
                            .any(|p| p["containerPort"] == 9000)
                },
            },
        ),
        (
            "metrics.secure=false",
            Case {
                set: &["metrics.secure=false"],
                holds: |o| args(o).contains(&"--metrics-secure=false".to_string()),
            },
        ),
        (
            "metrics.enabled=false",
            Case {
                set: &["metrics.enabled=false", "prometheus.enabled=true"],
                holds: |o| {
                    object(o, "Service", "metrics-service").is_none()
                        && object(o, "ServiceMonitor", "").is_none()
                },
            },
        ),
        (
            "webhook.port",
            Case {
                set: &["webhook.port=10250"],
                holds: |o| {
                    args(o).contains(&"--webhook-port=10250".to_string())
                        && object(o, "Service", "webhook-service").unwrap()["spec"]["ports"][0]["targetPort"]
                            == 10250
                },
            },
        ),
        (
            "webhook.enabled=false",
            Case {
                set: &["webhook.enabled=false"],
                holds: |o| {
                    object(o, "MutatingWebhookConfiguration", "").is_none()
                        && object(o, "ValidatingWebhookConfiguration", "").is_none()
                },
            },
        ),
        (
            "prometheus.enabled",
            Case {
                set: &["prometheus.enabled=true"],
                holds: |o| {
                    object(o, "ServiceMonitor", "").is_some()
                        && container(o)["env"]
                            .as_sequence()
                            .unwrap()
                            .iter()
                            .any(|e| e["name"] == "METRICS_CERT_DIR")
                },
            },
        ),
        (
            "networkPolicy.enabled",
            Case {
                set: &["networkPolicy.enabled=true"],
                holds: |o| o.iter().filter(|x| x["kind"] == "NetworkPolicy").count() == 2,
            },
        ),
        (
            "crd.enabled=false",
            Case {
                set: &["crd.enabled=false"],
                holds: |o| object(o, "CustomResourceDefinition", "").is_none(),
            },
        ),
        (
            "crd.keep=false",
            Case {
                set: &["crd.keep=false"],
                holds: |o| {
                    let crd = object(o, "CustomResourceDefinition", "cronjobs.batch.example.com")
                        .unwrap();
                    crd["metadata"]["annotations"]
                        .get("helm.sh/resource-policy")
                        .is_none()
                        && crd["metadata"]["annotations"]["cert-manager.io/inject-ca-from"]
                            .is_string()
                },
            },
        ),
    ];
    let defaults = render(&project, &[]);
    let mut failed = Vec::new();
    for (what, case) in cases {
        // The case must say something the defaults do not already satisfy.
        if (case.holds)(&defaults) {
            failed.push(format!("{what}: holds with the default values already"));
            continue;
        }
        if !(case.holds)(&render(&project, case.set)) {
            failed.push(format!(
                "{what}: --set {} does not reach its field",
                case.set.join(" --set ")
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
#[ignore = "needs helm (HELM, built by .ci/run)"]
fn the_values_schema_refuses_a_value_of_the_wrong_type() {
    let chart = repo_root().join("testdata/project-v1/dist/chart");
    for wrong in [
        "replicas=two",
        "metrics.port=70000",
        "image.pullPolicy=Sometimes",
        "crd.keep=maybe",
    ] {
        let err = helm(&[
            "template",
            "release",
            chart.to_str().unwrap(),
            "--set",
            wrong,
        ])
        .expect_err(&format!("helm template accepts --set {wrong}"));
        assert!(
            err.contains("schema"),
            "--set {wrong} fails, but not on the schema: {err}"
        );
    }
}
