//! `rsbuilder create api`: a kind's types (a new kind, or a new version of one), its CRD,
//! samples and RBAC roles, and a controller with mock-API tests; or, with
//! `--resource=false`, only a controller, for a kind of this project or a built-in one.
//!
//! Everything is planned in memory: the CRD is generated from the sources as the plan will
//! leave them, `role.yaml` from the RBAC markers likewise, and then one plan is written.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use clap::{ArgAction, Args};
use heck::ToSnakeCase;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, JSONSchemaProps,
};
use serde::Serialize;

use super::builtin::{self, Builtin};
use super::external;
use super::group_names;
use super::{source, sources_with};
use crate::cli::Global;
use crate::commands::write_plan;
use crate::crd::diagnostics::in_file;
use crate::errors::During;
use crate::names;
use crate::project::{self, Project, Resource};
use crate::rbac;
use crate::scaffold::{
    Change, DiskTree, ListEntries, Plan, Renderer, Tree, kind_clash, rust_markers,
};

#[derive(Debug, Args)]
pub struct ApiArgs {
    /// API group without the domain (batch -> batch.<domain>); with --resource=false, also a
    /// Kubernetes group for a built-in kind (core, apps, batch, networking.k8s.io, ...), or
    /// the group of an external kind
    #[arg(
        long,
        required_unless_present = "from_crd",
        conflicts_with = "from_crd"
    )]
    pub group: Option<String>,
    /// API version: v1, v2beta1, v1alpha1, ...; with --from-crd, the version to type (default:
    /// the CRD's storage version)
    #[arg(long, required_unless_present = "from_crd")]
    pub version: Option<String>,
    /// Kind, in PascalCase, e.g. CronJob; with --from-crd, which CRD of the file to read
    #[arg(long, required_unless_present = "from_crd")]
    pub kind: Option<String>,
    /// Plural resource name (default: the lowercased kind made plural, as kube-derive does)
    #[arg(long, conflicts_with = "from_crd")]
    pub plural: Option<String>,
    /// Make the kind cluster-scoped instead of namespaced
    #[arg(long, conflicts_with = "from_crd")]
    pub cluster_scoped: bool,
    /// Scaffold the types, CRD and samples; --resource=false scaffolds only a controller
    #[arg(long, num_args = 0..=1, require_equals = true, default_value_t = true,
          default_missing_value = "true", action = ArgAction::Set, value_name = "BOOL",
          conflicts_with = "from_crd")]
    pub resource: bool,
    /// Scaffold a controller for the kind (one per kind; it watches the storage version).
    /// Default: true; with --from-crd, false
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true",
          action = ArgAction::Set, value_name = "BOOL")]
    pub controller: Option<bool>,
    /// Give every object of the kind a finalizer, so that the controller's cleanup runs
    /// before Kubernetes deletes it: for kinds that hold something outside the cluster
    #[arg(long, conflicts_with = "from_crd")]
    pub finalizer: bool,
    /// Scaffold again files that exist, overwriting them
    #[arg(long)]
    pub force: bool,
    /// Generate the Rust types of a kind this project uses but does not own from its
    /// CustomResourceDefinition (a YAML file, or - for stdin), under src/api/external/. The
    /// project never ships or installs that CRD: the cluster must have it
    #[arg(long, value_name = "FILE|-")]
    pub from_crd: Option<PathBuf>,
}

/// `create api` for a kind of this project, or a controller alone: the arguments once
/// clap has checked that group, version and kind are there.
#[derive(Debug)]
pub struct ApiRequest {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: Option<String>,
    pub cluster_scoped: bool,
    pub resource: bool,
    pub controller: bool,
    pub finalizer: bool,
    pub force: bool,
}

impl ApiRequest {
    fn new(args: ApiArgs) -> Result<Self> {
        let missing = |what| anyhow!("--{what} is required (or --from-crd)");
        Ok(Self {
            group: args.group.ok_or_else(|| missing("group"))?,
            version: args.version.ok_or_else(|| missing("version"))?,
            kind: args.kind.ok_or_else(|| missing("kind"))?,
            plural: args.plural,
            cluster_scoped: args.cluster_scoped,
            resource: args.resource,
            controller: args.controller.unwrap_or(true),
            finalizer: args.finalizer,
            force: args.force,
        })
    }
}

