//! The manager: serves metrics and health probes, elects a leader, and runs the
//! controllers until SIGTERM or SIGINT, or until one of them fails — what
//! controller-runtime's manager does for a kubebuilder project.
//!
//! A project's `main.rs` flattens [`ManagerArgs`] into its own flags, starts a
//! [`Manager`], adds its controllers (and servers, such as the webhook server) and runs it:
//!
//! ```no_run
//! # async fn run(args: rsbuilder_runtime::manager::ManagerArgs) -> anyhow::Result<()> {
//! use rsbuilder_runtime::manager::Manager;
//!
//! let mut manager = Manager::start(args, "my-operator-leader.example.com").await?;
//! manager.add_controller("Widget", |synced, shutdown| {
//!     Box::pin(async move {
//!         // ... run the controller, set `synced` once its watch listed every object ...
//!         # let _ = (synced, shutdown);
//!     })
//! });
//! manager.run().await
//! # }
//! ```

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use futures::future::BoxFuture;
use kube::{Client, Config};
use tracing::info;

use crate::controller;
use crate::deadline;
use crate::leader::{Candidate, Leadership};
use crate::metrics::Metrics;
use crate::metrics_auth::MetricsAuth;
use crate::server::{self, Health, MetricsSecurity, Readiness};
use crate::shutdown::Shutdown;
use crate::supervisor::Supervisor;
use crate::telemetry::LogFormat;
use crate::tls;

/// The manager's flags, as kubebuilder's `cmd/main.go` names them; a project flattens
/// them into its own (`#[command(flatten)]`).
#[derive(Debug, Clone, clap::Args)]
pub struct ManagerArgs {
    /// Address the Prometheus `/metrics` endpoint binds to
    #[arg(long, default_value = "[::]:8443")]
    pub metrics_bind_address: SocketAddr,
    /// Serve `/metrics` over HTTPS, only to callers allowed to `get /metrics` (checked with
    /// TokenReviews and SubjectAccessReviews); `false` serves it over plain HTTP to anyone
    #[arg(long, env = "METRICS_SECURE", default_value_t = true, num_args = 0..=1,
          default_missing_value = "true", action = clap::ArgAction::Set)]
    pub metrics_secure: bool,
    /// Directory of the metrics server's certificate, `tls.crt` and `tls.key`; a
    /// self-signed one is generated when unset
    #[arg(long, env = "METRICS_CERT_DIR")]
    pub metrics_cert_dir: Option<PathBuf>,
    /// Address the `/healthz` and `/readyz` probes bind to
    #[arg(long, default_value = "[::]:8081")]
    pub health_probe_bind_address: SocketAddr,
    /// Elect a leader through a Lease, so several replicas can run with one active
    #[arg(long)]
    pub leader_elect: bool,
    /// Namespace of the leader-election Lease
    #[arg(long, env = "POD_NAMESPACE", default_value = "default")]
    pub leader_election_namespace: String,
    /// Watch only this namespace; all namespaces when unset
    #[arg(long, env = "WATCH_NAMESPACE")]
    pub namespace: Option<String>,
    /// Log format
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// How long a request to the API server may take before it fails (watches excepted),
    /// e.g. `60s`, `2m`
    #[arg(long, default_value = "60s", value_parser = deadline::parse_duration)]
    pub api_request_timeout: Duration,
    /// How long a controller's watch may take to list its objects before the manager
    /// exits (controller-runtime's `CacheSyncTimeout`), e.g. `2m`
    #[arg(long, default_value = "2m", value_parser = deadline::parse_duration)]
    pub cache_sync_timeout: Duration,
}

/// A controller, started once this replica leads: it runs until `Shutdown` resolves and
/// sets its `Readiness` once its watch has listed every object.
type StartController = Box<dyn FnOnce(Readiness, Shutdown) -> BoxFuture<'static, ()> + Send>;

/// A running manager: connected to the API server, its metrics and probe servers serving.
pub struct Manager {
    args: ManagerArgs,
    lease: String,
    config: Config,
    client: Client,
    metrics: Arc<Metrics>,
    health: Health,
    shutdown: Shutdown,
    supervisor: Supervisor,
    controllers: Vec<(&'static str, StartController)>,
}

impl Manager {
    /// Connects to the API server (the kubeconfig, or the pod's service account), binds
    /// the metrics and probe servers and starts them. `lease` names the leader-election
    /// Lease that this manager's replicas share (with `--leader-elect`).
    ///
    /// Both ports are bound before anything runs: a port in use stops the manager here.
    pub async fn start(args: ManagerArgs, lease: &str) -> anyhow::Result<Self> {
        let config = Config::infer().await.context(
            "cannot configure a Kubernetes client (set KUBECONFIG or run inside a cluster)",
        )?;
        let client = deadline::client(config.clone(), args.api_request_timeout)?;
        let version = client
            .apiserver_version()
            .await
            .context("cannot reach the Kubernetes API server")?;
        info!(version = %version.git_version, "connected to the API server");

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
        let mut supervisor = Supervisor::new(trigger, shutdown.clone());
        let metrics = Arc::new(Metrics::default());
        let health = Health::default();
        supervisor.spawn(
            "metrics server",
            server::serve_metrics(
                metrics_listener,
                metrics.clone(),
                metrics_security,
                tls::RELOAD_INTERVAL,
                shutdown.clone(),
            ),
        );
        supervisor.spawn(
            "health probe server",
            server::serve_probes(probes_listener, health.clone(), shutdown.clone()),
        );
        Ok(Self {
            args,
            lease: lease.to_string(),
            config,
            client,
            metrics,
            health,
            shutdown,
            supervisor,
            controllers: Vec::new(),
        })
    }

