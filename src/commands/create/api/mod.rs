//! `rsbuilder create api`: a kind's types (a new kind, or a new version of one), its CRD,
//! samples and RBAC roles, and a controller with mock-API tests; or, with
//! `--resource=false`, only a controller, for a kind of this project or a built-in one;
//! or, with `--from-crd`, the types of a kind the project uses but does not own.
//!
//! The arguments become a valid request (`request`) before anything is planned; each way
//! of planning (`resource`, `controller`, `external`) is a list of named steps over it.
//! Everything is planned in memory: the CRD is generated from the sources as the plan will
//! leave them, `role.yaml` from the RBAC markers likewise, and then one plan is written.

mod context;
mod controller;
mod external;
mod request;
mod resource;
mod sample;

use std::path::Path;

use anyhow::Result;
use heck::ToSnakeCase;

use super::Planned;
use crate::context::Global;
use crate::project::Project;
use crate::scaffold::{DiskTree, Renderer, Tree, kind_clash};
use context::Ctx;
pub use request::{ApiArgs, ApiRequest};

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
        None => {
            let request = ApiRequest::new(args, &project.domain)?;
            plan(&global.dir, &tree, &renderer, &project, &request)?
        }
    };
    planned.write(global, &project, force)
}

/// The whole plan of `create api` for a kind of this project or a controller alone.
/// Reads the project (through `tree`, and `root` for directory listings) and writes
/// nothing.
pub fn plan(
    root: &Path,
    tree: &dyn Tree,
    renderer: &Renderer,
    project: &Project,
    request: &ApiRequest,
) -> Result<Planned> {
    let ctx = Ctx::new(tree, project, request)?;
    let planned = if request.resource {
        resource::plan(root, tree, renderer, project, request, ctx)
    } else {
        controller::plan_alone(root, tree, renderer, project, request, ctx)
    }?;
    let kind = kind_clash::Kind {
        name: &request.kind,
        module: &request.kind_snake,
        crate_name: &project.project_name.to_snake_case(),
    };
    kind_clash::check(&planned.plan.resolve(tree, request.force)?, &kind)?;
    Ok(planned)
}
