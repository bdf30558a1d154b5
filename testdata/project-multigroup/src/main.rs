// Copyright Example Org
// SPDX-License-Identifier: MIT

//! The manager: serves metrics and health probes, elects a leader, and runs the
//! controllers until SIGTERM or SIGINT, or until one of them fails.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use clap::Parser;
use kube::Config;
use tracing::info;

use project_multigroup::controllers::{self, Context};
use project_multigroup::deadline;
use project_multigroup::leader::{Candidate, Leadership};
use project_multigroup::metrics::Metrics;
use project_multigroup::metrics_auth::MetricsAuth;
use project_multigroup::server::{self, Health, MetricsSecurity};
use project_multigroup::shutdown::Shutdown;
use project_multigroup::supervisor::Supervisor;
use project_multigroup::telemetry::{self, LogFormat};
use project_multigroup::tls;

#[derive(Debug, Parser)]
#[command(version, about = "The project-multigroup controller manager")]
struct Args {
    /// Address the Prometheus `/metrics` endpoint binds to
    #[arg(long, default_value = "[::]:8443")]
    metrics_bind_address: SocketAddr,
    /// Serve `/metrics` over HTTPS, only to callers allowed to `get /metrics` (checked with
    /// TokenReviews and SubjectAccessReviews); `false` serves it over plain HTTP to anyone
    #[arg(long, env = "METRICS_SECURE", default_value_t = true, num_args = 0..=1,
          default_missing_value = "true", action = clap::ArgAction::Set)]
    metrics_secure: bool,
    /// Directory of the metrics server's certificate, `tls.crt` and `tls.key`; a
    /// self-signed one is generated when unset
    #[arg(long, env = "METRICS_CERT_DIR")]
    metrics_cert_dir: Option<PathBuf>,
    /// Address the `/healthz` and `/readyz` probes bind to
    #[arg(long, default_value = "[::]:8081")]
    health_probe_bind_address: SocketAddr,
    /// Elect a leader through a Lease, so several replicas can run with one active
    #[arg(long)]
    leader_elect: bool,
    /// Namespace of the leader-election Lease
    #[arg(long, env = "POD_NAMESPACE", default_value = "default")]
    leader_election_namespace: String,
    /// Watch only this namespace; all namespaces when unset
    #[arg(long, env = "WATCH_NAMESPACE")]
    namespace: Option<String>,
    /// Log format
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// How long a request to the API server may take before it fails (watches excepted),
    /// e.g. `60s`, `2m`
    #[arg(long, default_value = "60s", value_parser = deadline::parse_duration)]
    api_request_timeout: std::time::Duration,
    /// How long a controller's watch may take to list its objects before the manager
    /// exits (controller-runtime's `CacheSyncTimeout`), e.g. `2m`
    #[arg(long, default_value = "2m", value_parser = deadline::parse_duration)]
    cache_sync_timeout: std::time::Duration,
    // +rsbuilder:scaffold:manager-flags
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    telemetry::init(args.log_format);
    match run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {}", one_line(&error));
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> anyhow::Result<()> {
    let config = Config::infer()
        .await
        .context("cannot configure a Kubernetes client (set KUBECONFIG or run inside a cluster)")?;
    let client = deadline::client(config.clone(), args.api_request_timeout)?;
    let version = client
        .apiserver_version()
        .await
        .context("cannot reach the Kubernetes API server")?;
    info!(version = %version.git_version, "connected to the API server");

    // Bound first: a port in use stops the manager before anything else started.
    let metrics_listener = server::bind("metrics", args.metrics_bind_address).await?;
    let probes_listener = server::bind("health probes", args.health_probe_bind_address).await?;
    let metrics_security = if args.metrics_secure {
        MetricsSecurity::Secure {
            certificate: tls::Serving::load("metrics", args.metrics_cert_dir.clone())
                .context("cannot set up HTTPS for the metrics server")?,
            auth: MetricsAuth::new(client.clone()),
        }
    } else {
        MetricsSecurity::Insecure
    };

    let (trigger, shutdown) = Shutdown::on_signal();
    let mut manager = Supervisor::new(trigger, shutdown.clone());
    let metrics = Arc::new(Metrics::default());
    let health = Health::default();
    manager.spawn(
        "metrics server",
        server::serve_metrics(
            metrics_listener,
            metrics.clone(),
            metrics_security,
            tls::RELOAD_INTERVAL,
            shutdown.clone(),
        ),
    );
    manager.spawn(
        "health probe server",
        server::serve_probes(probes_listener, health.clone(), shutdown.clone()),
    );
    // +rsbuilder:scaffold:manager-servers
    health.set_ready();

    let leadership = if args.leader_elect {
        let candidate = Candidate::new(config, &args.leader_election_namespace)?;
        let elected = Leadership::acquire(candidate, shutdown.clone());
        match manager.until(elected).await {
            Some(Ok(Some(leadership))) => Some(leadership),
            Some(Err(error)) => {
                // The election failed: that is the error to report; `stop` logs the rest.
                let _ = manager.stop().await;
                return Err(error);
            }
            // Shutdown came first, or a task failed (`stop` returns which).
            Some(Ok(None)) | None => return manager.stop().await,
        }
    } else {
        None
    };

    let ctx = Context::new(client, metrics, args.namespace);
    for (name, run) in controllers::all() {
        info!(controller = name, "starting controller");
        // `/readyz` fails until its watch has listed every object.
        let synced = health.part(name);
        let controller = run(ctx.clone(), synced.clone(), shutdown.clone());
        let timeout = args.cache_sync_timeout;
        manager.spawn(
            format!("{name} controller"),
            controllers::supervise(name, controller, synced, timeout),
        );
    }

    // A lost Lease ends the process at once, without a graceful shutdown: another replica
    // may be reconciling already. controller-runtime's manager skips it then too.
    let lost = leadership.as_ref().map(Leadership::lost);
    let lost = async move {
        match lost {
            Some(lost) => lost.await,
            None => std::future::pending().await,
        }
    };
    let stopped = async move {
        manager.until(shutdown.wait()).await;
        info!("shutting down");
        manager.stop().await
    };
    tokio::select! {
        stopped = stopped => {
            if let Some(leadership) = leadership {
                leadership.release().await;
            }
            stopped
        }
        lost = lost => Err(lost.context("lost leadership; exiting so that another replica takes over")),
    }
}

