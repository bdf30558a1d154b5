//! What the benchmark does to the API server: creates a run's objects at a fixed
//! concurrency, watches them become Ready, writes what Ready needs as a plain client
//! would (the floor), and reads them back in pages.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use futures::{StreamExt as _, TryStreamExt as _};
use kube::api::{Api, DynamicObject, ListParams, Patch, PatchParams, PostParams, TypeMeta};
use kube::runtime::{WatchStreamExt as _, watcher};
use serde_json::{Value, json};
use tokio::sync::watch;

use super::kind::{Kind, RUN_LABEL, is_ready};

/// Creates objects `0..n` of `run`, `concurrency` requests at a time.
pub async fn create(
    api: &Api<DynamicObject>,
    kind: &Kind,
    run: &str,
    n: usize,
    concurrency: usize,
) -> anyhow::Result<()> {
    futures::stream::iter(0..n)
        .map(|index| async move {
            let object = kind.object(run, index)?;
            api.create(&PostParams::default(), &object)
                .await
                .with_context(|| format!("cannot create {run}-{index:05}"))?;
            anyhow::Ok(())
        })
        .buffer_unordered(concurrency)
        .try_collect::<()>()
        .await
}

/// The floor: creates objects `0..n` of `run` and writes, as a plain client, what makes
/// each Ready: `finalizers` (when the kind keeps some), then `status`, for each object
/// one after the other, `concurrency` objects at a time.
pub async fn floor(
    api: &Api<DynamicObject>,
    kind: &Kind,
    run: &str,
    n: usize,
    concurrency: usize,
    finalizers: &[String],
    status: &Value,
) -> anyhow::Result<()> {
    let params = PatchParams::apply("scale-floor").force();
    futures::stream::iter(0..n)
        .map(|index| {
            let params = &params;
            async move {
                let object = kind.object(run, index)?;
                let created = api.create(&PostParams::default(), &object).await?;
                let name = created.metadata.name.clone().unwrap_or_default();
                if !finalizers.is_empty() {
                    let patch = json!({"metadata": {"finalizers": finalizers}});
                    api.patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
                        .await?;
                }
                let status = observing(status, created.metadata.generation);
                let patch = json!({
                    "apiVersion": created.types.as_ref().map(|t| t.api_version.clone()),
                    "kind": kind.name,
                    "status": status,
                });
                api.patch_status(&name, params, &Patch::Apply(&patch))
                    .await?;
                anyhow::Ok(())
            }
        })
        .buffer_unordered(concurrency)
        .try_collect::<()>()
        .await
}

/// `status` as the operator wrote it, for `generation`.
fn observing(status: &Value, generation: Option<i64>) -> Value {
    let mut status = status.clone();
    if status.get("observedGeneration").is_some() {
        status["observedGeneration"] = json!(generation);
    }
    for condition in status["conditions"].as_array_mut().into_iter().flatten() {
        if condition.get("observedGeneration").is_some() {
            condition["observedGeneration"] = json!(generation);
        }
    }
    status
}

/// A watch of one run's objects that counts those that are Ready.
pub struct ReadyWatch {
    ready: watch::Receiver<usize>,
}

impl ReadyWatch {
    /// Watches the objects of `run` from now on.
    pub fn start(api: Api<DynamicObject>, run: &str) -> ReadyWatch {
        let (sender, ready) = watch::channel(0);
        let config = watcher::Config::default().labels(&format!("{RUN_LABEL}={run}"));
        tokio::spawn(async move {
            let mut seen = BTreeSet::new();
            let mut objects =
                std::pin::pin!(watcher(api, config).default_backoff().applied_objects());
            while let Some(object) = objects.next().await {
                let Ok(object) = object else { continue };
                if is_ready(&object) && seen.insert(object.metadata.name.unwrap_or_default()) {
                    let _ = sender.send(seen.len());
                }
            }
        });
        ReadyWatch { ready }
    }

