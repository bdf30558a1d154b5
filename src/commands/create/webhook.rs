//! `rsbuilder create webhook`: defaulting and validating admission webhooks for one version
//! of a kind, and hub-and-spoke conversion between its versions, served by one HTTPS
//! server in the manager and wired into the kustomize config.
//!
//! Everything is planned in memory. The first webhook of a project brings the server, its
//! Cargo dependencies and the certificate's config (`webhook::certs`); every later one extends the files it
//! shares with others through scaffold markers, so adding a second webhook type to a kind
//! never needs `--force` and never rewrites what the user wrote.

use std::cmp::Ordering;
use std::path::Path;

use anyhow::{Result, bail};
use clap::Args;
use heck::ToSnakeCase;
use serde::Serialize;

use super::{api, sources_with};
use crate::commands::write_plan;
use crate::context::Global;
use crate::names;
use crate::project::{self, Project, Resource};
use crate::runtime_crate;
use crate::scaffold::{Edit, ListEntries, Plan, Renderer, Tree, kind_clash};
use crate::webhook::emit::{self, atom, call};
use crate::webhook::{self, certs, conversion, manifests};

#[derive(Debug, Args)]
pub struct WebhookArgs {
    /// API group without the domain, as given to `create api`
    #[arg(long)]
    pub group: String,
    /// The version whose objects the admission webhooks see; for --conversion, the hub: the
    /// storage version
    #[arg(long)]
    pub version: String,
    /// Kind, e.g. CronJob
    #[arg(long)]
    pub kind: String,
    /// A defaulting (mutating) webhook: a `default` function that sets defaults
    #[arg(long)]
    pub defaulting: bool,
    /// A validating webhook: `validate_create`, `validate_update` and `validate_delete`
    #[arg(long)]
    pub programmatic_validation: bool,
    /// A conversion webhook between --version (the hub) and each --spoke version
    #[arg(long, requires = "spoke")]
    pub conversion: bool,
    /// The versions that convert to and from the hub, comma separated
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "VERSIONS",
        requires = "conversion"
    )]
    pub spoke: Vec<String>,
    /// Scaffold again the kind's webhook files that exist, overwriting them
    #[arg(long)]
    pub force: bool,
}

/// Everything the webhook templates may refer to.
#[derive(Debug, Clone, Serialize, Default)]
struct Ctx {
    boilerplate: String,
    project_name: String,
    crate_name: String,
    group_mod: String,
    api_group: String,
    version: String,
    kind: String,
    kind_snake: String,
    plural: String,
    namespaced: bool,
    crd_name: String,
    mutate_path: String,
    validate_path: String,
    hub: String,
    spoke: String,
    hub_annotation: String,
    spoke_annotation: String,
    imports: String,
    functions: String,
    sample: String,
    bench_use: String,
    index: usize,
    default_sig: String,
    validate_create_sig: String,
    validate_update_sig: String,
    validate_delete_sig: String,
    mutate_path_let: String,
    validate_path_let: String,
    /// The test's AdmissionReview of the kind, laid out as rustfmt lays it out.
    review_let: String,
    /// The kind version's module under `src/webhooks`: `batch_v1_cron_job`.
    module: String,
    /// Whether the spec still has the scaffolded `foo: Option<String>`, which the
    /// admission webhooks' example rules default and check.
    foo_rules: bool,
}

const LIB: &str = "src/lib.rs";
const MAIN: &str = "src/main.rs";
const CARGO: &str = "Cargo.toml";
const MAKEFILE: &str = "Makefile";
const WEBHOOKS_MOD: &str = "src/webhooks/mod.rs";
const BENCH: &str = "benches/conversion.rs";
const DEFAULT_KUSTOMIZATION: &str = "config/default/kustomization.yaml";
const CRD_KUSTOMIZATION: &str = "config/crd/kustomization.yaml";
const ENVTEST_WEBHOOKS: &str = "tests/envtest/webhooks.rs";
const NETWORK_POLICY_KUSTOMIZATION: &str = "config/network-policy/kustomization.yaml";

