//! `config/network-policy` of every golden project, enabled the way
//! `config/default/kustomization.yaml` says (`- ../network-policy` among its resources):
//! it renders with kubectl kustomize, kubernetes-validate accepts it, and in a project with
//! webhooks it still lets the API server reach the webhook server.
//!
//! The contract (https://kubernetes.io/docs/concepts/services-networking/network-policies/):
//! once a policy selects a pod for ingress, only the traffic some policy selecting it allows
//! gets in; a rule's `ports` are the pod's ports (a number or a container port's name), not
//! a Service's; a rule without `from` allows every source. The API server is no pod in a
//! namespace (it runs on the control plane's hosts, or outside the cluster), so only a rule
//! without `from` (or with an ipBlock of the control plane) admits it.

mod common;

use std::fs;
use std::path::Path;
use std::process::Command;

use common::*;
use serde_yaml::Value;

/// `config/default` of a copy of the golden project `name`, with the network policies
/// enabled, rendered; `None` when the project has no `config/network-policy`.
fn render_with_network_policy(name: &str, dir: &Path) -> Option<String> {
    let golden = repo_root().join("testdata").join(name).join("config");
    if !golden.join("network-policy").is_dir() {
        return None;
    }
    copy_tree(&golden, &dir.join("config"));
    let default = dir.join("config/default/kustomization.yaml");
    let text = fs::read_to_string(&default).unwrap();
    let marker = "# +rsbuilder:scaffold:default-resources";
    assert!(text.contains(marker), "{name}: no resources marker");
    fs::write(
        &default,
        text.replace(marker, &format!("- ../network-policy\n{marker}")),
    )
    .unwrap();
    Some(kustomize(&dir.join("config/default")))
}

/// Whether every label `selector` asks for is among `labels`.
fn selects(selector: &Value, labels: &Value) -> bool {
    selector
        .as_mapping()
        .is_some_and(|wanted| wanted.iter().all(|(k, v)| labels.get(k) == Some(v)))
}

/// Whether `policy` lets any source reach `port` (named `port_name`) over TCP.
fn admits_everyone_on(policy: &Value, port: u64, port_name: &str) -> bool {
    policy["spec"]["ingress"]
        .as_sequence()
        .into_iter()
        .flatten()
        .filter(|rule| rule.get("from").is_none())
        .any(
            |rule| match rule.get("ports").and_then(Value::as_sequence) {
                None => true,
                Some(ports) => ports.iter().any(|p| {
                    let tcp = p.get("protocol").is_none_or(|proto| proto == "TCP");
                    let matches = p["port"].as_u64() == Some(port) || p["port"] == port_name;
                    tcp && matches
                }),
            },
        )
}

#[test]
fn enabled_network_policies_render_validate_and_admit_the_api_server_to_the_webhooks() {
    let mut with_webhooks = 0;
    for name in golden_projects() {
        let dir = tempfile::tempdir().unwrap();
        let Some(rendered) = render_with_network_policy(&name, dir.path()) else {
            continue;
        };
        let docs = documents(&rendered);
        let deployment = docs
            .iter()
            .find(|d| d["kind"] == "Deployment")
            .unwrap_or_else(|| panic!("{name}: no Deployment:\n{rendered}"));
        let namespace = &deployment["metadata"]["namespace"];
        let pod_labels = &deployment["spec"]["template"]["metadata"]["labels"];
        let policies: Vec<&Value> = docs
            .iter()
            .filter(|d| d["kind"] == "NetworkPolicy")
            .filter(|d| &d["metadata"]["namespace"] == namespace)
            .filter(|d| selects(&d["spec"]["podSelector"]["matchLabels"], pod_labels))
            .collect();
        assert!(
            !policies.is_empty(),
            "{name}: no policy selects the manager:\n{rendered}"
        );

        let webhook_port = deployment["spec"]["template"]["spec"]["containers"]
            .as_sequence()
            .into_iter()
            .flatten()
            .flat_map(|c| c["ports"].as_sequence().into_iter().flatten())
            .find(|p| p["name"] == "webhook-server")
            .and_then(|p| p["containerPort"].as_u64());
        if let Some(port) = webhook_port {
            with_webhooks += 1;
            assert!(
                policies
                    .iter()
                    .any(|p| admits_everyone_on(p, port, "webhook-server")),
                "{name}: no policy admits the API server to the webhook port {port}:\n{rendered}"
            );
        }

        fs::write(dir.path().join("rendered.yaml"), &rendered).unwrap();
        let out = Command::new(tool("kubernetes-validate"))
            .args(["--strict", "--quiet", "-k", "1.37.0", "rendered.yaml"])
            .current_dir(dir.path())
            .output()
            .expect("kubernetes-validate runs");
        assert!(
            out.status.success(),
            "{name}: kubernetes-validate rejects the policies:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(with_webhooks > 0, "no golden project has webhooks to check");
}
