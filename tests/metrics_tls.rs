//! `config/prometheus` of every golden project, enabled the way
//! `config/default/kustomization.yaml` says (`- ../prometheus` among its components): it
//! renders with kubectl kustomize, and the ServiceMonitor verifies the certificate the
//! manager serves instead of skipping verification, against a CA that something in the
//! render really provides for the name it checks.
//!
//! The contract: Prometheus checks the server's certificate against `tlsConfig.ca` (a
//! Secret's or a ConfigMap's key in the ServiceMonitor's namespace) for `serverName`
//! (https://prometheus-operator.dev/docs/api-reference/api/#monitoring.coreos.com/v1.SafeTLSConfig);
//! the Service answers as `<name>.<namespace>.svc`
//! (https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#services).
//! The manager reads its certificate from `METRICS_CERT_DIR`. With cert-manager, the
//! Certificate's `secretName` is what the manager mounts and where `ca.crt` is; with
//! `--webhook-certs self`, the manager issues it into an emptyDir and publishes the CA in
//! the ConfigMap its code names, which its Role lets it write.

mod common;

use std::fs;
use std::path::Path;

use common::*;
use serde_yaml::Value;

/// `config/default` of a copy of the golden project `name`, with `../prometheus` among its
/// components, rendered.
fn render_with_prometheus(name: &str, dir: &Path) -> Vec<Value> {
    let golden = repo_root().join("testdata").join(name).join("config");
    copy_tree(&golden, &dir.join("config"));
    let default = dir.join("config/default/kustomization.yaml");
    let text = fs::read_to_string(&default).unwrap();
    assert_eq!(
        text.matches("\ncomponents:\n").count(),
        1,
        "{name}: no components list"
    );
    fs::write(
        &default,
        text.replace("\ncomponents:\n", "\ncomponents:\n- ../prometheus\n"),
    )
    .unwrap();
    documents(&kustomize(&dir.join("config/default")))
}

fn one<'a>(docs: &'a [Value], name: &str, kind: &str) -> &'a Value {
    let found: Vec<&Value> = docs.iter().filter(|d| d["kind"] == kind).collect();
    assert_eq!(found.len(), 1, "{name}: not one {kind}");
    found[0]
}

fn text(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

/// The value of the manager container's environment variable `key`.
fn env<'a>(manager: &'a Value, key: &str) -> Option<&'a str> {
    manager["env"]
        .as_sequence()
        .into_iter()
        .flatten()
        .find(|e| e["name"] == key)
        .map(|e| text(&e["value"]))
}

/// Whether `rule` lets `verb` act on the ConfigMap `name`.
fn allows_on_config_map(rule: &Value, verb: &str, name: &str) -> bool {
    let has = |field: &str, wanted: &str| {
        rule[field]
            .as_sequence()
            .is_some_and(|items| items.iter().any(|item| item == wanted))
    };
    has("apiGroups", "")
        && has("resources", "configmaps")
        && has("verbs", verb)
        && (rule.get("resourceNames").is_none() || has("resourceNames", name))
}

