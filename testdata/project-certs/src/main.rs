// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The manager: serves metrics and health probes, elects a leader, and runs the
//! controllers until SIGTERM or SIGINT, or until one of them fails.

use std::process::ExitCode;

use clap::Parser;
use rsbuilder_runtime::manager::{self, Manager, ManagerArgs};
use rsbuilder_runtime::telemetry;

use project_certs::LEADER_ELECTION_LEASE;
use project_certs::controllers::{self, Context};

#[derive(Debug, Parser)]
#[command(version, about = "The project-certs controller manager")]
struct Args {
    #[command(flatten)]
    manager: ManagerArgs,
    #[command(flatten)]
    webhooks: rsbuilder_runtime::webhook::WebhookArgs,
    // +rsbuilder:scaffold:manager-flags
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    telemetry::init(args.manager.log_format);
    manager::exit_code(run(args).await)
}

async fn run(args: Args) -> anyhow::Result<()> {
    let mut manager = Manager::start(args.manager.clone(), LEADER_ELECTION_LEASE).await?;
    // The webhooks of `src/webhooks`, and their certificate with `--webhook-certs self`.
    rsbuilder_runtime::webhook::start(
        &mut manager,
        &args.webhooks,
        project_certs::webhooks::routes(),
        env!("CARGO_PKG_NAME"),
    );
    // +rsbuilder:scaffold:manager-servers

    let ctx = Context::new(manager.client(), manager.metrics(), manager.namespace());
    for (name, run) in controllers::all() {
        let ctx = ctx.clone();
        manager.add_controller(name, move |synced, shutdown| run(ctx, synced, shutdown));
    }
    manager.run().await
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::apps::v1::Deployment;
    use rsbuilder_runtime::telemetry::LogFormat;

    use super::*;

    /// The arguments `config/manager/manager.yaml` gives the manager container.
    fn deployed_args() -> Vec<String> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/config/manager/manager.yaml");
        let text = std::fs::read_to_string(path).expect("config/manager/manager.yaml");
        let documents: Vec<serde_json::Value> =
            serde_saphyr::from_multiple(&text).expect("YAML documents");
        let deployment = documents
            .into_iter()
            .find(|document| document["kind"] == "Deployment")
            .expect("a Deployment");
        let deployment: Deployment = serde_json::from_value(deployment).expect("a Deployment");
        let spec = deployment.spec.template.spec;
        let manager = spec
            .into_iter()
            .flat_map(|spec| spec.containers)
            .find(|container| container.name == "manager")
            .expect("a container named manager");
        manager.args.unwrap_or_default()
    }

    #[test]
    fn the_deployment_runs_the_manager_with_flags_it_accepts_and_json_logs() {
        let args = deployed_args();
        let parsed = Args::try_parse_from(std::iter::once("manager".to_string()).chain(args))
            .unwrap_or_else(|error| panic!("config/manager/manager.yaml: {error}"));
        // In the cluster, logs are read by machines: the telemetry module's JSON format.
        assert!(matches!(parsed.manager.log_format, LogFormat::Json));
        assert!(parsed.manager.leader_elect);
    }
}
