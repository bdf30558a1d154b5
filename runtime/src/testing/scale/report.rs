//! What a run measured, as a Markdown table and one line for scripts.

use std::time::Duration;

use super::apiserver::Reviews;

/// What one run measured.
pub struct Figures {
    pub kind: String,
    pub n: usize,
    pub concurrency: usize,
    pub finalizers: usize,
    pub created: Duration,
    pub ready: Duration,
    pub floor: Duration,
    pub writes_per_object: f64,
    pub events_per_object: f64,
    pub floor_writes_per_object: f64,
    pub resync_writes: u64,
    pub rss_empty: u64,
    pub rss_peak: u64,
    pub json: u64,
    pub rss_restarted: u64,
    pub first_reconcile: Duration,
    pub all_seen: Duration,
    pub all_reconciled: Duration,
    pub conversion: Option<Conversion>,
    /// Conversion reviews the API server sent while the operator's objects were written.
    pub write_reviews: u64,
}

/// Reading every object at a version the webhook converts to.
pub struct Conversion {
    pub version: String,
    pub storage: String,
    pub page_objects: usize,
    pub page_bytes: usize,
    pub rss: u64,
    pub peak: u64,
    pub reviews: Reviews,
    pub converted: Vec<Duration>,
    pub stored: Vec<Duration>,
}

/// `/proc/loadavg`'s three load averages.
pub fn loadavg() -> String {
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
    pub fn table(&self, load: &str, after: &str) -> String {
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
            ("objects' JSON as kubectl prints".into(), mib(self.json)),
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
            for (version, how, pages) in [
                (&c.version, "converted", &c.converted),
                (&c.storage, "stored", &c.stored),
            ] {
                rows.push((
                    format!("page latency p50 / p99, {version} ({how})"),
                    format!(
                        "{} / {} ms ({} pages)",
                        ms(pages, 0.5),
                        ms(pages, 0.99),
                        pages.len()
                    ),
                ));
            }
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
    pub fn summary(&self) -> String {
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
