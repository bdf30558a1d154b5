//! `create api` for a kind of this project: a new kind, or a new version of one. One step
//! per part of the plan: the types file, module registration, the envtest CRD checks, the
//! controller, the kustomize entries, PROJECT, and what is generated from the sources as
//! the plan leaves them (the CRD, a sample, the role).

use std::path::Path;

use anyhow::{Context, Result, bail};

use super::context::Ctx;
use super::controller::{plan_controller, plan_role};
use super::request::ApiRequest;
use super::sample::sample_spec;
use crate::commands::create::{
    API_MOD, ENVTEST_MAIN, Planned, envtest_scaffolded, group_names, source, sources_with,
};
use crate::crd::diagnostics::in_file;
use crate::errors::During;
use crate::names;
use crate::project::{self, Project, Resource};
use crate::scaffold::{ListEntries, Plan, Renderer, Tree, rust_markers};

const ENVTEST_CRDS: &str = "tests/envtest/crds.rs";
const CRD_KUSTOMIZATION: &str = "config/crd/kustomization.yaml";
const DEFAULT_KUSTOMIZATION: &str = "config/default/kustomization.yaml";
const RBAC_KUSTOMIZATION: &str = "config/rbac/kustomization.yaml";
const SAMPLES_KUSTOMIZATION: &str = "config/samples/kustomization.yaml";

/// The versions the project has of the requested kind.
struct Versions<'p> {
    /// Every version of the kind, the requested one included.
    all: Vec<&'p Resource>,
    /// The requested version, when it exists (`--force` scaffolds it again).
    same: Option<&'p Resource>,
    /// The other versions.
    others: Vec<&'p Resource>,
}

/// The whole plan for a kind of this project; `ctx` is the request's.
pub fn plan(
    root: &Path,
    tree: &dyn Tree,
    renderer: &Renderer,
    project: &Project,
    request: &ApiRequest,
    mut ctx: Ctx,
) -> Result<Planned> {
    let versions = versions(project, request, &ctx)?;
    ctx.plural = plural(request, &versions, &ctx)?;
    check_collisions(project, &ctx)?;
    let note = name_in_group(root, project, request, &mut ctx)?;
    let types_path = format!(
        "src/api/{}/{}/{}.rs",
        ctx.group_mod, request.version, ctx.kind_snake
    );

    let mut plan = Plan::new();
    let types = types_file(tree, renderer, request, &versions, &mut ctx, &types_path)?;
    plan.scaffold(&types_path, types);
    plan.extend(plan_modules(tree, renderer, &ctx, &versions.others)?);
    plan.extend(plan_envtest_crds(tree, renderer, &ctx)?);
    let controller = scaffolds_controller(request, &versions)?;
    if controller {
        plan.extend(plan_controller(tree, renderer, &ctx, false)?);
    }
    let crd_file = format!("{}_{}.yaml", ctx.api_group, ctx.plural);
    plan.extend(plan_kustomize(
        tree,
        renderer,
        &ctx,
        &crd_file,
        versions.others.is_empty(),
    )?);
    let updated = record(project, request, &ctx, &versions, controller, &types_path);
    let generated = plan_generated(
        root,
        tree,
        renderer,
        &plan,
        project,
        request,
        &mut ctx,
        (&crd_file, &types_path),
    )?;
    plan.extend(generated);
    plan.generate(project::FILE, updated.to_yaml());
    let next = next_steps(note, request, &ctx, controller, &types_path);
    Ok(Planned { plan, next })
}