pub fn run(global: &Global, args: WebhookArgs) -> Result<()> {
    let project = Project::load(&global.dir)?;
    let tree = crate::scaffold::DiskTree::new(&global.dir);
    let renderer = Renderer::new()?;
    let planned = plan(&global.dir, &tree, &renderer, &project, &args)?;
    let mut plan = planned.plan;
    let stale = crate::helm::follow(&global.dir, &project, &mut plan)?;
    write_plan(global, &plan, args.force)?;
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

/// What planning reads: the project's files, the templates, its `src/api` sources, and
/// whether `--force` re-scaffolds the kind's files.
#[derive(Clone, Copy)]
struct Env<'a> {
    tree: &'a dyn Tree,
    renderer: &'a Renderer,
    sources: &'a conversion::Sources,
    force: bool,
}

/// The webhook types a command asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Admission {
    Defaulting,
    Validation,
}

/// The whole plan of `create webhook`; reads the project and writes nothing.
pub fn plan(
    root: &Path,
    tree: &dyn Tree,
    renderer: &Renderer,
    project: &Project,
    args: &WebhookArgs,
) -> Result<Planned> {
    names::version(&args.version)?;
    names::kind(&args.kind)?;
    names::subdomain("group", &args.group)?;
    for spoke in &args.spoke {
        names::version(spoke).map_err(|e| anyhow::anyhow!("--spoke: {e}"))?;
    }
    if !args.defaulting && !args.programmatic_validation && !args.conversion {
        bail!(
            "nothing to create: pass --defaulting, --programmatic-validation, or --conversion --spoke <versions>"
        );
    }
    let index = find_resource(project, args)?;
    let resource = &project.resources[index];
    let mut ctx = context(tree, project, resource)?;

    let existing = resource.webhooks.clone();
    let mut admission = Vec::new();
    for (asked, had, kind, name) in [
        (
            args.defaulting,
            existing.defaulting,
            Admission::Defaulting,
            "defaulting",
        ),
        (
            args.programmatic_validation,
            existing.validation,
            Admission::Validation,
            "validating",
        ),
    ] {
        if asked && had && !args.force {
            bail!(
                "{} ({}/{}) already has a {name} webhook (src/webhooks/{}.rs); nothing was written",
                args.kind,
                ctx.api_group,
                args.version,
                module(&ctx)
            );
        }
        if asked {
            admission.push(kind);
        }
    }

    let sources = conversion::Sources::parse(&sources_with(root, "src/api", &[])?)?;
    let mut spokes = Vec::new();
    if args.conversion {
        spokes = check_conversion(project, resource, &sources, args, &ctx)?;
    }

    let mut updated = project.clone();
    {
        let r = &mut updated.resources[index];
        r.webhooks.defaulting |= args.defaulting;
        r.webhooks.validation |= args.programmatic_validation;
        if args.conversion {
            r.webhooks.conversion = true;
            for spoke in &spokes {
                if !r.webhooks.spoke.contains(spoke) {
                    r.webhooks.spoke.push(spoke.clone());
                }
            }
            r.webhooks.spoke.sort_by_key(|v| names::version_priority(v));
        }
    }

    let env = Env {
        tree,
        renderer,
        sources: &sources,
        force: args.force,
    };
    let mut plan = Plan::new();
    plan_server(tree, renderer, &mut plan, &ctx)?;
    if !admission.is_empty() {
        let mut all = admission.clone();
        if args.force {
            // Scaffolding the file again brings back every type the kind has.
            if existing.defaulting && !all.contains(&Admission::Defaulting) {
                all.insert(0, Admission::Defaulting);
            }
            if existing.validation && !all.contains(&Admission::Validation) {
                all.push(Admission::Validation);
            }
        }
        plan_admission(&env, &mut plan, &mut ctx, &all)?;
    }
    if !spokes.is_empty() {
        let recorded = updated.resources[index].webhooks.spoke.clone();
        plan_conversion(&env, &mut plan, &mut ctx, &spokes, &recorded)?;
    }
    plan.generate(manifests::FILE, manifests::render(&updated)?);
    certs::plan(&mut plan, renderer, &updated, tree)?;
    plan.generate(project::FILE, updated.to_yaml());
    let kind = kind_clash::Kind {
        name: &args.kind,
        module: &ctx.kind_snake,
        crate_name: &ctx.crate_name,
    };
    kind_clash::check(&plan.resolve(tree, args.force)?, &kind)?;

    let mut next = String::from("\nNext:");
    if admission.contains(&Admission::Defaulting) {
        next.push_str(&format!(
            "\n  write the defaults of a {} in `default` in src/webhooks/{}.rs",
            args.kind,
            module(&ctx)
        ));
    }
    if admission.contains(&Admission::Validation) {
        next.push_str(&format!(
            "\n  write its rules in `validate_create/update/delete` in src/webhooks/{}.rs",
            module(&ctx)
        ));
    }
    for spoke in &spokes {
        next.push_str(&format!(
            "\n  complete the TODO(rsbuilder) lines of src/api/{}/{spoke}/{}_conversion.rs",
            ctx.group_mod, ctx.kind_snake
        ));
    }
    next.push_str(&format!(
        "\nthen run\n  make manifests test\n{}; `make run` runs without them (ENABLE_WEBHOOKS=false).",
        certs::next_steps(project.webhook_certs)
    ));
    Ok(Planned { plan, next })
}