/// Everything the `api` templates may refer to: one typed context.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Ctx {
    pub(super) boilerplate: String,
    pub(super) project_name: String,
    pub(super) crate_name: String,
    /// As given: `batch`.
    pub(super) group: String,
    /// Rust module of the group: `batch`, `my_group`.
    pub(super) group_mod: String,
    /// Full API group: `batch.example.com` (for built-in kinds, the Kubernetes group).
    pub(super) api_group: String,
    /// The group as users write it (`core` for the core group).
    pub(super) group_display: String,
    /// The group in an RBAC marker (`""` for the core group).
    pub(super) rbac_group: String,
    pub(super) version: String,
    pub(super) kind: String,
    pub(super) kind_snake: String,
    pub(super) kind_lower: String,
    pub(super) plural: String,
    pub(super) shortname: String,
    pub(super) namespaced: bool,
    pub(super) storage: bool,
    /// The controller keeps a finalizer on every object (`--finalizer`).
    pub(super) finalizer: bool,
    /// Names of the per-kind RBAC roles: `cronjob` -> `cronjob-admin-role`.
    pub(super) role_prefix: String,
    /// The k8s-openapi module of a built-in kind.
    pub(super) k8s_module: String,
    /// A kind this project uses but does not own (`--from-crd`).
    pub(super) external: bool,
    /// The module of an external kind's types below the crate root:
    /// `api::external::cert_manager_io::v1::certificate`.
    pub(super) types_module: String,
    /// Rust module of the version: `v1`, `v2_preview`.
    pub(super) version_mod: String,
    /// Rendered into the group module template.
    pub(super) kind_block: String,
    pub(super) sample_file: String,
    pub(super) sample_spec: String,
    /// An external kind's field of the spec whose values an enum lists, for the envtest test
    /// of a value the types do not know.
    pub(super) enum_field: Option<EnumField>,
}

/// A field as JSON pointers: into the version's `openAPIV3Schema`, and into an object.
#[derive(Debug, Clone, Serialize)]
pub(super) struct EnumField {
    pub(super) schema: String,
    pub(super) object: String,
}

impl EnumField {
    /// The field of the spec at `keys`, which are plain (see `typegen::enum_field`).
    pub(super) fn at(keys: &[String]) -> Self {
        Self {
            schema: keys.iter().fold("/properties/spec".into(), |path, key| {
                format!("{path}/properties/{key}")
            }),
            object: keys
                .iter()
                .fold("/spec".into(), |path, key| format!("{path}/{key}")),
        }
    }
}

pub(super) const API_MOD: &str = "src/api/mod.rs";
const CONTROLLERS_MOD: &str = "src/controllers/mod.rs";
/// The envtest test binary (a real API server) that `init` scaffolds, and its CRD checks.
pub(super) const ENVTEST_MAIN: &str = "tests/envtest/main.rs";
const ENVTEST_CRDS: &str = "tests/envtest/crds.rs";
const CRD_KUSTOMIZATION: &str = "config/crd/kustomization.yaml";
const DEFAULT_KUSTOMIZATION: &str = "config/default/kustomization.yaml";
const RBAC_KUSTOMIZATION: &str = "config/rbac/kustomization.yaml";
const SAMPLES_KUSTOMIZATION: &str = "config/samples/kustomization.yaml";

pub fn run(global: &Global, args: ApiArgs) -> Result<()> {
    let project = Project::load(&global.dir)?;
    let tree = DiskTree::new(&global.dir);
    let renderer = Renderer::new()?;
    let force = args.force;
    let planned = match args.from_crd {
        Some(file) => {
            let request = external::FromCrd {
                file,
                version: args.version,
                kind: args.kind,
                controller: args.controller.unwrap_or(false),
                force,
            };
            external::plan(&global.dir, &tree, &renderer, &project, &request)?
        }
        None => plan(
            &global.dir,
            &tree,
            &renderer,
            &project,
            &ApiRequest::new(args)?,
        )?,
    };
    let mut plan = planned.plan;
    let stale = crate::helm::follow(&global.dir, &project, &mut plan)?;
    write_plan(global, &plan, force)?;
    crate::commands::generate::warn_stale(global, &stale);
    if !global.dry_run {
        global.out.say(&planned.next);
    }
    Ok(())
}

