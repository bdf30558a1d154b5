//! The scale benchmark every project carries (`benches/scale.rs`, `make bench-scale`):
//! the project's manager, as its own process with its Deployment's environment, against
//! a real API server (the envtest control plane of [`super::control_plane`]) with N
//! objects of one kind.
//!
//! One run measures, on the same control plane:
//! - **time to all Ready** while the benchmark creates N objects at a fixed concurrency,
//!   against the **floor**: a plain client creating N more and writing only what Ready
//!   needs (the finalizer where the kind keeps one, then the status), at the same
//!   concurrency, while a manager that is not the leader serves the webhooks;
//! - **writes**, counted by the API server (`apiserver_request_total`): to the kind until
//!   all are Ready, and during a full resync (a restarted manager reconciles every
//!   unchanged object; goal 0);
//! - **memory**: the manager's peak RSS with N objects cached, over their JSON as
//!   `kubectl get -o json` prints them (without `managedFields`);
//! - **startup** with N objects: from process start to the first reconciliation, to all
//!   objects seen (paged LIST, then watch: `/readyz`), and to all reconciled;
//! - **conversion**, for a kind the conversion webhook converts: the API server converts
//!   every object again after the CRD's spec changed, while N objects are read at
//!   another version in pages; the webhook server's peak RSS over one page, the reviews'
//!   latency as the API server timed them, and the pages'.
//!
//! It prints a Markdown table, then one line for scripts:
//! `scale: n=<N> finalizer=<yes|no> ready_over_floor=<ratio> writes_per_object=<x>
//! resync_writes=<n> rss_over_json=<ratio> startup_s=<s>`.

mod apiserver;
mod conversion;
mod kind;
mod lease;
mod process;
mod report;
mod workload;

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::Parser;
use kube::Client;
use kube::api::{Api, DynamicObject, ListParams};

use self::apiserver::{Writes, writes};
use self::kind::Kind;
use self::process::{Launch, Manager, Until, deployed_env};
use self::report::{Figures, loadavg};
use self::workload::{Pages, ReadyWatch};
use super::control_plane::{ControlPlane, Environment, free_port, manager_user};

/// `make bench-scale` (`cargo bench --bench scale -- <flags>`).
#[derive(Debug, Parser)]
#[command(about = "The manager at scale, against a real API server")]
struct Args {
    /// Objects of the kind to create.
    #[arg(long, short = 'n', default_value_t = 1000)]
    objects: usize,
    /// The kind to measure; by default the first of config/crd/bases with a sample at
    /// its storage version.
    #[arg(long)]
    kind: Option<String>,
    /// Requests in flight at once, for the creates and the floor's writes.
    #[arg(long, default_value_t = 16)]
    concurrency: usize,
    /// Objects per page when reading them back.
    #[arg(long, default_value_t = 500)]
    page: u32,
    /// A program that runs the manager, for a profile: `--wrap heaptrack` (the memory
    /// figures are then the wrapper's).
    #[arg(long)]
    wrap: Option<String>,
    /// Passed by `cargo bench`; ignored.
    #[arg(long, hide = true)]
    bench: bool,
}

