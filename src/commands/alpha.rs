//! `rsbuilder alpha generate`: re-scaffold a project from its PROJECT file into a fresh
//! tree with the current rsbuilder, then carry the user's own source files across.
//!
//! The replay runs the very commands a user would (init, create api, edit, create
//! webhook), so the new tree has the current layout; the user's types, controllers and
//! webhooks then replace the fresh skeletons, and the generated manifests are rebuilt
//! from them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand, ValueEnum};

use super::create::api::ApiArgs;
use super::create::source::kube_info;
use super::create::webhook::WebhookArgs;
use super::edit::EditArgs;
use super::generate::{GenerateCommand, ManifestsArgs};
use super::init::{InitArgs, License};
use crate::context::{FetchDeps, Global};
use crate::crd::diagnostics::in_file;
use crate::errors::During;
use crate::lockfile;
use crate::project::{Project, Resource, RuntimeSource, WebhookCerts};
use crate::scaffold::Output;

#[derive(Debug, Subcommand)]
pub enum AlphaCommand {
    /// Re-scaffold a project from its PROJECT file, keeping the user's source files
    #[command(
        after_help = "Example:\n  rsbuilder alpha generate --input-dir . --output-dir ../guestbook-regenerated"
    )]
    Generate(GenerateArgs),
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// The project to replay (default: the current directory)
    #[arg(long, value_name = "DIR")]
    pub input_dir: Option<PathBuf>,
    /// Where the new tree goes; must not exist or be empty (default: <input-dir>-regenerated)
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    #[command(flatten)]
    pub fetch_deps: FetchDeps,
}

pub fn run(global: &Global, command: AlphaCommand) -> Result<()> {
    match command {
        AlphaCommand::Generate(args) => generate(global, args),
    }
}

/// Directories whose `.rs` files are the user's (module files excepted: rsbuilder
/// registers code in those, so the fresh ones are right for the new layout).
const USER_SOURCE_DIRS: &[&str] = &["src/api", "src/controllers", "src/webhooks", "tests"];

fn generate(global: &Global, args: GenerateArgs) -> Result<()> {
    let input = global
        .dir
        .join(args.input_dir.unwrap_or_else(|| PathBuf::from(".")));
    let input = input
        .canonicalize()
        .with_context(|| format!("--input-dir {}: no such directory", input.display()))?;
    let project = Project::load(&input)?;
    let output = match args.output_dir {
        Some(dir) => global.dir.join(dir),
        None => input.with_file_name(format!(
            "{}-regenerated",
            input
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        )),
    };
    if output.exists() && std::fs::read_dir(&output)?.next().is_some() {
        bail!(
            "--output-dir {} is not empty; name a new or empty directory",
            output.display()
        );
    }
    let commands = replay_commands(&input, &project)?;
    if global.dry_run {
        for step in &commands {
            global.out.say(&format!("would run: rsbuilder {step}"));
        }
        global.out.say(&format!(
            "would copy the user's source files and Cargo.lock from {} into {}",
            input.display(),
            output.display()
        ));
        if project.helm {
            global.out.say(&format!(
                "would copy the chart's {dir}/Chart.yaml and {dir}/{extras}/ from {}",
                input.display(),
                dir = crate::helm::DIR,
                extras = crate::helm::EXTRAS
            ));
        }
        if args.fetch_deps.enabled {
            global.out.say("would create or update Cargo.lock");
        }
        return Ok(());
    }
    let existed = output.exists();
    std::fs::create_dir_all(&output)
        .with_context(|| format!("cannot create {}", output.display()))?;
    let replayed_commands = commands.len();
    let replayed = replay(global, &input, &output, commands, project.helm);
    if replayed.is_err() {
        // Leave no half-built tree behind; an existing (empty) directory stays as it was.
        let _ = std::fs::remove_dir_all(&output);
        if existed {
            let _ = std::fs::create_dir(&output);
        }
    }
    let copied = replayed?;
    global.out.say(&format!(
        "re-scaffolded {} into {} ({} commands replayed, {} source files carried over)",
        input.display(),
        output.display(),
        replayed_commands,
        copied
    ));
    // Once the tree is complete: the replayed `create` commands add dependencies.
    if args.fetch_deps.enabled {
        lockfile::write(global, &output);
    }
    Ok(())
}

