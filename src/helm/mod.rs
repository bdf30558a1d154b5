//! `dist/chart/`, the operator as a Helm chart, made from what kustomize renders of
//! `config/default` (`kustomize`, `merge`), object by object (`chart`; `manager` and
//! `fields` put the values in; `template` writes the text), so the chart
//! and `config/` cannot drift. `Chart.yaml` and `templates/extras/` are the user's;
//! everything else is generated.

mod chart;
mod fields;
mod kustomize;
mod manager;
mod merge;
mod template;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::json;
use serde_yaml::Value;

use crate::project::Project;
use crate::scaffold::{DiskTree, Generated, Plan, Renderer};

/// The chart's directory in the project.
pub const DIR: &str = "dist/chart";
/// The templates the user adds, which rsbuilder never touches.
pub const EXTRAS: &str = "templates/extras";

/// Plans the chart of the project at `root` as `pending` (the plan of the same command)
/// leaves `config/`.
pub fn plan(root: &Path, project: &Project, pending: &Plan) -> Result<Generated> {
    let changed: BTreeMap<PathBuf, Option<String>> = pending
        // Only a preview: the write resolves the plan again, refusing what it must.
        .resolve(&DiskTree::new(root), true)?
        .into_iter()
        .map(|c| (c.path, c.new))
        .collect();
    // The project as the same command leaves it (`edit --webhook-certs` changes its mode).
    let pending_project = match changed
        .get(Path::new(crate::project::FILE))
        .and_then(Option::as_ref)
    {
        Some(text) => Some(Project::parse(text)?),
        None => None,
    };
    let project = pending_project.as_ref().unwrap_or(project);
    let renders = kustomize::render(root, project, &changed)?;
    let name = &project.project_name;
    let (templates, defaults) = chart::templates(&renders, &template::Helpers(name))?;
    let renderer = Renderer::new()?;
    let crds: Vec<String> = renders
        .base
        .iter()
        .filter(|o| o.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition"))
        .filter_map(|o| o.get("metadata")?.get("name")?.as_str().map(String::from))
        .collect();
    let deployment = renders
        .base
        .iter()
        .find(|o| o.get("kind").and_then(Value::as_str) == Some("Deployment"))
        .and_then(|o| o.get("metadata")?.get("name")?.as_str())
        .unwrap_or_default();
    let context = json!({
        "name": name,
        "service_account": defaults.service_account_name,
        "deployment": deployment,
        "crds": crds,
        "image_repository": scalar(&defaults.image_repository.clone().into()),
        "image_tag": scalar(&defaults.image_tag.clone().into()),
        "image_digest": scalar(&defaults.image_digest.clone().into()),
        "image_pull_policy": scalar(&defaults.image_pull_policy.clone().into()),
        "image_pull_secrets": block(&defaults.image_pull_secrets),
        "replicas": scalar(&defaults.replicas),
        "resources": block(&defaults.resources),
        "node_selector": block(&defaults.node_selector),
        "tolerations": block(&defaults.tolerations),
        "affinity": block(&defaults.affinity),
        "topology_spread_constraints": block(&defaults.topology_spread_constraints),
        "priority_class_name": scalar(&defaults.priority_class_name.clone().into()),
        "pod_security_context": block(&defaults.pod_security_context),
        "security_context": block(&defaults.security_context),
        "leader_election": defaults.leader_election,
        "metrics_port": defaults.metrics_port,
        "webhook_port": defaults.webhook_port.unwrap_or(9443),
        "prometheus": defaults.prometheus,
        "network_policy": defaults.network_policy,
        "cert_manager": defaults.cert_manager,
    });

    let dir = Path::new(DIR);
    let mut plan = Plan::new();
    let chart_yaml = dir.join("Chart.yaml");
    if !root.join(&chart_yaml).exists() {
        plan.scaffold(
            &chart_yaml,
            renderer.render("helm/Chart.yaml.hbs", &context)?,
        );
    }
    for file in [
        "values.yaml",
        "values.schema.json",
        "templates/_helpers.tpl",
        "templates/NOTES.txt",
    ] {
        plan.generate(
            dir.join(file),
            renderer.render(&format!("helm/{file}.hbs"), &context)?,
        );
    }
    let mut written = BTreeSet::new();
    if defaults.cert_manager.is_some() {
        let checks = dir.join("templates/checks.yaml");
        plan.generate(
            &checks,
            renderer.render("helm/templates/checks.yaml.hbs", &context)?,
        );
        written.insert(checks);
    }
    for template in templates {
        let path = dir.join("templates").join(&template.path);
        written.insert(path.clone());
        plan.generate(path, template.text);
    }
    Ok(Generated {
        plan,
        stale: stale(root, &written),
        output_dir: None,
    })
}

/// For a project with a chart, adds the chart as `plan` leaves config/ to `plan`, so that
/// a command that changes config/ keeps the chart in step in the same write. Returns the
/// chart's templates nothing produces any more.
pub fn follow(root: &Path, project: &Project, plan: &mut Plan) -> Result<Vec<PathBuf>> {
    if !project.helm {
        return Ok(Vec::new());
    }
    let chart = self::plan(root, project, plan)?;
    plan.extend(chart.plan);
    Ok(chart.stale)
}

/// Generated templates nothing produces any more (those under `templates/extras` are the
/// user's).
fn stale(root: &Path, written: &BTreeSet<PathBuf>) -> Vec<PathBuf> {
    let keep = [
        Path::new(DIR).join("templates/_helpers.tpl"),
        Path::new(DIR).join("templates/NOTES.txt"),
    ];
    let mut found = Vec::new();
    let mut dirs = vec![Path::new(DIR).join("templates")];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let rel = dir.join(entry.file_name());
            if rel == Path::new(DIR).join(EXTRAS) {
                continue;
            }
            match entry.file_type() {
                Ok(t) if t.is_dir() => dirs.push(rel),
                Ok(t) if t.is_file() && !written.contains(&rel) && !keep.contains(&rel) => {
                    found.push(rel)
                }
                _ => {}
            }
        }
    }
    found.sort();
    found
}

/// A scalar default, as YAML after its key.
fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => serde_json::to_string(s).unwrap_or_default(),
        Value::Null => "null".into(),
        other => serde_yaml::to_string(other)
            .unwrap_or_default()
            .trim_end()
            .to_string(),
    }
}

/// A structured default under its key: `{}` or `[]` on the key's line when empty, else
/// indented below it.
fn block(value: &Value) -> String {
    match value {
        Value::Mapping(m) if m.is_empty() => " {}".into(),
        Value::Sequence(s) if s.is_empty() => " []".into(),
        Value::Null => " {}".into(),
        Value::Mapping(_) | Value::Sequence(_) => {
            let text = serde_yaml::to_string(value).unwrap_or_default();
            let indent = if value.is_sequence() { "" } else { "  " };
            let lines: String = text.lines().map(|l| format!("\n{indent}{l}")).collect();
            lines
        }
        other => format!(" {}", scalar(other)),
    }
}
