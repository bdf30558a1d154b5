//! `create webhook`'s arguments, turned at the door into one request: valid names, at
//! least one webhook asked for, and the kind version of PROJECT they are for.

use anyhow::{Result, anyhow, bail};
use clap::Args;

use crate::names::{Group, Kind, Version};
use crate::project::{Project, Resource};

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

/// The webhooks asked for one version of a kind of this project.
#[derive(Debug)]
pub struct WebhookRequest {
    pub group: Group,
    pub version: Version,
    pub kind: Kind,
    pub defaulting: bool,
    pub validation: bool,
    pub conversion: bool,
    pub spokes: Vec<Version>,
    pub force: bool,
    /// The kind version's index in PROJECT's resources.
    pub resource: usize,
}

impl WebhookRequest {
    /// The request `args` make of `project`, or the first rule they break.
    pub fn new(args: WebhookArgs, project: &Project) -> Result<Self> {
        let version = Version::parse(&args.version)?;
        let kind = Kind::parse(&args.kind)?;
        let group = Group::parse(&args.group)?;
        let spokes = args
            .spoke
            .iter()
            .map(|spoke| Version::parse(spoke).map_err(|e| anyhow!("--spoke: {e}")))
            .collect::<Result<Vec<_>>>()?;
        if !args.defaulting && !args.programmatic_validation && !args.conversion {
            bail!(
                "nothing to create: pass --defaulting, --programmatic-validation, or --conversion --spoke <versions>"
            );
        }
        let resource = find_resource(project, &group, &version, &kind)?;
        Ok(Self {
            group,
            version,
            kind,
            defaulting: args.defaulting,
            validation: args.programmatic_validation,
            conversion: args.conversion,
            spokes,
            force: args.force,
            resource,
        })
    }
}

/// The index in PROJECT of the kind version the webhooks are for, or an error that says
/// what exists instead.
fn find_resource(project: &Project, group: &str, version: &str, kind: &str) -> Result<usize> {
    let api_group = format!("{group}.{}", project.domain);
    let same_kind: Vec<(usize, &Resource)> = project
        .resources
        .iter()
        .enumerate()
        .filter(|(_, r)| r.group == group && r.kind == kind)
        .collect();
    if let Some((i, r)) = same_kind.iter().find(|(_, r)| r.version == version) {
        if r.path.is_none() {
            bail!(
                "{kind} ({group}) is a built-in kind; webhooks are scaffolded for the kinds of this project"
            );
        }
        if r.external {
            bail!(
                "{kind} ({group}) is an external kind (create api --from-crd); webhooks are scaffolded for the kinds of this project"
            );
        }
        return Ok(*i);
    }
    if same_kind.is_empty() {
        bail!(
            "{api_group} has no kind {kind}; create it first with `rsbuilder create api --group {group} --version {version} --kind {kind}`"
        );
    }
    let versions: Vec<&str> = same_kind.iter().map(|(_, r)| r.version.as_str()).collect();
    bail!(
        "{kind} ({api_group}) has no version {version}; its versions are {}",
        versions.join(", ")
    )
}