/// The error and its causes on one line. kube's errors already print their sources, so
/// a cause whose text is already on the line is not repeated.
fn one_line(error: &anyhow::Error) -> String {
    let mut line = error.to_string();
    for cause in error.chain().skip(1) {
        let cause = cause.to_string();
        if !line.contains(&cause) {
            line = format!("{line}: {cause}");
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::apps::v1::Deployment;

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
        assert!(matches!(parsed.log_format, LogFormat::Json));
        assert!(parsed.leader_elect);
    }

    #[test]
    fn an_error_and_its_causes_fit_on_one_line_without_repeats() {
        let io = std::io::Error::new(std::io::ErrorKind::AddrInUse, "address in use");
        let error = anyhow::Error::new(io)
            .context("cannot bind the metrics server to 0.0.0.0:8443")
            .context("metrics server failed");
        assert_eq!(
            one_line(&error),
            "metrics server failed: cannot bind the metrics server to 0.0.0.0:8443: address in use"
        );
        // Like kube's errors, this one prints its source in its own message.
        #[derive(Debug)]
        struct Embedding(std::io::Error);
        impl std::fmt::Display for Embedding {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "request failed: {}", self.0)
            }
        }
        impl std::error::Error for Embedding {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let refused =
            std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused");
        let embedded = anyhow::Error::new(Embedding(refused))
            .context("cannot reach the Kubernetes API server");
        assert_eq!(
            one_line(&embedded),
            "cannot reach the Kubernetes API server: request failed: connection refused"
        );
    }
}
