//! The scale benchmark every project carries (`benches/scale.rs`, `make bench-scale`):
//! the project's manager, as its own process, against a real API server (the envtest
//! control plane of [`super::control_plane`]) with N objects of one kind.
//!
//! One run measures, on the same control plane:
//! - **time to all Ready** while the benchmark creates N objects at a fixed concurrency,
//!   against the **floor**: a plain client creating N more and writing only what Ready
//!   needs (the finalizer where the kind keeps one, then the status), at the same
//!   concurrency, while a manager that is not the leader serves the webhooks;
//! - **writes**, counted by the API server (`apiserver_request_total`): to the kind until
//!   all are Ready, and during a full resync (a restarted manager reconciles every
//!   unchanged object; goal 0);
//! - **memory**: the manager's peak RSS with N objects cached, over their JSON as served;
//! - **startup** with N objects: from process start to the first reconciliation, to all
//!   objects seen (paged LIST, then watch: `/readyz`), and to all reconciled;
//! - **conversion**, for a kind the conversion webhook converts: N objects read at
//!   another version in pages, the manager's peak RSS over one page, and the pages'
//!   latency beside the same reads at the storage version.
//!
//! It prints a Markdown table, then one line for scripts:
//! `scale: n=<N> finalizer=<yes|no> ready_over_floor=<ratio> writes_per_object=<x>
//! resync_writes=<n> rss_over_json=<ratio> startup_s=<s>`.

mod apiserver;
mod kind;
mod process;
mod workload;

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::Parser;
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use kube::Client;
use kube::api::{Api, ListParams, ObjectMeta, Patch, PatchParams};
use serde_json::json;

use self::apiserver::{Reviews, writes};
use self::kind::Kind;
use self::process::{Launch, Manager, Until};
use self::workload::{Pages, ReadyWatch};
use super::control_plane::{ControlPlane, Environment, manager_user};

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

/// What one run measured.
struct Figures {
    kind: String,
    n: usize,
    concurrency: usize,
    finalizers: usize,
    created: Duration,
    ready: Duration,
    floor: Duration,
    writes_per_object: f64,
    events_per_object: f64,
    floor_writes_per_object: f64,
    resync_writes: u64,
    rss_empty: u64,
    rss_peak: u64,
    json: u64,
    rss_restarted: u64,
    first_reconcile: Duration,
    all_seen: Duration,
    all_reconciled: Duration,
    conversion: Option<Conversion>,
    /// Conversion reviews the API server sent while the operator's objects were written.
    write_reviews: u64,
}

/// Reading every object at a version the webhook converts to.
struct Conversion {
    version: String,
    storage: String,
    page_objects: usize,
    page_bytes: usize,
    rss: u64,
    peak: u64,
    reviews: Reviews,
    converted: Vec<Duration>,
    stored: Vec<Duration>,
}

/// The run's label and the objects' name prefix.
const OPERATOR: &str = "operator";
const FLOOR: &str = "floor";
/// Where `create api --from-crd` keeps the CRDs of kinds the project does not own.
const EXTERNAL_CRDS: &str = "config/external-crds";
/// How many times the conversion reads every object, for enough pages to take a p99 of.
const READS: usize = 3;