/// A plan and what to tell the user once it is written.
pub struct Planned {
    pub plan: Plan,
    pub next: String,
}

/// The whole plan of `create api`. Reads the project (through `tree`, and `root` for
/// directory listings) and writes nothing.
pub fn plan(
    root: &Path,
    tree: &dyn Tree,
    renderer: &Renderer,
    project: &Project,
    args: &ApiRequest,
) -> Result<Planned> {
    names::version(&args.version)?;
    names::kind(&args.kind)?;
    let kind_snake = args.kind.to_snake_case();
    if crate::syntax::parse_str::<syn::Ident>(&kind_snake).is_err() {
        bail!(
            "invalid kind {:?}: its Rust module would be `{kind_snake}`, a Rust keyword; choose another name, e.g. \"{}Resource\"",
            args.kind,
            args.kind
        );
    }
    if let Some(plural) = &args.plural {
        names::plural(plural)?;
    }
    if !args.resource && !args.controller {
        bail!("nothing to create: --resource=false and --controller=false; drop one of them");
    }
    if args.finalizer && !args.controller {
        bail!(
            "--finalizer is kept by a controller, and --controller=false scaffolds none; drop one of them"
        );
    }
    if args.controller {
        let controller = Path::new("src/controllers").join(format!("{kind_snake}.rs"));
        kind_clash::check_module(&args.kind, &kind_snake, &controller)?;
    }
    let ctx = base_context(tree, project, args, &kind_snake)?;
    let planned = if args.resource {
        plan_resource(root, tree, renderer, project, args, ctx)
    } else {
        plan_controller_only(root, tree, renderer, project, args, ctx)
    }?;
    let kind = kind_clash::Kind {
        name: &args.kind,
        module: &kind_snake,
        crate_name: &project.project_name.to_snake_case(),
    };
    kind_clash::check(&planned.plan.resolve(tree, args.force)?, &kind)?;
    Ok(planned)
}

pub(super) fn base_context(
    tree: &dyn Tree,
    project: &Project,
    args: &ApiRequest,
    kind_snake: &str,
) -> Result<Ctx> {
    let boilerplate = tree
        .read(Path::new("hack/boilerplate.rs.txt"))?
        .unwrap_or_default();
    Ok(Ctx {
        boilerplate,
        project_name: project.project_name.clone(),
        crate_name: project.project_name.to_snake_case(),
        group: args.group.clone(),
        group_mod: args.group.replace(['-', '.'], "_"),
        api_group: format!("{}.{}", args.group, project.domain),
        group_display: args.group.clone(),
        rbac_group: format!("{}.{}", args.group, project.domain),
        version: args.version.clone(),
        kind: args.kind.clone(),
        kind_snake: kind_snake.to_string(),
        kind_lower: args.kind.to_lowercase(),
        plural: String::new(),
        shortname: shortname(&args.kind),
        namespaced: !args.cluster_scoped,
        storage: true,
        finalizer: args.finalizer,
        role_prefix: args.kind.to_lowercase(),
        k8s_module: String::new(),
        external: false,
        types_module: String::new(),
        version_mod: args.version.clone(),
        kind_block: String::new(),
        sample_file: format!(
            "{}_{}_{}.yaml",
            args.group,
            args.version,
            args.kind.to_lowercase()
        ),
        sample_spec: String::new(),
        enum_field: None,
    })
}

/// The custom resources of this project with the group and kind of `ctx`.
fn versions_of<'p>(project: &'p Project, group: &str, kind: &str) -> Vec<&'p Resource> {
    project
        .resources
        .iter()
        .filter(|r| r.group == group && r.domain == project.domain && r.kind == kind && r.is_own())
        .collect()
}

