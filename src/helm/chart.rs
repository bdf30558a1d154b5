//! The chart's templates, made from the objects kustomize renders of `config/default`: each
//! object as kustomize wrote it, with the namespace the release's, Helm's labels added,
//! the optional parts gated by their values, and the fields users set through values.
//! With default values the chart renders what kustomize renders (see the README for the
//! documented differences), so the two cannot drift.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Result, bail};
use serde::Serialize;
use serde_yaml::Value;

use super::kustomize::Renders;
use super::merge;
use super::template::{Entry, Item, Node, emit};

/// The default of a value, taken from what kustomize rendered.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Defaults {
    pub image_repository: String,
    pub image_tag: String,
    pub image_digest: String,
    pub image_pull_policy: String,
    pub image_pull_secrets: Value,
    pub replicas: Value,
    pub resources: Value,
    pub node_selector: Value,
    pub tolerations: Value,
    pub affinity: Value,
    pub topology_spread_constraints: Value,
    pub priority_class_name: String,
    pub pod_security_context: Value,
    pub security_context: Value,
    pub service_account_name: String,
    pub leader_election: bool,
    pub metrics_port: u16,
    /// The webhook server's port, when the manager serves webhooks.
    pub webhook_port: Option<u16>,
    pub prometheus: bool,
    pub network_policy: bool,
    /// Whether cert-manager issues the webhook certificate, for a project with webhooks.
    pub cert_manager: Option<bool>,
}

/// One template of the chart: its path under `templates/` and its text.
pub struct Template {
    pub path: String,
    pub text: String,
}

/// The port the manager's webhook server listens on unless told otherwise (the runtime's
/// `--webhook-port` default).
const RUNTIME_WEBHOOK_PORT: u16 = 9443;

/// What the chart's templates include from `_helpers.tpl`, named after the chart.
pub struct Helpers<'a>(pub &'a str);

impl Helpers<'_> {
    fn include(&self, what: &str) -> String {
        format!("{{{{ include \"{}.{what}\" . }}}}", self.0)
    }
}

pub fn templates(renders: &Renders, helpers: &Helpers) -> Result<(Vec<Template>, Defaults)> {
    let objects = gated_objects(renders);
    let namespace = release_namespace(&renders.base);
    let manager = objects
        .iter()
        .position(|o| is_manager(&o.node))
        .map(Ok)
        .unwrap_or_else(|| {
            bail!("config/default renders no Deployment with a container named `manager`; the chart's values configure that container, so name it so")
        })?;
    let mut defaults = manager_defaults(&objects[manager].node, renders)?;
    let mut templates = Vec::new();
    let mut names = BTreeMap::<String, usize>::new();
    let mut placed = Vec::new();
    for (i, mut object) in objects.into_iter().enumerate() {
        let kind = object
            .node
            .at(&["kind"])
            .and_then(Node::as_str)
            .unwrap_or_default()
            .to_string();
        if kind == "Namespace" {
            continue;
        }
        let name = object
            .node
            .at(&["metadata", "name"])
            .map(|n| match n {
                Node::Scalar(Value::String(s)) => s.clone(),
                _ => "object".into(),
            })
            .unwrap_or_default();
        if i == manager {
            manager_values(&mut object.node, &mut defaults, helpers);
        }
        let dir = values_of(&kind, &mut object, &defaults, helpers);
        if let Some(ns) = &namespace {
            release_namespace_in(&mut object.node, ns);
        }
        helm_labels(&mut object.node, helpers);
        let stem = file_stem(&name, namespace.as_deref());
        *names.entry(format!("{dir}/{stem}")).or_default() += 1;
        placed.push((dir, stem, kind, object));
    }
    for (dir, stem, kind, object) in placed {
        let file = if names[&format!("{dir}/{stem}")] > 1 {
            format!("{dir}/{stem}-{}.yaml", kind.to_ascii_lowercase())
        } else {
            format!("{dir}/{stem}.yaml")
        };
        templates.push(Template {
            text: document(&object),
            path: file,
        });
    }
    templates.sort_by(|a, b| a.path.cmp(&b.path));
    let duplicate = templates.windows(2).find(|w| w[0].path == w[1].path);
    if let Some(w) = duplicate {
        bail!(
            "two objects of config/default would both be written to templates/{}; give them different names",
            w[0].path
        );
    }
    Ok((templates, defaults))
}