/// Runs the commands in `output`, quietly, then carries the user's files over (with
/// `helm`, the chart's too) and regenerates the manifests from them. Returns how many
/// files were carried over.
fn replay(
    global: &Global,
    input: &Path,
    output: &Path,
    commands: Vec<Step>,
    helm: bool,
) -> Result<usize> {
    let quiet = Global {
        dir: output.to_path_buf(),
        dry_run: false,
        out: Output {
            quiet: true,
            ..global.out
        },
    };
    for step in commands {
        let line = step.to_string();
        step.run(&quiet)
            .during(|| format!("replaying `rsbuilder {line}`"))?;
    }
    let mut copied = copy_user_sources(input, output)?;
    if helm {
        copied += copy_chart_files(input, output)?;
    }
    // The versions the user has built and committed: the new tree starts from them.
    let lock = input.join("Cargo.lock");
    if lock.is_file() {
        std::fs::copy(&lock, output.join("Cargo.lock")).context("cannot copy Cargo.lock")?;
    }
    let manifests = GenerateCommand::Manifests(ManifestsArgs { check: false });
    super::generate::run(&quiet, manifests)
        .during(|| "regenerating the manifests from the carried-over sources".into())?;
    Ok(copied)
}

/// One command of the replay, as the typed arguments the command's `run` takes.
enum Step {
    Init(InitArgs),
    CreateApi(ApiArgs),
    Edit(EditArgs),
    CreateWebhook(WebhookArgs),
}

impl Step {
    fn run(self, global: &Global) -> Result<()> {
        match self {
            Step::Init(args) => super::init::run(global, args),
            Step::CreateApi(args) => super::create::api::run(global, args),
            Step::Edit(args) => super::edit::run(global, args),
            Step::CreateWebhook(args) => super::create::webhook::run(global, args),
        }
    }
}

/// The command line a user would type for the step, for `--dry-run` and errors.
impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (command, line) = match self {
            Step::Init(a) => ("init", init_line(a)),
            Step::CreateApi(a) => ("create api", create_api_line(a)),
            Step::Edit(a) => ("edit", edit_line(a)),
            Step::CreateWebhook(a) => ("create webhook", create_webhook_line(a)),
        };
        write!(f, "{command} {}", line.0.join(" "))
    }
}

fn init_line(a: &InitArgs) -> Line {
    let mut line = Line::default();
    line.flag("domain", &a.domain);
    line.flag(
        "project-name",
        a.project_name.as_deref().unwrap_or_default(),
    );
    line.flag("license", &value_name(a.license));
    line.arg("--fetch-deps=false");
    if !a.owner.is_empty() {
        line.flag("owner", &a.owner);
    }
    if a.namespaced {
        line.arg("--namespaced");
    }
    if a.webhook_certs != WebhookCerts::default() {
        line.flag("webhook-certs", a.webhook_certs.as_str());
    }
    if a.runtime != RuntimeSource::default() {
        line.flag("runtime", a.runtime.as_str());
    }
    line
}

fn create_api_line(a: &ApiArgs) -> Line {
    let mut line = Line::default();
    if let Some(crd) = &a.from_crd {
        line.flag("from-crd", &crd.to_string_lossy());
        line.flag("kind", a.kind.as_deref().unwrap_or_default());
        line.flag("version", a.version.as_deref().unwrap_or_default());
    } else {
        line.flag("group", a.group.as_deref().unwrap_or_default());
        line.flag("version", a.version.as_deref().unwrap_or_default());
        line.flag("kind", a.kind.as_deref().unwrap_or_default());
        match &a.plural {
            Some(plural) if a.resource => {
                line.flag("plural", plural);
                if a.cluster_scoped {
                    line.arg("--cluster-scoped");
                }
            }
            _ => line.arg("--resource=false"),
        }
    }
    line.arg(format!("--controller={}", a.controller.unwrap_or_default()));
    if a.finalizer {
        line.arg("--finalizer");
    }
    line
}

fn edit_line(a: &EditArgs) -> Line {
    let mut line = Line::default();
    if a.helm == Some(true) {
        line.arg("--helm");
    } else {
        line.flag(
            "storage-version",
            a.storage_version.as_deref().unwrap_or_default(),
        );
        line.flag("kind", a.kind.as_deref().unwrap_or_default());
        line.flag("group", a.group.as_deref().unwrap_or_default());
    }
    line
}