#[test]
fn the_service_monitor_verifies_a_certificate_the_render_provides_for_its_server_name() {
    let (mut cert_manager, mut self_issued) = (0, 0);
    for name in golden_projects() {
        let dir = tempfile::tempdir().unwrap();
        let docs = render_with_prometheus(&name, dir.path());
        let monitor = one(&docs, &name, "ServiceMonitor");
        let namespace = text(&monitor["metadata"]["namespace"]);
        let endpoint = &monitor["spec"]["endpoints"][0];
        let tls = &endpoint["tlsConfig"];
        assert_ne!(
            tls["insecureSkipVerify"],
            Value::Bool(true),
            "{name}: verification skipped"
        );
        let service = docs
            .iter()
            .find(|d| {
                d["kind"] == "Service"
                    && d["spec"]["ports"]
                        .as_sequence()
                        .into_iter()
                        .flatten()
                        .any(|p| p["name"] == endpoint["port"])
            })
            .unwrap_or_else(|| panic!("{name}: no Service for the monitor's port"));
        let service_name = text(&service["metadata"]["name"]);
        assert_eq!(text(&service["metadata"]["namespace"]), namespace);
        let server_name = format!("{service_name}.{namespace}.svc");
        assert_eq!(text(&tls["serverName"]), server_name, "{name}: serverName");

        let deployment = one(&docs, &name, "Deployment");
        assert_eq!(text(&deployment["metadata"]["namespace"]), namespace);
        let pod = &deployment["spec"]["template"]["spec"];
        let manager = pod["containers"]
            .as_sequence()
            .into_iter()
            .flatten()
            .find(|c| c["name"] == "manager")
            .unwrap_or_else(|| panic!("{name}: no manager container"));
        let cert_dir = env(manager, "METRICS_CERT_DIR")
            .unwrap_or_else(|| panic!("{name}: the manager serves no metrics certificate"));
        let mount = manager["volumeMounts"]
            .as_sequence()
            .into_iter()
            .flatten()
            .find(|m| m["mountPath"] == cert_dir)
            .unwrap_or_else(|| panic!("{name}: nothing mounted at {cert_dir}"));
        let volume = pod["volumes"]
            .as_sequence()
            .into_iter()
            .flatten()
            .find(|v| v["name"] == mount["name"])
            .unwrap_or_else(|| panic!("{name}: no volume for {cert_dir}"));

        if let Some(secret) = tls["ca"].get("secret") {
            cert_manager += 1;
            assert_eq!(secret["key"], "ca.crt", "{name}");
            let secret_name = text(&secret["name"]);
            assert_eq!(volume["secret"]["secretName"], secret["name"], "{name}");
            let certificate = docs
                .iter()
                .find(|d| d["kind"] == "Certificate" && d["spec"]["secretName"] == secret_name)
                .unwrap_or_else(|| panic!("{name}: no Certificate writes {secret_name}"));
            assert_eq!(text(&certificate["metadata"]["namespace"]), namespace);
            let names = certificate["spec"]["dnsNames"].as_sequence().unwrap();
            assert!(
                names.iter().any(|n| n == server_name.as_str()),
                "{name}: the certificate is not for {server_name}: {names:?}"
            );
            let issuer = &certificate["spec"]["issuerRef"];
            assert!(
                docs.iter().any(|d| d["kind"] == issuer["kind"]
                    && d["metadata"]["name"] == issuer["name"]
                    && text(&d["metadata"]["namespace"]) == namespace),
                "{name}: no {issuer:?} in the render"
            );
        } else {
            self_issued += 1;
            let config_map = &tls["ca"]["configMap"];
            assert_eq!(config_map["key"], "ca.crt", "{name}");
            let config_map = text(&config_map["name"]);
            // The certificate task is the runtime's; the project's copy of it is the crate's
            // (tests/golden.rs checks the copy's digest).
            let code =
                fs::read_to_string(repo_root().join("runtime/src/webhook/certs.rs")).unwrap();
            assert!(
                code.contains(&format!("pub const METRICS_CA: &str = \"{config_map}\";")),
                "{name}: the manager does not publish the ConfigMap {config_map}"
            );
            assert_eq!(env(manager, "WEBHOOK_CERTS"), Some("self"), "{name}");
            assert_eq!(env(manager, "METRICS_SERVICE_NAME"), Some(service_name));
            assert_eq!(env(manager, "WEBHOOK_SERVICE_NAMESPACE"), Some(namespace));
            assert!(volume.get("emptyDir").is_some(), "{name}: {volume:?}");
            assert_ne!(mount["readOnly"], Value::Bool(true), "{name}: read-only");
            // The manager's own Role in its namespace lets it create and apply it.
            let account = text(&pod["serviceAccountName"]);
            let roles: Vec<&str> = docs
                .iter()
                .filter(|d| d["kind"] == "RoleBinding" && d["metadata"]["namespace"] == namespace)
                .filter(|d| {
                    d["subjects"]
                        .as_sequence()
                        .into_iter()
                        .flatten()
                        .any(|s| s["kind"] == "ServiceAccount" && s["name"] == account)
                })
                .map(|d| text(&d["roleRef"]["name"]))
                .collect();
            for verb in ["create", "patch"] {
                let allowed = docs
                    .iter()
                    .filter(|d| d["kind"] == "Role" && d["metadata"]["namespace"] == namespace)
                    .filter(|d| roles.contains(&text(&d["metadata"]["name"])))
                    .flat_map(|d| d["rules"].as_sequence().into_iter().flatten())
                    .any(|rule| allows_on_config_map(rule, verb, config_map));
                assert!(allowed, "{name}: the manager may not {verb} {config_map}");
            }
        }
    }
    assert!(
        cert_manager > 0,
        "no golden project has cert-manager issue it"
    );
    assert!(
        self_issued > 0,
        "no golden project has the manager issue it"
    );
}
