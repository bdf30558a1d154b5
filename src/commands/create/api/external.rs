//! `rsbuilder create api --from-crd`: a kind this project uses but does not own. Its Rust
//! types are generated from its CustomResourceDefinition (`typegen`) under
//! `src/api/external/`, the CRD is kept beside the manifests but in no kustomization, and,
//! with `--controller`, it gets the same controller a built-in kind gets.
//!
//! Like every command, it plans everything in memory and writes once: a CRD it cannot read,
//! or a kind it cannot take, changes nothing.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use super::context::{Ctx, EnumField};
use super::controller::{plan_controller, plan_role};
use crate::commands::create::{API_MOD, ENVTEST_MAIN, Planned, envtest_scaffolded};
use crate::external::{self, TYPES_DIR, crd_file};
use crate::project::{self, Project, Resource};
use crate::scaffold::{Plan, Renderer, Tree};
use crate::typegen;
use crate::webhook::emit::wrap;

/// `create api --from-crd FILE [--kind K] [--version V] [--controller] [--force]`.
#[derive(Debug)]
pub struct FromCrd {
    /// The CRD manifest, `-` for stdin.
    pub file: PathBuf,
    /// The version to type; default: the storage version.
    pub version: Option<String>,
    /// Which CRD of a manifest that holds several.
    pub kind: Option<String>,
    pub controller: bool,
    pub force: bool,
}

const EXTERNAL_MOD: &str = "src/api/external/mod.rs";
const MAKEFILE: &str = "Makefile";

/// The whole plan of `create api --from-crd`; reads the CRD and the project, writes nothing.
pub fn plan(
    root: &Path,
    tree: &dyn Tree,
    renderer: &Renderer,
    project: &Project,
    request: &FromCrd,
) -> Result<Planned> {
    let (crd, version) = read_crd(project, request)?;
    let recorded = project.external_kind(crd.group(), crd.kind());
    check_recorded(recorded, &crd, &version, request.force)?;
    let ctx = context(tree, project, &crd, &version)?;
    check_collisions(project, &ctx, recorded, request.controller)?;
    let types_path = format!(
        "{TYPES_DIR}/{}/{}/{}.rs",
        ctx.group_mod, ctx.version_mod, ctx.kind_snake
    );
    let crd_path = external::crd_copy_path(crd.group(), crd.plural());
    let generated = types(&crd, &version, &ctx, &crd_path)?;

    let mut plan = Plan::new();
    plan.scaffold(&types_path, generated.text);
    plan.extend(plan_modules(tree, renderer, &ctx)?);
    plan.scaffold(&crd_path, crd_file::copy_text(&crd, &types_path));
    plan.insert(
        MAKEFILE,
        "make-targets",
        renderer.render("api/fragments/make_external_crds.hbs", &ctx)?,
    );
    // The envtest control plane installs the CRDs of the kinds the project does not own.
    if envtest_scaffolded(tree)? {
        plan.insert(
            ENVTEST_MAIN,
            "envtest-environment",
            "crd_directories: vec![\"config/crd/bases\", \"config/external-crds\"],",
        );
    }
    if request.controller {
        plan.extend(plan_controller(tree, renderer, &ctx, true)?);
    }
    let had_controller = recorded.is_some_and(|r| r.controller);
    let updated = record(
        project,
        &ctx,
        request.controller || had_controller,
        &types_path,
        &crd_path,
    );
    let changes = plan.resolve(tree, request.force)?;
    if request.controller {
        plan.extend(plan_role(root, &changes, project)?);
    }
    plan.generate(project::FILE, updated.to_yaml());
    let next = next_steps(
        &ctx,
        request.controller,
        &crd_path,
        &types_path,
        &generated.untyped,
    );
    Ok(Planned { plan, next })
}

/// The CRD the request names, outside this project's domain, and the version to type.
fn read_crd(project: &Project, request: &FromCrd) -> Result<(crd_file::Crd, String)> {
    let origin = if request.file == Path::new("-") {
        "stdin".to_string()
    } else {
        request.file.display().to_string()
    };
    let crds = crd_file::parse(&crd_file::read(&request.file)?, &origin)?;
    let crd = crd_file::choose(crds, request.kind.as_deref(), &origin)?;
    crd_file::check(&crd)?;
    let (group, kind) = (crd.group(), crd.kind());
    if group == project.domain || group.ends_with(&format!(".{}", project.domain)) {
        bail!(
            "{kind} ({group}) is in this project's domain {}, so it is not an external kind: \
             scaffold it as your own with `rsbuilder create api --group <group> --version <version> --kind {kind}`",
            project.domain
        );
    }
    let version = crd_file::version(&crd, request.version.as_deref())?;
    Ok((crd, version))
}

/// A kind the project types already: generated again only with `--force`, at its version.
fn check_recorded(
    recorded: Option<&Resource>,
    crd: &crd_file::Crd,
    version: &str,
    force: bool,
) -> Result<()> {
    let Some(r) = recorded else {
        return Ok(());
    };
    let (group, kind) = (crd.group(), crd.kind());
    let path = r.path.as_deref().unwrap_or_default();
    if !force {
        bail!(
            "{kind} ({group}) is already in this project ({path}); add --force to generate its types again from this CRD"
        );
    }
    if r.version != version {
        bail!(
            "{kind} ({group}) is typed at {} in this project ({path}), and --force generates that version again, not {version}; pass --version {}",
            r.version,
            r.version
        );
    }
    Ok(())
}

