//! The manager's Deployment: the defaults read off it as kustomize rendered it, and the
//! pod and container settings users set through values.

use anyhow::Result;
use serde_yaml::Value;

use super::fields::{Defaults, extend_list, extend_map, from_values, ports_from_values, to_value};
use super::kustomize::Renders;
use super::template::{Helpers, Item, Node};

/// The port the manager's webhook server listens on unless told otherwise (the runtime's
/// `--webhook-port` default).
const RUNTIME_WEBHOOK_PORT: u16 = 9443;

pub(super) fn is_manager(node: &Node) -> bool {
    node.at(&["kind"]).and_then(Node::as_str) == Some("Deployment")
        && manager_container_index(node).is_some()
}

fn manager_container_index(node: &Node) -> Option<usize> {
    match node.at(&["spec", "template", "spec", "containers"])? {
        Node::List { items, .. } => items
            .iter()
            .position(|i| i.node.get("name").and_then(Node::as_str) == Some("manager")),
        _ => None,
    }
}

fn manager_container(node: &mut Node) -> &mut Node {
    let at = manager_container_index(node).expect("checked by is_manager");
    match node.at_mut(&["spec", "template", "spec", "containers"]) {
        Some(Node::List { items, .. }) => &mut items[at].node,
        _ => unreachable!("checked by is_manager"),
    }
}

/// The defaults read off the manager's Deployment as kustomize rendered it.
pub(super) fn manager_defaults(deployment: &Node, renders: &Renders) -> Result<Defaults> {
    let value = |node: Option<&Node>| node.map(to_value).unwrap_or(Value::Null);
    let pod = deployment.at(&["spec", "template", "spec"]);
    let pod_value =
        |key: &str, empty: Value| pod.and_then(|p| p.get(key)).map(to_value).unwrap_or(empty);
    let mut copy = deployment.clone();
    let container = manager_container(&mut copy).clone();
    let image = container
        .get("image")
        .and_then(Node::as_str)
        .unwrap_or("controller:latest");
    let (image_repository, image_tag, image_digest) = split_image(image);
    let args: Vec<String> = match container.get("args") {
        Some(Node::List { items, .. }) => items
            .iter()
            .filter_map(|i| i.node.as_str().map(String::from))
            .collect(),
        _ => Vec::new(),
    };
    let metrics_port = args
        .iter()
        .find_map(|a| a.strip_prefix("--metrics-bind-address="))
        .and_then(|addr| addr.rsplit(':').next()?.parse().ok())
        .unwrap_or(8443);
    let webhook_port = match container.get("ports") {
        Some(Node::List { items, .. }) => items.iter().find_map(|p| {
            (p.node.get("name").and_then(Node::as_str) == Some("webhook-server"))
                .then(|| to_value(p.node.get("containerPort")?).as_u64())
                .flatten()
                .and_then(|p| u16::try_from(p).ok())
        }),
        _ => None,
    };
    let switched_on = |value: &str| {
        renders
            .switched
            .iter()
            .any(|s| s.value == value && s.default)
    };
    Ok(Defaults {
        image_repository,
        image_tag,
        image_digest,
        image_pull_policy: container
            .get("imagePullPolicy")
            .and_then(Node::as_str)
            .unwrap_or_default()
            .to_string(),
        image_pull_secrets: pod_value("imagePullSecrets", Value::Sequence(Vec::new())),
        replicas: value(deployment.at(&["spec", "replicas"])),
        resources: value(container.get("resources")),
        node_selector: pod_value("nodeSelector", Value::Mapping(Default::default())),
        tolerations: pod_value("tolerations", Value::Sequence(Vec::new())),
        affinity: pod_value("affinity", Value::Mapping(Default::default())),
        topology_spread_constraints: pod_value(
            "topologySpreadConstraints",
            Value::Sequence(Vec::new()),
        ),
        priority_class_name: pod
            .and_then(|p| p.get("priorityClassName"))
            .and_then(Node::as_str)
            .unwrap_or_default()
            .to_string(),
        pod_security_context: pod_value("securityContext", Value::Mapping(Default::default())),
        security_context: value(container.get("securityContext")),
        service_account_name: pod
            .and_then(|p| p.get("serviceAccountName"))
            .and_then(Node::as_str)
            .unwrap_or("default")
            .to_string(),
        leader_election: args.iter().any(|a| a == "--leader-elect"),
        metrics_port,
        webhook_port,
        prometheus: switched_on("prometheus.enabled"),
        network_policy: switched_on("networkPolicy.enabled"),
        cert_manager: renders
            .switched
            .iter()
            .find(|s| s.value == super::kustomize::CERT_MANAGER)
            .map(|s| s.default),
    })
}

