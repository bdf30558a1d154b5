//! `rsbuilder edit`: changes a decision recorded in PROJECT.
//!
//! `--storage-version` moves a kind's storage version. It rewrites the `storage` arguments
//! of the kind's `#[kube(...)]` attributes (exactly one version without `storage =
//! false`), the group module's re-export of the storage version (what the controller
//! watches), and the CRD. Nothing else changes.
//!
//! `--webhook-certs` switches who issues the webhook server's certificate: PROJECT and the
//! files `webhook::certs` generates from it. The manager's code serves both modes (the
//! generated Deployment patch chooses), so the user's code is untouched.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{ArgGroup, Args};
use heck::ToSnakeCase;

use crate::commands::create::{source, sources_with};
use crate::commands::generate::warn_stale;
use crate::commands::write_plan;
use crate::context::Global;
use crate::crd::diagnostics::in_file;
use crate::names::{Group, Kind, Version};
use crate::project::{self, Project, Resource, RuntimeSource, WebhookCerts};
use crate::runtime_crate;
use crate::scaffold::{DiskTree, FileAction, Plan, Renderer, Tree};
use crate::webhook::certs;

#[derive(Debug, Default, Args)]
#[command(group(ArgGroup::new("change").required(true).args(["storage_version", "webhook_certs", "runtime", "helm"])))]
pub struct EditArgs {
    /// Make this version the one the API server stores and the controller watches
    #[arg(long, value_name = "VERSION", requires = "kind")]
    pub storage_version: Option<String>,
    /// The kind whose storage version moves
    #[arg(long, requires = "storage_version")]
    pub kind: Option<String>,
    /// The kind's API group (without the domain); needed when groups share the kind
    #[arg(long, requires = "storage_version")]
    pub group: Option<String>,
    /// Who issues the webhook server's certificate: cert-manager, or the manager itself
    #[arg(long, value_enum, conflicts_with = "storage_version")]
    pub webhook_certs: Option<WebhookCerts>,
    /// Where the project takes rsbuilder-runtime from: a copy in rsbuilder-runtime/, or the
    /// registry (once the crate is published there)
    #[arg(long, value_enum, conflicts_with_all = ["storage_version", "webhook_certs"])]
    pub runtime: Option<RuntimeSource>,
    /// Keep a Helm chart of the operator in dist/chart, made from config/ (`--helm=false`
    /// stops keeping it)
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL",
          conflicts_with_all = ["storage_version", "webhook_certs", "runtime"])]
    pub helm: Option<bool>,
}

/// `--storage-version` and its kind, with valid names, once clap checked they come
/// together.
struct StorageArgs {
    storage_version: Version,
    kind: Kind,
    group: Option<Group>,
}

impl StorageArgs {
    fn new(storage_version: &str, kind: &str, group: Option<&str>) -> Result<Self> {
        Ok(Self {
            storage_version: Version::parse(storage_version)?,
            kind: Kind::parse(kind)?,
            group: group.map(Group::parse).transpose()?,
        })
    }
}

pub fn run(global: &Global, args: EditArgs) -> Result<()> {
    let project = Project::load(&global.dir)?;
    let tree = DiskTree::new(&global.dir);
    if let Some(source) = args.runtime {
        write_plan(global, &plan_runtime(&project, source), false)?;
        let copy_left = global.dir.join(runtime_crate::DIR).exists();
        if source == RuntimeSource::Registry && copy_left && !global.dry_run {
            global.out.say(&format!(
                "\n{dir}/ is no longer used: delete it (`git rm -r {dir}`).",
                dir = runtime_crate::DIR
            ));
        }
        return Ok(());
    }
    if let Some(on) = args.helm {
        return edit_helm(global, &project, on);
    }
    let mut plan = match (args.webhook_certs, args.storage_version, args.kind) {
        (Some(mode), _, _) => plan_webhook_certs(&tree, &project, mode)?,
        (None, Some(storage_version), Some(kind)) => {
            let storage = StorageArgs::new(&storage_version, &kind, args.group.as_deref())?;
            plan(&global.dir, &tree, &project, &storage)?
        }
        _ => bail!(
            "nothing to edit: pass --storage-version with --kind, --webhook-certs, --runtime or --helm"
        ),
    };
    let stale = crate::helm::follow(&global.dir, &project, &mut plan)?;
    write_plan(global, &plan, false)?;
    warn_stale(global, &stale);
    Ok(())
}