/// An object of the chart and the conditions under which it is rendered.
struct Object {
    node: Node,
    gates: Vec<String>,
}

/// Every object of the base render, with what each switch changes in it folded in, then
/// the objects only a switch adds, gated by it.
fn gated_objects(renders: &Renders) -> Vec<Object> {
    let mut objects: Vec<Object> = renders
        .base
        .iter()
        .map(|base| {
            let mut node = Node::from_value(base);
            for switched in &renders.switched {
                let on = switched
                    .objects
                    .iter()
                    .find(|o| identity(o) == identity(base));
                if let Some(on) = on {
                    merge::fold(&mut node, base, on, &switched.cond);
                }
            }
            Object {
                node,
                gates: Vec::new(),
            }
        })
        .collect();
    let base: BTreeSet<_> = renders.base.iter().map(identity).collect();
    for switched in &renders.switched {
        let on: BTreeSet<_> = switched.objects.iter().map(identity).collect();
        for added in switched
            .objects
            .iter()
            .filter(|o| !base.contains(&identity(o)))
        {
            objects.push(Object {
                node: Node::from_value(added),
                gates: vec![switched.cond.clone()],
            });
        }
        // An object the switch takes away is rendered only while it is off.
        for (object, base) in objects.iter_mut().zip(&renders.base) {
            if !on.contains(&identity(base)) {
                object.gates.push(format!("(not {})", switched.cond));
            }
        }
    }
    objects
}