fn plan_resource(
    root: &Path,
    tree: &dyn Tree,
    renderer: &Renderer,
    project: &Project,
    args: &ApiRequest,
    mut ctx: Ctx,
) -> Result<Planned> {
    names::subdomain("group", &args.group)?;
    names::subdomain("group", &ctx.api_group).map_err(|_| {
        anyhow!(
            "invalid group {:?}: joined with the domain, {:?} is longer than 253 characters",
            args.group,
            ctx.api_group
        )
    })?;
    if crate::syntax::parse_str::<syn::Ident>(&ctx.group_mod).is_err() {
        bail!(
            "invalid group {:?}: its Rust module would be `{}`, not a Rust identifier (a keyword, or starting with a digit); choose another group",
            args.group,
            ctx.group_mod
        );
    }
    if ctx.group_mod == "external" {
        bail!(
            "invalid group {:?}: its Rust module would be src/api/external, where the kinds of \
             `create api --from-crd` live; choose another group",
            args.group
        );
    }
    let existing = versions_of(project, &args.group, &args.kind);
    let same_version = existing.iter().find(|r| r.version == args.version);
    let types_path = format!(
        "src/api/{}/{}/{}.rs",
        ctx.group_mod, args.version, ctx.kind_snake
    );
    if let Some(r) = same_version
        && !args.force
    {
        bail!(
            "{}/{} {} already exists ({}); use --force to scaffold it again",
            ctx.api_group,
            args.version,
            args.kind,
            r.path.as_deref().unwrap_or(&types_path)
        );
    }
    let others: Vec<&Resource> = existing
        .iter()
        .copied()
        .filter(|r| r.version != args.version)
        .collect();
    if let Some(first) = others.first() {
        if first.namespaced != ctx.namespaced {
            let scope = |namespaced| {
                if namespaced {
                    "namespaced"
                } else {
                    "cluster-scoped"
                }
            };
            bail!(
                "{} ({}) is {} in {}; all versions of a kind share its scope, so {} must be {} too{}",
                args.kind,
                ctx.api_group,
                scope(first.namespaced),
                first.version,
                args.version,
                scope(first.namespaced),
                if first.namespaced {
                    ": drop --cluster-scoped"
                } else {
                    ": add --cluster-scoped"
                }
            );
        }
        if let Some(plural) = &args.plural
            && *plural != first.plural
        {
            bail!(
                "invalid plural {plural:?}: {} ({}) already has the plural {:?}, shared by all its versions",
                args.kind,
                ctx.api_group,
                first.plural
            );
        }
    }
    ctx.plural = match (&args.plural, others.first()) {
        (Some(p), _) => p.clone(),
        (None, Some(first)) => first.plural.clone(),
        (None, None) => crate::crd::resource::to_plural(&ctx.kind_lower),
    };
    check_collisions(project, &ctx)?;
    let group_kinds =
        group_names::others_in_group(root, project, &args.group, &ctx.api_group, &args.kind)?;
    let names = crate::names::clash::KindNames::new(&args.kind, &ctx.plural, Vec::new());
    let (shortname, note) =
        group_names::check(&group_kinds, &names, &ctx.api_group, &ctx.shortname)?;
    ctx.shortname = shortname;
    if project
        .resources
        .iter()
        .any(|r| r.kind == args.kind && r.is_own() && r.group != args.group)
    {
        ctx.role_prefix = format!("{}-{}", args.group.replace('.', "-"), ctx.kind_lower);
    }
    let new_kind = others.is_empty();

    // The types file: a new kind starts from the template; a new version starts as a copy
    // of the newest existing version, not stored; --force on an existing version renders
    // the template again, keeping whether it is stored.
    let types = match (same_version.is_some(), newest_version(&others)) {
        (true, _) => {
            let current = tree.read(Path::new(&types_path))?;
            let info = current.and_then(|t| source::kube_info(&t, &args.kind).ok().flatten());
            ctx.storage = info.map_or(others.is_empty(), |i| i.storage);
            renderer.render("api/src/api/group/version/kind.rs.hbs", &ctx)?
        }
        (false, Some(newest)) => {
            ctx.storage = false;
            let from = newest.path.clone().unwrap_or_default();
            let text = tree.read(Path::new(&from))?.with_context(|| {
                format!(
                    "{from} is missing; it holds {} {}",
                    newest.version, args.kind
                )
            })?;
            source::set_version(&text, &args.kind, &args.version)
                .and_then(|t| source::set_storage(&t, &args.kind, false))
                .map_err(|e| in_file(&from, e))
                .during(|| format!("copying it into version {}", args.version))?
        }
        (false, None) => renderer.render("api/src/api/group/version/kind.rs.hbs", &ctx)?,
    };

    let mut plan = Plan::new();
    plan.scaffold(&types_path, types);
    plan_modules(tree, renderer, &mut plan, &ctx, &others)?;
    if envtest_scaffolded(tree)? && tree.read(Path::new(ENVTEST_CRDS))?.is_none() {
        plan.scaffold(
            ENVTEST_CRDS,
            renderer.render("api/tests/envtest/crds.rs.hbs", &ctx)?,
        );
        plan.insert(ENVTEST_MAIN, "envtest-modules", "mod crds;".to_string());
    }

    // The controller: one per kind, scaffolded again by --force only from the version that
    // has it.
    // (A controller file of another kind with the same name makes the plan fail: scaffolded
    // files are never overwritten without --force.)
    let has_controller = existing.iter().any(|r| r.controller);
    let controller = args.controller
        && (!has_controller || (args.force && same_version.is_some_and(|r| r.controller)));
    if controller {
        plan_controller(tree, renderer, &mut plan, &ctx, false)?;
    } else if args.finalizer {
        let with = existing
            .iter()
            .find(|r| r.controller)
            .map_or("", |r| &r.version);
        bail!(
            "--finalizer is kept by the controller of {}, which exists already (scaffolded with {with}); drop --finalizer, or scaffold that controller again: create api --group {} --version {with} --kind {} --resource=false --controller --finalizer --force",
            args.kind,
            args.group,
            args.kind
        );
    }

    // Kustomize: CRD, samples, RBAC roles.
    let crd_file = format!("{}_{}.yaml", ctx.api_group, ctx.plural);
    if tree.read(Path::new(CRD_KUSTOMIZATION))?.is_none() {
        plan.scaffold(
            CRD_KUSTOMIZATION,
            renderer.render("api/config/crd/kustomization.yaml.hbs", &ctx)?,
        );
    } else {
        plan.add_to_list(
            CRD_KUSTOMIZATION,
            ListEntries::new("resources", "crd-resources", format!("- bases/{crd_file}")),
        );
    }
    plan.add_to_list(
        DEFAULT_KUSTOMIZATION,
        ListEntries::new("resources", "default-resources", "- ../crd"),
    );
    if tree.read(Path::new(SAMPLES_KUSTOMIZATION))?.is_none() {
        plan.scaffold(
            SAMPLES_KUSTOMIZATION,
            renderer.render("api/config/samples/kustomization.yaml.hbs", &ctx)?,
        );
    } else {
        plan.add_to_list(
            SAMPLES_KUSTOMIZATION,
            ListEntries::new("resources", "samples", format!("- {}", ctx.sample_file)),
        );
    }
    if new_kind {
        let file_prefix = ctx.role_prefix.replace('-', "_");
        for role in ["admin", "editor", "viewer"] {
            let file = format!("{file_prefix}_{role}_role.yaml");
            plan.scaffold(
                format!("config/rbac/{file}"),
                renderer.render(&format!("api/config/rbac/{role}_role.yaml.hbs"), &ctx)?,
            );
            plan.add_to_list(
                RBAC_KUSTOMIZATION,
                ListEntries::new("resources", "rbac-resources", format!("- {file}")),
            );
        }
    }

    // PROJECT.
    let mut updated = project.clone();
    let record = Resource {
        group: args.group.clone(),
        version: args.version.clone(),
        kind: args.kind.clone(),
        plural: ctx.plural.clone(),
        domain: project.domain.clone(),
        namespaced: ctx.namespaced,
        controller: controller || same_version.is_some_and(|r| r.controller),
        finalizer: if controller {
            args.finalizer
        } else {
            same_version.is_some_and(|r| r.finalizer)
        },
        path: Some(types_path.clone()),
        external: false,
        crd: None,
        webhooks: same_version.map(|r| r.webhooks.clone()).unwrap_or_default(),
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

    // Generated files, from the tree as the plan leaves it.
    let changes = plan.resolve(tree, args.force)?;
    let sources = sources_with(root, "src/api", &changes)?;
    let crds = crate::commands::generate::crds::project_crds(root, &sources, &args.kind)?;
    let rendered = crate::crd::emit::render(&crds)?;
    let yaml = rendered.get(&crd_file).with_context(|| {
        format!("the CRD generator found no {crd_file} in src/api after scaffolding {types_path}")
    })?;
    plan.generate(format!("config/crd/bases/{crd_file}"), yaml.clone());
    let crd = crds
        .iter()
        .find(|c| c.spec.group == ctx.api_group && c.spec.names.kind == ctx.kind);
    ctx.sample_spec = crd
        .map(|c| sample_spec(c, &args.version, &args.kind))
        .unwrap_or_else(|| "spec: {}".into());
    plan.scaffold(
        format!("config/samples/{}", ctx.sample_file),
        renderer.render("api/config/samples/sample.yaml.hbs", &ctx)?,
    );
    plan_role(root, &mut plan, &changes, project)?;
    plan.generate(project::FILE, updated.to_yaml());

    let mut next = note.map(|n| format!("{n}\n")).unwrap_or_default();
    next += &format!(
        "\nNext: describe a {} in {types_path}, then run\n  make manifests   # regenerate the CRD and RBAC\n  make test",
        args.kind
    );
    if controller {
        next.push_str(&format!(
            "\nThe controller is src/controllers/{}.rs; its tests are tests/{}_controller.rs.",
            ctx.kind_snake, ctx.kind_snake
        ));
    }
    Ok(Planned { plan, next })
}

/// Module registration of a kind's types: `src/api/mod.rs`, the group module (with the
/// storage-version re-export and the merged CRD) and the version module.
fn plan_modules(
    tree: &dyn Tree,
    renderer: &Renderer,
    plan: &mut Plan,
    ctx: &Ctx,
    others: &[&Resource],
) -> Result<()> {
    let group_path = format!("src/api/{}/mod.rs", ctx.group_mod);
    let version_path = format!("src/api/{}/{}/mod.rs", ctx.group_mod, ctx.version);
    let kind_block = renderer.render("api/src/api/group/kind_crd.rs.hbs", ctx)?;
    let version_line = format!("{}::{}::{}::crd(),", ctx.version, ctx.kind_snake, ctx.kind);
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
        Some(text) => {
            let version_mod = format!("pub mod {};", ctx.version);
            if others.is_empty() {
                plan.insert(&group_path, "versions", version_mod);
                plan.insert(&group_path, "kinds", kind_block.trim_end().to_string());
            } else {
                // Versions are listed lowest priority first, as `generate crds` merges them.
                let priority = |v: &str| names::version_priority(v);
                let next_higher = others
                    .iter()
                    .filter(|r| priority(&r.version) > priority(&ctx.version))
                    .min_by_key(|r| priority(&r.version));
                let marker = format!("{}-versions", ctx.kind_snake);
                let anchor = next_higher
                    .map(|r| format!("{}::{}::{}::crd(),", r.version, ctx.kind_snake, ctx.kind));
                match anchor {
                    Some(anchor) => {
                        // Above the next higher version, where the marker's list has it.
                        let path = Path::new(&group_path);
                        let add = |text: &str, marker: &str, fragment: &str, before| {
                            rust_markers::insert(path, text, marker, fragment, before)
                                .map(|new| new.unwrap_or_else(|| text.to_string()))
                        };
                        let listed = add(&text, &marker, &version_line, Some(anchor.as_str()))?;
                        plan.generate(&group_path, add(&listed, "versions", &version_mod, None)?);
                    }
                    None => {
                        plan.insert(&group_path, "versions", version_mod);
                        plan.insert(&group_path, &marker, version_line.clone());
                    }
                }
            }
        }
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
    Ok(())
}

/// The existing version with the highest Kubernetes priority.
fn newest_version<'p>(versions: &[&'p Resource]) -> Option<&'p Resource> {
    versions
        .iter()
        .copied()
        .max_by_key(|r| names::version_priority(&r.version))
}