/// The kind's Rust types, from the CRD's schema of `version`.
fn types(
    crd: &crd_file::Crd,
    version: &str,
    ctx: &Ctx,
    crd_path: &str,
) -> Result<typegen::Generated> {
    let (group, kind) = (crd.group(), crd.kind());
    // Wrapped for `//! ` (one column more than the `// ` that `wrap` counts).
    let about = wrap(
        &format!(
            "{kind} ({group}/{version}), a kind this project uses but does not own, as the \
             CustomResourceDefinition kept in `{crd_path}` describes it. rsbuilder generated \
             this file from that CRD; it is yours to edit, and \
             `rsbuilder create api --from-crd <CRD> --force` generates it again."
        ),
        1,
    );
    typegen::rust_types(&crd.crd, version, &ctx.boilerplate, &about)
}

/// PROJECT with the external kind recorded (in place of itself under `--force`).
fn record(
    project: &Project,
    ctx: &Ctx,
    controller: bool,
    types_path: &str,
    crd_path: &str,
) -> Project {
    let mut updated = project.clone();
    let record = Resource {
        group: ctx.group.clone(),
        version: ctx.version.clone(),
        kind: ctx.kind.clone(),
        plural: ctx.plural.clone(),
        domain: String::new(),
        namespaced: ctx.namespaced,
        controller,
        finalizer: false,
        path: Some(types_path.to_string()),
        external: true,
        crd: Some(crd_path.to_string()),
        webhooks: Default::default(),
    };
    match updated
        .resources
        .iter_mut()
        .find(|r| r.external && r.group == record.group && r.kind == record.kind)
    {
        Some(r) => *r = record,
        None => updated.resources.push(record),
    }
    updated
}

/// What to tell the user once the plan is written.
fn next_steps(
    ctx: &Ctx,
    controller: bool,
    crd_path: &str,
    types_path: &str,
    untyped: &[String],
) -> String {
    let (group, kind) = (&ctx.group, &ctx.kind);
    let mut next = format!(
        "\nThe cluster must have the CRD of {kind} ({group}): its owner installs it, this project does not \
         (a copy is in {crd_path}).\nThe types are in {types_path}."
    );
    if controller {
        next.push_str(&format!(
            "\nNext: write the reconciler in src/controllers/{0}.rs (its tests are tests/{0}_controller.rs), then run\n  make manifests   # regenerate RBAC\n  make test",
            ctx.kind_snake
        ));
    }
    for path in untyped {
        next.push_str(&format!(
            "\nwarning: the types of {kind} drop {path}: kube's CustomResource holds only metadata, spec and status"
        ));
    }
    next
}

/// The templates' context for an external kind: its own group (no domain of this
/// project), modules under `api::external`, and the built-in kinds' controller.
fn context(tree: &dyn Tree, project: &Project, crd: &crd_file::Crd, version: &str) -> Result<Ctx> {
    let names = (crd.group(), version, crd.kind());
    let mut ctx = Ctx::external(tree, project, names, crd.plural(), crd.namespaced())?;
    ctx.enum_field = typegen::enum_field(&crd.crd, version).map(|keys| EnumField::at(&keys));
    Ok(ctx)
}

/// Other kinds of the project whose modules or controller this one would take.
fn check_collisions(
    project: &Project,
    ctx: &Ctx,
    itself: Option<&Resource>,
    controller: bool,
) -> Result<()> {
    for r in &project.resources {
        if itself.is_some_and(|i| std::ptr::eq(i, r)) {
            continue;
        }
        if r.external && r.group != ctx.group && external::group_module(&r.group) == ctx.group_mod {
            bail!(
                "the API group {} would share the Rust module src/api/external/{} with the group {}; rsbuilder cannot type both",
                ctx.group,
                ctx.group_mod,
                r.group
            );
        }
        let same_module = heck::ToSnakeCase::to_snake_case(r.kind.as_str()) == ctx.kind_snake
            || external::kind_module(&r.kind) == ctx.kind_snake;
        if controller && r.controller && same_module {
            bail!(
                "the controller of {} ({}) is src/controllers/{}.rs already; rsbuilder names controllers after their kind, so {} ({}) cannot have one too: drop --controller",
                r.kind,
                r.group,
                ctx.kind_snake,
                ctx.kind,
                ctx.group
            );
        }
    }
    Ok(())
}

/// The modules that lead to the types: `api::external::<group>::<version>::<kind>`.
fn plan_modules(tree: &dyn Tree, renderer: &Renderer, ctx: &Ctx) -> Result<Plan> {
    let mut plan = Plan::new();
    plan.insert(API_MOD, "api-groups", "pub mod external;");
    let group_path = format!("{TYPES_DIR}/{}/mod.rs", ctx.group_mod);
    let version_path = format!("{TYPES_DIR}/{}/{}/mod.rs", ctx.group_mod, ctx.version_mod);
    for (path, template, marker, line) in [
        (
            EXTERNAL_MOD.to_string(),
            "api/src/api/external/mod.rs.hbs",
            "external-groups",
            format!("pub mod {};", ctx.group_mod),
        ),
        (
            group_path,
            "api/src/api/external/group/mod.rs.hbs",
            "versions",
            format!("pub mod {};", ctx.version_mod),
        ),
        (
            version_path,
            "api/src/api/group/version/mod.rs.hbs",
            "kinds",
            format!("pub mod {};", ctx.kind_snake),
        ),
    ] {
        if tree.read(Path::new(&path))?.is_none() {
            plan.scaffold(&path, renderer.render(template, ctx)?);
        } else {
            plan.insert(&path, marker, line);
        }
    }
    Ok(plan)
}
