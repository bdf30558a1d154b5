//! Conversion through the hub: the `/convert` route, the kind's hub file and a conversion
//! file per spoke (their code from `webhook::conversion`), tests, the benchmark, and the
//! CRD's conversion patch.

use std::path::Path;

use anyhow::{Result, bail};

use super::context::{CARGO, Ctx, Env, WEBHOOKS_MOD, scaffold_missing};
use super::layout::{tuple_line, version_sort};
use super::request::WebhookRequest;
use crate::commands::create::{ENVTEST_MAIN, envtest_scaffolded};
use crate::names;
use crate::project::{Project, Resource};
use crate::scaffold::{Edit, ListEntries, Plan};
use crate::webhook::emit::{atom, call};
use crate::webhook::{self, conversion};

const BENCH: &str = "benches/conversion.rs";
const CRD_KUSTOMIZATION: &str = "config/crd/kustomization.yaml";

/// The spokes to add, in version priority: each a version of the kind other than the
/// hub, not converting yet; the hub must be the storage version, and the kind's only hub.
pub fn spokes(
    project: &Project,
    resource: &Resource,
    sources: &conversion::Sources,
    request: &WebhookRequest,
    ctx: &Ctx,
) -> Result<Vec<String>> {
    let (group, kind, hub) = (&*request.group, &*request.kind, &*request.version);
    let storage = conversion::storage_version(sources, &ctx.api_group, kind)?;
    if storage != hub {
        bail!(
            "{hub} is not the storage version of {kind} ({storage} is), and the hub of a conversion webhook is the storage version: \
             pass --version {storage}, or first run `rsbuilder edit --storage-version {hub} --kind {kind} --group {group}`"
        );
    }
    let same_kind = || {
        project
            .resources
            .iter()
            .filter(move |r| r.group == group && r.kind == kind)
    };
    if let Some(other) =
        same_kind().find(|r| r.webhooks.conversion && r.version != resource.version)
    {
        bail!(
            "{kind} already converts through the hub {}; a kind has one hub (its storage version)",
            other.version
        );
    }
    let versions: Vec<&str> = same_kind()
        .filter(|r| r.is_own())
        .map(|r| r.version.as_str())
        .collect();
    let converting: Vec<&String> = same_kind().flat_map(|r| &r.webhooks.spoke).collect();
    let mut spokes: Vec<String> = Vec::new();
    for spoke in &request.spokes {
        let spoke = spoke.to_string();
        check_spoke(request, ctx, &versions, &converting, &spoke)?;
        if !spokes.contains(&spoke) {
            spokes.push(spoke);
        }
    }
    spokes.sort_by_key(|v| names::version_priority(v));
    Ok(spokes)
}

/// One `--spoke`: another version of the kind, not converting yet (unless `--force`).
fn check_spoke(
    request: &WebhookRequest,
    ctx: &Ctx,
    versions: &[&str],
    converting: &[&String],
    spoke: &String,
) -> Result<()> {
    let (kind, hub) = (&*request.kind, &*request.version);
    if spoke == hub {
        let others: Vec<&str> = versions.iter().filter(|v| **v != hub).copied().collect();
        bail!(
            "--spoke {spoke} is the hub itself; the spokes are the other versions of {kind}: {}",
            others.join(", ")
        );
    }
    if !versions.contains(&spoke.as_str()) {
        bail!(
            "--spoke {spoke}: {kind} ({}) has no version {spoke}; its versions are {}",
            ctx.api_group,
            versions.join(", ")
        );
    }
    if converting.contains(&spoke) && !request.force {
        bail!(
            "{kind} already converts between {spoke} and {hub} (src/api/{}/{spoke}/{}_conversion.rs); nothing was written",
            ctx.group_mod,
            ctx.kind_snake
        );
    }
    Ok(())
}