/// The index in PROJECT of the kind version the webhooks are for, or an error that says
/// what exists instead.
fn find_resource(project: &Project, args: &WebhookArgs) -> Result<usize> {
    let api_group = format!("{}.{}", args.group, project.domain);
    let same_kind: Vec<(usize, &Resource)> = project
        .resources
        .iter()
        .enumerate()
        .filter(|(_, r)| r.group == args.group && r.kind == args.kind)
        .collect();
    if let Some((i, r)) = same_kind.iter().find(|(_, r)| r.version == args.version) {
        if r.path.is_none() {
            bail!(
                "{} ({}) is a built-in kind; webhooks are scaffolded for the kinds of this project",
                args.kind,
                args.group
            );
        }
        if r.external {
            bail!(
                "{} ({}) is an external kind (create api --from-crd); webhooks are scaffolded for the kinds of this project",
                args.kind,
                args.group
            );
        }
        return Ok(*i);
    }
    if same_kind.is_empty() {
        bail!(
            "{api_group} has no kind {}; create it first with `rsbuilder create api --group {} --version {} --kind {}`",
            args.kind,
            args.group,
            args.version,
            args.kind
        );
    }
    let versions: Vec<&str> = same_kind.iter().map(|(_, r)| r.version.as_str()).collect();
    bail!(
        "{} ({api_group}) has no version {}; its versions are {}",
        args.kind,
        args.version,
        versions.join(", ")
    )
}

fn context(tree: &dyn Tree, project: &Project, r: &Resource) -> Result<Ctx> {
    let api_group = format!("{}.{}", r.group, r.domain);
    let snake = r.kind.to_snake_case();
    let by_ref = format!("&{}", r.kind);
    let verdict = Some("Result<(), String>");
    let signature = |name: &str, params: &[(&str, &str)], ret: Option<&str>| {
        emit::signature(0, "pub ", name, params, ret)
    };
    Ok(Ctx {
        boilerplate: tree
            .read(Path::new("hack/boilerplate.rs.txt"))?
            .unwrap_or_default(),
        project_name: project.project_name.clone(),
        crate_name: project.project_name.to_snake_case(),
        group_mod: r.group.replace(['-', '.'], "_"),
        version: r.version.clone(),
        kind: r.kind.clone(),
        kind_snake: r.kind.to_snake_case(),
        plural: r.plural.clone(),
        namespaced: r.namespaced,
        crd_name: format!("{}.{api_group}", r.plural),
        mutate_path: webhook::admission_path("mutate", &api_group, &r.version, &r.kind),
        validate_path: webhook::admission_path("validate", &api_group, &r.version, &r.kind),
        hub: r.version.clone(),
        hub_annotation: webhook::annotation(&r.kind, &r.version),
        api_group: api_group.clone(),
        default_sig: signature("default", &[(&snake, &format!("&mut {}", r.kind))], None),
        validate_create_sig: signature("validate_create", &[(&snake, &by_ref)], verdict),
        validate_update_sig: signature(
            "validate_update",
            &[("old", &by_ref), ("new", &by_ref)],
            verdict,
        ),
        validate_delete_sig: signature("validate_delete", &[(&snake, &by_ref)], verdict),
        review_let: review_let(&r.kind),
        mutate_path_let: path_let(&webhook::admission_path(
            "mutate", &api_group, &r.version, &r.kind,
        )),
        validate_path_let: path_let(&webhook::admission_path(
            "validate", &api_group, &r.version, &r.kind,
        )),
        ..Ctx::default()
    })
}

