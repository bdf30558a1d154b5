//! The files that decide who issues the webhook server's certificate (`--webhook-certs`):
//! `config/webhook-certs/` and, in `config/default`, the manager's webhook patch and the
//! replacements that fill in names. They are generated from PROJECT, so that `edit
//! --webhook-certs` switches a project by rewriting them, and switching back gives the
//! very same files. The envtest binary's part of the mode too: who signs the certificate
//! its webhook server serves, and the tests of the manager's own. And the metrics
//! server's certificate, which Prometheus verifies (`config/prometheus/`): the manager
//! issues it from its webhook CA where it issues that one, cert-manager everywhere else.

use std::path::Path;

use anyhow::Result;
use heck::ToSnakeCase;
use serde::Serialize;

use crate::project::{Project, WebhookCerts};
use crate::scaffold::{Plan, Renderer, Tree};

/// Where the kustomization of the certificate's objects lives.
pub const DIR: &str = "config/webhook-certs";
/// The patch of the manager's Deployment: its webhook port and certificate.
pub const MANAGER_PATCH: &str = "config/default/manager_webhook_patch.yaml";
/// The replacements that fill in names kustomize gave (`replacements: - path:`).
pub const REPLACEMENTS: &str = "config/default/webhook_certs_replacements.yaml";
/// The envtest binary's part: `ISSUE`, the certificate task the control plane runs.
pub const ENVTEST: &str = "tests/envtest/webhook_certs.rs";
/// The envtest binary, whose presence decides whether [`ENVTEST`] is generated.
const ENVTEST_MAIN: &str = "tests/envtest/main.rs";
/// The component that has Prometheus scrape the metrics and verify their certificate.
pub const METRICS_DIR: &str = "config/prometheus";

#[derive(Debug, Serialize)]
struct Ctx {
    project_name: String,
    crate_name: String,
    /// The license header of the project's Rust files.
    boilerplate: String,
    mutating: bool,
    validating: bool,
    /// The CRDs that convert through the webhook.
    crds: Vec<String>,
    crd_list: String,
    /// The rule of the validating webhook configuration in the ClusterRole.
    validating_rule: usize,
    /// The two halves of `cert-manager.io/inject-ca-from` (namespace, name).
    parts: Vec<Part>,
}

#[derive(Debug, Serialize)]
struct Part {
    field: &'static str,
    index: usize,
    mutating: bool,
    validating: bool,
    crds: Vec<String>,
}

/// Whether the project has a webhook of any kind, and so a webhook server.
pub fn any(project: &Project) -> bool {
    project.resources.iter().any(|r| {
        r.path.is_some()
            && (r.webhooks.defaulting || r.webhooks.validation || r.webhooks.conversion)
    })
}

/// Plans every file of the project's `--webhook-certs` mode, [`ENVTEST`] among them
/// where `tree` has the envtest binary.
pub fn plan(
    plan: &mut Plan,
    renderer: &Renderer,
    project: &Project,
    tree: &dyn Tree,
) -> Result<()> {
    let envtest = tree.read(Path::new(ENVTEST_MAIN))?.is_some();
    let boilerplate = tree
        .read(Path::new("hack/boilerplate.rs.txt"))?
        .unwrap_or_default();
    let ctx = context(project, boilerplate);
    for (path, text) in render(renderer, project, &ctx)? {
        plan.generate(path, text);
    }
    if envtest {
        let mode = project.webhook_certs.as_str();
        let text = renderer.render(&format!("webhook_certs/{mode}/envtest.rs.hbs"), &ctx)?;
        plan.generate(ENVTEST, text);
    }
    plan_metrics(plan, renderer, project, tree)
}

/// Plans [`METRICS_DIR`] for the project's mode, unless the project keeps a
/// `config/prometheus` of its own there (an older rsbuilder scaffolded it as a plain
/// kustomization, which is the user's).
pub fn plan_metrics(
    plan: &mut Plan,
    renderer: &Renderer,
    project: &Project,
    tree: &dyn Tree,
) -> Result<()> {
    let kustomization = format!("{METRICS_DIR}/kustomization.yaml");
    let theirs = tree
        .read(Path::new(&kustomization))?
        .is_some_and(|text| !text.contains("\nkind: Component\n"));
    if !theirs {
        for (path, text) in metrics_files(renderer, project)? {
            plan.generate(path, text);
        }
    }
    Ok(())
}