/// The whole conversion of the kind: `spokes` are new, `recorded` every spoke PROJECT will
/// list.
pub fn plan(env: &Env, ctx: &Ctx, spokes: &[String], recorded: &[String]) -> Result<Plan> {
    let mut plan = plan_routes(ctx);
    let hub_file = conversion_file(ctx, &ctx.hub);
    // A hub file scaffolded (again) registers every spoke of the kind; an existing one
    // gains the new spokes only.
    let scaffold_hub = env.force || env.tree.read(Path::new(&hub_file))?.is_none();
    let registered = if scaffold_hub { recorded } else { spokes };
    plan.extend(plan_hub(env, ctx, &hub_file, scaffold_hub)?);
    plan.extend(plan_bench(env, ctx)?);
    for spoke in spokes {
        plan.extend(plan_spoke(env, ctx, spoke)?);
    }
    let envtest_test = if envtest_scaffolded(env.tree)? {
        Some(format!("tests/envtest/{}_conversion.rs", ctx.kind_snake))
    } else {
        None
    };
    if let Some(envtest_test) = &envtest_test {
        plan.extend(plan_envtest(env, ctx, envtest_test)?);
    }
    for spoke in registered {
        plan.extend(register_spoke(
            ctx,
            &hub_file,
            envtest_test.as_deref(),
            spoke,
        ));
    }
    plan.extend(plan_crd_patch(env, ctx)?);
    Ok(plan)
}

fn conversion_file(ctx: &Ctx, version: &str) -> String {
    format!(
        "src/api/{}/{version}/{}_conversion.rs",
        ctx.group_mod, ctx.kind_snake
    )
}

fn version_mod(ctx: &Ctx, version: &str) -> String {
    format!("src/api/{}/{version}/mod.rs", ctx.group_mod)
}

fn module_line(ctx: &Ctx) -> String {
    format!("pub mod {}_conversion;", ctx.kind_snake)
}

/// The `/convert` route (once) and the kind's entry in the conversions it serves.
fn plan_routes(ctx: &Ctx) -> Plan {
    let mut plan = Plan::new();
    plan.insert(
        WEBHOOKS_MOD,
        "webhook-routes",
        tuple_line(
            8,
            vec![
                atom("CONVERSION_PATH"),
                call("conversion::handler", vec![atom("CONVERSIONS")]),
            ],
        ),
    );
    let hub_mod = format!(
        "crate::api::{}::{}::{}_conversion",
        ctx.group_mod, ctx.hub, ctx.kind_snake
    );
    plan.insert(
        WEBHOOKS_MOD,
        "conversion-kinds",
        tuple_line(
            4,
            vec![
                atom(format!("{:?}", ctx.api_group)),
                atom(format!("{:?}", ctx.kind)),
                atom(format!("{hub_mod}::convert")),
            ],
        ),
    );
    plan
}

/// The hub's conversion file, when `scaffold` (it is missing, or `--force`), and its module.
fn plan_hub(env: &Env, ctx: &Ctx, hub_file: &str, scaffold: bool) -> Result<Plan> {
    let mut plan = Plan::new();
    if scaffold {
        let mut c = ctx.clone();
        c.sample = conversion::sample_code(
            env.sources,
            &ctx.api_group,
            &ctx.kind,
            &ctx.hub,
            "hub",
            "pub ",
            0,
        )?;
        plan.scaffold(
            hub_file,
            env.renderer
                .render("webhook/src/api/hub_conversion.rs.hbs", &c)?,
        );
    }
    plan.insert(version_mod(ctx, &ctx.hub), "kinds", module_line(ctx));
    Ok(plan)
}

/// The conversion benchmark and what it needs in Cargo.toml.
fn plan_bench(env: &Env, ctx: &Ctx) -> Result<Plan> {
    let mut plan = scaffold_missing(env.tree, env.renderer, ctx, BENCH)?;
    plan.edit(
        CARGO,
        Edit::CargoDependency {
            section: "dev-dependencies".into(),
            name: "criterion".into(),
            spec: r#"{ version = "0.8", default-features = false, features = ["cargo_bench_support"] }"#
                .into(),
        },
    );
    plan.edit(
        CARGO,
        Edit::CargoBench {
            name: "conversion".into(),
        },
    );
    Ok(plan)
}

