//! The project's manager, run as its own process as in a cluster: its flags, its
//! metrics and probes read over HTTP, its memory read from `/proc`.

use std::net::SocketAddr;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use serde_json::Value;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use super::apiserver::samples;
use crate::testing::control_plane::free_ports;

/// How a manager process is started.
pub struct Launch {
    /// The manager binary (`CARGO_BIN_EXE_manager`).
    pub binary: PathBuf,
    /// A program that runs it (a profiler), if any.
    pub wrap: Option<String>,
    /// The kubeconfig of the manager's user.
    pub kubeconfig: PathBuf,
    /// Where it elects its leader, and the namespace it watches if `watch_namespace`.
    pub namespace: String,
    /// Whether it watches `namespace` only (a project whose role is a Role).
    pub watch_namespace: bool,
    /// Its webhook server's port and certificate directory, for a project with webhooks.
    pub webhooks: Option<(u16, PathBuf)>,
    /// The directory of its logs.
    pub logs: PathBuf,
    /// The environment its Deployment gives it ([`deployed_env`]).
    pub env: Vec<(String, String)>,
}

/// The environment variables with a literal value that the Deployment of
/// `config/manager` (its `manifests`) gives the container `manager`: the benchmark runs
/// the manager as it is deployed (those that come from the pod, `valueFrom`, it gives
/// as flags).
pub fn deployed_env(manifests: &[Value]) -> Vec<(String, String)> {
    manifests
        .iter()
        .filter(|manifest| manifest["kind"] == "Deployment")
        .flat_map(|deployment| {
            deployment["spec"]["template"]["spec"]["containers"]
                .as_array()
                .into_iter()
                .flatten()
        })
        .filter(|container| container["name"] == "manager")
        .flat_map(|container| container["env"].as_array().into_iter().flatten())
        .filter_map(|var| Some((var["name"].as_str()?.into(), var["value"].as_str()?.into())))
        .collect()
}

/// A running manager.
pub struct Manager {
    child: Child,
    metrics: SocketAddr,
    probes: SocketAddr,
    log: PathBuf,
    /// Whether a wrapper runs it, which SIGTERM ends without the manager's say.
    wrapped: bool,
    /// When the process was started.
    pub started: Instant,
}

/// What [`Manager::wait`] waits for.
#[derive(Clone, Copy, Debug)]
pub enum Until {
    /// `/readyz` answers 200.
    Ready,
    /// Its controllers have started this many reconciliations.
    Reconciled(u64),
}

/// Its memory, in bytes.
#[derive(Clone, Copy, Debug)]
pub struct Memory {
    /// Resident now (`VmRSS`).
    pub rss: u64,
    /// The most it was resident since it started or since [`Manager::reset_peak`]
    /// (`VmHWM`).
    pub peak: u64,
}

impl Manager {
    /// Starts the manager, elected leader unless another holds its Lease, `name` telling
    /// its log apart.
    pub fn spawn(launch: &Launch, name: &str) -> anyhow::Result<Manager> {
        let [metrics, probes] = free_ports()?.map(|port| SocketAddr::from(([127, 0, 0, 1], port)));
        let log = launch.logs.join(format!("{name}.log"));
        let file = std::fs::File::create(&log)?;
        let mut command = match &launch.wrap {
            Some(wrapper) => {
                let mut command = Command::new(wrapper);
                // A group of its own, so that [`Manager::stop`] reaches the manager too: a
                // wrapper that ends on SIGTERM leaves it running otherwise, holding its ports.
                command
                    .arg(&launch.binary)
                    .current_dir(&launch.logs)
                    .process_group(0);
                command
            }
            None => Command::new(&launch.binary),
        };
        command
            .arg(format!("--metrics-bind-address={metrics}"))
            .arg(format!("--health-probe-bind-address={probes}"))
            .arg("--leader-elect")
            .arg(format!("--leader-election-namespace={}", launch.namespace))
            .envs(launch.env.clone())
            .env("KUBECONFIG", &launch.kubeconfig)
            // Plain HTTP, so that the benchmark reads /metrics without a token.
            .env("METRICS_SECURE", "false")
            .env("ENABLE_WEBHOOKS", "true")
            .env_remove("WATCH_NAMESPACE")
            .stdin(Stdio::null())
            .stdout(file.try_clone()?)
            .stderr(file);
        if launch.watch_namespace {
            command.arg(format!("--namespace={}", launch.namespace));
        }
        if let Some((port, cert_dir)) = &launch.webhooks {
            command
                .arg("--webhook-host=127.0.0.1")
                .arg(format!("--webhook-port={port}"))
                .arg(format!("--webhook-cert-dir={}", cert_dir.display()));
        }
        // SAFETY: prctl(2) is async-signal-safe, as a pre_exec closure must be. The manager
        // dies with the benchmark, however it ends.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let started = Instant::now();
        let child = command
            .spawn()
            .with_context(|| format!("cannot start {}", launch.binary.display()))?;
        Ok(Manager {
            child,
            metrics,
            probes,
            log,
            wrapped: launch.wrap.is_some(),
            started,
        })
    }

