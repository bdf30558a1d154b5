//! The chart's templates, made from the objects kustomize renders of `config/default`: each
//! object as kustomize wrote it, with the namespace the release's, Helm's labels added,
//! the optional parts gated by their values, and the fields users set through values.
//! With default values the chart renders what kustomize renders (see the README for the
//! documented differences), so the two cannot drift.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Result, bail};
use serde_yaml::Value;

use super::fields::{Defaults, add_entry, extend_map, ports_from_values};
use super::kustomize::Renders;
use super::manager::{is_manager, manager_defaults, manager_values};
use super::merge;
// `helm/mod.rs` names the helpers through the chart that takes them.
use super::template::Helpers;
use super::template::{Entry, Node, emit};

/// One template of the chart: its path under `templates/` and its text.
pub struct Template {
    pub path: String,
    pub text: String,
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

#[cfg(test)]
mod tests {
    use super::*;

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