fn create_webhook_line(a: &WebhookArgs) -> Line {
    let mut line = Line::default();
    line.flag("group", &a.group);
    line.flag("version", &a.version);
    line.flag("kind", &a.kind);
    if a.conversion {
        line.arg("--conversion");
        line.flag("spoke", &a.spoke.join(","));
    }
    if a.defaulting {
        line.arg("--defaulting");
    }
    if a.programmatic_validation {
        line.arg("--programmatic-validation");
    }
    line
}

/// Arguments as a user types them.
#[derive(Default)]
struct Line(Vec<String>);

impl Line {
    fn flag(&mut self, name: &str, value: &str) {
        self.0.extend([format!("--{name}"), value.to_string()]);
    }
    fn arg(&mut self, arg: impl Into<String>) {
        self.0.push(arg.into());
    }
}

/// How the command line spells a value of a `ValueEnum`.
fn value_name(value: impl ValueEnum) -> String {
    value
        .to_possible_value()
        .map(|v| v.get_name().to_string())
        .unwrap_or_default()
}

/// The commands that produce the project PROJECT describes, in order.
fn replay_commands(input: &Path, project: &Project) -> Result<Vec<Step>> {
    let (owner, license) = boilerplate(input);
    // Cargo.lock comes last, from the complete tree (see `generate`).
    let mut commands = vec![Step::Init(InitArgs {
        domain: project.domain.clone(),
        project_name: Some(project.project_name.clone()),
        owner,
        license,
        namespaced: project.namespaced,
        webhook_certs: project.webhook_certs,
        runtime: project.runtime,
        fetch_deps: FetchDeps { enabled: false },
    })];
    for r in &project.resources {
        commands.push(Step::CreateApi(create_api(input, r)));
    }
    for (group, kind, version) in storage_versions(input, project)? {
        commands.push(Step::Edit(EditArgs {
            storage_version: Some(version),
            kind: Some(kind),
            group: Some(group),
            ..EditArgs::default()
        }));
    }
    // Conversion first, then admission: one fixed order, so registration lines come out
    // the same on every replay.
    for r in project.resources.iter().filter(|r| r.webhooks.conversion) {
        commands.push(Step::CreateWebhook(WebhookArgs {
            conversion: true,
            spoke: r.webhooks.spoke.clone(),
            ..create_webhook(r)
        }));
    }
    for r in &project.resources {
        if r.webhooks.defaulting || r.webhooks.validation {
            commands.push(Step::CreateWebhook(WebhookArgs {
                defaulting: r.webhooks.defaulting,
                programmatic_validation: r.webhooks.validation,
                ..create_webhook(r)
            }));
        }
    }
    // Last, as a user adds it: the chart is made from config/ as the commands above leave it.
    if project.helm {
        commands.push(Step::Edit(EditArgs {
            helm: Some(true),
            ..EditArgs::default()
        }));
    }
    Ok(commands)
}

/// `create webhook --group G --version V --kind K` for one resource of PROJECT, no webhook
/// chosen yet.
fn create_webhook(r: &Resource) -> WebhookArgs {
    WebhookArgs {
        group: r.group.clone(),
        version: r.version.clone(),
        kind: r.kind.clone(),
        defaulting: false,
        programmatic_validation: false,
        conversion: false,
        spoke: Vec::new(),
        force: false,
    }
}

fn create_api(input: &Path, r: &Resource) -> ApiArgs {
    let mut args = ApiArgs {
        group: Some(r.group.clone()),
        version: Some(r.version.clone()),
        kind: Some(r.kind.clone()),
        plural: None,
        cluster_scoped: false,
        resource: r.path.is_some(),
        controller: Some(r.controller),
        finalizer: r.finalizer,
        force: false,
        from_crd: None,
    };
    if r.external {
        // The kind's CRD, as the project keeps it, replayed from where it is kept.
        args.group = None;
        args.resource = true;
        args.finalizer = false;
        args.from_crd = Some(input.join(r.crd.as_deref().unwrap_or_default()));
    } else if r.path.is_some() {
        args.plural = Some(r.plural.clone());
        args.cluster_scoped = !r.namespaced;
    }
    args
}

/// The storage version of every kind with several versions, read from the user's types:
/// replaying `create api` keeps the first version as storage, so any other needs `edit`.
fn storage_versions(input: &Path, project: &Project) -> Result<Vec<(String, String, String)>> {
    let mut seen = BTreeSet::new();
    let mut edits = Vec::new();
    for r in project.resources.iter().filter(|r| r.is_own()) {
        let Some(path) = &r.path else { continue };
        let text = std::fs::read_to_string(input.join(path))
            .map_err(|e| anyhow::anyhow!("cannot read {path}: {e}"))?;
        let info = kube_info(&text, &r.kind).map_err(|e| in_file(path, e))?;
        let first = seen.insert((r.group.clone(), r.kind.clone()));
        if info.is_some_and(|i| i.storage) && !first {
            edits.push((r.group.clone(), r.kind.clone(), r.version.clone()));
        }
    }
    Ok(edits)
}