    /// The flags the manager was started with.
    pub fn args(&self) -> &ManagerArgs {
        &self.args
    }

    /// A client whose requests time out after `--api-request-timeout` (watches excepted).
    pub fn client(&self) -> Client {
        self.client.clone()
    }

    /// The reconcile metrics the `/metrics` endpoint serves.
    pub fn metrics(&self) -> Arc<Metrics> {
        self.metrics.clone()
    }

    /// The namespace to watch (`--namespace`), or `None` for every namespace.
    pub fn namespace(&self) -> Option<String> {
        self.args.namespace.clone()
    }

    /// Resolves when the manager stops: give it to every task [`Manager::spawn`] runs.
    pub fn shutdown(&self) -> Shutdown {
        self.shutdown.clone()
    }

    /// A part of this replica's readiness: `/readyz` fails until `part` is set ready.
    pub fn readiness(&self, part: &'static str) -> Readiness {
        self.health.part(part)
    }

    /// Runs `task` beside the servers, on every replica (a webhook server, for one). It
    /// must stop when [`Manager::shutdown`] resolves; an error, a panic or an early end
    /// stops the manager with an error.
    pub fn spawn<F>(&mut self, name: impl Into<String>, task: F)
    where
        F: Future<Output = anyhow::Result<()>> + Send + 'static,
    {
        self.supervisor.spawn(name, task);
    }

    /// Adds a controller, started on the leader only (every replica without
    /// `--leader-elect`). `/readyz` fails until its watch has listed every object, and the
    /// manager exits if that takes longer than `--cache-sync-timeout`.
    pub fn add_controller<F>(&mut self, name: &'static str, start: F)
    where
        F: FnOnce(Readiness, Shutdown) -> BoxFuture<'static, ()> + Send + 'static,
    {
        self.controllers.push((name, Box::new(start)));
    }

    /// Runs until SIGTERM or SIGINT, then stops every task within
    /// [`GRACEFUL_SHUTDOWN_TIMEOUT`](crate::supervisor::GRACEFUL_SHUTDOWN_TIMEOUT) and
    /// releases the Lease; or until a task fails or this replica loses the Lease, with
    /// that error.
    pub async fn run(self) -> anyhow::Result<()> {
        let Self {
            args,
            lease,
            config,
            health,
            shutdown,
            mut supervisor,
            controllers,
            ..
        } = self;
        health.set_ready();

        let leadership = if args.leader_elect {
            let candidate = Candidate::new(config, &lease, &args.leader_election_namespace)?;
            let elected = Leadership::acquire(candidate, shutdown.clone());
            match supervisor.until(elected).await {
                Some(Ok(Some(leadership))) => Some(leadership),
                Some(Err(error)) => {
                    // The election failed: that is the error to report; `stop` logs the rest.
                    let _ = supervisor.stop().await;
                    return Err(error);
                }
                // Shutdown came first, or a task failed (`stop` returns which).
                Some(Ok(None)) | None => return supervisor.stop().await,
            }
        } else {
            None
        };

        for (name, start) in controllers {
            info!(controller = name, "starting controller");
            let synced = health.part(name);
            let running = start(synced.clone(), shutdown.clone());
            supervisor.spawn(
                format!("{name} controller"),
                controller::supervise(name, running, synced, args.cache_sync_timeout),
            );
        }

        // A lost Lease ends the process at once, without a graceful shutdown: another
        // replica may be reconciling already. controller-runtime's manager skips it then too.
        let lost = leadership.as_ref().map(Leadership::lost);
        let lost = async move {
            match lost {
                Some(lost) => lost.await,
                None => std::future::pending().await,
            }
        };
        let stopped = async move {
            supervisor.until(shutdown.wait()).await;
            info!("shutting down");
            supervisor.stop().await
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
}

/// The exit code of a manager that ran to `result`: on an error, the error and its causes
/// go to stderr on one line first.
pub fn exit_code(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {}", one_line(&error));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes on one line. kube's errors already print their sources, so
/// a cause whose text is already on the line is not repeated.
pub fn one_line(error: &anyhow::Error) -> String {
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
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Flags {
        #[command(flatten)]
        manager: ManagerArgs,
    }

    #[test]
    fn the_defaults_are_controller_runtimes() {
        let flags = Flags::try_parse_from(["manager"]).expect("no flag is required");
        let args = flags.manager;
        assert_eq!(args.metrics_bind_address.port(), 8443);
        assert!(args.metrics_secure);
        assert_eq!(args.health_probe_bind_address.port(), 8081);
        assert!(!args.leader_elect);
        assert_eq!(args.api_request_timeout, Duration::from_secs(60));
        assert_eq!(args.cache_sync_timeout, Duration::from_secs(120));
    }

    #[test]
    fn metrics_secure_takes_an_explicit_false() {
        let flags = Flags::try_parse_from(["manager", "--metrics-secure=false"]).unwrap();
        assert!(!flags.manager.metrics_secure);
        let flags = Flags::try_parse_from(["manager", "--metrics-secure"]).unwrap();
        assert!(flags.manager.metrics_secure);
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
