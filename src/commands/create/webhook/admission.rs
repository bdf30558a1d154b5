//! Defaulting and validating webhooks of a kind version: its file under `src/webhooks/`
//! (scaffolded once, extended through its markers), its module, its routes, and its
//! scenarios on the envtest control plane.

use std::path::Path;

use anyhow::{Result, bail};

use super::context::{Admission, Ctx, Env, WEBHOOKS_MOD};
use super::layout::tuple_line;
use super::request::WebhookRequest;
use crate::commands::create::{ENVTEST_MAIN, envtest_scaffolded};
use crate::project::Resource;
use crate::scaffold::Plan;
use crate::webhook::conversion;
use crate::webhook::emit::{atom, call};

/// The admission webhooks the request asks for; one the kind version has already needs
/// `--force`.
pub fn asked(request: &WebhookRequest, resource: &Resource, ctx: &Ctx) -> Result<Vec<Admission>> {
    let existing = &resource.webhooks;
    let mut admission = Vec::new();
    for (asked, had, kind, name) in [
        (
            request.defaulting,
            existing.defaulting,
            Admission::Defaulting,
            "defaulting",
        ),
        (
            request.validation,
            existing.validation,
            Admission::Validation,
            "validating",
        ),
    ] {
        if asked && had && !request.force {
            bail!(
                "{} ({}/{}) already has a {name} webhook (src/webhooks/{}.rs); nothing was written",
                request.kind,
                ctx.api_group,
                request.version,
                ctx.webhooks_module()
            );
        }
        if asked {
            admission.push(kind);
        }
    }
    Ok(admission)
}

/// The kind version's admission webhooks, `asked` and, when `--force` scaffolds the file
/// again, every type it has already.
pub fn plan(env: &Env, ctx: &mut Ctx, resource: &Resource, asked: &[Admission]) -> Result<Plan> {
    let mut all = asked.to_vec();
    if env.force {
        // Scaffolding the file again brings back every type the kind has.
        if resource.webhooks.defaulting && !all.contains(&Admission::Defaulting) {
            all.insert(0, Admission::Defaulting);
        }
        if resource.webhooks.validation && !all.contains(&Admission::Validation) {
            all.push(Admission::Validation);
        }
    }
    ctx.module = ctx.webhooks_module();
    ctx.foo_rules = conversion::has_optional_string(
        env.sources,
        &ctx.api_group,
        &ctx.kind,
        &ctx.version,
        "foo",
    )?;
    // The API server's calls to them, on the envtest control plane.
    let envtest = if envtest_scaffolded(env.tree)? {
        Some(format!("tests/envtest/{}_admission.rs", ctx.module))
    } else {
        None
    };
    let mut plan = plan_file(env, ctx, envtest.as_deref())?;
    for kind in all {
        plan.extend(plan_kind(env, ctx, kind, envtest.as_deref())?);
    }
    Ok(plan)
}

/// The file of the kind version's webhooks, its module, and its envtest scenarios in
/// `envtest_test` when the project has the envtest binary.
fn plan_file(env: &Env, ctx: &Ctx, envtest_test: Option<&str>) -> Result<Plan> {
    let Env {
        tree,
        renderer,
        sources,
        force,
    } = *env;
    let mut plan = Plan::new();
    let module = &ctx.module;
    let path = format!("src/webhooks/{module}.rs");
    if force || tree.read(Path::new(&path))?.is_none() {
        let sample = conversion::sample_code(
            sources,
            &ctx.api_group,
            &ctx.kind,
            &ctx.version,
            "kind",
            "",
            4,
        )?;
        let mut c = ctx.clone();
        c.sample = sample;
        plan.scaffold(
            &path,
            renderer.render("webhook/src/webhooks/kind.rs.hbs", &c)?,
        );
    }
    plan.insert(
        WEBHOOKS_MOD,
        "webhook-modules",
        format!("pub mod {module};"),
    );
    let Some(envtest_test) = envtest_test else {
        return Ok(plan);
    };
    if force || tree.read(Path::new(envtest_test))?.is_none() {
        plan.scaffold(
            envtest_test,
            renderer.render("webhook/tests/envtest/admission.rs.hbs", ctx)?,
        );
    }
    plan.insert(
        ENVTEST_MAIN,
        "envtest-modules",
        format!("mod {module}_admission;"),
    );
    Ok(plan)
}

/// One webhook type: its functions and tests in the kind version's file, its route, and
/// its envtest scenarios.
fn plan_kind(env: &Env, ctx: &Ctx, kind: Admission, envtest_test: Option<&str>) -> Result<Plan> {
    let mut plan = Plan::new();
    let module = &ctx.module;
    let path = format!("src/webhooks/{module}.rs");
    let (fragment, test, route, handler) = match kind {
        Admission::Defaulting => (
            "defaulting",
            "defaulting_test",
            &ctx.mutate_path,
            call(
                "admission::defaulting",
                vec![atom(format!("{module}::default"))],
            ),
        ),
        Admission::Validation => (
            "validation",
            "validation_test",
            &ctx.validate_path,
            call(
                "admission::validating",
                ["create", "update", "delete"]
                    .iter()
                    .map(|op| atom(format!("{module}::validate_{op}")))
                    .collect(),
            ),
        ),
    };
    let render = |template: String| env.renderer.render(&template, ctx);
    plan.insert(
        &path,
        "webhook-functions",
        render(format!("webhook/fragments/{fragment}.rs.hbs"))?,
    );
    plan.insert(
        &path,
        "webhook-tests",
        render(format!("webhook/fragments/{test}.rs.hbs"))?,
    );
    plan.insert(
        WEBHOOKS_MOD,
        "webhook-routes",
        tuple_line(8, vec![atom(format!("{route:?}")), handler]),
    );
    if let Some(envtest_test) = envtest_test {
        plan.insert(
            envtest_test,
            &format!("{module}-admission"),
            format!("{route:?},"),
        );
        if ctx.foo_rules {
            plan.insert(
                envtest_test,
                &format!("{module}-admission-tests"),
                render(format!("webhook/fragments/{fragment}_envtest.rs.hbs"))?,
            );
        }
    }
    Ok(plan)
}
