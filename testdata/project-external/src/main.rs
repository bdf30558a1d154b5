// Copyright Example Inc.
// SPDX-License-Identifier: Apache-2.0

//! The manager: serves metrics and health probes, elects a leader, and runs the
//! controllers until SIGTERM or SIGINT.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use clap::Parser;
use kube::Client;
use tokio::task::JoinSet;
use tracing::info;

use project_external::controllers::{self, Context};
use project_external::leader::Leadership;
use project_external::metrics::Metrics;
use project_external::metrics_auth::MetricsAuth;
use project_external::server::{self, Health, MetricsSecurity};
use project_external::shutdown::Shutdown;
use project_external::telemetry::{self, LogFormat};
use project_external::tls;

#[derive(Debug, Parser)]
#[command(version, about = "The project-external controller manager")]
struct Args {
    /// Address the Prometheus `/metrics` endpoint binds to
    #[arg(long, default_value = "0.0.0.0:8443")]
    metrics_bind_address: SocketAddr,
    /// Serve `/metrics` over HTTPS, only to callers allowed to `get /metrics` (checked with
    /// TokenReviews and SubjectAccessReviews); `false` serves it over plain HTTP to anyone
    #[arg(long, env = "METRICS_SECURE", default_value_t = true, num_args = 0..=1,
          default_missing_value = "true", action = clap::ArgAction::Set)]
    metrics_secure: bool,
    /// Directory of the metrics server's certificate, `tls.crt` and `tls.key`; a
    /// self-signed one is generated when unset
    #[arg(long)]
    metrics_cert_dir: Option<PathBuf>,
    /// Address the `/healthz` and `/readyz` probes bind to
    #[arg(long, default_value = "0.0.0.0:8081")]
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
    // +rsbuilder:scaffold:manager-flags
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    telemetry::init(args.log_format);
    match run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // One line: what failed and why. kube's own errors already embed their sources.
            let cause = error
                .chain()
                .nth(1)
                .map(|c| format!(": {c}"))
                .unwrap_or_default();
            eprintln!("error: {error}{cause}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> anyhow::Result<()> {
    let client = Client::try_default()
        .await
        .context("cannot configure a Kubernetes client (set KUBECONFIG or run inside a cluster)")?;
    let version = client
        .apiserver_version()
        .await
        .context("cannot reach the Kubernetes API server")?;
    info!(version = %version.git_version, "connected to the API server");

    let shutdown = Shutdown::listen();
    let metrics = Arc::new(Metrics::default());
    let health = Health::default();
    let metrics_security = if args.metrics_secure {
        MetricsSecurity::Secure {
            tls: Box::new(
                tls::server_config(args.metrics_cert_dir.as_deref())
                    .context("cannot set up HTTPS for the metrics server")?,
            ),
            auth: MetricsAuth::new(client.clone()),
        }
    } else {
        MetricsSecurity::Insecure
    };
    let mut tasks = JoinSet::new();
    tasks.spawn(server::serve_metrics(
        args.metrics_bind_address,
        metrics.clone(),
        metrics_security,
        shutdown.clone(),
    ));
    tasks.spawn(server::serve_probes(
        args.health_probe_bind_address,
        health.clone(),
        shutdown.clone(),
    ));
    // +rsbuilder:scaffold:manager-servers
    health.set_ready();

    let leadership = if args.leader_elect {
        match Leadership::acquire(
            client.clone(),
            &args.leader_election_namespace,
            shutdown.clone(),
        )
        .await?
        {
            Some(leadership) => Some(leadership),
            None => return drain(tasks).await,
        }
    } else {
        None
    };

    let ctx = Context::new(client, metrics, args.namespace);
    let mut controllers = JoinSet::new();
    for (name, run) in controllers::all() {
        info!(controller = name, "starting controller");
        controllers.spawn(run(ctx.clone(), shutdown.clone()));
    }

    let lost = async {
        match &leadership {
            Some(leadership) => leadership.lost().await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        () = shutdown.wait() => info!("shutting down"),
        () = lost => anyhow::bail!("leader election lost; exiting so that another replica takes over"),
    }
    while controllers.join_next().await.is_some() {}
    if let Some(leadership) = leadership {
        leadership.release().await;
    }
    drain(tasks).await
}

/// Waits for the servers to finish their graceful shutdown.
async fn drain(mut tasks: JoinSet<anyhow::Result<()>>) -> anyhow::Result<()> {
    while let Some(result) = tasks.join_next().await {
        result.context("a server task panicked")??;
    }
    Ok(())
}
