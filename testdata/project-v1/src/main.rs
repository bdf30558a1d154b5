// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The manager: serves metrics and health probes, elects a leader, and runs the
//! controllers until SIGTERM or SIGINT, or until one of them fails.

use std::process::ExitCode;

use clap::Parser;
use rsbuilder_runtime::manager::{self, Manager, ManagerArgs};
use rsbuilder_runtime::telemetry;

use project_v1::LEADER_ELECTION_LEASE;
use project_v1::controllers::{self, Context};

#[derive(Debug, Parser)]
#[command(version, about = "The project-v1 controller manager")]
struct Args {
    #[command(flatten)]
    manager: ManagerArgs,
    /// Address the webhook server listens on; `::` listens on IPv4 too
    #[arg(long, default_value = "::")]
    webhook_host: std::net::IpAddr,
    /// Port of the webhook server (HTTPS)
    #[arg(long, default_value_t = 9443)]
    webhook_port: u16,
    /// Directory of the webhook server's certificate, `tls.crt` and `tls.key`
    #[arg(long, default_value = "/tmp/k8s-webhook-server/serving-certs")]
    webhook_cert_dir: std::path::PathBuf,
    /// Who issues the webhook server's certificate: `mounted` reads it from --webhook-cert-dir
    /// (where cert-manager's Secret is mounted); `self` issues it into a Secret, writes it
    /// there and injects its CA into the webhook configurations and CRDs below
    #[arg(long, env = "WEBHOOK_CERTS", value_enum, default_value_t = project_v1::webhooks::certs::Mode::Mounted)]
    webhook_certs: project_v1::webhooks::certs::Mode,
    /// The webhook Service, whose DNS names the certificate holds (`--webhook-certs self`)
    #[arg(long, env = "WEBHOOK_SERVICE_NAME", default_value = "webhook-service")]
    webhook_service_name: String,
    /// The namespace of the webhook Service and of the certificate's Secret
    #[arg(long, env = "WEBHOOK_SERVICE_NAMESPACE", default_value = "default")]
    webhook_service_namespace: String,
    /// The metrics Service, in the same namespace, whose DNS names the metrics certificate
    /// holds when the manager issues it (`--webhook-certs self` with --metrics-cert-dir)
    #[arg(
        long,
        env = "METRICS_SERVICE_NAME",
        default_value = "controller-manager-metrics-service"
    )]
    metrics_service_name: String,
    /// The MutatingWebhookConfiguration that gets the CA bundle (`--webhook-certs self`)
    #[arg(long, env = "MUTATING_WEBHOOK_CONFIGURATION")]
    mutating_webhook_configuration: Option<String>,
    /// The ValidatingWebhookConfiguration that gets the CA bundle (`--webhook-certs self`)
    #[arg(long, env = "VALIDATING_WEBHOOK_CONFIGURATION")]
    validating_webhook_configuration: Option<String>,
    /// The CRDs whose conversion webhook gets the CA bundle, comma separated
    #[arg(long, env = "CONVERSION_CRDS", value_delimiter = ',')]
    conversion_crds: Vec<String>,
    /// Largest ConversionReview the conversion webhook reads, in bytes: the API server sends
    /// every object of a LIST in one review
    #[arg(long, default_value_t = project_v1::webhooks::CONVERSION_BODY_LIMIT)]
    webhook_conversion_body_limit: usize,
    /// Bytes of request bodies the webhooks hold at once, all requests together: what they
    /// read beyond it waits
    #[arg(long, default_value_t = project_v1::webhooks::BODIES_IN_FLIGHT)]
    webhook_bodies_in_flight: usize,
    /// Serve the webhooks; `ENABLE_WEBHOOKS=false` runs the manager without them
    #[arg(long, env = "ENABLE_WEBHOOKS", default_value_t = true, action = clap::ArgAction::Set)]
    enable_webhooks: bool,
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
    if args.enable_webhooks {
        manager.spawn(
            "webhook server",
            project_v1::webhooks::serve(
                std::net::SocketAddr::new(args.webhook_host, args.webhook_port),
                args.webhook_cert_dir.clone(),
                project_v1::webhooks::Limits {
                    conversion_body: args.webhook_conversion_body_limit,
                    in_flight: args.webhook_bodies_in_flight,
                },
                manager.readiness("webhook-server"),
                manager.shutdown(),
            ),
        );
        if args.webhook_certs == project_v1::webhooks::certs::Mode::SelfIssued {
            let settings = project_v1::webhooks::certs::Settings {
                mutating: args.mutating_webhook_configuration.clone(),
                validating: args.validating_webhook_configuration.clone(),
                conversion_crds: args.conversion_crds.clone(),
                metrics: args.manager.metrics_cert_dir.clone().map(|dir| {
                    project_v1::webhooks::certs::MetricsCert {
                        service: args.metrics_service_name.clone(),
                        dir,
                    }
                }),
                ..project_v1::webhooks::certs::Settings::new(
                    args.webhook_service_namespace.clone(),
                    args.webhook_service_name.clone(),
                    args.webhook_cert_dir.clone(),
                    args.webhook_port,
                )
            };
            manager.spawn(
                "webhook certificates",
                project_v1::webhooks::certs::run(
                    manager.client(),
                    settings,
                    manager.readiness("webhook-certificates"),
                    manager.shutdown(),
                ),
            );
        }
    }
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