/// `--helm`: PROJECT records it, the chart is written and the Makefile gets its targets.
/// `--helm=false`: PROJECT records it; the chart stays, the user's to delete or keep.
fn edit_helm(global: &Global, project: &Project, on: bool) -> Result<()> {
    if project.helm == on {
        global.out.say(if on {
            "the project already has a Helm chart (dist/chart); nothing to do (`rsbuilder generate helm` refreshes it)"
        } else {
            "the project has no Helm chart; nothing to do"
        });
        return Ok(());
    }
    let mut updated = project.clone();
    updated.helm = on;
    let mut plan = Plan::new();
    plan.generate(project::FILE, updated.to_yaml());
    let renderer = Renderer::new()?;
    let context = serde_json::json!({ "name": project.project_name });
    let make_targets = renderer.render("helm/fragments/make_targets.hbs", &context)?;
    let mut stale = Vec::new();
    let mut kept = Vec::new();
    if on {
        plan.insert("Makefile", "make-targets", make_targets);
        let chart = crate::helm::plan(&global.dir, &updated, &plan)?;
        plan.extend(chart.plan);
        // A chart kept from before: what it holds that config/ no longer makes.
        stale = chart.stale;
    } else {
        kept = plan_removal(global, project, &make_targets, &mut plan)?;
    }
    write_plan(global, &plan, false)?;
    warn_stale(global, &stale);
    if !on && !global.dry_run {
        remove_empty_dirs(&global.dir.join(crate::helm::DIR).join("templates"));
        for path in &kept {
            global.out.say(&format!(
                "kept {}: it differs from what rsbuilder generated; delete it if you no longer need it",
                path.display()
            ));
        }
        if global.dir.join(crate::helm::DIR).exists() {
            global.out.say(&format!(
                "{dir}/Chart.yaml and {dir}/{extras}/ are yours: rsbuilder leaves them",
                dir = crate::helm::DIR,
                extras = crate::helm::EXTRAS
            ));
        }
    }
    Ok(())
}

/// `--helm=false`: removes what `--helm` made, where it is still as rsbuilder made it (the
/// chart's generated files, the Makefile's helm targets). Returns the generated files kept
/// because they were edited since.
fn plan_removal(
    global: &Global,
    project: &Project,
    make_targets: &str,
    plan: &mut Plan,
) -> Result<Vec<PathBuf>> {
    let mut kept = Vec::new();
    if global.dir.join(crate::helm::DIR).is_dir() {
        let chart = crate::helm::plan(&global.dir, project, &Plan::new()).context(
            "rsbuilder renders the chart to know which of its files are still as it generated them",
        )?;
        for action in chart.plan.actions() {
            if let FileAction::Generate { path, contents } = action {
                match std::fs::read_to_string(global.dir.join(path)) {
                    Ok(text) if text == *contents => plan.remove(path, contents.clone()),
                    Ok(_) => kept.push(path.clone()),
                    Err(_) => {}
                }
            }
        }
    }
    let makefile = global.dir.join("Makefile");
    if let Ok(text) = std::fs::read_to_string(&makefile)
        && text.contains(make_targets)
    {
        plan.generate("Makefile", text.replacen(make_targets, "", 1));
    }
    Ok(kept)
}

/// Directories under `dir` (and `dir`) that the removal left empty; best effort.
fn remove_empty_dirs(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                remove_empty_dirs(&entry.path());
            }
        }
    }
    let _ = std::fs::remove_dir(dir);
}

/// PROJECT with the new source, and the project's runtime taken from it: the copy is
/// written for `vendored`; for `registry` the copy is left for the user to delete, since
/// rsbuilder removes no files.
fn plan_runtime(project: &Project, source: RuntimeSource) -> Plan {
    let mut updated = project.clone();
    updated.runtime = source;
    let mut plan = Plan::new();
    runtime_crate::plan(&mut plan, source);
    plan.generate(project::FILE, updated.to_yaml());
    plan
}

/// PROJECT with the new mode, and the files of that mode when the project has webhooks.
fn plan_webhook_certs(tree: &dyn Tree, project: &Project, mode: WebhookCerts) -> Result<Plan> {
    let mut updated = project.clone();
    updated.webhook_certs = mode;
    let mut plan = Plan::new();
    if certs::any(&updated) {
        // A project scaffolded before the certificate's files were generated keeps them
        // under config/certmanager, wired into config/default by hand-editable lists.
        if tree
            .read(Path::new("config/certmanager/kustomization.yaml"))?
            .is_some()
        {
            bail!(
                "this project keeps its certificate in config/certmanager, the layout of an older \
                 rsbuilder; re-scaffold it with `rsbuilder alpha generate` first, then switch"
            );
        }
        certs::plan(&mut plan, &Renderer::new()?, &updated, tree)?;
    } else {
        certs::plan_metrics(&mut plan, &Renderer::new()?, &updated, tree)?;
    }
    plan.generate(project::FILE, updated.to_yaml());
    Ok(plan)
}