async fn measure(
    control_plane: &ControlPlane,
    args: &Args,
    binary: &Path,
    lease: &str,
) -> anyhow::Result<Figures> {
    let n = args.objects;
    let admin = control_plane.admin().await;
    let kind = Kind::find(control_plane, args.kind.as_deref())?;
    eprintln!(
        "scale: {n} {} ({}/{}), {} at a time",
        kind.name, kind.group, kind.storage, args.concurrency
    );
    let namespace = control_plane.namespace("scale").await;
    let user = manager_user(&namespace);
    control_plane
        .grant_manager_role(&user, &namespace, |_| {})
        .await;
    let project = control_plane.project();
    let webhooks = if project.join("config/webhook/service.yaml").exists() {
        let port = process::free_addr()?.port();
        Some((port, control_plane.serve_webhooks_at(port).await?))
    } else {
        None
    };
    let logs = std::env::temp_dir().join(format!("rsbuilder-scale-{}", std::process::id()));
    std::fs::create_dir_all(&logs)?;
    eprintln!("scale: the manager's logs are in {}", logs.display());
    let launch = Launch {
        binary: binary.to_path_buf(),
        wrap: args.wrap.clone(),
        kubeconfig: control_plane.kubeconfig_file(&user, &[]),
        watch_namespace: control_plane.manifest("config/rbac/role.yaml")["kind"] == "Role",
        namespace: namespace.clone(),
        webhooks,
        logs,
    };
    let patient = Duration::from_secs(60) + Duration::from_millis(50) * n as u32;
    let api = kind.api(&admin, &namespace, &kind.storage);
    let count = || writes(&admin, &kind.group, &kind.plural);
    // The API server fills its cache of a kind on the first request: not in a timed run.
    api.list(&ListParams::default().limit(1))
        .await
        .context("cannot list the kind")?;

    // The empty manager: elected, its watches synced.
    let mut manager = Manager::spawn(&launch, "manager")?;
    if let Some(wrapper) = &args.wrap {
        eprintln!("scale: the manager runs under {wrapper}");
    }
    held(&admin, &namespace, lease, patient).await?;
    manager.wait(Until::Ready, patient).await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss_empty = manager.memory()?.rss;

    eprintln!("scale: the operator makes {n} objects Ready");
    let before = count().await?;
    let reviews_before = apiserver::reviews(&admin).await?;
    let mut ready = ReadyWatch::start(api.clone(), OPERATOR);
    let started = Instant::now();
    workload::create(&api, &kind, OPERATOR, n, args.concurrency).await?;
    let created = started.elapsed();
    ready.all(n, patient).await?;
    let ready_in = started.elapsed();
    // Writes that trail Ready count too.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let operator = count().await? - before;
    let write_reviews = apiserver::reviews(&admin)
        .await?
        .since(&reviews_before)
        .count;
    let rss_peak = manager.memory()?.peak;
    let served = workload::read(&api, &kind, &kind.storage, OPERATOR, args.page).await?;

    eprintln!("scale: a restarted manager resyncs them");
    manager.stop().await?;
    let before = count().await?;
    let mut manager = Manager::spawn(&launch, "manager-restarted")?;
    let first_reconcile = manager.wait(Until::Reconciled(1), patient).await?;
    let all_seen = manager.wait(Until::Ready, patient).await?;
    let all_reconciled = manager.wait(Until::Reconciled(n as u64), patient).await?;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let resync = count().await? - before;
    let rss_restarted = manager.memory()?.rss;

    // From here on a manager that does not lead serves the webhooks: no controller runs,
    // so it caches nothing, and its memory is the webhooks'.
    manager.stop().await?;
    hold(&admin, &namespace, lease).await?;
    let mut webhook_server = Manager::spawn(&launch, "manager-not-leading")?;
    webhook_server.wait(Until::Ready, patient).await?;
    let conversion = match &kind.converted {
        Some(version) => {
            eprintln!("scale: the webhook converts them to {version}, a page at a time");
            let server = &webhook_server;
            Some(conversion(&admin, &kind, &namespace, version, server, args.page).await?)
        }
        None => None,
    };

    eprintln!("scale: the floor, a plain client, makes {n} more Ready");
    let before = count().await?;
    let mut ready = ReadyWatch::start(api.clone(), FLOOR);
    let started = Instant::now();
    let finalizers: Vec<String> = served.finalizers.iter().cloned().collect();
    workload::floor(
        &api,
        &kind,
        FLOOR,
        n,
        args.concurrency,
        &finalizers,
        &served.status,
    )
    .await?;
    ready.all(n, patient).await?;
    let floor = started.elapsed();
    let floor_writes = count().await? - before;
    webhook_server.stop().await?;
    let expected = (n * (2 + finalizers.len().min(1))) as u64;
    anyhow::ensure!(
        floor_writes.kind == expected,
        "the floor's run wrote {} times to {}, not {expected}: did a manager reconcile its objects?",
        floor_writes.kind,
        kind.plural
    );

    let per_object = |writes: u64| writes as f64 / n as f64;
    Ok(Figures {
        kind: kind.name.clone(),
        n,
        concurrency: args.concurrency,
        finalizers: finalizers.len(),
        created,
        ready: ready_in,
        floor,
        // The benchmark's own creates are not the operator's.
        writes_per_object: per_object(operator.kind.saturating_sub(n as u64)),
        events_per_object: per_object(operator.events),
        floor_writes_per_object: per_object(floor_writes.kind.saturating_sub(n as u64)),
        resync_writes: resync.kind + resync.events,
        rss_empty,
        rss_peak,
        json: served.sizes.iter().sum::<usize>() as u64,
        rss_restarted,
        first_reconcile,
        all_seen,
        all_reconciled,
        conversion,
        write_reviews,
    })
}

