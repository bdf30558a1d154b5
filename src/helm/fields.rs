//! Where values go into an object of the chart: whole fields from values, mappings and
//! sequences values extend, entries added under a condition, and the ports; and the
//! values' defaults, read off what kustomize rendered (`manager`), that the ports match.

use serde::Serialize;
use serde_yaml::Value;

use super::template::{Entry, Node};

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

/// `key` rendered from `values`, whose default is what kustomize rendered; absent there,
/// absent unless set.
pub(super) fn from_values(node: &mut Node, key: &str, values: &str) {
    if node.get(key).is_some() {
        node.set(key, Node::Yaml(values.into()), None);
    } else {
        node.set(key, Node::Yaml(".".into()), Some(format!("with {values}")));
    }
}

/// `key`'s mapping with the entries of `values` after its own.
pub(super) fn extend_map(node: &mut Node, key: &str, values: &str) {
    extend(node, key, values);
}

/// `key`'s sequence with the items of `values` after its own.
pub(super) fn extend_list(node: &mut Node, key: &str, values: &str) {
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
pub(super) fn add_entry(node: &mut Node, key: &str, entry: Entry, cond: &str) {
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
pub(super) fn ports_from_values(node: &mut Node, field: &str, defaults: &Defaults) {
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

pub(super) fn to_value(node: &Node) -> Value {
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
    use crate::helm::merge;
    use crate::helm::template::emit;

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
}