    /// Whether `/readyz` answers 200.
    pub async fn ready(&self) -> bool {
        get(self.probes, "/readyz")
            .await
            .is_some_and(|(status, _)| status == 200)
    }

    /// Reconciliations started so far, by every controller; `None` before the metrics
    /// server answers.
    pub async fn reconciliations(&self) -> Option<u64> {
        let (_, text) = get(self.metrics, "/metrics").await?;
        let reconciliations = samples(&text, "controller_reconcile_total").map(|(_, n)| n);
        Some(reconciliations.sum::<f64>() as u64)
    }

    /// Polls every 10 ms until `until`, for at most `timeout`, and returns how long after
    /// its start the manager got there; fails, with the end of its log, when it exits or
    /// time is up.
    pub async fn wait(&mut self, until: Until, timeout: Duration) -> anyhow::Result<Duration> {
        let started = Instant::now();
        loop {
            let done = match until {
                Until::Ready => self.ready().await,
                Until::Reconciled(n) => self.reconciliations().await.is_some_and(|done| done >= n),
            };
            if done {
                return Ok(self.started.elapsed());
            }
            if let Some(status) = self.child.try_wait()? {
                bail!(
                    "the manager exited ({status}) before {until:?}\n{}",
                    self.log_tail()
                );
            }
            if started.elapsed() > timeout {
                bail!("not within {timeout:?}: {until:?}\n{}", self.log_tail());
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Its memory now.
    pub fn memory(&self) -> anyhow::Result<Memory> {
        let path = format!("/proc/{}/status", self.child.id());
        let status =
            std::fs::read_to_string(&path).with_context(|| format!("cannot read {path}"))?;
        let field = |name: &str| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|rest| {
                    rest.trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<u64>()
                        .ok()
                })
                .map(|kib| kib * 1024)
                .with_context(|| format!("{path} has no {name}"))
        };
        Ok(Memory {
            rss: field("VmRSS:")?,
            peak: field("VmHWM:")?,
        })
    }

    /// Starts its peak ([`Memory::peak`]) again from what is resident now (clear_refs(5)).
    pub fn reset_peak(&self) -> anyhow::Result<()> {
        let path = format!("/proc/{}/clear_refs", self.child.id());
        std::fs::write(&path, "5").with_context(|| format!("cannot write {path}"))
    }

    /// Stops it as Kubernetes does, SIGTERM, and waits until it exits (SIGKILL after 30
    /// seconds, the default grace period).
    pub async fn stop(mut self) -> anyhow::Result<()> {
        let pid = libc::pid_t::try_from(self.child.id())?;
        // A wrapper's whole process group ([`Manager::spawn`]).
        let target = if self.wrapped { -pid } else { pid };
        // SAFETY: kill(2) with a pid this process started and has not reaped.
        unsafe { libc::kill(target, libc::SIGTERM) };
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait()? {
                if !status.success() && !self.wrapped {
                    bail!("the manager exited with {status}\n{}", self.log_tail());
                }
                return Ok(());
            }
            if started.elapsed() > Duration::from_secs(30) {
                let _ = self.child.kill();
                let _ = self.child.wait();
                bail!(
                    "the manager did not stop within 30 s of SIGTERM\n{}",
                    self.log_tail()
                );
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    fn log_tail(&self) -> String {
        tail(&self.log)
    }
}

impl Drop for Manager {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The last lines of the log at `path`.
fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(20)..].join("\n");
    format!("--- {} (last lines):\n{tail}", path.display())
}

/// `GET path` over plain HTTP: the status and the body; `None` while nothing answers.
async fn get(addr: SocketAddr, path: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(addr).await.ok()?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.ok()?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.ok()?;
    let response = String::from_utf8_lossy(&response);
    let (head, body) = response.split_once("\r\n\r\n")?;
    let status = head.split(' ').nth(1)?.parse().ok()?;
    Some((status, body.to_string()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_manager_gets_the_literal_env_of_its_deployed_container() {
        let container = |name: &str| {
            json!({"name": name, "env": [
                {"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
                {"name": "GLIBC_TUNABLES", "value": format!("of {name}")},
            ]})
        };
        let manifests = [
            json!({"kind": "Namespace", "metadata": {"name": "system"}}),
            json!({"kind": "Deployment", "spec": {"template": {"spec": {
                "containers": [container("sidecar"), container("manager")],
            }}}}),
        ];
        assert_eq!(
            deployed_env(&manifests),
            [("GLIBC_TUNABLES".to_string(), "of manager".to_string())]
        );
    }
}