/// Runs the benchmark of the project at `project` (its `CARGO_MANIFEST_DIR`), whose
/// manager is the binary `manager` (`CARGO_BIN_EXE_manager`) and elects its leader with
/// the Lease `lease`.
pub fn main(project: &str, manager: &str, lease: &str) -> ExitCode {
    let args = Args::parse();
    let control_plane = ControlPlane::shared(|| {
        let mut environment = Environment::new(project);
        // The CRDs of kinds the project does not own (`create api --from-crd`): its
        // controllers watch them.
        if Path::new(project).join(EXTERNAL_CRDS).is_dir() {
            environment.crd_directories.push(EXTERNAL_CRDS);
        }
        environment
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let load = loadavg();
    match runtime.block_on(measure(control_plane, &args, Path::new(manager), lease)) {
        Ok(figures) => {
            println!("{}", figures.table(&load, &loadavg()));
            println!("{}", figures.summary());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// The run's label and the objects' name prefix.
const OPERATOR: &str = "operator";
const FLOOR: &str = "floor";
/// Where `create api --from-crd` keeps the CRDs of kinds the project does not own.
const EXTERNAL_CRDS: &str = "config/external-crds";
/// One run's setting: the kind, where its objects and the manager's Lease live, how the
/// manager starts.
struct Bench {
    admin: Client,
    kind: Kind,
    namespace: String,
    launch: Launch,
    lease: String,
    /// The kind's API at its storage version, in `namespace`.
    api: Api<DynamicObject>,
    n: usize,
    concurrency: usize,
    page: u32,
    /// How long any one step may take.
    patient: Duration,
}

async fn measure(
    control_plane: &ControlPlane,
    args: &Args,
    binary: &Path,
    lease: &str,
) -> anyhow::Result<Figures> {
    let bench = Bench::new(control_plane, args, binary, lease).await?;
    let (manager, rss_empty) = bench.empty_manager().await?;
    let operator = bench.operator(manager).await?;
    let restart = bench.restart().await?;
    // From here on a manager that does not lead serves the webhooks: no controller runs,
    // so it caches nothing, and its memory is the webhooks'.
    lease::hold(&bench.admin, &bench.namespace, &bench.lease).await?;
    let mut webhook_server = Manager::spawn(&bench.launch, "manager-not-leading")?;
    webhook_server.wait(Until::Ready, bench.patient).await?;
    let conversion = match &bench.kind.converted {
        Some(version) => {
            eprintln!("scale: the webhook converts them to {version}, a page at a time");
            Some(conversion::measure(&bench, version, &webhook_server).await?)
        }
        None => None,
    };
    let finalizers: Vec<String> = operator.served.finalizers.iter().cloned().collect();
    let (floor, floor_writes) = bench.floor(&finalizers, &operator.served.status).await?;
    webhook_server.stop().await?;

    let n = bench.n;
    let per_object = |writes: u64| writes as f64 / n as f64;
    Ok(Figures {
        kind: bench.kind.name.clone(),
        n,
        concurrency: bench.concurrency,
        finalizers: finalizers.len(),
        created: operator.created,
        ready: operator.ready,
        floor,
        // The benchmark's own creates are not the operator's.
        writes_per_object: per_object(operator.writes.kind.saturating_sub(n as u64)),
        events_per_object: per_object(operator.writes.events),
        floor_writes_per_object: per_object(floor_writes.kind.saturating_sub(n as u64)),
        resync_writes: restart.writes.kind + restart.writes.events,
        rss_empty,
        rss_peak: operator.rss_peak,
        json: operator.served.sizes.iter().sum::<usize>() as u64,
        rss_restarted: restart.rss,
        first_reconcile: restart.first_reconcile,
        all_seen: restart.all_seen,
        all_reconciled: restart.all_reconciled,
        conversion,
        write_reviews: operator.reviews,
    })
}

/// The operator's run: its objects created, until all are Ready.
struct Operator {
    created: Duration,
    ready: Duration,
    writes: Writes,
    /// Conversion reviews the API server sent meanwhile.
    reviews: u64,
    rss_peak: u64,
    /// The objects as the API server serves them at the end.
    served: Pages,
}

/// A restarted manager with every object Ready.
struct Restart {
    first_reconcile: Duration,
    all_seen: Duration,
    all_reconciled: Duration,
    writes: Writes,
    rss: u64,
}

impl Bench {
    async fn new(
        control_plane: &ControlPlane,
        args: &Args,
        binary: &Path,
        lease: &str,
    ) -> anyhow::Result<Bench> {
        let admin = control_plane.admin().await;
        let kind = Kind::find(control_plane, args.kind.as_deref())?;
        eprintln!(
            "scale: {} {} ({}/{}), {} at a time",
            args.objects, kind.name, kind.group, kind.storage, args.concurrency
        );
        let namespace = control_plane.namespace("scale").await;
        let user = manager_user(&namespace);
        control_plane
            .grant_manager_role(&user, &namespace, |_| {})
            .await;
        let webhooks = if control_plane
            .project()
            .join("config/webhook/service.yaml")
            .exists()
        {
            let port = free_port()?;
            Some((port, control_plane.serve_webhooks_at(port).await?))
        } else {
            None
        };
        let logs = std::env::temp_dir().join(format!("rsbuilder-scale-{}", std::process::id()));
        std::fs::create_dir_all(&logs)?;
        eprintln!("scale: the manager's logs are in {}", logs.display());
        if let Some(wrapper) = &args.wrap {
            eprintln!("scale: the manager runs under {wrapper}");
        }
        let launch = Launch {
            binary: binary.to_path_buf(),
            wrap: args.wrap.clone(),
            kubeconfig: control_plane.kubeconfig_file(&user, &[]),
            watch_namespace: control_plane.manifest("config/rbac/role.yaml")["kind"] == "Role",
            namespace: namespace.clone(),
            webhooks,
            logs,
            env: deployed_env(&control_plane.manifests_in("config/manager")),
        };
        let api = kind.api(&admin, &namespace, &kind.storage);
        // The API server fills its cache of a kind on the first request: not in a timed run.
        api.list(&ListParams::default().limit(1))
            .await
            .context("cannot list the kind")?;
        Ok(Bench {
            admin,
            kind,
            namespace,
            launch,
            lease: lease.into(),
            api,
            n: args.objects,
            concurrency: args.concurrency,
            page: args.page,
            patient: Duration::from_secs(60) + Duration::from_millis(50) * args.objects as u32,
        })
    }

    /// The writes the API server counted so far.
    async fn writes(&self) -> anyhow::Result<Writes> {
        writes(&self.admin, &self.kind.group, &self.kind.plural).await
    }

    /// The manager with no object: elected, its watches synced; and its RSS.
    async fn empty_manager(&self) -> anyhow::Result<(Manager, u64)> {
        let mut manager = Manager::spawn(&self.launch, "manager")?;
        lease::held(&self.admin, &self.namespace, &self.lease, self.patient).await?;
        manager.wait(Until::Ready, self.patient).await?;
        tokio::time::sleep(Duration::from_secs(1)).await;
        let rss = manager.memory()?.rss;
        Ok((manager, rss))
    }

    /// Creates N objects while `manager` makes them Ready, then stops it.
    async fn operator(&self, manager: Manager) -> anyhow::Result<Operator> {
        eprintln!("scale: the operator makes {} objects Ready", self.n);
        let before = self.writes().await?;
        let reviews = apiserver::reviews(&self.admin).await?;
        let mut ready = ReadyWatch::start(self.api.clone(), OPERATOR);
        let started = Instant::now();
        workload::create(&self.api, &self.kind, OPERATOR, self.n, self.concurrency).await?;
        let created = started.elapsed();
        ready.all(self.n, self.patient).await?;
        let ready_in = started.elapsed();
        // Writes that trail Ready count too.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let writes = self.writes().await? - before;
        let reviews = apiserver::reviews(&self.admin).await?.since(&reviews).count;
        let rss_peak = manager.memory()?.peak;
        let served = workload::read(
            &self.api,
            &self.kind,
            &self.kind.storage,
            OPERATOR,
            self.page,
        )
        .await?;
        manager.stop().await?;
        Ok(Operator {
            created,
            ready: ready_in,
            writes,
            reviews,
            rss_peak,
            served,
        })
    }

    /// A manager started again with every object Ready: how soon it works, and that it
    /// writes nothing.
    async fn restart(&self) -> anyhow::Result<Restart> {
        eprintln!("scale: a restarted manager resyncs them");
        let before = self.writes().await?;
        let mut manager = Manager::spawn(&self.launch, "manager-restarted")?;
        let first_reconcile = manager.wait(Until::Reconciled(1), self.patient).await?;
        let all_seen = manager.wait(Until::Ready, self.patient).await?;
        let all_reconciled = manager
            .wait(Until::Reconciled(self.n as u64), self.patient)
            .await?;
        tokio::time::sleep(Duration::from_secs(2)).await;
        let writes = self.writes().await? - before;
        let rss = manager.memory()?.rss;
        manager.stop().await?;
        Ok(Restart {
            first_reconcile,
            all_seen,
            all_reconciled,
            writes,
            rss,
        })
    }

    /// The floor: N more objects made Ready by a plain client, `finalizers` and `status`
    /// written as the operator wrote them; how long, and the writes counted.
    async fn floor(
        &self,
        finalizers: &[String],
        status: &serde_json::Value,
    ) -> anyhow::Result<(Duration, Writes)> {
        eprintln!(
            "scale: the floor, a plain client, makes {} more Ready",
            self.n
        );
        let before = self.writes().await?;
        let mut ready = ReadyWatch::start(self.api.clone(), FLOOR);
        let started = Instant::now();
        let (n, concurrency) = (self.n, self.concurrency);
        workload::floor(
            &self.api,
            &self.kind,
            FLOOR,
            n,
            concurrency,
            finalizers,
            status,
        )
        .await?;
        ready.all(n, self.patient).await?;
        let floor = started.elapsed();
        let writes = self.writes().await? - before;
        let expected = (n * (2 + finalizers.len().min(1))) as u64;
        anyhow::ensure!(
            writes.kind == expected,
            "the floor's run wrote {} times to {}, not {expected}: did a manager reconcile its objects?",
            writes.kind,
            self.kind.plural
        );
        Ok((floor, writes))
    }
}
