//! A kind's controller: its files and registration, the role its markers make, and
//! `create api --resource=false`, a controller alone for a kind of this project, an
//! external kind, or a built-in Kubernetes kind.

use std::path::Path;

use anyhow::{Result, anyhow, bail};

use super::context::Ctx;
use super::request::ApiRequest;
use crate::builtin_kinds::{Builtin, display_group};
use crate::commands::create::builtin::lookup;
use crate::commands::create::{
    CONTROLLERS_MOD, ENVTEST_MAIN, Planned, envtest_scaffolded, sources_with,
};
use crate::project::{self, Project, Resource};
use crate::rbac;
use crate::scaffold::{Change, Plan, Renderer, Tree};

/// The controller of a kind, its tests, and its registration in `controllers/mod.rs`.
pub fn plan_controller(
    tree: &dyn Tree,
    renderer: &Renderer,
    ctx: &Ctx,
    builtin: bool,
) -> Result<Plan> {
    let mut plan = Plan::new();
    let (controller, test) = if builtin {
        (
            "api/src/controllers/builtin.rs.hbs",
            "api/tests/builtin_controller.rs.hbs",
        )
    } else {
        (
            "api/src/controllers/kind.rs.hbs",
            "api/tests/kind_controller.rs.hbs",
        )
    };
    plan.scaffold(
        format!("src/controllers/{}.rs", ctx.kind_snake),
        renderer.render(controller, ctx)?,
    );
    plan.scaffold(
        format!("tests/{}_controller.rs", ctx.kind_snake),
        renderer.render(test, ctx)?,
    );
    // Its scenarios on a real API server; the `_controller` suffix keeps the module apart
    // from the envtest binary's own (`crds`, `control_plane`, `webhooks`). Built-in kinds'
    // objects need fields only the user knows: their test needs no object.
    let template = match (builtin, ctx.external) {
        (false, _) => "api/tests/envtest/kind.rs.hbs",
        (true, true) => "api/tests/envtest/external.rs.hbs",
        (true, false) => "api/tests/envtest/builtin.rs.hbs",
    };
    if envtest_scaffolded(tree)? {
        let module = format!("{}_controller", ctx.kind_snake);
        plan.scaffold(
            format!("tests/envtest/{module}.rs"),
            renderer.render(template, ctx)?,
        );
        plan.insert(ENVTEST_MAIN, "envtest-modules", format!("mod {module};"));
    }
    plan.insert(
        CONTROLLERS_MOD,
        "controller-modules",
        format!("pub mod {};", ctx.kind_snake),
    );
    plan.insert(
        CONTROLLERS_MOD,
        "controllers",
        format!("{}::CONTROLLER,", ctx.kind_snake),
    );
    Ok(plan)
}

/// `config/rbac/role.yaml` from the RBAC markers of the sources as `changes` (the resolved
/// plan) leave them.
pub fn plan_role(root: &Path, changes: &[Change], project: &Project) -> Result<Plan> {
    let mut plan = Plan::new();
    let sources = sources_with(root, "src", changes)?;
    plan.generate(
        rbac::ROLE_FILE,
        rbac::role_yaml(&sources, project.namespaced)?,
    );
    Ok(plan)
}

/// `--resource=false --controller`: a controller for a kind of this project, an external
/// kind, or a built-in Kubernetes kind.
pub fn plan_alone(
    root: &Path,
    tree: &dyn Tree,
    renderer: &Renderer,
    project: &Project,
    request: &ApiRequest,
    ctx: Ctx,
) -> Result<Planned> {
    let mut plan = Plan::new();
    let own = project.own_versions(&request.group, &request.kind);
    let (ctx, updated) = if !own.is_empty() {
        for_own_kind(&own, project, request, ctx)?
    } else if let Some(entry) = project.external_kind(&request.group, &request.kind) {
        for_external_kind(entry, tree, project, request)?
    } else {
        for_builtin_kind(project, request, ctx)?
    };
    // External and built-in kinds get the same controller, over objects of a kind it does
    // not own.
    plan.extend(plan_controller(tree, renderer, &ctx, own.is_empty())?);
    let changes = plan.resolve(tree, request.force)?;
    plan.extend(plan_role(root, &changes, project)?);
    plan.generate(project::FILE, updated.to_yaml());
    let next = format!(
        "\nNext: write the reconciler in src/controllers/{0}.rs (its tests are tests/{0}_controller.rs), then run\n  make manifests   # regenerate RBAC\n  make test",
        ctx.kind_snake
    );
    Ok(Planned { plan, next })
}

fn controller_path(ctx: &Ctx) -> String {
    format!("src/controllers/{}.rs", ctx.kind_snake)
}

