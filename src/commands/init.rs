//! `rsbuilder init`: a new operator project with a manager and no API yet.

use std::path::Path;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use heck::ToSnakeCase;
use serde::Serialize;

use crate::commands::{version, write_plan};
use crate::context::{FetchDeps, Global};
use crate::lockfile;
use crate::names;
use crate::project::{self, Project, RuntimeSource, WebhookCerts};
use crate::runtime_crate;
use crate::scaffold::{Plan, Renderer};
use crate::webhook::certs;

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Domain of the API groups, e.g. example.com (groups become <group>.<domain>)
    #[arg(long)]
    pub domain: String,
    /// Project name, a DNS-1123 label (default: the directory's name)
    #[arg(long)]
    pub project_name: Option<String>,
    /// Copyright owner written into the license header
    #[arg(long, default_value = "")]
    pub owner: String,
    /// License header of generated source files
    #[arg(long, value_enum, default_value_t = License::Apache2)]
    pub license: License,
    /// Watch only the manager's own namespace, with Roles instead of ClusterRoles
    #[arg(long)]
    pub namespaced: bool,
    /// Who issues the webhook server's certificate: cert-manager, or the manager itself
    #[arg(long, value_enum, default_value_t = WebhookCerts::CertManager)]
    pub webhook_certs: WebhookCerts,
    /// Where the project takes rsbuilder-runtime from: a copy rsbuilder keeps in the
    /// project, or the registry once the crate is published there
    #[arg(long, value_enum, default_value_t = RuntimeSource::Vendored)]
    pub runtime: RuntimeSource,
    #[command(flatten)]
    pub fetch_deps: FetchDeps,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum License {
    Apache2,
    Mit,
    None,
}

impl License {
    fn spdx(self) -> &'static str {
        match self {
            License::Apache2 => "Apache-2.0",
            License::Mit => "MIT",
            License::None => "",
        }
    }
}

/// Files whose presence means the directory already holds a project.
const OCCUPIED_BY: &[&str] = &[project::FILE, "Cargo.toml", "src"];

/// Everything the `init` templates may refer to.
#[derive(Debug, Serialize)]
pub struct ProjectContext {
    pub project_name: String,
    pub crate_name: String,
    pub domain: String,
    pub owner: String,
    pub namespaced: bool,
    pub license_spdx: &'static str,
    /// License header of Rust files (`//` comments, ends with a blank line), or empty.
    pub boilerplate: String,
    pub cli_version: &'static str,
    pub kube_version: &'static str,
    pub k8s_openapi_version: &'static str,
    pub kubernetes_api: &'static str,
    pub schemars_version: &'static str,
}

pub fn run(global: &Global, args: InitArgs) -> Result<()> {
    let dir = &global.dir;
    for name in OCCUPIED_BY {
        if dir.join(name).exists() {
            bail!(
                "{} already contains {name}; run `rsbuilder init` in an empty directory",
                dir.display()
            );
        }
    }
    let project_name = match args.project_name {
        Some(name) => name,
        None => default_project_name(dir)?,
    };
    names::label("project name", &project_name)?;
    names::subdomain("domain", &args.domain)?;
    names::free_text("owner", &args.owner)?;

    let ctx = context(
        &project_name,
        &args.domain,
        &args.owner,
        args.license,
        args.namespaced,
    );
    let project = Project::new(
        &args.domain,
        &project_name,
        args.namespaced,
        args.webhook_certs,
        args.runtime,
    );
    let renderer = Renderer::new()?;
    // The crate's name against the crates its Cargo.toml depends on, before planning.
    let cargo_toml = renderer.render("init/Cargo.toml.hbs", &ctx)?;
    names::crate_name(
        &ctx.project_name,
        &ctx.crate_name,
        &dependencies(&cargo_toml)?,
    )?;
    let plan = plan(&renderer, &ctx, &project)?;
    write_plan(global, &plan, false)?;
    if args.fetch_deps.enabled {
        lockfile::write(global, dir);
    }
    if !global.dry_run {
        global
            .out
            .say("\nNext: add an API with\n  rsbuilder create api --group <group> --version v1alpha1 --kind <Kind>");
    }
    Ok(())
}

/// The plan of `init`: every file under `templates/init`, plus PROJECT.
fn plan(renderer: &Renderer, ctx: &ProjectContext, project: &Project) -> Result<Plan> {
    let mut plan = Plan::new();
    for (path, text) in renderer.render_dir("init", ctx)? {
        plan.scaffold(path, text);
    }
    for (path, text) in certs::metrics_files(renderer, project)? {
        plan.generate(path, text);
    }
    runtime_crate::plan(&mut plan, project.runtime);
    plan.generate(project::FILE, project.to_yaml());
    Ok(plan)
}

/// The crates the generated `Cargo.toml` depends on, in any table: the project's own crate
/// may not take one of their names.
fn dependencies(cargo_toml: &str) -> Result<Vec<String>> {
    let doc: toml_edit::DocumentMut = cargo_toml
        .parse()
        .context("the generated Cargo.toml does not parse")?;
    let tables = ["dependencies", "dev-dependencies", "build-dependencies"];
    Ok(tables
        .iter()
        .filter_map(|t| doc.get(t).and_then(|d| d.as_table_like()))
        .flat_map(|t| t.iter().map(|(name, _)| name.replace('-', "_")))
        .collect())
}

fn context(
    project_name: &str,
    domain: &str,
    owner: &str,
    license: License,
    namespaced: bool,
) -> ProjectContext {
    ProjectContext {
        project_name: project_name.into(),
        crate_name: project_name.to_snake_case(),
        domain: domain.into(),
        owner: owner.into(),
        namespaced,
        license_spdx: license.spdx(),
        boilerplate: boilerplate(owner, license),
        cli_version: env!("CARGO_PKG_VERSION"),
        kube_version: version::KUBE,
        k8s_openapi_version: version::K8S_OPENAPI,
        kubernetes_api: version::KUBERNETES_API,
        schemars_version: version::SCHEMARS,
    }
}

/// SPDX style headers: one line each for the owner and the license. No year, so that
/// re-scaffolding a project next year produces the same files.
fn boilerplate(owner: &str, license: License) -> String {
    let mut lines = Vec::new();
    if !owner.is_empty() {
        lines.push(format!("// Copyright {owner}"));
    }
    if !license.spdx().is_empty() {
        lines.push(format!("// SPDX-License-Identifier: {}", license.spdx()));
    }
    if lines.is_empty() {
        String::new()
    } else {
        format!("{}\n\n", lines.join("\n"))
    }
}

fn default_project_name(dir: &Path) -> Result<String> {
    let dir = dir
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", dir.display()))?;
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .context("the current directory has no name; pass --project-name")?;
    names::label("project name", &name).map_err(|e| {
        anyhow::anyhow!(
            "{e}; the directory's name is the default, pass --project-name to choose another"
        )
    })?;
    Ok(name)
}