/// Other groups of the project whose Rust module this one would take (names within the
/// group: `group_names`).
fn check_collisions(project: &Project, ctx: &Ctx) -> Result<()> {
    for r in &project.resources {
        if !r.is_own() {
            continue;
        }
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

/// The controller of a kind, its tests, and its registration in `controllers/mod.rs`.
pub(super) fn plan_controller(
    tree: &dyn Tree,
    renderer: &Renderer,
    plan: &mut Plan,
    ctx: &Ctx,
    builtin: bool,
) -> Result<()> {
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
    Ok(())
}

/// Whether the project has the envtest test binary: projects scaffolded before rsbuilder
/// wrote one get no envtest tests added.
pub(super) fn envtest_scaffolded(tree: &dyn Tree) -> Result<bool> {
    Ok(tree.read(Path::new(ENVTEST_MAIN))?.is_some())
}

/// `config/rbac/role.yaml` from the RBAC markers of the sources as `changes` (the resolved
/// plan) leave them.
pub(super) fn plan_role(
    root: &Path,
    plan: &mut Plan,
    changes: &[Change],
    project: &Project,
) -> Result<()> {
    let sources = sources_with(root, "src", changes)?;
    plan.generate(
        rbac::ROLE_FILE,
        rbac::role_yaml(&sources, project.namespaced)?,
    );
    Ok(())
}

/// `--resource=false --controller`: a controller for a kind of this project, or for a
/// built-in Kubernetes kind.
fn plan_controller_only(
    root: &Path,
    tree: &dyn Tree,
    renderer: &Renderer,
    project: &Project,
    args: &ApiRequest,
    mut ctx: Ctx,
) -> Result<Planned> {
    names::subdomain("group", &args.group)?;
    let mut plan = Plan::new();
    let mut updated = project.clone();
    let controller_path = format!("src/controllers/{}.rs", ctx.kind_snake);
    let own = versions_of(project, &args.group, &args.kind);
    if !own.is_empty() {
        let Some(entry) = own.iter().find(|r| r.version == args.version) else {
            let versions: Vec<&str> = own.iter().map(|r| r.version.as_str()).collect();
            bail!(
                "{} ({}) has no version {}; its versions are {}",
                args.kind,
                ctx.api_group,
                args.version,
                versions.join(", ")
            );
        };
        let has_controller = own.iter().any(|r| r.controller);
        if has_controller && !args.force {
            bail!(
                "{} ({}) already has a controller ({controller_path}); use --force to scaffold it again",
                args.kind,
                ctx.api_group
            );
        }
        ctx.plural = entry.plural.clone();
        ctx.namespaced = entry.namespaced;
        plan_controller(tree, renderer, &mut plan, &ctx, false)?;
        for r in &mut updated.resources {
            if r.group == entry.group && r.domain == entry.domain && r.kind == entry.kind {
                r.controller = r.version == entry.version;
                r.finalizer = r.controller && args.finalizer;
            }
        }
    } else if let Some(entry) = external::recorded(project, &args.group, &args.kind) {
        if entry.version != args.version {
            bail!(
                "{} ({}) is typed at {} in this project ({}); its controller watches that version: pass --version {}",
                args.kind,
                args.group,
                entry.version,
                entry.path.as_deref().unwrap_or_default(),
                entry.version
            );
        }
        if args.plural.is_some() || args.cluster_scoped || args.finalizer {
            bail!(
                "{} ({}) is an external kind: its CRD decides its plural and scope, and its owner when it goes; drop --plural, --cluster-scoped and --finalizer",
                args.kind,
                args.group
            );
        }
        if entry.controller && !args.force {
            bail!(
                "{} ({}) already has a controller ({controller_path}); use --force to scaffold it again",
                args.kind,
                args.group
            );
        }
        external::make_external(
            &mut ctx,
            &entry.group,
            &entry.version,
            &entry.plural,
            entry.namespaced,
        )?;
        plan_controller(tree, renderer, &mut plan, &ctx, true)?;
        for r in &mut updated.resources {
            if r.external && r.group == entry.group && r.kind == entry.kind {
                r.controller = true;
            }
        }
    } else {
        let b = builtin::lookup(&args.group, &args.version, &args.kind).map_err(|e| {
            anyhow!("{e}; to scaffold a kind of your own instead, drop --resource=false")
        })?;
        check_builtin(&b, args)?;
        ctx.api_group = b.group.to_string();
        ctx.group_display = builtin::display_group(b.group).to_string();
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
        if recorded && !args.force {
            bail!(
                "{}/{} {} already has a controller ({controller_path}); use --force to scaffold it again",
                ctx.group_display,
                b.version,
                b.kind
            );
        }
        plan_controller(tree, renderer, &mut plan, &ctx, true)?;
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
    }
    let changes = plan.resolve(tree, args.force)?;
    plan_role(root, &mut plan, &changes, project)?;
    plan.generate(project::FILE, updated.to_yaml());
    let next = format!(
        "\nNext: write the reconciler in {controller_path} (its tests are tests/{}_controller.rs), then run\n  make manifests   # regenerate RBAC\n  make test",
        ctx.kind_snake
    );
    Ok(Planned { plan, next })
}

/// Flags that contradict what Kubernetes says about a built-in kind.
fn check_builtin(b: &Builtin, args: &ApiRequest) -> Result<()> {
    if let Some(plural) = &args.plural
        && plural != b.plural
    {
        bail!(
            "invalid plural {plural:?}: the plural of {} is {:?}; drop --plural",
            b.kind,
            b.plural
        );
    }
    if args.cluster_scoped && b.namespaced {
        bail!("{} is namespaced; drop --cluster-scoped", b.kind);
    }
    if args.finalizer {
        bail!(
            "--finalizer is for kinds of this project; {} belongs to Kubernetes, whose own controllers decide when it goes: drop --finalizer",
            b.kind
        );
    }
    Ok(())
}

/// A sample `spec` for `version` of `crd`: the example field when the schema still has it,
/// and a zero value for every required field.
fn sample_spec(crd: &CustomResourceDefinition, version: &str, kind: &str) -> String {
    let spec = crd
        .spec
        .versions
        .iter()
        .find(|v| v.name == version)
        .and_then(|v| v.schema.as_ref())
        .and_then(|s| s.open_api_v3_schema.as_ref())
        .and_then(|s| s.properties.as_ref())
        .and_then(|p| p.get("spec"));
    let Some(spec) = spec else {
        return "spec: {}".into();
    };
    let mut fields = serde_yaml::Mapping::new();
    for name in spec.required.iter().flatten() {
        if let Some(prop) = spec.properties.as_ref().and_then(|p| p.get(name)) {
            fields.insert(name.clone().into(), zero(prop));
        }
    }
    let example = spec
        .properties
        .as_ref()
        .and_then(|p| p.get("foo"))
        .is_some_and(|p| p.type_.as_deref() == Some("string"));
    if example {
        fields.insert("foo".into(), format!("an example {kind}").into());
    }
    if fields.is_empty() {
        return format!("# TODO(user): the fields of a {kind}.\nspec: {{}}");
    }
    let body = crate::yaml::to_string(&fields).unwrap_or_default();
    let indented: String = body.lines().map(|l| format!("  {l}\n")).collect();
    format!(
        "spec:\n  # TODO(user): describe the {kind} you want.\n{}",
        indented.trim_end()
    )
}

fn zero(prop: &JSONSchemaProps) -> serde_yaml::Value {
    match prop.type_.as_deref() {
        Some("string") => "".into(),
        Some("integer") | Some("number") => 0.into(),
        Some("boolean") => false.into(),
        Some("array") => serde_yaml::Value::Sequence(Vec::new()),
        _ => serde_yaml::Value::Mapping(serde_yaml::Mapping::new()),
    }
}

/// A short name for `kubectl get`: the initials of a multi-word kind (ReplicaPool -> rp),
/// or the first letter and following consonants of a one-word kind (Tenant -> tnt).
/// `group_names::check` drops it where another kind already has it.
fn shortname(kind: &str) -> String {
    let initials: String = kind
        .chars()
        .filter(char::is_ascii_uppercase)
        .collect::<String>()
        .to_lowercase();
    if initials.len() >= 2 {
        return initials;
    }
    let lower = kind.to_lowercase();
    let mut chars = lower.chars();
    let mut out: String = chars.next().into_iter().collect();
    for c in chars {
        if out.len() == 3 {
            break;
        }
        if !"aeiou".contains(c) && !out.ends_with(c) {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortnames() {
        assert_eq!(shortname("ReplicaPool"), "rp");
        assert_eq!(shortname("CronJob"), "cj");
        assert_eq!(shortname("Tenant"), "tnt");
        assert_eq!(shortname("Database"), "dtb");
        assert_eq!(shortname("A"), "a");
        assert_eq!(shortname("HTTPRoute"), "httpr");
    }
}