/// A spoke's conversion file, its module, and its case in the benchmark.
fn plan_spoke(env: &Env, ctx: &Ctx, spoke: &str) -> Result<Plan> {
    let mut plan = Plan::new();
    let code = conversion::spoke_code(env.sources, &ctx.api_group, &ctx.kind, spoke, &ctx.hub)?;
    let mut c = ctx.clone();
    c.spoke = spoke.to_string();
    c.spoke_annotation = webhook::annotation(&ctx.kind, spoke);
    c.functions = code.functions;
    c.sample = code.sample;
    c.imports = if code.uses_map_values {
        "{Spoke, map_values}".into()
    } else {
        "Spoke".into()
    };
    let mut versions = [ctx.hub.clone(), spoke.to_string()];
    versions.sort_by(|a, b| version_sort(a, b));
    c.bench_use = format!(
        "{}::api::{}::{{{}}}",
        ctx.crate_name,
        ctx.group_mod,
        versions.join(", ")
    );
    plan.scaffold(
        conversion_file(ctx, spoke),
        env.renderer
            .render("webhook/src/api/spoke_conversion.rs.hbs", &c)?,
    );
    plan.insert(version_mod(ctx, spoke), "kinds", module_line(ctx));
    plan.insert(
        BENCH,
        "conversion-benches",
        env.renderer
            .render("webhook/fragments/bench_case.rs.hbs", &c)?,
    );
    Ok(plan)
}

/// The kind's versions on the envtest control plane, through the conversion webhook, in
/// `envtest_test`.
fn plan_envtest(env: &Env, ctx: &Ctx, envtest_test: &str) -> Result<Plan> {
    let mut plan = Plan::new();
    if env.force || env.tree.read(Path::new(envtest_test))?.is_none() {
        plan.scaffold(
            envtest_test,
            env.renderer
                .render("webhook/tests/envtest/conversion.rs.hbs", ctx)?,
        );
    }
    plan.insert(
        ENVTEST_MAIN,
        "envtest-modules",
        format!("mod {}_conversion;", ctx.kind_snake),
    );
    Ok(plan)
}

/// A spoke in the hub file's lists and in the envtest scenarios.
fn register_spoke(ctx: &Ctx, hub_file: &str, envtest_test: Option<&str>, spoke: &str) -> Plan {
    let mut plan = Plan::new();
    if let Some(envtest_test) = envtest_test {
        plan.insert(
            envtest_test,
            &format!("{}-spokes", ctx.kind_snake),
            format!("\"{}/{spoke}\",", ctx.api_group),
        );
    }
    plan.insert(
        hub_file,
        "spokes",
        format!(
            "spoke::<group::{spoke}::{}::{}>(),",
            ctx.kind_snake, ctx.kind
        ),
    );
    plan.insert(
        hub_file,
        "conversion-samples",
        format!(
            "to_json(&group::{spoke}::{}_conversion::sample()),",
            ctx.kind_snake
        ),
    );
    plan
}

/// The CRD: the conversion patch (its CA is injected as `webhook::certs` says).
fn plan_crd_patch(env: &Env, ctx: &Ctx) -> Result<Plan> {
    let mut plan = Plan::new();
    let patch = format!("config/crd/patches/webhook_in_{}.yaml", ctx.plural);
    if env.force || env.tree.read(Path::new(&patch))?.is_none() {
        plan.scaffold(
            &patch,
            env.renderer
                .render("webhook/config/crd/patches/webhook_in.yaml.hbs", ctx)?,
        );
    }
    plan.extend(scaffold_missing(
        env.tree,
        env.renderer,
        ctx,
        "config/crd/kustomizeconfig.yaml",
    )?);
    plan.edit(
        CRD_KUSTOMIZATION,
        Edit::YamlSection {
            marker: "crd-patches".into(),
            block: env
                .renderer
                .render("webhook/fragments/crd_patches.yaml.hbs", ctx)?,
        },
    );
    plan.add_to_list(
        CRD_KUSTOMIZATION,
        ListEntries::new(
            "patches",
            "crd-patches",
            format!("- path: patches/webhook_in_{}.yaml", ctx.plural),
        )
        .by("path"),
    );
    Ok(plan)
}