/// The custom resources of this project with the request's group and kind, and a refusal
/// for a version that exists (without `--force`) or that would differ from the others in
/// what all versions of a kind share: scope and plural.
fn versions<'p>(project: &'p Project, request: &ApiRequest, ctx: &Ctx) -> Result<Versions<'p>> {
    let all = project.own_versions(&request.group, &request.kind);
    let same = all.iter().copied().find(|r| r.version == *request.version);
    if let Some(r) = same
        && !request.force
    {
        bail!(
            "{}/{} {} already exists ({}); use --force to scaffold it again",
            ctx.api_group,
            request.version,
            request.kind,
            r.path.as_deref().unwrap_or(&format!(
                "src/api/{}/{}/{}.rs",
                ctx.group_mod, request.version, ctx.kind_snake
            ))
        );
    }
    let others: Vec<&Resource> = all
        .iter()
        .copied()
        .filter(|r| r.version != *request.version)
        .collect();
    if let Some(first) = others.first()
        && first.namespaced != ctx.namespaced
    {
        let scope = |namespaced| {
            if namespaced {
                "namespaced"
            } else {
                "cluster-scoped"
            }
        };
        bail!(
            "{} ({}) is {} in {}; all versions of a kind share its scope, so {} must be {} too{}",
            request.kind,
            ctx.api_group,
            scope(first.namespaced),
            first.version,
            request.version,
            scope(first.namespaced),
            if first.namespaced {
                ": drop --cluster-scoped"
            } else {
                ": add --cluster-scoped"
            }
        );
    }
    Ok(Versions { all, same, others })
}

/// The kind's plural: the one given, the one its other versions share, or kube-derive's.
fn plural(request: &ApiRequest, versions: &Versions, ctx: &Ctx) -> Result<String> {
    Ok(match (&request.plural, versions.others.first()) {
        (Some(plural), Some(first)) if **plural != first.plural => bail!(
            "invalid plural {:?}: {} ({}) already has the plural {:?}, shared by all its versions",
            &**plural,
            request.kind,
            ctx.api_group,
            first.plural
        ),
        (Some(plural), _) => plural.to_string(),
        (None, Some(first)) => first.plural.clone(),
        (None, None) => crate::crd::resource::to_plural(&ctx.kind_lower),
    })
}

/// Other groups of the project whose Rust module this one would take (names within the
/// group: `group_names`).
fn check_collisions(project: &Project, ctx: &Ctx) -> Result<()> {
    for r in project.resources.iter().filter(|r| r.is_own()) {
        if r.group != ctx.group && r.group.replace(['-', '.'], "_") == ctx.group_mod {
            bail!(
                "invalid group {:?}: it would share the Rust module src/api/{} with the group {:?}",
                ctx.group,
                ctx.group_mod,
                r.group
            );
        }
    }
    Ok(())
}

/// The kind's names against the other kinds of its group (`group_names`), which may drop
/// its short name (the returned note says so), and a role prefix of its own when another
/// group has the same kind.
fn name_in_group(
    root: &Path,
    project: &Project,
    request: &ApiRequest,
    ctx: &mut Ctx,
) -> Result<Option<String>> {
    let group_kinds =
        group_names::others_in_group(root, project, &request.group, &ctx.api_group, &request.kind)?;
    let names = crate::names::clash::KindNames::new(&request.kind, &ctx.plural, Vec::new());
    let (shortname, note) =
        group_names::check(&group_kinds, &names, &ctx.api_group, &ctx.shortname)?;
    ctx.shortname = shortname;
    if project
        .resources
        .iter()
        .any(|r| r.kind == *request.kind && r.is_own() && r.group != *request.group)
    {
        ctx.role_prefix = format!("{}-{}", request.group.replace('.', "-"), ctx.kind_lower);
    }
    Ok(note)
}