/// Owner and license from `hack/boilerplate.rs.txt`, which `init` wrote from them.
fn boilerplate(input: &Path) -> (String, License) {
    let text = std::fs::read_to_string(input.join("hack/boilerplate.rs.txt")).unwrap_or_default();
    let owner = text
        .lines()
        .find_map(|l| l.strip_prefix("// Copyright "))
        .unwrap_or_default();
    let license = match text
        .lines()
        .find_map(|l| l.strip_prefix("// SPDX-License-Identifier: "))
    {
        Some("Apache-2.0") => License::Apache2,
        Some("MIT") => License::Mit,
        _ => License::None,
    };
    (owner.to_string(), license)
}

/// Copies every `.rs` file of [`USER_SOURCE_DIRS`] that the fresh tree also has (so it is
/// registered there) over it. Returns how many; files only the old tree has are reported.
///
/// A project from before the runtime crate (its Cargo.toml does not depend on it) keeps
/// only its types: its controllers, webhooks and tests call helpers that moved into
/// rsbuilder-runtime, so the fresh skeletons stay and the note names the files whose logic
/// the user ports into them.
fn copy_user_sources(input: &Path, output: &Path) -> Result<usize> {
    let before_runtime = !depends_on_runtime(input);
    let mut to_port = Vec::new();
    let mut copied = 0;
    for dir in USER_SOURCE_DIRS {
        for rel in rust_files(&input.join(dir))? {
            let from = input.join(dir).join(&rel);
            let to = output.join(dir).join(&rel);
            if rel.file_name().is_some_and(|n| n == "mod.rs") {
                continue;
            }
            if before_runtime && *dir != "src/api" {
                to_port.push(format!("{dir}/{}", rel.display()));
                continue;
            }
            if !to.exists() {
                crate::errln!(
                    "warning: {}/{} has no place in the new layout; copy it by hand and register its module",
                    dir,
                    rel.display()
                );
                continue;
            }
            std::fs::copy(&from, &to).with_context(|| format!("cannot copy {}", from.display()))?;
            copied += 1;
        }
    }
    if !to_port.is_empty() {
        to_port.sort();
        crate::errln!(
            "note: {} predates rsbuilder-runtime: the new layout keeps fresh controllers, webhooks \
             and tests, and the shared code of the old ones is in rsbuilder-runtime/; port your \
             own logic from these files (rsbuilder's README: Moving a project to \
             rsbuilder-runtime):\n  {}",
            input.display(),
            to_port.join("\n  ")
        );
    }
    Ok(copied)
}

/// Copies the chart's files that are the user's (`Chart.yaml`, everything under
/// `templates/extras/`) over the fresh chart. Returns how many.
fn copy_chart_files(input: &Path, output: &Path) -> Result<usize> {
    let chart = Path::new(crate::helm::DIR);
    let mut files = vec![chart.join("Chart.yaml")];
    let mut dirs = vec![chart.join(crate::helm::EXTRAS)];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(input.join(&dir)) else {
            continue;
        };
        for entry in entries {
            let entry = entry?;
            let rel = dir.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                dirs.push(rel);
            } else {
                files.push(rel);
            }
        }
    }
    let mut copied = 0;
    for rel in files {
        let from = input.join(&rel);
        if !from.is_file() {
            continue;
        }
        let to = output.join(&rel);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::copy(&from, &to).with_context(|| format!("cannot copy {}", from.display()))?;
        copied += 1;
    }
    Ok(copied)
}

/// Whether the project's Cargo.toml depends on rsbuilder-runtime, from the copy or the
/// registry; an unreadable manifest counts as the current layout (the replay reports it).
fn depends_on_runtime(input: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(input.join("Cargo.toml")) else {
        return true;
    };
    let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
        return true;
    };
    doc.get("dependencies")
        .and_then(|deps| deps.as_table_like())
        .is_some_and(|deps| deps.contains_key(crate::runtime_crate::CRATE))
}

fn rust_files(root: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path.strip_prefix(root).expect("below root").to_path_buf());
            }
        }
    }
    files.sort();
    Ok(files)
}