/// Waits until the manager holds the Lease `name`.
async fn held(
    admin: &Client,
    namespace: &str,
    name: &str,
    timeout: Duration,
) -> anyhow::Result<()> {
    let leases: Api<Lease> = Api::namespaced(admin.clone(), namespace);
    let started = Instant::now();
    loop {
        let holder = leases
            .get_opt(name)
            .await?
            .and_then(|lease| lease.spec?.holder_identity)
            .filter(|holder| !holder.is_empty());
        if holder.is_some() {
            return Ok(());
        }
        anyhow::ensure!(
            started.elapsed() < timeout,
            "no manager leads within {timeout:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Takes the Lease `name` for an hour, so that a manager started now serves its webhooks
/// but runs no controller.
async fn hold(admin: &Client, namespace: &str, name: &str) -> anyhow::Result<()> {
    let leases: Api<Lease> = Api::namespaced(admin.clone(), namespace);
    let now = MicroTime(Timestamp::now());
    let lease = Lease {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..ObjectMeta::default()
        },
        spec: Some(LeaseSpec {
            holder_identity: Some("scale-benchmark".into()),
            lease_duration_seconds: Some(3600),
            acquire_time: Some(now.clone()),
            renew_time: Some(now),
            ..LeaseSpec::default()
        }),
    };
    leases
        .patch(
            name,
            &PatchParams::apply("scale-benchmark").force(),
            &Patch::Apply(&lease),
        )
        .await
        .context("cannot take the leader election Lease")?;
    Ok(())
}

/// What conversion costs where the API server asks for it. It converts when it stores an
/// object's new version in the watch cache it keeps for each served version (one object a
/// review), and when it fills such a cache: all objects at once, when it starts and each
/// time a CRD's spec changes. Reads are served from the cache. So the CRD's spec changes,
/// and every object is read at `version` in pages, [`READS`] times, while the API server
/// fills the caches through the webhooks of `manager`; then as many times at the storage
/// version, for the latency beside.
async fn conversion(
    admin: &Client,
    kind: &Kind,
    namespace: &str,
    version: &str,
    manager: &Manager,
    page: u32,
) -> anyhow::Result<Conversion> {
    let converted_api = kind.api(admin, namespace, version);
    let stored_api = kind.api(admin, namespace, &kind.storage);
    let crds: Api<CustomResourceDefinition> = Api::all(admin.clone());
    manager.reset_peak()?;
    let rss = manager.memory()?.rss;
    let before = apiserver::reviews(admin).await?;
    // The API server builds its caches of a CRD again when its spec changes. Listing a
    // second review version changes nothing else: it sends the first, v1.
    let reload = json!({"spec": {"conversion": {"webhook": {
        "conversionReviewVersions": ["v1", "v1beta1"],
    }}}});
    crds.patch(
        &kind.crd_name(),
        &PatchParams::default(),
        &Patch::Merge(&reload),
    )
    .await
    .context("cannot change the CRD")?;
    let mut converted: Vec<Pages> = Vec::new();
    for _ in 0..READS {
        converted.push(workload::read(&converted_api, kind, version, OPERATOR, page).await?);
    }
    // Caches of other versions may still be filling.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let peak = manager.memory()?.peak;
    let reviews = apiserver::reviews(admin).await?.since(&before);
    anyhow::ensure!(
        reviews.count > 0,
        "the API server sent no conversion review after the CRD's spec changed"
    );
    let mut stored = Vec::new();
    for _ in 0..READS {
        let pages = workload::read(&stored_api, kind, &kind.storage, OPERATOR, page).await?;
        stored.extend(pages.latencies);
    }
    let (page_bytes, page_objects) = converted
        .iter()
        .map(|p| p.largest_page)
        .max()
        .unwrap_or_default();
    Ok(Conversion {
        version: version.into(),
        storage: kind.storage.clone(),
        page_objects,
        page_bytes,
        rss,
        peak,
        reviews,
        converted: converted.into_iter().flat_map(|p| p.latencies).collect(),
        stored,
    })
}

/// `/proc/loadavg`'s three load averages.
fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| text.split(' ').take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

const MIB: f64 = 1024.0 * 1024.0;

impl Figures {
    fn ready_over_floor(&self) -> f64 {
        self.ready.as_secs_f64() / self.floor.as_secs_f64()
    }

    fn rss_over_json(&self) -> f64 {
        self.rss_peak.saturating_sub(self.rss_empty) as f64 / self.json as f64
    }

    /// The Markdown table of every figure, `load` and `after` the machine's load
    /// averages at the start and the end.
    fn table(&self, load: &str, after: &str) -> String {
        let goal_writes = if self.finalizers > 0 { 2 } else { 1 };
        let mib = |bytes: u64| format!("{:.1} MiB", bytes as f64 / MIB);
        let s = |d: Duration| format!("{:.2} s", d.as_secs_f64());
        let mut rows = vec![
            (
                "objects".into(),
                format!("{} {}, {} at a time", self.n, self.kind, self.concurrency),
            ),
            ("finalizer".into(), self.finalizer().into()),
            ("all created".into(), s(self.created)),
            ("all Ready, operator".into(), s(self.ready)),
            ("all Ready, floor".into(), s(self.floor)),
            (
                "operator / floor (goal ≤ 1.5)".into(),
                format!("{:.2}", self.ready_over_floor()),
            ),
            (
                format!("writes per object until Ready (goal {goal_writes})"),
                format!("{:.2}", self.writes_per_object),
            ),
            (
                "Events written per object".into(),
                format!("{:.2}", self.events_per_object),
            ),
            (
                "floor's writes per object".into(),
                format!("{:.2}", self.floor_writes_per_object),
            ),
            (
                "writes during a full resync (goal 0)".into(),
                self.resync_writes.to_string(),
            ),
            ("manager RSS, empty".into(), mib(self.rss_empty)),
            ("manager peak RSS, N cached".into(), mib(self.rss_peak)),
            ("objects' JSON as served".into(), mib(self.json)),
            (
                "(peak − empty) / JSON (goal ≤ 2)".into(),
                format!("{:.2}", self.rss_over_json()),
            ),
            (
                "restarted manager RSS, N cached".into(),
                mib(self.rss_restarted),
            ),
            (
                "startup: first reconciliation".into(),
                s(self.first_reconcile),
            ),
            (
                "startup: all seen (paged LIST, watch)".into(),
                s(self.all_seen),
            ),
            ("startup: all reconciled".into(), s(self.all_reconciled)),
        ];
        if let Some(c) = &self.conversion {
            let ms =
                |d: &[Duration], q: f64| format!("{:.1}", percentile(d, q).as_secs_f64() * 1e3);
            rows.push((
                format!("conversion to {}: largest page", c.version),
                format!(
                    "{} objects, {:.1} KiB",
                    c.page_objects,
                    c.page_bytes as f64 / 1024.0
                ),
            ));
            let growth = c.peak.saturating_sub(c.rss);
            rows.push((
                "conversion: webhook server's RSS before, peak".into(),
                format!("{}, {}", mib(c.rss), mib(c.peak)),
            ));
            rows.push((
                "conversion: (peak − before) / largest page, / all N objects".into(),
                format!(
                    "{:.1}, {:.2}",
                    growth as f64 / c.page_bytes as f64,
                    growth as f64 / self.json as f64
                ),
            ));
            let bound = |q| {
                c.reviews
                    .quantile_bound(q)
                    .map_or("none".into(), |s: f64| format!("≤ {:.0} ms", s * 1e3))
            };
            rows.push((
                "conversion reviews after a CRD change: count, p50, p99 (API server's buckets)"
                    .into(),
                format!("{}, {}, {}", c.reviews.count, bound(0.5), bound(0.99)),
            ));
            rows.push((
                format!("page latency p50 / p99, {} (converted)", c.version),
                format!(
                    "{} / {} ms ({} pages)",
                    ms(&c.converted, 0.5),
                    ms(&c.converted, 0.99),
                    c.converted.len()
                ),
            ));
            rows.push((
                format!("page latency p50 / p99, {} (stored)", c.storage),
                format!(
                    "{} / {} ms ({} pages)",
                    ms(&c.stored, 0.5),
                    ms(&c.stored, 0.99),
                    c.stored.len()
                ),
            ));
        }
        if self.conversion.is_some() {
            rows.push((
                "conversion reviews per object, operator's run".into(),
                format!("{:.2}", self.write_reviews as f64 / self.n as f64),
            ));
        }
        rows.push((
            "load average, start / end".into(),
            format!("{load} / {after}"),
        ));
        let mut table = String::from("| figure | value |\n|---|---|\n");
        for (figure, value) in rows {
            table.push_str(&format!("| {figure} | {value} |\n"));
        }
        table
    }

    fn finalizer(&self) -> &'static str {
        if self.finalizers > 0 { "yes" } else { "no" }
    }

    /// The line for scripts.
    fn summary(&self) -> String {
        format!(
            "scale: n={} finalizer={} ready_over_floor={:.2} writes_per_object={:.2} resync_writes={} rss_over_json={:.2} startup_s={:.2}",
            self.n,
            self.finalizer(),
            self.ready_over_floor(),
            self.writes_per_object,
            self.resync_writes,
            self.rss_over_json(),
            self.all_seen.as_secs_f64(),
        )
    }
}

/// The `q` quantile of `durations`, nearest rank.
fn percentile(durations: &[Duration], q: f64) -> Duration {
    let mut sorted = durations.to_vec();
    sorted.sort();
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len().max(1));
    sorted.get(rank - 1).copied().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_percentile_is_the_nearest_rank() {
        let ms = |n| Duration::from_millis(n);
        let durations: Vec<Duration> = (1..=100).rev().map(ms).collect();
        assert_eq!(percentile(&durations, 0.5), ms(50));
        assert_eq!(percentile(&durations, 0.99), ms(99));
        assert_eq!(percentile(&[ms(7)], 0.99), ms(7));
        assert_eq!(percentile(&[], 0.99), Duration::ZERO);
    }
}