/// The types file: a new kind starts from the template; a new version starts as a copy of
/// the newest existing version, not stored; `--force` on an existing version renders the
/// template again, keeping whether it is stored.
fn types_file(
    tree: &dyn Tree,
    renderer: &Renderer,
    request: &ApiRequest,
    versions: &Versions,
    ctx: &mut Ctx,
    types_path: &str,
) -> Result<String> {
    let template = "api/src/api/group/version/kind.rs.hbs";
    match (versions.same.is_some(), newest_version(&versions.others)) {
        (true, _) => {
            let current = tree.read(Path::new(types_path))?;
            let info = current.and_then(|t| source::kube_info(&t, &request.kind).ok().flatten());
            ctx.storage = info.map_or(versions.others.is_empty(), |i| i.storage);
            renderer.render(template, ctx)
        }
        (false, Some(newest)) => {
            ctx.storage = false;
            let from = newest.path.clone().unwrap_or_default();
            let text = tree.read(Path::new(&from))?.with_context(|| {
                format!(
                    "{from} is missing; it holds {} {}",
                    newest.version, request.kind
                )
            })?;
            source::set_version(&text, &request.kind, &request.version)
                .and_then(|t| source::set_storage(&t, &request.kind, false))
                .map_err(|e| in_file(&from, e))
                .during(|| format!("copying it into version {}", request.version))
        }
        (false, None) => renderer.render(template, ctx),
    }
}

/// The existing version with the highest Kubernetes priority.
fn newest_version<'p>(versions: &[&'p Resource]) -> Option<&'p Resource> {
    versions
        .iter()
        .copied()
        .max_by_key(|r| names::version_priority(&r.version))
}

/// Module registration of a kind's types: `src/api/mod.rs`, the group module (with the
/// storage-version re-export and the merged CRD) and the version module.
fn plan_modules(
    tree: &dyn Tree,
    renderer: &Renderer,
    ctx: &Ctx,
    others: &[&Resource],
) -> Result<Plan> {
    let mut plan = Plan::new();
    let group_path = format!("src/api/{}/mod.rs", ctx.group_mod);
    let version_path = format!("src/api/{}/{}/mod.rs", ctx.group_mod, ctx.version);
    let kind_block = renderer.render("api/src/api/group/kind_crd.rs.hbs", ctx)?;
    match tree.read(Path::new(&group_path))? {
        None => {
            let mut c = ctx.clone();
            c.kind_block = kind_block;
            plan.scaffold(
                &group_path,
                renderer.render("api/src/api/group/mod.rs.hbs", &c)?,
            );
            plan.insert(API_MOD, "api-groups", format!("pub mod {};", ctx.group_mod));
        }
        Some(_) if others.is_empty() => {
            plan.insert(&group_path, "versions", format!("pub mod {};", ctx.version));
            plan.insert(&group_path, "kinds", kind_block.trim_end().to_string());
        }
        Some(text) => plan.extend(plan_version_in_group(ctx, others, &group_path, &text)?),
    }
    if tree.read(Path::new(&version_path))?.is_none() {
        plan.scaffold(
            &version_path,
            renderer.render("api/src/api/group/version/mod.rs.hbs", ctx)?,
        );
    } else {
        plan.insert(
            &version_path,
            "kinds",
            format!("pub mod {};", ctx.kind_snake),
        );
    }
    if others.is_empty() {
        plan.insert(
            API_MOD,
            "crds",
            format!("{}::{}_crd()?,", ctx.group_mod, ctx.kind_snake),
        );
    }
    Ok(plan)
}

/// A new version of a kind in its group module: its `pub mod`, and its CRD in the kind's
/// list of versions, lowest priority first, as `generate crds` merges them.
fn plan_version_in_group(
    ctx: &Ctx,
    others: &[&Resource],
    group_path: &str,
    text: &str,
) -> Result<Plan> {
    let mut plan = Plan::new();
    let version_mod = format!("pub mod {};", ctx.version);
    let version_line = format!("{}::{}::{}::crd(),", ctx.version, ctx.kind_snake, ctx.kind);
    let priority = |v: &str| names::version_priority(v);
    let next_higher = others
        .iter()
        .filter(|r| priority(&r.version) > priority(&ctx.version))
        .min_by_key(|r| priority(&r.version));
    let marker = format!("{}-versions", ctx.kind_snake);
    let Some(next_higher) = next_higher else {
        plan.insert(group_path, "versions", version_mod);
        plan.insert(group_path, &marker, version_line);
        return Ok(plan);
    };
    // Above the next higher version, where the marker's list has it.
    let anchor = format!(
        "{}::{}::{}::crd(),",
        next_higher.version, ctx.kind_snake, ctx.kind
    );
    let path = Path::new(group_path);
    let add = |text: &str, marker: &str, fragment: &str, before| {
        rust_markers::insert(path, text, marker, fragment, before)
            .map(|new| new.unwrap_or_else(|| text.to_string()))
    };
    let listed = add(text, &marker, &version_line, Some(anchor.as_str()))?;
    plan.generate(group_path, add(&listed, "versions", &version_mod, None)?);
    Ok(plan)
}

