//! `rsbuilder create webhook`: defaulting and validating admission webhooks for one version
//! of a kind, and hub-and-spoke conversion between its versions, served by one HTTPS
//! server in the manager and wired into the kustomize config.
//!
//! The arguments become a valid request (`request`) before anything is planned; the plan
//! is then a list of named steps over it: the server (`server`), the admission webhooks
//! (`admission`), the conversion (`conversion`), the manifests, the certificate's config
//! and PROJECT. Everything is planned in memory. The first webhook of a project brings the
//! server, its Cargo dependencies and the certificate's config (`webhook::certs`); every
//! later one extends the files it shares with others through scaffold markers, so adding
//! a second webhook type to a kind never needs `--force` and never rewrites what the user
//! wrote.

mod admission;
mod context;
mod conversion;
mod layout;
mod request;
mod server;

use std::path::Path;

use anyhow::Result;

use super::{Planned, sources_with};
use crate::context::Global;
use crate::names;
use crate::project::{self, Project};
use crate::scaffold::{Renderer, Tree, kind_clash};
use crate::webhook::{self as code, certs, manifests};
use context::{Admission, Ctx, Env};
pub use request::{WebhookArgs, WebhookRequest};

pub fn run(global: &Global, args: WebhookArgs) -> Result<()> {
    let project = Project::load(&global.dir)?;
    let request = WebhookRequest::new(args, &project)?;
    let tree = crate::scaffold::DiskTree::new(&global.dir);
    let renderer = Renderer::new()?;
    let planned = plan(&global.dir, &tree, &renderer, &project, &request)?;
    planned.write(global, &project, request.force)
}

/// The whole plan of `create webhook`; reads the project and writes nothing.
pub fn plan(
    root: &Path,
    tree: &dyn Tree,
    renderer: &Renderer,
    project: &Project,
    request: &WebhookRequest,
) -> Result<Planned> {
    let resource = &project.resources[request.resource];
    let mut ctx = Ctx::new(tree, project, resource)?;
    let asked = admission::asked(request, resource, &ctx)?;
    let sources = code::conversion::Sources::parse(&sources_with(root, "src/api", &[])?)?;
    let spokes = if request.conversion {
        conversion::spokes(project, resource, &sources, request, &ctx)?
    } else {
        Vec::new()
    };
    let updated = record(project, request, &spokes);

    let env = Env {
        tree,
        renderer,
        sources: &sources,
        force: request.force,
    };
    let mut plan = server::plan(tree, renderer, &ctx)?;
    if !asked.is_empty() {
        plan.extend(admission::plan(&env, &mut ctx, resource, &asked)?);
    }
    if !spokes.is_empty() {
        let recorded = &updated.resources[request.resource].webhooks.spoke;
        plan.extend(conversion::plan(&env, &ctx, &spokes, recorded)?);
    }
    plan.generate(manifests::FILE, manifests::render(&updated)?);
    certs::plan(&mut plan, renderer, &updated, tree)?;
    plan.generate(project::FILE, updated.to_yaml());
    let kind = kind_clash::Kind {
        name: &request.kind,
        module: &ctx.kind_snake,
        crate_name: &ctx.crate_name,
    };
    kind_clash::check(&plan.resolve(tree, request.force)?, &kind)?;
    let next = next_steps(project, &ctx, &asked, &spokes);
    Ok(Planned { plan, next })
}

/// PROJECT with the webhooks of the kind version recorded.
fn record(project: &Project, request: &WebhookRequest, spokes: &[String]) -> Project {
    let mut updated = project.clone();
    let r = &mut updated.resources[request.resource];
    r.webhooks.defaulting |= request.defaulting;
    r.webhooks.validation |= request.validation;
    if request.conversion {
        r.webhooks.conversion = true;
        for spoke in spokes {
            if !r.webhooks.spoke.contains(spoke) {
                r.webhooks.spoke.push(spoke.clone());
            }
        }
        r.webhooks.spoke.sort_by_key(|v| names::version_priority(v));
    }
    updated
}

/// What to tell the user once the plan is written.
fn next_steps(project: &Project, ctx: &Ctx, asked: &[Admission], spokes: &[String]) -> String {
    let mut next = String::from("\nNext:");
    let module = ctx.webhooks_module();
    if asked.contains(&Admission::Defaulting) {
        next.push_str(&format!(
            "\n  write the defaults of a {} in `default` in src/webhooks/{module}.rs",
            ctx.kind
        ));
    }
    if asked.contains(&Admission::Validation) {
        next.push_str(&format!(
            "\n  write its rules in `validate_create/update/delete` in src/webhooks/{module}.rs"
        ));
    }
    for spoke in spokes {
        next.push_str(&format!(
            "\n  complete the TODO(rsbuilder) lines of src/api/{}/{spoke}/{}_conversion.rs",
            ctx.group_mod, ctx.kind_snake
        ));
    }
    next.push_str(&format!(
        "\nthen run\n  make manifests test\n{}; `make run` runs without them (ENABLE_WEBHOOKS=false).",
        certs::next_steps(project.webhook_certs)
    ));
    next
}