    /// Waits until `n` objects are Ready, for at most `timeout`.
    pub async fn all(&mut self, n: usize, timeout: Duration) -> anyhow::Result<()> {
        let waited = tokio::time::timeout(timeout, self.ready.wait_for(|ready| *ready >= n))
            .await
            .map(|ready| ready.is_ok());
        match waited {
            Ok(true) => Ok(()),
            Ok(false) => anyhow::bail!("the watch of the objects ended"),
            Err(_) => anyhow::bail!(
                "only {} of {n} objects Ready within {timeout:?}",
                *self.ready.borrow()
            ),
        }
    }
}

/// One read of a run's objects, page by page.
pub struct Pages {
    /// How long each page took.
    pub latencies: Vec<Duration>,
    /// The JSON size of each object as `kubectl get -o json` prints it: `apiVersion` and
    /// `kind` included, `managedFields` left out (kubectl has hidden them since 1.21).
    pub sizes: Vec<usize>,
    /// The JSON size of the largest page's objects as served, `managedFields` included (a
    /// conversion review carries them), and how many it held.
    pub largest_page: (usize, usize),
    /// The objects' finalizers, and the first one's status.
    pub finalizers: BTreeSet<String>,
    pub status: Value,
}

/// Reads every object of `run` at `version`, `page` at a time.
pub async fn read(
    api: &Api<DynamicObject>,
    kind: &Kind,
    version: &str,
    run: &str,
    page: u32,
) -> anyhow::Result<Pages> {
    let mut pages = Pages {
        latencies: Vec::new(),
        sizes: Vec::new(),
        largest_page: (0, 0),
        finalizers: BTreeSet::new(),
        status: Value::Null,
    };
    let selector = format!("{RUN_LABEL}={run}");
    let mut token: Option<String> = None;
    loop {
        let mut params = ListParams::default().labels(&selector).limit(page);
        if let Some(token) = &token {
            params = params.continue_token(token);
        }
        let started = Instant::now();
        let list = api.list(&params).await.context("cannot list the objects")?;
        pages.latencies.push(started.elapsed());
        let mut page_size = 0;
        let objects = list.items.len();
        for mut object in list.items {
            if pages.status.is_null() {
                pages.status = object.data["status"].clone();
            }
            pages
                .finalizers
                .extend(object.metadata.finalizers.clone().unwrap_or_default());
            object.types = Some(TypeMeta {
                api_version: format!("{}/{version}", kind.group),
                kind: kind.name.clone(),
            });
            let (served, printed) = json_sizes(&mut object)?;
            page_size += served;
            pages.sizes.push(printed);
        }
        pages.largest_page = pages.largest_page.max((page_size, objects));
        token = list.metadata.continue_.filter(|t| !t.is_empty());
        if token.is_none() {
            return Ok(pages);
        }
    }
}

/// The JSON size of `object` as served, and as `kubectl get -o json` prints it: without
/// `managedFields`, which kubectl has hidden since 1.21 (kubernetes/kubernetes#96878).
/// Leaves `object` without them.
fn json_sizes(object: &mut DynamicObject) -> serde_json::Result<(usize, usize)> {
    let served = serde_json::to_vec(object)?.len();
    object.metadata.managed_fields = None;
    Ok((served, serde_json::to_vec(object)?.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_is_measured_as_kubectl_prints_it_without_managed_fields() {
        let printed = json!({
            "apiVersion": "example.com/v1",
            "kind": "Thing",
            "metadata": {"name": "a", "namespace": "b"},
            "spec": {"size": 3},
        });
        let mut served = printed.clone();
        served["metadata"]["managedFields"] =
            json!([{"manager": "kubectl", "operation": "Apply", "fieldsType": "FieldsV1"}]);
        let mut object: DynamicObject = serde_json::from_value(served.clone()).unwrap();
        let sizes = json_sizes(&mut object).unwrap();
        let length = |value: &Value| serde_json::to_vec(value).unwrap().len();
        assert_eq!(sizes, (length(&served), length(&printed)));
    }
}