/// The envtest checks of the project's CRDs, with its first kind.
fn plan_envtest_crds(tree: &dyn Tree, renderer: &Renderer, ctx: &Ctx) -> Result<Plan> {
    let mut plan = Plan::new();
    if envtest_scaffolded(tree)? && tree.read(Path::new(ENVTEST_CRDS))?.is_none() {
        plan.scaffold(
            ENVTEST_CRDS,
            renderer.render("api/tests/envtest/crds.rs.hbs", ctx)?,
        );
        plan.insert(ENVTEST_MAIN, "envtest-modules", "mod crds;".to_string());
    }
    Ok(plan)
}

/// Whether this plan scaffolds the kind's controller: one per kind, scaffolded again by
/// `--force` only from the version that has it. (A controller file of another kind with
/// the same name makes the plan fail: scaffolded files are never overwritten without
/// `--force`.)
fn scaffolds_controller(request: &ApiRequest, versions: &Versions) -> Result<bool> {
    let has_controller = versions.all.iter().any(|r| r.controller);
    let controller = request.controller
        && (!has_controller || (request.force && versions.same.is_some_and(|r| r.controller)));
    if !controller && request.finalizer {
        let with = versions
            .all
            .iter()
            .find(|r| r.controller)
            .map_or("", |r| &r.version);
        bail!(
            "--finalizer is kept by the controller of {}, which exists already (scaffolded with {with}); drop --finalizer, or scaffold that controller again: create api --group {} --version {with} --kind {} --resource=false --controller --finalizer --force",
            request.kind,
            request.group,
            request.kind
        );
    }
    Ok(controller)
}

/// Kustomize: the CRD, the samples, and for a new kind its admin, editor and viewer roles.
fn plan_kustomize(
    tree: &dyn Tree,
    renderer: &Renderer,
    ctx: &Ctx,
    crd_file: &str,
    new_kind: bool,
) -> Result<Plan> {
    let mut plan = Plan::new();
    plan.extend(list_in(
        tree,
        renderer,
        ctx,
        (CRD_KUSTOMIZATION, "api/config/crd/kustomization.yaml.hbs"),
        ListEntries::new("resources", "crd-resources", format!("- bases/{crd_file}")),
    )?);
    plan.add_to_list(
        DEFAULT_KUSTOMIZATION,
        ListEntries::new("resources", "default-resources", "- ../crd"),
    );
    plan.extend(list_in(
        tree,
        renderer,
        ctx,
        (
            SAMPLES_KUSTOMIZATION,
            "api/config/samples/kustomization.yaml.hbs",
        ),
        ListEntries::new("resources", "samples", format!("- {}", ctx.sample_file)),
    )?);
    if new_kind {
        let file_prefix = ctx.role_prefix.replace('-', "_");
        for role in ["admin", "editor", "viewer"] {
            let file = format!("{file_prefix}_{role}_role.yaml");
            plan.scaffold(
                format!("config/rbac/{file}"),
                renderer.render(&format!("api/config/rbac/{role}_role.yaml.hbs"), ctx)?,
            );
            plan.add_to_list(
                RBAC_KUSTOMIZATION,
                ListEntries::new("resources", "rbac-resources", format!("- {file}")),
            );
        }
    }
    Ok(plan)
}