/// The controller of one version of a kind of this project, which no other version keeps.
fn for_own_kind(
    own: &[&Resource],
    project: &Project,
    request: &ApiRequest,
    mut ctx: Ctx,
) -> Result<(Ctx, Project)> {
    let Some(entry) = own.iter().find(|r| r.version == *request.version) else {
        let versions: Vec<&str> = own.iter().map(|r| r.version.as_str()).collect();
        bail!(
            "{} ({}) has no version {}; its versions are {}",
            request.kind,
            ctx.api_group,
            request.version,
            versions.join(", ")
        );
    };
    if own.iter().any(|r| r.controller) && !request.force {
        bail!(
            "{} ({}) already has a controller ({}); use --force to scaffold it again",
            request.kind,
            ctx.api_group,
            controller_path(&ctx)
        );
    }
    ctx.plural = entry.plural.clone();
    ctx.namespaced = entry.namespaced;
    let mut updated = project.clone();
    for r in &mut updated.resources {
        if r.group == entry.group && r.domain == entry.domain && r.kind == entry.kind {
            r.controller = r.version == entry.version;
            r.finalizer = r.controller && request.finalizer;
        }
    }
    Ok((ctx, updated))
}

/// The controller of an external kind, at the version the project types it.
fn for_external_kind(
    entry: &Resource,
    tree: &dyn Tree,
    project: &Project,
    request: &ApiRequest,
) -> Result<(Ctx, Project)> {
    if entry.version != *request.version {
        bail!(
            "{} ({}) is typed at {} in this project ({}); its controller watches that version: pass --version {}",
            request.kind,
            request.group,
            entry.version,
            entry.path.as_deref().unwrap_or_default(),
            entry.version
        );
    }
    if request.plural.is_some() || request.cluster_scoped || request.finalizer {
        bail!(
            "{} ({}) is an external kind: its CRD decides its plural and scope, and its owner when it goes; drop --plural, --cluster-scoped and --finalizer",
            request.kind,
            request.group
        );
    }
    let names = (entry.group.as_str(), entry.version.as_str(), &*request.kind);
    let ctx = Ctx::external(tree, project, names, &entry.plural, entry.namespaced)?;
    if entry.controller && !request.force {
        bail!(
            "{} ({}) already has a controller ({}); use --force to scaffold it again",
            request.kind,
            request.group,
            controller_path(&ctx)
        );
    }
    let mut updated = project.clone();
    for r in &mut updated.resources {
        if r.external && r.group == entry.group && r.kind == entry.kind {
            r.controller = true;
        }
    }
    Ok((ctx, updated))
}

/// The controller of a built-in Kubernetes kind, recorded in PROJECT without a path.
fn for_builtin_kind(
    project: &Project,
    request: &ApiRequest,
    mut ctx: Ctx,
) -> Result<(Ctx, Project)> {
    let b = lookup(&request.group, &request.version, &request.kind).map_err(|e| {
        anyhow!("{e}; to scaffold a kind of your own instead, drop --resource=false")
    })?;
    check_builtin(&b, request)?;
    ctx.api_group = b.group.to_string();
    ctx.group_display = display_group(b.group).to_string();
    ctx.rbac_group = if b.group.is_empty() {
        "\"\"".into()
    } else {
        b.group.to_string()
    };
    ctx.plural = b.plural.to_string();
    ctx.namespaced = b.namespaced;
    ctx.k8s_module = b.module.clone();
    let recorded = project.resources.iter().any(|r| {
        r.path.is_none()
            && r.group == ctx.group_display
            && r.version == b.version
            && r.kind == b.kind
    });
    if recorded && !request.force {
        bail!(
            "{}/{} {} already has a controller ({}); use --force to scaffold it again",
            ctx.group_display,
            b.version,
            b.kind,
            controller_path(&ctx)
        );
    }
    let mut updated = project.clone();
    if !recorded {
        updated.resources.push(Resource {
            group: ctx.group_display.clone(),
            version: b.version.to_string(),
            kind: b.kind.to_string(),
            plural: b.plural.to_string(),
            domain: String::new(),
            namespaced: b.namespaced,
            controller: true,
            finalizer: false,
            path: None,
            external: false,
            crd: None,
            webhooks: Default::default(),
        });
    }
    Ok((ctx, updated))
}

/// Flags that contradict what Kubernetes says about a built-in kind.
fn check_builtin(b: &Builtin, request: &ApiRequest) -> Result<()> {
    if let Some(plural) = &request.plural
        && **plural != *b.plural
    {
        bail!(
            "invalid plural {:?}: the plural of {} is {:?}; drop --plural",
            &**plural,
            b.kind,
            b.plural
        );
    }
    if request.cluster_scoped && b.namespaced {
        bail!("{} is namespaced; drop --cluster-scoped", b.kind);
    }
    if request.finalizer {
        bail!(
            "--finalizer is for kinds of this project; {} belongs to Kubernetes, whose own controllers decide when it goes: drop --finalizer",
            b.kind
        );
    }
    Ok(())
}