fn plan(root: &Path, tree: &dyn Tree, project: &Project, args: &StorageArgs) -> Result<Plan> {
    let versions = versions(project, args)?;
    let group = versions[0].group.clone();
    let api_group = format!("{group}.{}", project.domain);
    if !versions.iter().any(|r| r.version == *args.storage_version) {
        let known: Vec<&str> = versions.iter().map(|r| r.version.as_str()).collect();
        bail!(
            "{} ({api_group}) has no version {}; its versions are {} (add one with `rsbuilder create api`)",
            args.kind,
            args.storage_version,
            known.join(", ")
        );
    }

    check_hub(&versions, &api_group, &args.storage_version)?;

    let mut plan = Plan::new();
    for r in &versions {
        let path = r.path.clone().unwrap_or_default();
        let text = tree.read(Path::new(&path))?.with_context(|| {
            format!(
                "{path} is missing; PROJECT says it holds {} {}",
                r.version, r.kind
            )
        })?;
        let stored = r.version == *args.storage_version;
        let edited =
            source::set_storage(&text, &args.kind, stored).map_err(|e| in_file(&path, e))?;
        plan.generate(&path, edited);
    }
    let kind_snake = args.kind.to_snake_case();
    let group_path = format!("src/api/{}/mod.rs", group.replace(['-', '.'], "_"));
    let text = tree.read(Path::new(&group_path))?.with_context(|| {
        format!(
            "{group_path} is missing; it re-exports the storage version of {}",
            args.kind
        )
    })?;
    let moved = source::set_storage_alias(&text, &kind_snake, &args.storage_version)
        .map_err(|e| in_file(&group_path, e))?;
    plan.generate(&group_path, moved);

    let changes = plan.resolve(tree, false)?;
    let sources = sources_with(root, "src/api", &changes)?;
    let crds = crate::commands::generate::crds::project_crds(root, &sources, &args.kind)?;
    let file = format!("{api_group}_{}.yaml", versions[0].plural);
    let rendered = crate::crd::emit::render(&crds)?;
    let yaml = rendered
        .get(&file)
        .with_context(|| format!("the CRD generator found no {file} in src/api"))?;
    plan.generate(format!("config/crd/bases/{file}"), yaml.clone());
    Ok(plan)
}

/// A kind with a conversion webhook converts through its hub, which is its storage version
/// (DESIGN §6). Moving the storage version would mean moving the hub, and regenerating the
/// conversion code the user completed around another version: refuse, and say so.
fn check_hub(versions: &[&Resource], api_group: &str, storage: &str) -> Result<()> {
    let Some(hub) = versions.iter().find(|r| r.webhooks.conversion) else {
        return Ok(());
    };
    if hub.version == storage {
        return Ok(());
    }
    let group_mod = hub.group.replace(['-', '.'], "_");
    bail!(
        "{kind} ({api_group}) converts through the hub {hub_version}, which must stay its storage \
         version; moving it to {storage} would regenerate the conversion code you completed in \
         src/api/{group_mod}/*/{kind_snake}_conversion.rs, which rsbuilder does not do",
        kind = hub.kind,
        hub_version = hub.version,
        kind_snake = hub.kind.to_snake_case(),
    )
}

/// Every version of the kind named by `args`, from PROJECT.
fn versions<'p>(project: &'p Project, args: &StorageArgs) -> Result<Vec<&'p Resource>> {
    let all: Vec<&Resource> = project
        .resources
        .iter()
        .filter(|r| r.kind == *args.kind && r.is_own())
        .filter(|r| args.group.as_ref().is_none_or(|g| **g == *r.group))
        .collect();
    let mut groups: Vec<&str> = all.iter().map(|r| r.group.as_str()).collect();
    groups.sort_unstable();
    groups.dedup();
    match groups.as_slice() {
        [] => bail!(
            "this project has no kind {}{}; create it with `rsbuilder create api`",
            args.kind,
            args.group
                .as_ref()
                .map(|g| format!(" in the group {g}"))
                .unwrap_or_default()
        ),
        [_] => Ok(all),
        many => bail!(
            "the kind {} exists in the groups {}; pass --group to choose one",
            args.kind,
            many.join(", ")
        ),
    }
}