/// `entry` in a kustomization, which is scaffolded from `template` when missing.
fn list_in(
    tree: &dyn Tree,
    renderer: &Renderer,
    ctx: &Ctx,
    (path, template): (&str, &str),
    entry: ListEntries,
) -> Result<Plan> {
    let mut plan = Plan::new();
    if tree.read(Path::new(path))?.is_none() {
        plan.scaffold(path, renderer.render(template, ctx)?);
    } else {
        plan.add_to_list(path, entry);
    }
    Ok(plan)
}

/// PROJECT with the requested version recorded (in place of itself under `--force`).
fn record(
    project: &Project,
    request: &ApiRequest,
    ctx: &Ctx,
    versions: &Versions,
    controller: bool,
    types_path: &str,
) -> Project {
    let same = versions.same;
    let mut updated = project.clone();
    let record = Resource {
        group: request.group.to_string(),
        version: request.version.to_string(),
        kind: request.kind.to_string(),
        plural: ctx.plural.clone(),
        domain: project.domain.clone(),
        namespaced: ctx.namespaced,
        controller: controller || same.is_some_and(|r| r.controller),
        finalizer: if controller {
            request.finalizer
        } else {
            same.is_some_and(|r| r.finalizer)
        },
        path: Some(types_path.to_string()),
        external: false,
        crd: None,
        webhooks: same.map(|r| r.webhooks.clone()).unwrap_or_default(),
    };
    match updated.resources.iter_mut().find(|r| {
        r.group == record.group
            && r.domain == record.domain
            && r.kind == record.kind
            && r.version == record.version
    }) {
        Some(r) => *r = record,
        None => updated.resources.push(record),
    }
    updated
}

/// What is generated from the sources as the plan so far leaves them: the kind's CRD, a
/// sample from its schema, and the role from the RBAC markers.
#[allow(clippy::too_many_arguments)] // one step's inputs, each used once
fn plan_generated(
    root: &Path,
    tree: &dyn Tree,
    renderer: &Renderer,
    so_far: &Plan,
    project: &Project,
    request: &ApiRequest,
    ctx: &mut Ctx,
    (crd_file, types_path): (&str, &str),
) -> Result<Plan> {
    let changes = so_far.resolve(tree, request.force)?;
    let mut plan = Plan::new();
    let sources = sources_with(root, "src/api", &changes)?;
    let crds = crate::commands::generate::crds::project_crds(root, &sources, &request.kind)?;
    let rendered = crate::crd::emit::render(&crds)?;
    let yaml = rendered.get(crd_file).with_context(|| {
        format!("the CRD generator found no {crd_file} in src/api after scaffolding {types_path}")
    })?;
    plan.generate(format!("config/crd/bases/{crd_file}"), yaml.clone());
    let crd = crds
        .iter()
        .find(|c| c.spec.group == ctx.api_group && c.spec.names.kind == ctx.kind);
    ctx.sample_spec = crd
        .map(|c| sample_spec(c, &request.version, &request.kind))
        .unwrap_or_else(|| "spec: {}".into());
    plan.scaffold(
        format!("config/samples/{}", ctx.sample_file),
        renderer.render("api/config/samples/sample.yaml.hbs", ctx)?,
    );
    plan.extend(plan_role(root, &changes, project)?);
    Ok(plan)
}

/// What to tell the user once the plan is written.
fn next_steps(
    note: Option<String>,
    request: &ApiRequest,
    ctx: &Ctx,
    controller: bool,
    types_path: &str,
) -> String {
    let mut next = note.map(|n| format!("{n}\n")).unwrap_or_default();
    next += &format!(
        "\nNext: describe a {} in {types_path}, then run\n  make manifests   # regenerate the CRD and RBAC\n  make test",
        request.kind
    );
    if controller {
        next.push_str(&format!(
            "\nThe controller is src/controllers/{}.rs; its tests are tests/{}_controller.rs.",
            ctx.kind_snake, ctx.kind_snake
        ));
    }
    next
}