/// The files of [`METRICS_DIR`], by path. The manager issues the metrics certificate only
/// where it runs the certificate task, with its webhooks; a project without them has
/// cert-manager issue it, whatever its mode.
pub fn metrics_files(renderer: &Renderer, project: &Project) -> Result<Vec<(String, String)>> {
    let issuer = if any(project) {
        project.webhook_certs
    } else {
        WebhookCerts::CertManager
    };
    let ctx = context(project, String::new());
    let mode = issuer.as_str();
    let mut files = Vec::new();
    for name in [
        "kustomization.yaml",
        "monitor.yaml",
        "manager_metrics_patch.yaml",
    ] {
        let text = renderer.render(&format!("metrics_certs/{mode}/{name}.hbs"), &ctx)?;
        files.push((format!("{METRICS_DIR}/{name}"), text));
    }
    let config = renderer.render("webhook_certs/kustomizeconfig.yaml.hbs", &ctx)?;
    files.push((format!("{METRICS_DIR}/kustomizeconfig.yaml"), config));
    Ok(files)
}

/// The files of the project's mode under `config/`, by path.
fn render(renderer: &Renderer, project: &Project, ctx: &Ctx) -> Result<Vec<(String, String)>> {
    let mode = project.webhook_certs.as_str();
    let template = |name: &str| format!("webhook_certs/{mode}/{name}.hbs");
    Ok(vec![
        (
            format!("{DIR}/kustomization.yaml"),
            renderer.render(&template("kustomization.yaml"), ctx)?,
        ),
        (
            format!("{DIR}/resources.yaml"),
            renderer.render(&template("resources.yaml"), ctx)?,
        ),
        (
            format!("{DIR}/kustomizeconfig.yaml"),
            renderer.render("webhook_certs/kustomizeconfig.yaml.hbs", ctx)?,
        ),
        (
            MANAGER_PATCH.to_string(),
            renderer.render(&template("manager_webhook_patch.yaml"), ctx)?,
        ),
        (
            REPLACEMENTS.to_string(),
            renderer.render(&template("replacements.yaml"), ctx)?,
        ),
    ])
}

fn context(project: &Project, boilerplate: String) -> Ctx {
    let own = || project.resources.iter().filter(|r| r.path.is_some());
    let mutating = own().any(|r| r.webhooks.defaulting);
    let validating = own().any(|r| r.webhooks.validation);
    let mut crds: Vec<String> = own()
        .filter(|r| r.webhooks.conversion)
        .map(|r| format!("{}.{}.{}", r.plural, r.group, r.domain))
        .collect();
    crds.sort();
    crds.dedup();
    let parts = [(".metadata.namespace", 0), (".metadata.name", 1)]
        .into_iter()
        .map(|(field, index)| Part {
            field,
            index,
            mutating,
            validating,
            crds: crds.clone(),
        })
        .collect();
    Ctx {
        project_name: project.project_name.clone(),
        crate_name: project.project_name.to_snake_case(),
        boilerplate,
        mutating,
        validating,
        crd_list: crds.join(","),
        crds,
        validating_rule: usize::from(mutating),
        parts,
    }
}

/// What `create webhook`'s `Next:` says about the certificate.
pub fn next_steps(mode: WebhookCerts) -> &'static str {
    match mode {
        WebhookCerts::CertManager => {
            "The manager serves the webhooks on --webhook-port (9443) with the certificate \
             cert-manager issues (`make install-cert-manager` once per cluster)"
        }
        WebhookCerts::SelfIssued => {
            "The manager serves the webhooks on --webhook-port (9443) with a certificate it \
             issues itself and injects into the webhook configurations and CRDs"
        }
    }
}
