// SPDX-License-Identifier: Apache-2.0

//! The manager binary against a fake API server. A task that fails must stop it with an
//! error exit, as controller-runtime's manager does when a runnable fails: Kubernetes
//! then restarts the container, instead of keeping a replica that holds the Lease with a
//! dead server and a green `/healthz`.

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::get;
use serde_json::json;

/// A fake API server over plain HTTP that answers `/version`, what the manager asks
/// first (and 404 to the rest); and a kubeconfig that points at it.
async fn fake_api_server(dir: &std::path::Path) -> PathBuf {
    let version = json!({
        "major": "1", "minor": "37", "gitVersion": "v1.37.0", "gitCommit": "fake",
        "gitTreeState": "clean", "buildDate": "2026-01-01T00:00:00Z", "goVersion": "go1.25",
        "compiler": "gc", "platform": "linux/amd64",
    })
    .to_string();
    let router = Router::new().route("/version", get(move || async move { version }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let addr = listener.local_addr().expect("a bound address");
    tokio::spawn(async move { axum::serve(listener, router).await });
    let kubeconfig = dir.join("kubeconfig");
    let config = format!(
        "apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster:
    server: http://{addr}
users:
- name: fake
  user:
    token: fake
contexts:
- name: fake
  context:
    cluster: fake
    user: fake
current-context: fake
"
    );
    std::fs::write(&kubeconfig, config).expect("a writable temp dir");
    kubeconfig
}

/// Runs the manager with `args` until it exits, at most `limit`; its status and output.
async fn run_manager(
    kubeconfig: &PathBuf,
    args: &[String],
    limit: Duration,
) -> (Option<ExitStatus>, String) {
    let log = kubeconfig.with_file_name("manager.log");
    let output = std::fs::File::create(&log).expect("a writable temp dir");
    let errors = output.try_clone().expect("a file handle");
    let mut manager = Command::new(env!("CARGO_BIN_EXE_manager"))
        .args(args)
        .env("KUBECONFIG", kubeconfig)
        .env("ENABLE_WEBHOOKS", "false")
        .env_remove("WATCH_NAMESPACE")
        .stdout(output)
        .stderr(errors)
        .spawn()
        .expect("the manager starts");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = manager.try_wait().expect("the manager's status") {
            break Some(status);
        }
        if started.elapsed() > limit {
            let _ = manager.kill();
            let _ = manager.wait();
            break None;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    (status, std::fs::read_to_string(&log).unwrap_or_default())
}

#[tokio::test]
async fn a_metrics_server_that_cannot_bind_stops_the_manager_with_an_error() {
    let dir = std::env::temp_dir().join(format!("manager-bind-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a writable temp dir");
    let kubeconfig = fake_api_server(&dir).await;
    // Another process holds the metrics port.
    let holder = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let taken: SocketAddr = holder.local_addr().expect("a bound address");
    let args = [
        format!("--metrics-bind-address={taken}"),
        "--health-probe-bind-address=127.0.0.1:0".to_string(),
    ];

    let (status, output) = run_manager(&kubeconfig, &args, Duration::from_secs(10)).await;
    let status = status.unwrap_or_else(|| {
        panic!("the manager still runs 10 s after its metrics server failed:\n{output}")
    });
    assert!(
        !status.success(),
        "the manager exited with {status}:\n{output}"
    );
    assert!(
        output.contains(&format!("cannot bind the metrics server to {taken}")),
        "{output}"
    );
    drop(holder);
    std::fs::remove_dir_all(&dir).expect("removable");
}

/// Kubernetes kills the container once its grace period is over: it must cover the
/// drain and the Lease's release, or a graceful stop leaves the Lease held until it
/// expires and no replica leads meanwhile.
#[test]
fn the_pods_grace_period_covers_the_drain_and_the_release_of_the_lease() {
    use rsbuilder_runtime::leader::RENEW_DEADLINE;
    use rsbuilder_runtime::supervisor::GRACEFUL_SHUTDOWN_TIMEOUT;

    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/config/manager/manager.yaml");
    let text = std::fs::read_to_string(path).expect("config/manager/manager.yaml");
    let documents: Vec<serde_json::Value> =
        serde_saphyr::from_multiple(&text).expect("YAML documents");
    let deployment = documents
        .iter()
        .find(|d| d["kind"] == "Deployment")
        .expect("the manager's Deployment");
    let grace = deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
        .as_u64()
        .expect("terminationGracePeriodSeconds");
    let needed = GRACEFUL_SHUTDOWN_TIMEOUT + RENEW_DEADLINE;
    assert!(
        grace > needed.as_secs(),
        "terminationGracePeriodSeconds {grace} s does not cover {needed:?}"
    );
}
