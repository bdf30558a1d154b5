//! What the API server counted: its `apiserver_request_total`, read from its `/metrics`,
//! so that writes are counted where they land, whoever made them.

use anyhow::Context as _;
use kube::Client;

/// The verbs of `apiserver_request_total` that write (`APPLY` is server-side apply).
const WRITES: [&str; 6] = [
    "POST",
    "PUT",
    "PATCH",
    "APPLY",
    "DELETE",
    "DELETECOLLECTION",
];

/// Writes the API server has served so far.
#[derive(Clone, Copy, Debug, Default)]
pub struct Writes {
    /// To the measured kind's resource and its subresources (the status).
    pub kind: u64,
    /// To Events, of either API group.
    pub events: u64,
}

impl std::ops::Sub for Writes {
    type Output = Writes;

    fn sub(self, earlier: Writes) -> Writes {
        Writes {
            kind: self.kind - earlier.kind,
            events: self.events - earlier.events,
        }
    }
}

/// The writes counted so far to `group`'s `plural`, and to Events.
pub async fn writes(admin: &Client, group: &str, plural: &str) -> anyhow::Result<Writes> {
    let text = metrics(admin).await?;
    let mut writes = Writes::default();
    for (labels, value) in samples(&text, "apiserver_request_total") {
        let value = value as u64;
        if !WRITES.contains(&label(labels, "verb")) {
            continue;
        }
        let resource = label(labels, "resource");
        if resource == plural && label(labels, "group") == group {
            writes.kind += value;
        } else if resource == "events" {
            writes.events += value;
        }
    }
    Ok(writes)
}

/// The conversion reviews the API server sent to webhooks so far, as it timed them
/// (`apiserver_crd_conversion_webhook_duration_seconds`, every CRD and version).
#[derive(Clone, Debug, Default)]
pub struct Reviews {
    /// How many.
    pub count: u64,
    /// How many took at most each bucket's bound, in seconds, by bound.
    buckets: Vec<(f64, u64)>,
}

impl Reviews {
    /// The bound of the first bucket that holds the `q` quantile of the reviews: an upper
    /// bound of that quantile, as coarse as the API server's buckets.
    pub fn quantile_bound(&self, q: f64) -> Option<f64> {
        let rank = (q * self.count as f64).ceil() as u64;
        self.buckets
            .iter()
            .find(|(_, count)| *count >= rank.max(1))
            .map(|(bound, _)| *bound)
    }

    /// The reviews since `earlier`.
    pub fn since(&self, earlier: &Reviews) -> Reviews {
        let before = |bound: f64| {
            earlier
                .buckets
                .iter()
                .find(|(b, _)| *b == bound)
                .map_or(0, |(_, count)| *count)
        };
        Reviews {
            count: self.count - earlier.count,
            buckets: self
                .buckets
                .iter()
                .map(|(b, c)| (*b, c - before(*b)))
                .collect(),
        }
    }
}

const REVIEWS: &str = "apiserver_crd_conversion_webhook_duration_seconds";

/// The conversion reviews counted so far.
pub async fn reviews(admin: &Client) -> anyhow::Result<Reviews> {
    let text = metrics(admin).await?;
    let mut reviews = Reviews::default();
    for (labels, value) in samples(&text, &format!("{REVIEWS}_bucket")) {
        let bound = label(labels, "le");
        let bound = if bound == "+Inf" {
            f64::INFINITY
        } else {
            bound.parse()?
        };
        match reviews.buckets.iter_mut().find(|(b, _)| *b == bound) {
            Some((_, count)) => *count += value as u64,
            None => reviews.buckets.push((bound, value as u64)),
        }
    }
    reviews.buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
    reviews.count = samples(&text, &format!("{REVIEWS}_count"))
        .map(|(_, n)| n as u64)
        .sum();
    Ok(reviews)
}

async fn metrics(admin: &Client) -> anyhow::Result<String> {
    let request = http::Request::get("/metrics").body(Vec::new())?;
    admin
        .request_text(request)
        .await
        .context("cannot read the API server's /metrics")
}

/// The samples of `metric` in Prometheus' text format: each one's labels (the text
/// between the braces) and value.
pub fn samples<'a>(text: &'a str, metric: &'a str) -> impl Iterator<Item = (&'a str, f64)> {
    text.lines().filter_map(move |line| {
        let rest = line.strip_prefix(metric)?.strip_prefix('{')?;
        let (labels, value) = rest.rsplit_once("} ")?;
        // Counters print as integers, or as floats in exponent form once large.
        Some((labels, value.trim().parse().ok()?))
    })
}

/// The value of label `name` in `labels` (`a="x",b="y"`); empty when it has none.
fn label<'a>(labels: &'a str, name: &str) -> &'a str {
    labels
        .split(',')
        .filter_map(|pair| pair.split_once('='))
        .find(|(key, _)| *key == name)
        .map_or("", |(_, value)| value.trim_matches('"'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_and_labels_are_read_from_the_text_format() {
        let text = "# HELP apiserver_request_total x\n\
            apiserver_request_total{code=\"201\",group=\"batch.example.com\",resource=\"cronjobs\",verb=\"POST\"} 12\n\
            apiserver_request_total{code=\"200\",group=\"\",resource=\"events\",verb=\"APPLY\"} 1.5e+06\n\
            apiserver_request_total_other{verb=\"POST\"} 3\n";
        let read: Vec<_> = samples(text, "apiserver_request_total").collect();
        assert_eq!(read.len(), 2);
        assert_eq!(label(read[0].0, "resource"), "cronjobs");
        assert_eq!(label(read[0].0, "verb"), "POST");
        assert_eq!(read[0].1, 12.0);
        assert_eq!(read[1].1, 1_500_000.0);
        assert_eq!(label(read[1].0, "subresource"), "");
    }

    #[test]
    fn a_quantile_is_bounded_by_the_first_bucket_that_holds_it() {
        let earlier = Reviews {
            count: 10,
            buckets: vec![(0.005, 10), (0.01, 10), (f64::INFINITY, 10)],
        };
        let now = Reviews {
            count: 110,
            buckets: vec![(0.005, 60), (0.01, 108), (f64::INFINITY, 110)],
        };
        let since = now.since(&earlier);
        assert_eq!(since.count, 100);
        assert_eq!(since.quantile_bound(0.5), Some(0.005));
        assert_eq!(since.quantile_bound(0.99), Some(f64::INFINITY));
        assert_eq!(since.quantile_bound(0.98), Some(0.01));
    }
}
