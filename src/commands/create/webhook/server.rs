//! The webhook server: its module, config and Service, its registration in the manager
//! and the Makefile, the runtime's `webhooks` feature, and the kustomize entries that
//! deploy it. Scaffolded by a project's first webhook, kept by every later one.

use std::path::Path;

use anyhow::Result;

use super::context::{CARGO, Ctx, scaffold_missing};
use crate::commands::create::{ENVTEST_MAIN, envtest_scaffolded};
use crate::runtime_crate;
use crate::scaffold::{Edit, ListEntries, Plan, Renderer, Tree};

const LIB: &str = "src/lib.rs";
const MAIN: &str = "src/main.rs";
const MAKEFILE: &str = "Makefile";
const DEFAULT_KUSTOMIZATION: &str = "config/default/kustomization.yaml";
const ENVTEST_WEBHOOKS: &str = "tests/envtest/webhooks.rs";
const NETWORK_POLICY_KUSTOMIZATION: &str = "config/network-policy/kustomization.yaml";

/// The webhook server, its dependencies and config, and its registration in the manager:
/// scaffolded by the first webhook, kept by every later one.
pub fn plan(tree: &dyn Tree, renderer: &Renderer, ctx: &Ctx) -> Result<Plan> {
    let mut plan = Plan::new();
    for file in [
        "src/webhooks/mod.rs",
        "config/webhook/kustomization.yaml",
        "config/webhook/service.yaml",
    ] {
        plan.extend(scaffold_missing(tree, renderer, ctx, file)?);
    }
    plan.extend(plan_envtest(tree, renderer, ctx)?);
    plan.insert(LIB, "modules", "pub mod webhooks;");
    for (file, marker, fragment) in [
        (MAIN, "manager-flags", "manager_flags.rs"),
        (MAIN, "manager-servers", "manager_servers.rs"),
        (MAKEFILE, "make-variables", "make_variables"),
        (MAKEFILE, "make-targets", "make_targets"),
    ] {
        let text = renderer.render(&format!("webhook/fragments/{fragment}.hbs"), ctx)?;
        plan.insert(file, marker, text);
    }
    // The server, the reviews and the certificates are the runtime's, behind a feature that
    // projects without webhooks do without (and their dependencies with it).
    plan.edit(
        CARGO,
        Edit::CargoFeatures {
            name: runtime_crate::DIR.into(),
            features: vec!["webhooks".into()],
        },
    );
    for resource in ["- ../webhook", "- ../webhook-certs"] {
        plan.add_to_list(
            DEFAULT_KUSTOMIZATION,
            ListEntries::new("resources", "default-resources", resource),
        );
    }
    plan.add_to_list(
        DEFAULT_KUSTOMIZATION,
        ListEntries::new(
            "patches",
            "default-patches",
            "- path: manager_webhook_patch.yaml",
        )
        .by("path"),
    );
    // The replacements are generated with the certificate's files (`webhook::certs`).
    plan.add_to_list(
        DEFAULT_KUSTOMIZATION,
        ListEntries::new(
            "replacements",
            "default-replacements",
            "- path: webhook_certs_replacements.yaml",
        )
        .by("path"),
    );
    plan.extend(plan_network_policy(tree, renderer, ctx)?);
    Ok(plan)
}

/// The envtest control plane serves the webhooks and installs their configurations, when
/// the project has the envtest binary.
fn plan_envtest(tree: &dyn Tree, renderer: &Renderer, ctx: &Ctx) -> Result<Plan> {
    if !envtest_scaffolded(tree)? {
        return Ok(Plan::new());
    }
    let mut plan = scaffold_missing(tree, renderer, ctx, ENVTEST_WEBHOOKS)?;
    plan.insert(ENVTEST_MAIN, "envtest-modules", "mod webhooks;");
    plan.insert(ENVTEST_MAIN, "envtest-modules", "mod webhook_certs;");
    for field in [
        "webhooks: Some(webhooks::serve),",
        "webhook_certs: webhook_certs::ISSUE,",
    ] {
        plan.insert(ENVTEST_MAIN, "envtest-environment", field);
    }
    Ok(plan)
}

/// The policy that admits the API server to the webhook server, beside the metrics one,
/// unless the project has no `config/network-policy` (the user removed it).
fn plan_network_policy(tree: &dyn Tree, renderer: &Renderer, ctx: &Ctx) -> Result<Plan> {
    if tree
        .read(Path::new(NETWORK_POLICY_KUSTOMIZATION))?
        .is_none()
    {
        return Ok(Plan::new());
    }
    let mut plan = scaffold_missing(
        tree,
        renderer,
        ctx,
        "config/network-policy/allow-webhook-traffic.yaml",
    )?;
    plan.add_to_list(
        NETWORK_POLICY_KUSTOMIZATION,
        ListEntries::new(
            "resources",
            "network-policies",
            "- allow-webhook-traffic.yaml",
        ),
    );
    Ok(plan)
}