/// `let path = "<path>";` in a test function (indented by 8 once inserted), broken after
/// `=` as rustfmt does when it does not fit.
fn review_let(kind: &str) -> String {
    let call = format!("admission_review::<kind::{kind}>(operation, object, old_object);");
    if 8 + "let review = ".len() + call.len() <= emit::MAX_WIDTH {
        format!("        let review = {call}")
    } else {
        format!("        let review =\n            {call}")
    }
}

fn path_let(path: &str) -> String {
    let one = format!("    let path = {path:?};");
    if 4 + one.len() <= emit::MAX_WIDTH {
        one
    } else {
        format!("    let path =\n        {path:?};")
    }
}

fn module(ctx: &Ctx) -> String {
    webhook::module_name(&ctx.group_mod, &ctx.version, &ctx.kind_snake)
}

/// The spokes to add: each a version of the kind other than the hub, not converting yet;
/// the hub must be the storage version.
fn check_conversion(
    project: &Project,
    resource: &Resource,
    sources: &conversion::Sources,
    args: &WebhookArgs,
    ctx: &Ctx,
) -> Result<Vec<String>> {
    let storage = conversion::storage_version(sources, &ctx.api_group, &args.kind)?;
    if storage != args.version {
        bail!(
            "{} is not the storage version of {} ({storage} is), and the hub of a conversion webhook is the storage version: \
             pass --version {storage}, or first run `rsbuilder edit --storage-version {} --kind {} --group {}`",
            args.version,
            args.kind,
            args.version,
            args.kind,
            args.group
        );
    }
    let versions: Vec<&str> = project
        .resources
        .iter()
        .filter(|r| r.group == args.group && r.kind == args.kind && r.is_own())
        .map(|r| r.version.as_str())
        .collect();
    let converting: Vec<&String> = project
        .resources
        .iter()
        .filter(|r| r.group == args.group && r.kind == args.kind)
        .flat_map(|r| &r.webhooks.spoke)
        .collect();
    if let Some(other) = project.resources.iter().find(|r| {
        r.group == args.group
            && r.kind == args.kind
            && r.webhooks.conversion
            && r.version != resource.version
    }) {
        bail!(
            "{} already converts through the hub {}; a kind has one hub (its storage version)",
            args.kind,
            other.version
        );
    }
    let mut spokes: Vec<String> = Vec::new();
    for spoke in &args.spoke {
        if *spoke == args.version {
            bail!(
                "--spoke {spoke} is the hub itself; the spokes are the other versions of {}: {}",
                args.kind,
                versions
                    .iter()
                    .filter(|v| **v != args.version)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if !versions.contains(&spoke.as_str()) {
            bail!(
                "--spoke {spoke}: {} ({}) has no version {spoke}; its versions are {}",
                args.kind,
                ctx.api_group,
                versions.join(", ")
            );
        }
        if converting.contains(&spoke) && !args.force {
            bail!(
                "{} already converts between {spoke} and {} (src/api/{}/{spoke}/{}_conversion.rs); nothing was written",
                args.kind,
                args.version,
                ctx.group_mod,
                ctx.kind_snake
            );
        }
        if !spokes.contains(spoke) {
            spokes.push(spoke.clone());
        }
    }
    spokes.sort_by_key(|v| names::version_priority(v));
    Ok(spokes)
}

/// The webhook server, its dependencies and config, and its registration in the manager:
/// scaffolded by the first webhook, kept by every later one.
fn plan_server(tree: &dyn Tree, renderer: &Renderer, plan: &mut Plan, ctx: &Ctx) -> Result<()> {
    for file in [
        "src/webhooks/mod.rs",
        "config/webhook/kustomization.yaml",
        "config/webhook/service.yaml",
    ] {
        scaffold_missing(tree, renderer, plan, ctx, file)?;
    }
    // The envtest control plane serves the webhooks and installs their configurations.
    if api::envtest_scaffolded(tree)? {
        scaffold_missing(tree, renderer, plan, ctx, ENVTEST_WEBHOOKS)?;
        plan.insert(api::ENVTEST_MAIN, "envtest-modules", "mod webhooks;");
        plan.insert(api::ENVTEST_MAIN, "envtest-modules", "mod webhook_certs;");
        for field in [
            "webhooks: Some(webhooks::serve),",
            "webhook_certs: webhook_certs::ISSUE,",
        ] {
            plan.insert(api::ENVTEST_MAIN, "envtest-environment", field);
        }
    }
    plan.insert(LIB, "modules", "pub mod webhooks;");
    plan.insert(
        MAIN,
        "manager-flags",
        renderer.render("webhook/fragments/manager_flags.rs.hbs", ctx)?,
    );
    plan.insert(
        MAIN,
        "manager-servers",
        renderer.render("webhook/fragments/manager_servers.rs.hbs", ctx)?,
    );
    plan.insert(
        MAKEFILE,
        "make-variables",
        renderer.render("webhook/fragments/make_variables.hbs", ctx)?,
    );
    plan.insert(
        MAKEFILE,
        "make-targets",
        renderer.render("webhook/fragments/make_targets.hbs", ctx)?,
    );
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
    plan_network_policy(tree, renderer, plan, ctx)
}

/// The policy that admits the API server to the webhook server, beside the metrics one,
/// unless the project has no `config/network-policy` (the user removed it).
fn plan_network_policy(
    tree: &dyn Tree,
    renderer: &Renderer,
    plan: &mut Plan,
    ctx: &Ctx,
) -> Result<()> {
    if tree
        .read(Path::new(NETWORK_POLICY_KUSTOMIZATION))?
        .is_none()
    {
        return Ok(());
    }
    scaffold_missing(
        tree,
        renderer,
        plan,
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
    Ok(())
}

/// Scaffolds `file` from `templates/webhook/<file>.hbs` unless it exists.
fn scaffold_missing(
    tree: &dyn Tree,
    renderer: &Renderer,
    plan: &mut Plan,
    ctx: &Ctx,
    file: &str,
) -> Result<()> {
    if tree.read(Path::new(file))?.is_none() {
        plan.scaffold(file, renderer.render(&format!("webhook/{file}.hbs"), ctx)?);
    }
    Ok(())
}

/// The kind version's admission webhooks: its file (scaffolded once, extended through its
/// markers), its module and routes.
fn plan_admission(env: &Env, plan: &mut Plan, ctx: &mut Ctx, kinds: &[Admission]) -> Result<()> {
    let Env {
        tree,
        renderer,
        sources,
        force,
    } = *env;
    let module = module(ctx);
    ctx.module = module.clone();
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
    ctx.foo_rules =
        conversion::has_optional_string(sources, &ctx.api_group, &ctx.kind, &ctx.version, "foo")?;
    plan.insert(
        WEBHOOKS_MOD,
        "webhook-modules",
        format!("pub mod {module};"),
    );
    // The API server's calls to them, on the envtest control plane.
    let envtest = api::envtest_scaffolded(tree)?;
    let envtest_test = format!("tests/envtest/{module}_admission.rs");
    if envtest {
        if force || tree.read(Path::new(&envtest_test))?.is_none() {
            plan.scaffold(
                &envtest_test,
                renderer.render("webhook/tests/envtest/admission.rs.hbs", ctx)?,
            );
        }
        plan.insert(
            api::ENVTEST_MAIN,
            "envtest-modules",
            format!("mod {module}_admission;"),
        );
    }
    for kind in kinds {
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
        plan.insert(
            &path,
            "webhook-functions",
            renderer.render(&format!("webhook/fragments/{fragment}.rs.hbs"), ctx)?,
        );
        plan.insert(
            &path,
            "webhook-tests",
            renderer.render(&format!("webhook/fragments/{test}.rs.hbs"), ctx)?,
        );
        plan.insert(
            WEBHOOKS_MOD,
            "webhook-routes",
            tuple_line(8, vec![atom(format!("{route:?}")), handler]),
        );
        if envtest {
            plan.insert(
                &envtest_test,
                &format!("{module}-admission"),
                format!("{route:?},"),
            );
            if ctx.foo_rules {
                plan.insert(
                    &envtest_test,
                    &format!("{module}-admission-tests"),
                    renderer
                        .render(&format!("webhook/fragments/{fragment}_envtest.rs.hbs"), ctx)?,
                );
            }
        }
    }
    Ok(())
}

/// `(a, b, ...),` as rustfmt writes an item of a list at `indent` (8 in the routes, 4 in
/// the conversions); returned without that indentation.
fn tuple_line(indent: usize, items: Vec<emit::Expr>) -> String {
    let tuple = call("", items);
    let lines = tuple.render(indent, "", ",");
    lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or(l).to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Conversion through the hub: the `/convert` handler (once), the kind's hub file and its
/// registration, a conversion file per spoke, tests, the benchmark and the CRD patch.
fn plan_conversion(
    env: &Env,
    plan: &mut Plan,
    ctx: &mut Ctx,
    spokes: &[String],
    recorded: &[String],
) -> Result<()> {
    let Env {
        tree,
        renderer,
        sources,
        force,
    } = *env;
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

    let conversion_file = |version: &str| {
        format!(
            "src/api/{}/{version}/{}_conversion.rs",
            ctx.group_mod, ctx.kind_snake
        )
    };
    let hub_file = conversion_file(&ctx.hub);
    // A hub file scaffolded (again) registers every spoke of the kind; an existing one
    // gains the new spokes only.
    let mut registered: Vec<&String> = spokes.iter().collect();
    if force || tree.read(Path::new(&hub_file))?.is_none() {
        registered = recorded.iter().collect();
        let mut c = ctx.clone();
        c.sample = conversion::sample_code(
            sources,
            &ctx.api_group,
            &ctx.kind,
            &ctx.hub,
            "hub",
            "pub ",
            0,
        )?;
        plan.scaffold(
            &hub_file,
            renderer.render("webhook/src/api/hub_conversion.rs.hbs", &c)?,
        );
    }
    let version_mod = |version: &str| format!("src/api/{}/{version}/mod.rs", ctx.group_mod);
    let module_line = format!("pub mod {}_conversion;", ctx.kind_snake);
    plan.insert(version_mod(&ctx.hub), "kinds", module_line.clone());

    scaffold_missing(tree, renderer, plan, ctx, BENCH)?;
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

    for spoke in spokes {
        let code = conversion::spoke_code(sources, &ctx.api_group, &ctx.kind, spoke, &ctx.hub)?;
        let mut c = ctx.clone();
        c.spoke = spoke.clone();
        c.spoke_annotation = webhook::annotation(&ctx.kind, spoke);
        c.functions = code.functions;
        c.sample = code.sample;
        c.imports = if code.uses_map_values {
            "{Spoke, map_values}".into()
        } else {
            "Spoke".into()
        };
        let mut versions = [ctx.hub.clone(), spoke.clone()];
        versions.sort_by(|a, b| version_sort(a, b));
        c.bench_use = format!(
            "{}::api::{}::{{{}}}",
            ctx.crate_name,
            ctx.group_mod,
            versions.join(", ")
        );
        plan.scaffold(
            conversion_file(spoke),
            renderer.render("webhook/src/api/spoke_conversion.rs.hbs", &c)?,
        );
        plan.insert(version_mod(spoke), "kinds", module_line.clone());
        plan.insert(
            BENCH,
            "conversion-benches",
            renderer.render("webhook/fragments/bench_case.rs.hbs", &c)?,
        );
    }
    // The kind's versions on the envtest control plane, through the conversion webhook.
    let envtest = api::envtest_scaffolded(tree)?;
    let envtest_test = format!("tests/envtest/{}_conversion.rs", ctx.kind_snake);
    if envtest {
        if force || tree.read(Path::new(&envtest_test))?.is_none() {
            plan.scaffold(
                &envtest_test,
                renderer.render("webhook/tests/envtest/conversion.rs.hbs", ctx)?,
            );
        }
        plan.insert(
            api::ENVTEST_MAIN,
            "envtest-modules",
            format!("mod {}_conversion;", ctx.kind_snake),
        );
    }
    for spoke in registered {
        if envtest {
            plan.insert(
                &envtest_test,
                &format!("{}-spokes", ctx.kind_snake),
                format!("\"{}/{spoke}\",", ctx.api_group),
            );
        }
        plan.insert(
            &hub_file,
            "spokes",
            format!(
                "spoke::<group::{spoke}::{}::{}>(),",
                ctx.kind_snake, ctx.kind
            ),
        );
        plan.insert(
            &hub_file,
            "conversion-samples",
            format!(
                "to_json(&group::{spoke}::{}_conversion::sample()),",
                ctx.kind_snake
            ),
        );
    }

    // The CRD: the conversion patch (its CA is injected as `webhook::certs` says).
    let patch = format!("config/crd/patches/webhook_in_{}.yaml", ctx.plural);
    if force || tree.read(Path::new(&patch))?.is_none() {
        plan.scaffold(
            &patch,
            renderer.render("webhook/config/crd/patches/webhook_in.yaml.hbs", ctx)?,
        );
    }
    scaffold_missing(tree, renderer, plan, ctx, "config/crd/kustomizeconfig.yaml")?;
    plan.edit(
        CRD_KUSTOMIZATION,
        Edit::YamlSection {
            marker: "crd-patches".into(),
            block: renderer.render("webhook/fragments/crd_patches.yaml.hbs", ctx)?,
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
    Ok(())
}

/// rustfmt's order of names in a `use` list: text, with runs of digits compared as numbers.
fn version_sort(a: &str, b: &str) -> Ordering {
    fn chunks(s: &str) -> Vec<(bool, String)> {
        let mut out: Vec<(bool, String)> = Vec::new();
        for c in s.chars() {
            let digit = c.is_ascii_digit();
            match out.last_mut() {
                Some((d, text)) if *d == digit => text.push(c),
                _ => out.push((digit, c.to_string())),
            }
        }
        out
    }
    for (x, y) in chunks(a).iter().zip(chunks(b).iter()) {
        let order = match (x, y) {
            ((true, m), (true, n)) => m
                .parse::<u64>()
                .unwrap_or(0)
                .cmp(&n.parse::<u64>().unwrap_or(0)),
            ((_, m), (_, n)) => m.cmp(n),
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    a.len().cmp(&b.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_fit_or_break_like_rustfmt() {
        let handler = |name: &str| call("conversion::handler", vec![atom(name)]);
        assert_eq!(
            tuple_line(8, vec![atom("CONVERSION_PATH"), handler("CONVERSIONS")]),
            "(CONVERSION_PATH, conversion::handler(CONVERSIONS)),"
        );
        assert_eq!(
            tuple_line(
                8,
                vec![
                    atom("\"/mutate-batch-example-com-v1-cronjob\""),
                    call(
                        "admission::defaulting",
                        vec![atom("batch_v1_cron_job::default")]
                    )
                ]
            ),
            "(\n    \"/mutate-batch-example-com-v1-cronjob\",\n    admission::defaulting(batch_v1_cron_job::default),\n),"
        );
    }

    #[test]
    fn versions_sort_like_rustfmt_imports() {
        let mut v = vec!["v2", "v10", "v1beta1", "v1"];
        v.sort_by(|a, b| version_sort(a, b));
        assert_eq!(v, ["v1", "v1beta1", "v2", "v10"]);
    }
}