/// `repository[:tag][@digest]`, the tag `latest` when there is neither.
fn split_image(image: &str) -> (String, String, String) {
    let (name, digest) = image.split_once('@').unwrap_or((image, ""));
    let last_slash = name.rfind('/').map_or(0, |i| i + 1);
    let (repository, tag) = match name[last_slash..].rfind(':') {
        Some(i) => (&name[..last_slash + i], &name[last_slash + i + 1..]),
        None => (name, if digest.is_empty() { "latest" } else { "" }),
    };
    (repository.into(), tag.into(), digest.into())
}

/// The manager's Deployment with its pod and container settings taken from values.
pub(super) fn manager_values(deployment: &mut Node, defaults: &mut Defaults, helpers: &Helpers) {
    let spec = deployment
        .entry_mut("spec")
        .map(|e| &mut e.node)
        .expect("a Deployment has a spec");
    spec.set(
        "replicas",
        Node::Expr("{{ .Values.replicas }}".into()),
        None,
    );
    if let Some(meta) = spec.at_mut(&["template", "metadata"]) {
        extend_map(meta, "annotations", ".Values.podAnnotations");
        extend_map(meta, "labels", ".Values.podLabels");
    }
    let pod = spec
        .at_mut(&["template", "spec"])
        .expect("a Deployment has a pod spec");
    pod.set(
        "serviceAccountName",
        Node::Expr(helpers.include("serviceAccountName")),
        None,
    );
    from_values(pod, "securityContext", ".Values.podSecurityContext");
    for (key, value) in [
        ("imagePullSecrets", ".Values.imagePullSecrets"),
        ("nodeSelector", ".Values.nodeSelector"),
        ("tolerations", ".Values.tolerations"),
        ("affinity", ".Values.affinity"),
        (
            "topologySpreadConstraints",
            ".Values.topologySpreadConstraints",
        ),
    ] {
        pod.set(key, Node::Yaml(".".into()), Some(format!("with {value}")));
    }
    pod.set(
        "priorityClassName",
        Node::Expr("{{ . }}".into()),
        Some("with .Values.priorityClassName".into()),
    );
    extend_list(pod, "volumes", ".Values.volumes");

    let container = manager_container(deployment);
    container.set(
        "image",
        Node::Expr(format!("\"{}\"", helpers.include("image"))),
        None,
    );
    container.set(
        "imagePullPolicy",
        Node::Expr("{{ . }}".into()),
        Some("with .Values.image.pullPolicy".into()),
    );
    from_values(container, "resources", ".Values.resources");
    from_values(container, "securityContext", ".Values.securityContext");
    extend_list(container, "env", ".Values.env");
    extend_list(container, "volumeMounts", ".Values.volumeMounts");
    if let Some(Node::List { items, .. }) = container.entry_mut("args").map(|e| &mut e.node) {
        for item in items.iter_mut().filter(|i| i.gate.is_none()) {
            match item.node.as_str() {
                Some("--leader-elect") => {
                    item.gate = Some("if .Values.leaderElection.enabled".into())
                }
                Some(arg) if arg.starts_with("--metrics-bind-address=") => {
                    let host = arg.rsplit_once(':').map_or("", |(h, _)| h);
                    item.node = Node::Expr(format!("\"{host}:{{{{ .Values.metrics.port }}}}\""));
                }
                _ => {}
            }
        }
        if !defaults.leader_election {
            items.push(gated_arg(
                "--leader-elect",
                "if .Values.leaderElection.enabled",
            ));
        }
        items.push(gated_arg(
            "--metrics-secure=false",
            "if not .Values.metrics.secure",
        ));
        if defaults.webhook_port.is_some() {
            items.push(Item {
                node: Node::Expr("\"--webhook-port={{ .Values.webhook.port }}\"".into()),
                gate: Some(format!(
                    "if ne (int .Values.webhook.port) {RUNTIME_WEBHOOK_PORT}"
                )),
            });
        }
    }
    ports_from_values(container, "containerPort", defaults);
}

fn gated_arg(arg: &str, gate: &str) -> Item {
    Item {
        node: Node::string(arg),
        gate: Some(gate.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_split_into_repository_tag_and_digest() {
        assert_eq!(
            split_image("controller:latest"),
            ("controller".into(), "latest".into(), "".into())
        );
        assert_eq!(
            split_image("reg:5000/a/b"),
            ("reg:5000/a/b".into(), "latest".into(), "".into())
        );
        assert_eq!(
            split_image("a/b:1@sha256:00"),
            ("a/b".into(), "1".into(), "sha256:00".into())
        );
        assert_eq!(
            split_image("a/b@sha256:00"),
            ("a/b".into(), "".into(), "sha256:00".into())
        );
    }
}