fn identity(object: &Value) -> (String, String, String) {
    let text = |path: &[&str]| {
        path.iter()
            .try_fold(object, |v, k| v.get(*k))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    (
        text(&["kind"]),
        text(&["metadata", "namespace"]),
        text(&["metadata", "name"]),
    )
}

/// The namespace kustomize put everything in: its Namespace object's, else the one most
/// objects have.
fn release_namespace(objects: &[Value]) -> Option<String> {
    if let Some(ns) = objects
        .iter()
        .find(|o| o.get("kind").and_then(Value::as_str) == Some("Namespace"))
    {
        return ns.get("metadata")?.get("name")?.as_str().map(String::from);
    }
    let mut counts = BTreeMap::<&str, usize>::new();
    for o in objects {
        if let Some(ns) = o
            .get("metadata")
            .and_then(|m| m.get("namespace"))
            .and_then(Value::as_str)
        {
            *counts.entry(ns).or_default() += 1;
        }
    }
    counts
        .into_iter()
        .max_by_key(|(_, n)| *n)
        .map(|(ns, _)| ns.to_string())
}

fn is_manager(node: &Node) -> bool {
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
fn manager_defaults(deployment: &Node, renders: &Renders) -> Result<Defaults> {
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
fn manager_values(deployment: &mut Node, defaults: &mut Defaults, helpers: &Helpers) {
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

/// `key` rendered from `values`, whose default is what kustomize rendered; absent there,
/// absent unless set.
fn from_values(node: &mut Node, key: &str, values: &str) {
    if node.get(key).is_some() {
        node.set(key, Node::Yaml(values.into()), None);
    } else {
        node.set(key, Node::Yaml(".".into()), Some(format!("with {values}")));
    }
}

/// `key`'s mapping with the entries of `values` after its own.
fn extend_map(node: &mut Node, key: &str, values: &str) {
    extend(node, key, values);
}

/// `key`'s sequence with the items of `values` after its own.
fn extend_list(node: &mut Node, key: &str, values: &str) {
    extend(node, key, values);
}

/// A mapping or sequence at `key` that `values` extends. Where only a switch brings the
/// key (gated `if SWITCH`), its entries take that gate and the key stands where either the
/// switch or `values` brings something.
fn extend(node: &mut Node, key: &str, values: &str) {
    let Some(entry) = node.entry_mut(key) else {
        node.set(key, Node::Yaml(".".into()), Some(format!("with {values}")));
        return;
    };
    let switch = match entry.gate.as_deref().map(|g| g.strip_prefix("if ")) {
        None => None,
        Some(Some(cond)) => Some(cond.to_string()),
        // Gated by `with`: already extended.
        Some(None) => return,
    };
    let gate_all = |gate: &mut Option<String>| {
        if let Some(cond) = &switch {
            gate.get_or_insert_with(|| format!("if {cond}"));
        }
    };
    match &mut entry.node {
        Node::Map { entries, extra } => {
            entries.iter_mut().for_each(|e| gate_all(&mut e.gate));
            *extra = Some(values.into());
        }
        Node::List { items, extra } => {
            items.iter_mut().for_each(|i| gate_all(&mut i.gate));
            *extra = Some(values.into());
        }
        _ => return,
    }
    if let Some(cond) = switch {
        entry.gate = Some(format!("if or ({cond}) {values}"));
    }
}

/// `entry`, rendered where `cond` holds, into the mapping at `key`. Where only a switch
/// brings that mapping (gated `if SWITCH`), its entries take the switch's gate and the
/// mapping stands where either holds.
fn add_entry(node: &mut Node, key: &str, entry: Entry, cond: &str) {
    let Some(existing) = node.entry_mut(key) else {
        let ungated = Entry {
            gate: None,
            ..entry
        };
        let map = Node::Map {
            entries: vec![ungated],
            extra: None,
        };
        node.set(key, map, Some(format!("if {cond}")));
        return;
    };
    let switch = existing
        .gate
        .as_deref()
        .and_then(|g| g.strip_prefix("if "))
        .map(String::from);
    if let Node::Map { entries, .. } = &mut existing.node {
        if let Some(switch) = &switch {
            for e in entries.iter_mut() {
                e.gate.get_or_insert_with(|| format!("if {switch}"));
            }
        }
        entries.push(entry);
        if let Some(switch) = switch {
            existing.gate = Some(format!("if or ({switch}) {cond}"));
        }
    }
}

/// The metrics and webhook ports wherever `field` (a port number field) names them.
fn ports_from_values(node: &mut Node, field: &str, defaults: &Defaults) {
    let metrics = Value::from(defaults.metrics_port);
    let webhook = defaults.webhook_port.map(Value::from);
    visit_maps(node, &mut |map| {
        if let Some(entry) = map.entry_mut(field)
            && let Node::Scalar(v) = &entry.node
        {
            if *v == metrics {
                entry.node = Node::Expr("{{ .Values.metrics.port }}".into());
            } else if Some(v) == webhook.as_ref() {
                entry.node = Node::Expr("{{ .Values.webhook.port }}".into());
            }
        }
    });
}

fn visit_maps(node: &mut Node, f: &mut dyn FnMut(&mut Node)) {
    if matches!(node, Node::Map { .. }) {
        f(node);
    }
    match node {
        Node::Map { entries, .. } => entries.iter_mut().for_each(|e| visit_maps(&mut e.node, f)),
        Node::List { items, .. } => items.iter_mut().for_each(|i| visit_maps(&mut i.node, f)),
        _ => {}
    }
}

/// The values an object of `kind` answers to; returns the directory of its template.
fn values_of(
    kind: &str,
    object: &mut Object,
    defaults: &Defaults,
    helpers: &Helpers,
) -> &'static str {
    let name = object
        .node
        .at(&["metadata", "name"])
        .and_then(Node::as_str)
        .unwrap_or_default()
        .to_string();
    let service_account = |node: &mut Node| {
        if let Some(Node::List { items, .. }) = node.entry_mut("subjects").map(|e| &mut e.node) {
            for subject in items {
                let is_ours = subject.node.get("kind").and_then(Node::as_str)
                    == Some("ServiceAccount")
                    && subject.node.get("name").and_then(Node::as_str)
                        == Some(&defaults.service_account_name);
                if is_ours {
                    subject.node.set(
                        "name",
                        Node::Expr(helpers.include("serviceAccountName")),
                        None,
                    );
                }
            }
        }
    };
    match kind {
        "CustomResourceDefinition" => {
            object.gates.push(".Values.crd.enabled".into());
            let meta = object
                .node
                .entry_mut("metadata")
                .map(|e| &mut e.node)
                .expect("objects have metadata");
            let keep = Entry {
                key: "helm.sh/resource-policy".into(),
                node: Node::string("keep"),
                gate: Some("if .Values.crd.keep".into()),
            };
            add_entry(meta, "annotations", keep, ".Values.crd.keep");
            "crd"
        }
        "ServiceAccount" if name == defaults.service_account_name => {
            object.gates.push(".Values.serviceAccount.create".into());
            let meta = object
                .node
                .entry_mut("metadata")
                .map(|e| &mut e.node)
                .expect("objects have metadata");
            meta.set(
                "name",
                Node::Expr(helpers.include("serviceAccountName")),
                None,
            );
            extend_map(meta, "annotations", ".Values.serviceAccount.annotations");
            "rbac"
        }
        "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding" => {
            object.gates.push(".Values.rbac.create".into());
            service_account(&mut object.node);
            "rbac"
        }
        "Deployment" => "manager",
        "Service" if name.ends_with("metrics-service") => {
            object.gates.push(".Values.metrics.enabled".into());
            for field in ["port", "targetPort"] {
                ports_from_values(&mut object.node, field, defaults);
            }
            "metrics"
        }
        "Service" => {
            ports_from_values(&mut object.node, "targetPort", defaults);
            "webhook"
        }
        "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration" => {
            object.gates.push(".Values.webhook.enabled".into());
            "webhook"
        }
        "Certificate" | "Issuer" | "ClusterIssuer" => "certmanager",
        "ServiceMonitor" => {
            object.gates.push(".Values.metrics.enabled".into());
            "prometheus"
        }
        "NetworkPolicy" => {
            ports_from_values(&mut object.node, "port", defaults);
            "network-policy"
        }
        _ => "other",
    }
}

/// Every mention of kustomize's namespace becomes the release's.
fn release_namespace_in(node: &mut Node, namespace: &str) {
    let ns = namespace.to_string();
    node.rewrite_strings(&|s| {
        if s == ns {
            return Some(Node::Expr("{{ .Release.Namespace }}".into()));
        }
        let parts = split_on_token(s, &ns)?;
        let quoted: Vec<String> = parts
            .iter()
            .map(|p| {
                let json = serde_json::to_string(p).unwrap_or_default();
                json[1..json.len() - 1].to_string()
            })
            .collect();
        Some(Node::Expr(format!(
            "\"{}\"",
            quoted.join("{{ .Release.Namespace }}")
        )))
    });
}

/// `s` split around each occurrence of `token` that stands between `.`, `/` or the ends;
/// `None` when there is none.
fn split_on_token(s: &str, token: &str) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    let mut rest = s;
    let mut found = false;
    let mut carried = String::new();
    while let Some(at) = rest.find(token) {
        let before_ok = at == 0 && carried.is_empty()
            || rest[..at].ends_with(['.', '/'])
            || (at == 0 && carried.ends_with(['.', '/']));
        let after = &rest[at + token.len()..];
        let after_ok = after.is_empty() || after.starts_with(['.', '/']);
        if before_ok && after_ok {
            parts.push(format!("{carried}{}", &rest[..at]));
            carried.clear();
            found = true;
        } else {
            carried.push_str(&rest[..at + token.len()]);
        }
        rest = after;
    }
    parts.push(format!("{carried}{rest}"));
    found.then_some(parts)
}

/// The labels Helm's charts carry, on the object (not on selectors or pod templates).
fn helm_labels(node: &mut Node, helpers: &Helpers) {
    let Some(meta) = node.entry_mut("metadata").map(|e| &mut e.node) else {
        return;
    };
    if meta.get("labels").is_none() {
        meta.set("labels", Node::empty_map(), None);
    }
    let labels = meta
        .entry_mut("labels")
        .map(|e| &mut e.node)
        .expect("set above");
    labels.set(
        "helm.sh/chart",
        Node::Expr(format!("\"{}\"", helpers.include("chart"))),
        None,
    );
    labels.set(
        "app.kubernetes.io/instance",
        Node::Expr("\"{{ .Release.Name }}\"".into()),
        None,
    );
    labels.set(
        "app.kubernetes.io/managed-by",
        Node::Expr("\"{{ .Release.Service }}\"".into()),
        None,
    );
}

/// The object's template: the generated-file notice, then the object under its gates.
fn document(object: &Object) -> String {
    let body = emit(&object.node);
    let notice = "{{- /* Code generated by rsbuilder from config/ (rsbuilder generate helm). DO NOT EDIT. */}}\n";
    if object.gates.is_empty() {
        return format!("{notice}{body}");
    }
    let cond = if object.gates.len() == 1 {
        object.gates[0].clone()
    } else {
        format!("and {}", object.gates.join(" "))
    };
    format!("{notice}{{{{- if {cond} }}}}\n{body}{{{{- end }}}}\n")
}

/// A template's file name: the object's name without kustomize's prefix.
fn file_stem(name: &str, namespace: Option<&str>) -> String {
    let prefix = namespace
        .and_then(|ns| ns.strip_suffix("-system"))
        .map(|p| format!("{p}-"));
    let short = prefix
        .as_deref()
        .and_then(|p| name.strip_prefix(p))
        .filter(|s| !s.is_empty())
        .unwrap_or(name);
    let clean: String = short
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let clean = clean.trim_matches(['.', '-']).to_string();
    if clean.is_empty() {
        "object".into()
    } else {
        clean
    }
}

fn to_value(node: &Node) -> Value {
    match node {
        Node::Scalar(v) => v.clone(),
        Node::Map { entries, .. } => Value::Mapping(
            entries
                .iter()
                .filter(|e| e.gate.is_none())
                .map(|e| (Value::from(e.key.clone()), to_value(&e.node)))
                .collect(),
        ),
        Node::List { items, .. } => Value::Sequence(
            items
                .iter()
                .filter(|i| i.gate.is_none())
                .map(|i| to_value(&i.node))
                .collect(),
        ),
        Node::Expr(_) | Node::Yaml(_) => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_only_a_switch_brings_stands_for_the_switch_or_the_values() {
        let off: Value = crate::yaml::read::from_str("spec: {}").unwrap();
        let on: Value =
            crate::yaml::read::from_str("spec:\n  volumes:\n  - name: certs\n").unwrap();
        let mut node = Node::from_value(&off);
        merge::fold(&mut node, &off, &on, ".Values.p");
        extend_list(
            node.at_mut(&["spec"]).unwrap(),
            "volumes",
            ".Values.volumes",
        );
        assert_eq!(
            emit(&node),
            "spec:\n  {{- if or (.Values.p) .Values.volumes }}\n  volumes:\n  {{- if .Values.p }}\n  - name: certs\n  {{- end }}\n  {{- with .Values.volumes }}\n  {{- toYaml . | nindent 2 }}\n  {{- end }}\n  {{- end }}\n"
        );
    }

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

    #[test]
    fn the_namespace_is_replaced_where_it_stands_as_a_dns_label() {
        let parts = |s| split_on_token(s, "p-system");
        assert_eq!(
            parts("svc.p-system.svc"),
            Some(vec!["svc.".into(), ".svc".into()])
        );
        assert_eq!(
            parts("p-system/cert"),
            Some(vec!["".into(), "/cert".into()])
        );
        assert_eq!(parts("p-system-x"), None);
        assert_eq!(parts("xp-system"), None);
    }
}
