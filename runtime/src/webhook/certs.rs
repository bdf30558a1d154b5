//! The webhook server's certificate when the manager issues it itself
//! (`--webhook-certs self`, set by `config/default/manager_webhook_patch.yaml`).
//!
//! Every replica runs [`run`] (which [`super::start`] spawns): it makes sure the Secret [`SECRET`] in its namespace holds
//! a CA and a serving certificate for the webhook Service's DNS names, renews them before
//! they expire, writes the serving pair where the webhook server reads it
//! (`--webhook-cert-dir`, read again every few seconds), and injects the CA bundle into
//! this project's webhook configurations and conversion CRDs. Replicas agree through the
//! API server: the Secret is created once (the loser of the race reads the winner's) and
//! replaced with its `resourceVersion` (the loser of a conflict reads it again), never
//! issued by each replica on its own. `/readyz` fails until the bundle is injected and the
//! webhook server serves a certificate it trusts, and then follows what is served: a pass
//! that fails (the API server away) leaves a replica ready while the certificate it serves
//! is trusted by the bundle last injected.
//!
//! With `--metrics-cert-dir` (`config/prometheus` sets it), the metrics server's
//! certificate comes from the same CA: each replica issues its own for the metrics
//! Service's DNS names, and the CA bundle is published in the ConfigMap [`METRICS_CA`],
//! where Prometheus reads it without seeing the CA's key.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context as _, anyhow, bail};
use k8s_openapi::ByteString;
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{ObjectMeta, Patch, PatchParams, PostParams};
use kube::{Api, Client};
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose,
};
use serde_json::json;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::rustls::{ClientConfig, RootCertStore};
use tracing::{info, warn};

use crate::server::Readiness;
use crate::shutdown::Shutdown;
use crate::tls::{CERT_FILE, KEY_FILE};

/// The Secret, in the manager's namespace; `config/webhook-certs` lets the manager read
/// and replace this one only.
pub const SECRET: &str = "webhook-server-self-cert";
/// The keys of the Secret: the serving pair as in a `kubernetes.io/tls` Secret, the CA
/// bundle the webhook configurations get, and the key of the CA that signs.
pub const CA_BUNDLE_KEY: &str = "ca.crt";
/// The key of the Secret that holds the CA's private key.
pub const CA_KEY_KEY: &str = "ca.key";
/// The ConfigMap, in the manager's namespace, that publishes the CA bundle under
/// [`CA_BUNDLE_KEY`] for the metrics server's clients.
pub const METRICS_CA: &str = "metrics-ca";

/// Who issues the webhook server's certificate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// Read it from --webhook-cert-dir, where cert-manager's Secret is mounted
    #[default]
    Mounted,
    /// Issue it, keep it in a Secret, and inject its CA
    #[value(name = "self")]
    SelfIssued,
}

/// How long certificates live, and when they are renewed. Like cert-manager's default
/// (`renewBefore` a third of the duration), a certificate is renewed when a third of its
/// life is left, so a replica that misses a renewal has weeks to catch up.
#[derive(Clone, Copy, Debug)]
pub struct Lifetimes {
    /// The CA's.
    pub ca: Duration,
    /// The serving certificates'.
    pub serving: Duration,
}

impl Default for Lifetimes {
    fn default() -> Self {
        Self {
            ca: Duration::from_secs(5 * 365 * 24 * 3600),
            serving: Duration::from_secs(90 * 24 * 3600),
        }
    }
}

/// Everything [`run`] needs to know.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The field manager of the CA bundles this manager applies: `<project>-webhook-certs`.
    pub field_manager: String,
    /// The subject of the CA: `<project>-webhook-ca`.
    pub ca_name: String,
    /// The namespace of the manager, its Secret and the webhook Service.
    pub namespace: String,
    /// The Secret that keeps the CA and the serving certificate ([`SECRET`]).
    pub secret: String,
    /// The webhook Service, whose DNS names the serving certificate holds.
    pub service: String,
    /// The MutatingWebhookConfiguration that gets the CA bundle.
    pub mutating: Option<String>,
    /// The ValidatingWebhookConfiguration that gets the CA bundle.
    pub validating: Option<String>,
    /// The CRDs that convert through the webhook.
    pub conversion_crds: Vec<String>,
    /// Where the serving pair is written, which the webhook server reads.
    pub cert_dir: PathBuf,
    /// Where this replica's webhook server listens, to check what it serves.
    pub webhook_addr: SocketAddr,
    /// How long certificates live.
    pub lifetimes: Lifetimes,
    /// How often the Secret is read again once all is well.
    pub interval: Duration,
    /// The first delay after an error; it doubles up to `interval`.
    pub min_backoff: Duration,
    /// The metrics server's certificate, when this task issues it too.
    pub metrics: Option<MetricsCert>,
}

/// Where the metrics server's certificate goes, and the Service it is issued for (in the
/// namespace of the webhook Service).
#[derive(Clone, Debug)]
pub struct MetricsCert {
    /// The metrics Service, whose DNS names the certificate holds.
    pub service: String,
    /// Where the metrics server reads its certificate (`--metrics-cert-dir`).
    pub dir: PathBuf,
}

impl Settings {
    /// The settings of the manager's flags, with the default lifetimes and delays: the
    /// Secret is read again every minute, and a failure is retried after a second at
    /// first. `project` names the CA and the field manager.
    pub fn new(
        project: &str,
        namespace: String,
        service: String,
        cert_dir: PathBuf,
        webhook_port: u16,
    ) -> Self {
        Self {
            field_manager: format!("{project}-webhook-certs"),
            ca_name: format!("{project}-webhook-ca"),
            namespace,
            secret: SECRET.to_string(),
            service,
            mutating: None,
            validating: None,
            conversion_crds: Vec::new(),
            cert_dir,
            webhook_addr: SocketAddr::from(([127, 0, 0, 1], webhook_port)),
            lifetimes: Lifetimes::default(),
            interval: Duration::from_secs(60),
            min_backoff: Duration::from_secs(1),
            metrics: None,
        }
    }

    /// The DNS names the API server calls the webhook Service by.
    pub fn dns_names(&self) -> Vec<String> {
        service_dns_names(&self.service, &self.namespace)
    }
}

/// The DNS names of a Service inside the cluster.
pub fn service_dns_names(service: &str, namespace: &str) -> Vec<String> {
    let host = format!("{service}.{namespace}.svc");
    vec![host.clone(), format!("{host}.cluster.local")]
}

/// What the Secret holds, as PEM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stored {
    /// The CA that signs now, first, then older CAs that have not expired yet: a replica
    /// may still serve a certificate one of them signed.
    pub ca_bundle: String,
    /// The private key of the CA that signs now.
    pub ca_key: String,
    /// The serving certificate.
    pub cert: String,
    /// The serving certificate's private key.
    pub key: String,
}

impl Stored {
    fn from_secret(secret: &Secret) -> Option<Self> {
        let data = secret.data.as_ref()?;
        let text = |key: &str| String::from_utf8(data.get(key)?.0.clone()).ok();
        Some(Self {
            ca_bundle: text(CA_BUNDLE_KEY)?,
            ca_key: text(CA_KEY_KEY)?,
            cert: text(CERT_FILE)?,
            key: text(KEY_FILE)?,
        })
    }

    fn data(&self) -> BTreeMap<String, ByteString> {
        [
            (CA_BUNDLE_KEY, &self.ca_bundle),
            (CA_KEY_KEY, &self.ca_key),
            (CERT_FILE, &self.cert),
            (KEY_FILE, &self.key),
        ]
        .into_iter()
        .map(|(key, value)| (key.to_string(), ByteString(value.clone().into_bytes())))
        .collect()
    }
}

/// One certificate's validity and names, read from its DER.
struct Facts {
    not_before: i64,
    not_after: i64,
    dns_names: Vec<String>,
}

fn facts(der: &CertificateDer<'_>) -> anyhow::Result<Facts> {
    let (_, cert) = x509_parser::parse_x509_certificate(der)
        .map_err(|error| anyhow!("not an X.509 certificate: {error}"))?;
    let dns_names = match cert.subject_alternative_name() {
        Ok(Some(san)) => san
            .value
            .general_names
            .iter()
            .filter_map(|name| match name {
                x509_parser::extensions::GeneralName::DNSName(dns) => Some(dns.to_string()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Ok(Facts {
        not_before: cert.validity().not_before.timestamp(),
        not_after: cert.validity().not_after.timestamp(),
        dns_names,
    })
}

fn pem_certs(pem: &str) -> anyhow::Result<Vec<CertificateDer<'static>>> {
    CertificateDer::pem_slice_iter(pem.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .context("not a PEM certificate list")
}

fn unix(time: SystemTime) -> i64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |since| {
        i64::try_from(since.as_secs()).unwrap_or(i64::MAX)
    })
}

/// Whether a certificate valid from `not_before` to `not_after` is due for renewal at
/// `now`: a third of its life or less is left.
fn due(now: i64, not_before: i64, not_after: i64) -> bool {
    let life = not_after - not_before;
    not_after - now <= life / 3
}

/// The subject of the CA: the CA certificate is issued once and signs later serving
/// certificates, so an issuer built again from it must name the same subject.
fn ca_params(
    ca_name: &str,
    not_before: i64,
    lifetime: Duration,
) -> anyhow::Result<CertificateParams> {
    let mut params = CertificateParams::default();
    let mut name = DistinguishedName::new();
    name.push(DnType::CommonName, ca_name);
    params.distinguished_name = name;
    params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    validity(&mut params, not_before, lifetime)?;
    Ok(params)
}

fn validity(
    params: &mut CertificateParams,
    not_before: i64,
    lifetime: Duration,
) -> anyhow::Result<()> {
    let lifetime = i64::try_from(lifetime.as_secs()).context("a lifetime too long")?;
    params.not_before = time::OffsetDateTime::from_unix_timestamp(not_before)?;
    params.not_after = time::OffsetDateTime::from_unix_timestamp(not_before + lifetime)?;
    Ok(())
}

/// A new CA: its certificate and key, as PEM.
fn issue_ca(now: i64, settings: &Settings) -> anyhow::Result<(String, String)> {
    let key = KeyPair::generate().context("cannot generate the CA's key")?;
    let cert = ca_params(&settings.ca_name, now, settings.lifetimes.ca)?
        .self_signed(&key)
        .context("cannot sign the CA certificate")?;
    Ok((cert.pem(), key.serialize_pem()))
}

/// A serving certificate for `dns_names`, signed by the CA whose key is `ca_key`.
fn issue_serving(
    now: i64,
    settings: &Settings,
    dns_names: Vec<String>,
    ca_key: &str,
) -> anyhow::Result<(String, String)> {
    let ca_key = KeyPair::from_pem(ca_key).context("the CA key in the Secret is not PEM")?;
    // Only the subject and the key identifier of the issuer go into the certificate.
    let lifetimes = settings.lifetimes;
    let issuer = Issuer::new(ca_params(&settings.ca_name, now, lifetimes.ca)?, ca_key);
    let mut params =
        CertificateParams::new(dns_names).context("the Service's DNS names are invalid")?;
    params.distinguished_name = DistinguishedName::new();
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    params.use_authority_key_identifier_extension = true;
    // A minute back: a clock a little behind the API server's still accepts it.
    validity(&mut params, now - 60, lifetimes.serving)?;
    let key = KeyPair::generate().context("cannot generate the serving key")?;
    let cert = params
        .signed_by(&key, &issuer)
        .context("cannot sign the serving certificate")?;
    Ok((cert.pem(), key.serialize_pem()))
}

/// What the Secret should hold at `now`: `None` when what it holds is good, else the new
/// contents. A missing or unreadable Secret gets a new CA; a CA with a third of its life
/// left is replaced, and stays in the bundle until it expires; a serving certificate is
/// issued again when it is due, names other hosts, or its CA is no longer the current one.
pub fn renewal(
    now: SystemTime,
    stored: Option<&Stored>,
    settings: &Settings,
) -> anyhow::Result<Option<Stored>> {
    let now = unix(now);
    let wanted = settings.dns_names();
    let parsed = stored.and_then(|stored| Some((stored, pem_blocks(&stored.ca_bundle).ok()?)));
    let Some((stored, [(current_pem, current), older @ ..])) = parsed
        .as_ref()
        .map(|(stored, blocks)| (*stored, blocks.as_slice()))
    else {
        let (ca_bundle, ca_key) = issue_ca(now, settings)?;
        let (cert, key) = issue_serving(now, settings, wanted, &ca_key)?;
        return Ok(Some(Stored {
            ca_bundle,
            ca_key,
            cert,
            key,
        }));
    };
    let ca = facts(current)?;
    // Older CAs stay while they are valid: certificates they signed may still be served.
    let mut kept: Vec<String> = Vec::new();
    let mut pruned = false;
    for (block, der) in older {
        if facts(der)?.not_after > now {
            kept.push(block.clone());
        } else {
            pruned = true;
        }
    }
    let mut ca_key = stored.ca_key.clone();
    let mut ca_bundle = current_pem.clone();
    let mut new_ca = false;
    if due(now, ca.not_before, ca.not_after) {
        let (cert, key) = issue_ca(now, settings)?;
        kept.insert(0, current_pem.clone());
        ca_key = key;
        ca_bundle = cert;
        new_ca = true;
    }
    for old in &kept {
        ca_bundle.push_str(old);
    }
    let serving = pem_certs(&stored.cert)
        .ok()
        .and_then(|certs| certs.first().map(facts))
        .and_then(Result::ok);
    let reissue = new_ca
        || serving.is_none_or(|serving| {
            due(now, serving.not_before, serving.not_after) || serving.dns_names != wanted
        })
        || KeyPair::from_pem(&stored.key).is_err();
    if !reissue && !pruned {
        return Ok(None);
    }
    let (cert, key) = if reissue {
        issue_serving(now, settings, wanted, &ca_key)?
    } else {
        (stored.cert.clone(), stored.key.clone())
    };
    Ok(Some(Stored {
        ca_bundle,
        ca_key,
        cert,
        key,
    }))
}

/// The PEM blocks of a bundle this module wrote, each with its DER.
fn pem_blocks(bundle: &str) -> anyhow::Result<Vec<(String, CertificateDer<'static>)>> {
    const END: &str = "-----END CERTIFICATE-----";
    let mut blocks = Vec::new();
    for part in bundle.split_inclusive(END) {
        if !part.contains(END) {
            continue;
        }
        let block = format!("{}\n", part.trim_start());
        let der = pem_certs(&block)?
            .pop()
            .context("a CA bundle block without a certificate")?;
        blocks.push((block, der));
    }
    Ok(blocks)
}

/// The Secret as this replica should use it, created or renewed when needed. A create
/// that loses to another replica's, or a replace that loses to a newer version, reads the
/// Secret again and starts over: replicas never keep a certificate of their own.
pub async fn ensure_secret(
    secrets: &Api<Secret>,
    settings: &Settings,
    now: SystemTime,
) -> anyhow::Result<Stored> {
    // Each round reads a newer Secret than the last; a few rounds end any race.
    for _ in 0..5 {
        let current = secrets
            .get_opt(&settings.secret)
            .await
            .with_context(|| format!("cannot read the Secret {}", settings.secret))?;
        let stored = current.as_ref().and_then(Stored::from_secret);
        let Some(renewed) = renewal(now, stored.as_ref(), settings)? else {
            return stored.ok_or_else(|| anyhow!("the Secret {} is empty", settings.secret));
        };
        let written = match current {
            None => {
                let secret = Secret {
                    metadata: ObjectMeta {
                        name: Some(settings.secret.clone()),
                        namespace: Some(settings.namespace.clone()),
                        ..ObjectMeta::default()
                    },
                    type_: Some("kubernetes.io/tls".into()),
                    data: Some(renewed.data()),
                    ..Secret::default()
                };
                secrets.create(&PostParams::default(), &secret).await
            }
            Some(mut secret) => {
                // The resourceVersion read above makes this a compare-and-swap
                // (https://kubernetes.io/docs/reference/using-api/api-concepts/#concurrency-control-and-consistency).
                secret.data = Some(renewed.data());
                secrets
                    .replace(&settings.secret, &PostParams::default(), &secret)
                    .await
            }
        };
        match written {
            Ok(_) => {
                info!(secret = %settings.secret, "issued the webhook certificate");
                return Ok(renewed);
            }
            Err(kube::Error::Api(status)) if status.is_already_exists() || status.is_conflict() => {
                info!(secret = %settings.secret, "another replica wrote the webhook certificate first; reading it");
            }
            Err(error) => {
                return Err(error)
                    .with_context(|| format!("cannot write the Secret {}", settings.secret));
            }
        }
    }
    bail!(
        "the Secret {} kept changing while it was renewed",
        settings.secret
    )
}

/// Applies `bundle` as the CA of every webhook of this project's configurations and of
/// its conversion CRDs, where it differs from what they hold; returns how many objects it
/// patched. Server-side apply with the settings' field manager owns only the `caBundle` fields: the
/// webhooks are a map keyed by `name`
/// (<https://kubernetes.io/docs/reference/using-api/server-side-apply/#merge-strategy>).
pub async fn inject(client: &Client, settings: &Settings, bundle: &str) -> anyhow::Result<usize> {
    let bundle = ByteString(bundle.as_bytes().to_vec());
    let params = PatchParams::apply(&settings.field_manager).force();
    let mut patched = 0;
    if let Some(name) = &settings.mutating {
        let api: Api<MutatingWebhookConfiguration> = Api::all(client.clone());
        let webhooks = |configuration: MutatingWebhookConfiguration| {
            let webhooks = configuration.webhooks.unwrap_or_default().into_iter();
            webhooks
                .map(|w| (w.name, w.client_config.ca_bundle))
                .collect()
        };
        patched += usize::from(inject_configuration(&api, name, webhooks, &bundle, &params).await?);
    }
    if let Some(name) = &settings.validating {
        let api: Api<ValidatingWebhookConfiguration> = Api::all(client.clone());
        let webhooks = |configuration: ValidatingWebhookConfiguration| {
            let webhooks = configuration.webhooks.unwrap_or_default().into_iter();
            webhooks
                .map(|w| (w.name, w.client_config.ca_bundle))
                .collect()
        };
        patched += usize::from(inject_configuration(&api, name, webhooks, &bundle, &params).await?);
    }
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    for name in &settings.conversion_crds {
        let current = crds
            .get(name)
            .await
            .with_context(|| format!("cannot read the CRD {name}"))?;
        let held = current
            .spec
            .conversion
            .and_then(|conversion| conversion.webhook)
            .and_then(|webhook| webhook.client_config)
            .and_then(|config| config.ca_bundle);
        if held.as_ref() != Some(&bundle) {
            let patch = json!({
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": { "name": name },
                "spec": { "conversion": { "webhook": { "clientConfig": { "caBundle": bundle } } } },
            });
            crds.patch(name, &params, &Patch::Apply(patch))
                .await
                .with_context(|| format!("cannot inject the CA bundle into the CRD {name}"))?;
            patched += 1;
        }
    }
    Ok(patched)
}

/// Applies `bundle` to every webhook of the configuration `name` unless each holds it
/// already (`webhooks` lists their names and bundles); says whether it patched.
async fn inject_configuration<K>(
    api: &Api<K>,
    name: &str,
    webhooks: impl FnOnce(K) -> Vec<(String, Option<ByteString>)>,
    bundle: &ByteString,
    params: &PatchParams,
) -> anyhow::Result<bool>
where
    K: kube::Resource<DynamicType = ()> + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    let current = api
        .get(name)
        .await
        .with_context(|| format!("cannot read {name}"))?;
    let webhooks = webhooks(current);
    if webhooks
        .iter()
        .all(|(_, held)| held.as_ref() == Some(bundle))
    {
        return Ok(false);
    }
    let webhooks: Vec<serde_json::Value> = webhooks
        .iter()
        .map(|(webhook, _)| json!({ "name": webhook, "clientConfig": { "caBundle": bundle } }))
        .collect();
    let patch = json!({
        "apiVersion": K::api_version(&()),
        "kind": K::kind(&()),
        "metadata": { "name": name },
        "webhooks": webhooks,
    });
    api.patch(name, params, &Patch::Apply(patch))
        .await
        .with_context(|| format!("cannot inject the CA bundle into {name}"))?;
    Ok(true)
}

/// Writes the serving pair into `dir` where it differs; the webhook server reads it again
/// within `crate::tls::RELOAD_INTERVAL`.
pub fn write_pair(dir: &Path, stored: &Stored) -> anyhow::Result<bool> {
    write_files(dir, &[(KEY_FILE, &stored.key), (CERT_FILE, &stored.cert)])
}

/// Writes each file into `dir` where it differs, in order, each renamed into place whole;
/// says whether any changed.
fn write_files(dir: &Path, files: &[(&str, &String)]) -> anyhow::Result<bool> {
    let mut changed = false;
    for &(name, contents) in files {
        let path = dir.join(name);
        if std::fs::read(&path).is_ok_and(|old| old == contents.as_bytes()) {
            continue;
        }
        let staged = dir.join(format!(".{name}.new"));
        std::fs::write(&staged, contents)
            .with_context(|| format!("cannot write {}", staged.display()))?;
        std::fs::rename(&staged, &path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        changed = true;
    }
    Ok(changed)
}

/// The certificate the server at `addr` serves for `dns_name`, when `bundle` trusts it:
/// what the API server checks before it calls a webhook; an error otherwise.
pub async fn trusted(
    addr: SocketAddr,
    dns_name: &str,
    bundle: &str,
) -> anyhow::Result<CertificateDer<'static>> {
    let mut roots = RootCertStore::empty();
    for der in pem_certs(bundle)? {
        roots.add(der).context("a CA of the bundle is unusable")?;
    }
    let config = ClientConfig::builder_with_provider(crate::tls::provider())
        .with_safe_default_protocol_versions()
        .context("the TLS provider supports no safe protocol version")?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = ServerName::try_from(dns_name.to_string())
        .with_context(|| format!("{dns_name} is not a DNS name"))?;
    let stream = TcpStream::connect(addr)
        .await
        .with_context(|| format!("cannot reach the webhook server on {addr}"))?;
    let handshake = TlsConnector::from(Arc::new(config)).connect(name, stream);
    let tls = tokio::time::timeout(Duration::from_secs(5), handshake)
        .await
        .context("the webhook server did not finish the TLS handshake")?
        .context("the webhook server's certificate is not trusted by the CA bundle")?;
    let (_, connection) = tls.get_ref();
    connection
        .peer_certificates()
        .and_then(|chain| chain.first())
        .map(|leaf| leaf.clone().into_owned())
        .context("the webhook server sent no certificate")
}

/// One pass: the Secret, the files, the bundles, and whether the server is trusted.
/// Returns the CA bundle it injected.
pub async fn sync(client: &Client, settings: &Settings, now: SystemTime) -> anyhow::Result<String> {
    let secrets: Api<Secret> = Api::namespaced(client.clone(), &settings.namespace);
    let stored = ensure_secret(&secrets, settings, now).await?;
    // The bundle first: clients trust the new certificate before it is served.
    let patched = inject(client, settings, &stored.ca_bundle).await?;
    if patched > 0 {
        info!(patched, "injected the CA bundle");
    }
    if let Some(metrics) = &settings.metrics {
        publish(client, settings, &stored.ca_bundle).await?;
        if write_metrics_pair(now, settings, metrics, &stored)? {
            info!(dir = %metrics.dir.display(), "wrote the metrics certificate");
        }
    }
    if write_pair(&settings.cert_dir, &stored)? {
        info!(dir = %settings.cert_dir.display(), "wrote the webhook certificate");
    }
    served(settings, &stored.ca_bundle).await?;
    Ok(stored.ca_bundle)
}

/// Applies `bundle` as [`CA_BUNDLE_KEY`] of the ConfigMap [`METRICS_CA`], creating it the
/// first time; an apply that changes nothing writes nothing
/// (<https://kubernetes.io/docs/reference/using-api/server-side-apply/>).
pub async fn publish(client: &Client, settings: &Settings, bundle: &str) -> anyhow::Result<()> {
    let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), &settings.namespace);
    let config_map = json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": { "name": METRICS_CA },
        "data": { CA_BUNDLE_KEY: bundle },
    });
    let params = PatchParams::apply(&settings.field_manager).force();
    config_maps
        .patch(METRICS_CA, &params, &Patch::Apply(config_map))
        .await
        .with_context(|| format!("cannot publish the CA bundle in the ConfigMap {METRICS_CA}"))?;
    Ok(())
}

/// Issues this replica's metrics certificate into `metrics.dir` when there is none yet,
/// or the one there is due, names other hosts, or was signed by a CA that no longer
/// signs. The CA that signed it is kept beside it, as [`CA_BUNDLE_KEY`], to tell.
/// Says whether it wrote a new one; the metrics server reads it again within
/// `crate::tls::RELOAD_INTERVAL`.
pub fn write_metrics_pair(
    now: SystemTime,
    settings: &Settings,
    metrics: &MetricsCert,
    stored: &Stored,
) -> anyhow::Result<bool> {
    let wanted = service_dns_names(&metrics.service, &settings.namespace);
    let blocks = pem_blocks(&stored.ca_bundle)?;
    let Some((signing, _)) = blocks.first() else {
        bail!("the Secret {} holds no CA", settings.secret);
    };
    let read = |name: &str| std::fs::read_to_string(metrics.dir.join(name)).ok();
    let current = read(CERT_FILE)
        .and_then(|pem| pem_certs(&pem).ok())
        .and_then(|certs| certs.first().map(facts))
        .and_then(Result::ok);
    let signed_by_current = read(CA_BUNDLE_KEY).as_ref() == Some(signing);
    let keep = signed_by_current
        && current.is_some_and(|cert| {
            !due(unix(now), cert.not_before, cert.not_after) && cert.dns_names == wanted
        });
    if keep {
        return Ok(false);
    }
    std::fs::create_dir_all(&metrics.dir)
        .with_context(|| format!("cannot create {}", metrics.dir.display()))?;
    let (cert, key) = issue_serving(unix(now), settings, wanted, &stored.ca_key)?;
    // The key before its certificate, and the CA last: a pass cut short issues again.
    let files = [
        (KEY_FILE, &key),
        (CERT_FILE, &cert),
        (CA_BUNDLE_KEY, signing),
    ];
    write_files(&metrics.dir, &files)
}

/// The certificate this replica's webhook server presents on the Service's DNS name, when
/// `bundle` trusts it (and it is valid now).
async fn served(settings: &Settings, bundle: &str) -> anyhow::Result<CertificateDer<'static>> {
    let dns_name = settings.dns_names().remove(0);
    trusted(settings.webhook_addr, &dns_name, bundle).await
}

/// Keeps the certificate issued, renewed, served and trusted until `shutdown`. `ready`
/// holds after each pass whether it all succeeded, or, after a pass that failed, whether
/// the webhook server still serves a certificate the bundle of the last good pass trusts.
/// A failed pass is tried again after a delay that doubles from `min_backoff` up to
/// `interval`.
pub async fn run(
    client: Client,
    settings: Settings,
    ready: Readiness,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(&settings.cert_dir)
        .with_context(|| format!("cannot create {}", settings.cert_dir.display()))?;
    let mut backoff = settings.min_backoff;
    let mut injected: Option<String> = None;
    loop {
        let delay = match sync(&client, &settings, SystemTime::now()).await {
            Ok(bundle) => {
                injected = Some(bundle);
                ready.set(true);
                backoff = settings.min_backoff;
                settings.interval
            }
            Err(error) => {
                let serving = match &injected {
                    Some(bundle) => served(&settings, bundle).await.is_ok(),
                    None => false,
                };
                ready.set(serving);
                warn!(error = format!("{error:#}"), retry_in = ?backoff, "the webhook certificate is not ready");
                let delay = backoff;
                backoff = (backoff * 2).min(settings.interval);
                delay
            }
        };
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            () = shutdown.clone().wait() => return Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Mutex;

    use http::{Method, Request, Response, StatusCode};
    use kube::client::Body;
    use serde_json::Value;
    use tokio::net::TcpListener;

    use super::*;
    use crate::tls::testing::temp_dir;

    const DAY: Duration = Duration::from_secs(24 * 3600);
    const SECRET_PATH: &str = "/api/v1/namespaces/system/secrets/webhook-server-self-cert";
    const SECRETS_PATH: &str = "/api/v1/namespaces/system/secrets";
    const MUTATING_PATH: &str =
        "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/mutating";
    const VALIDATING_PATH: &str =
        "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/validating";
    const CRD_PATH: &str =
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.example.com";

    /// A fake API server over `tower_test`: it keeps objects by path and answers GET,
    /// POST (409 AlreadyExists for an existing name), PUT (409 Conflict for a stale
    /// `resourceVersion`, as optimistic concurrency makes the API server answer) and
    /// server-side apply PATCH (lists of named items merged by `name`, as the list-map
    /// webhooks are; an object that does not exist is created, as the API server does).
    /// Every request is logged; `fail` answers the next requests to a path
    /// with an error; `before_create` runs on a POST, as another replica would.
    #[derive(Clone, Default)]
    struct Fake(Arc<Mutex<State>>);

    #[derive(Default)]
    struct State {
        objects: HashMap<String, Value>,
        log: Vec<(Method, String, std::time::Instant)>,
        fail: HashMap<String, usize>,
        before_create: Option<Value>,
        before_replace: Option<Value>,
        version: u64,
    }

    impl Fake {
        fn client(&self) -> Client {
            let (service, mut handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
            let fake = self.clone();
            tokio::spawn(async move {
                while let Some((request, reply)) = handle.next_request().await {
                    let method = request.method().clone();
                    let path = request.uri().path().to_string();
                    let query = request.uri().query().unwrap_or_default().to_string();
                    let bytes = request
                        .into_body()
                        .collect_bytes()
                        .await
                        .unwrap_or_default();
                    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
                    let (status, answer) = fake.answer(&method, &path, &query, body);
                    let response = Response::builder()
                        .status(status)
                        .header("content-type", "application/json")
                        .body(Body::from(answer.to_string().into_bytes()))
                        .expect("a response");
                    reply.send_response(response);
                }
            });
            Client::new(service, "system")
        }

        fn answer(
            &self,
            method: &Method,
            path: &str,
            query: &str,
            body: Value,
        ) -> (StatusCode, Value) {
            let mut state = self.0.lock().expect("the fake's state");
            state
                .log
                .push((method.clone(), path.to_string(), std::time::Instant::now()));
            if let Some(left) = state.fail.get_mut(path).filter(|left| **left > 0) {
                *left -= 1;
                return status(StatusCode::INTERNAL_SERVER_ERROR, "InternalError");
            }
            state.version += 1;
            let version = state.version.to_string();
            match *method {
                Method::GET => match state.objects.get(path) {
                    Some(object) => (StatusCode::OK, object.clone()),
                    None => status(StatusCode::NOT_FOUND, "NotFound"),
                },
                Method::POST => {
                    let name = body["metadata"]["name"].as_str().unwrap_or_default();
                    let target = format!("{path}/{name}");
                    if let Some(winner) = state.before_create.take() {
                        state.objects.insert(target.clone(), winner);
                    }
                    if state.objects.contains_key(&target) {
                        return status(StatusCode::CONFLICT, "AlreadyExists");
                    }
                    let mut body = body;
                    body["metadata"]["resourceVersion"] = json!(version);
                    state.objects.insert(target, body.clone());
                    (StatusCode::CREATED, body)
                }
                Method::PUT => {
                    if let Some(newer) = state.before_replace.take() {
                        state.objects.insert(path.to_string(), newer);
                    }
                    let stored = state
                        .objects
                        .get(path)
                        .map(|o| o["metadata"]["resourceVersion"].clone());
                    if stored != Some(body["metadata"]["resourceVersion"].clone()) {
                        return status(StatusCode::CONFLICT, "Conflict");
                    }
                    let mut body = body;
                    body["metadata"]["resourceVersion"] = json!(version);
                    state.objects.insert(path.to_string(), body.clone());
                    (StatusCode::OK, body)
                }
                Method::PATCH => {
                    assert!(
                        query.contains("fieldManager=project-webhook-certs"),
                        "{query}"
                    );
                    assert!(query.contains("force=true"), "{query}");
                    let object = state
                        .objects
                        .entry(path.to_string())
                        .or_insert_with(|| json!({}));
                    merge(object, &body);
                    (StatusCode::OK, object.clone())
                }
                _ => status(StatusCode::METHOD_NOT_ALLOWED, "MethodNotAllowed"),
            }
        }

        fn put(&self, path: &str, object: Value) {
            self.0
                .lock()
                .expect("state")
                .objects
                .insert(path.to_string(), object);
        }

        fn get(&self, path: &str) -> Value {
            self.0
                .lock()
                .expect("state")
                .objects
                .get(path)
                .cloned()
                .unwrap_or(Value::Null)
        }

        /// The requests that changed something, since the log was last taken.
        fn writes(&self) -> Vec<(Method, String)> {
            let mut state = self.0.lock().expect("state");
            std::mem::take(&mut state.log)
                .into_iter()
                .filter(|(method, _, _)| *method != Method::GET)
                .map(|(method, path, _)| (method, path))
                .collect()
        }
    }

    fn status(code: StatusCode, reason: &str) -> (StatusCode, Value) {
        let body = json!({
            "apiVersion": "v1", "kind": "Status", "status": "Failure",
            "reason": reason, "code": code.as_u16(), "message": reason,
        });
        (code, body)
    }

    /// Server-side apply of the fields these patches set: objects merge by key, lists of
    /// named items by `name`.
    fn merge(target: &mut Value, patch: &Value) {
        match (target, patch) {
            (Value::Object(target), Value::Object(patch)) => {
                for (key, value) in patch {
                    merge(target.entry(key.clone()).or_insert(Value::Null), value);
                }
            }
            (Value::Array(target), Value::Array(patch)) => {
                for item in patch {
                    match target.iter_mut().find(|t| t["name"] == item["name"]) {
                        Some(existing) => merge(existing, item),
                        None => target.push(item.clone()),
                    }
                }
            }
            (target, patch) => *target = patch.clone(),
        }
    }

    fn webhook_configuration(kind: &str, name: &str, webhooks: &[&str]) -> Value {
        let webhooks: Vec<Value> = webhooks
            .iter()
            .map(|webhook| json!({
                "name": webhook, "admissionReviewVersions": ["v1"], "sideEffects": "None",
                "clientConfig": { "service": { "name": "webhook-service", "namespace": "system" } },
            }))
            .collect();
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
            "metadata": { "name": name }, "webhooks": webhooks,
        })
    }

    /// A cluster with a webhook configuration of each kind and a converting CRD.
    fn cluster() -> Fake {
        let fake = Fake::default();
        fake.put(
            MUTATING_PATH,
            webhook_configuration(
                "MutatingWebhookConfiguration",
                "mutating",
                &["ma.example.com", "mb.example.com"],
            ),
        );
        fake.put(
            VALIDATING_PATH,
            webhook_configuration(
                "ValidatingWebhookConfiguration",
                "validating",
                &["va.example.com"],
            ),
        );
        fake.put(
            CRD_PATH,
            json!({
                "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": { "name": "things.example.com" },
                "spec": {
                    "group": "example.com", "scope": "Namespaced",
                    "names": { "kind": "Thing", "plural": "things" },
                    "versions": [],
                    "conversion": { "strategy": "Webhook", "webhook": {
                        "conversionReviewVersions": ["v1"],
                        "clientConfig": { "service": { "name": "webhook-service", "namespace": "system" } },
                    } },
                },
            }),
        );
        fake
    }

    fn settings(dir: &Path, webhook_addr: SocketAddr) -> Settings {
        Settings {
            mutating: Some("mutating".into()),
            validating: Some("validating".into()),
            conversion_crds: vec!["things.example.com".into()],
            lifetimes: Lifetimes {
                ca: 30 * DAY,
                serving: 3 * DAY,
            },
            min_backoff: Duration::from_millis(50),
            interval: Duration::from_secs(3600),
            ..Settings::new(
                "project",
                "system".into(),
                "webhook-service".into(),
                dir.to_path_buf(),
                webhook_addr.port(),
            )
        }
    }

    /// The text of a key of the Secret in the fake.
    fn secret_value(fake: &Fake, key: &str) -> String {
        let encoded = fake.get(SECRET_PATH)["data"][key].clone();
        let bytes: ByteString = serde_json::from_value(encoded).expect("base64 data");
        String::from_utf8(bytes.0).expect("PEM")
    }

    /// The CA bundles the fake's objects hold, decoded.
    fn bundles(fake: &Fake) -> Vec<String> {
        let decode = |value: &Value| {
            let bytes: ByteString =
                serde_json::from_value(value.clone()).unwrap_or(ByteString(Vec::new()));
            String::from_utf8(bytes.0).unwrap_or_default()
        };
        let mut out = Vec::new();
        for path in [MUTATING_PATH, VALIDATING_PATH] {
            for webhook in fake.get(path)["webhooks"].as_array().into_iter().flatten() {
                out.push(decode(&webhook["clientConfig"]["caBundle"]));
            }
        }
        out.push(decode(
            &fake.get(CRD_PATH)["spec"]["conversion"]["webhook"]["clientConfig"]["caBundle"],
        ));
        out
    }

    /// The Secret, the bundles and the files, without the check of what is served.
    async fn converge(fake: &Fake, settings: &Settings, now: SystemTime) -> anyhow::Result<Stored> {
        let client = fake.client();
        let secrets: Api<Secret> = Api::namespaced(client.clone(), &settings.namespace);
        let stored = ensure_secret(&secrets, settings, now).await?;
        inject(&client, settings, &stored.ca_bundle).await?;
        if let Some(metrics) = &settings.metrics {
            publish(&client, settings, &stored.ca_bundle).await?;
            write_metrics_pair(now, settings, metrics, &stored)?;
        }
        write_pair(&settings.cert_dir, &stored)?;
        Ok(stored)
    }

    fn unused_addr() -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], 9))
    }

    #[tokio::test]
    async fn the_first_start_creates_the_secret_and_injects_every_bundle() -> anyhow::Result<()> {
        let fake = cluster();
        let dir = temp_dir("certs-first-start");
        let settings = settings(&dir, unused_addr());
        let stored = converge(&fake, &settings, SystemTime::now()).await?;

        assert_eq!(
            fake.writes(),
            [
                (Method::POST, SECRETS_PATH.to_string()),
                (Method::PATCH, MUTATING_PATH.to_string()),
                (Method::PATCH, VALIDATING_PATH.to_string()),
                (Method::PATCH, CRD_PATH.to_string()),
            ]
        );
        assert_eq!(secret_value(&fake, CA_BUNDLE_KEY), stored.ca_bundle);
        assert_eq!(bundles(&fake), vec![stored.ca_bundle.clone(); 4]);
        // What the webhook server reads is the Secret's serving pair.
        assert_eq!(
            std::fs::read_to_string(dir.join(CERT_FILE))?,
            secret_value(&fake, CERT_FILE)
        );
        assert_eq!(
            std::fs::read_to_string(dir.join(KEY_FILE))?,
            secret_value(&fake, KEY_FILE)
        );
        // The serving certificate names the Service, and the CA signed it.
        let leaf = facts(&pem_certs(&stored.cert)?[0])?;
        assert_eq!(
            leaf.dns_names,
            [
                "webhook-service.system.svc",
                "webhook-service.system.svc.cluster.local"
            ]
        );
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }

    #[tokio::test]
    async fn a_replica_that_loses_the_create_race_uses_the_winners_secret() -> anyhow::Result<()> {
        let fake = cluster();
        let dir = temp_dir("certs-race");
        let settings = settings(&dir, unused_addr());
        // What the other replica created between this one's GET and its POST.
        let winner = renewal(SystemTime::now(), None, &settings)?.context("a new Secret")?;
        let winner_secret = json!({
            "apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
            "metadata": { "name": "webhook-server-self-cert", "namespace": "system", "resourceVersion": "7" },
            "data": serde_json::to_value(winner.data())?,
        });
        fake.0.lock().expect("state").before_create = Some(winner_secret);

        let stored = converge(&fake, &settings, SystemTime::now()).await?;

        assert_eq!(stored, winner);
        assert_eq!(std::fs::read_to_string(dir.join(CERT_FILE))?, winner.cert);
        assert_eq!(bundles(&fake), vec![winner.ca_bundle.clone(); 4]);
        let writes = fake.writes();
        assert_eq!(writes[0], (Method::POST, SECRETS_PATH.to_string()));
        assert!(
            !writes.iter().any(|(method, _)| *method == Method::PUT),
            "{writes:?}"
        );
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }

    #[tokio::test]
    async fn up_to_date_bundles_are_not_written_again() -> anyhow::Result<()> {
        let fake = cluster();
        let dir = temp_dir("certs-up-to-date");
        let settings = settings(&dir, unused_addr());
        converge(&fake, &settings, SystemTime::now()).await?;
        fake.writes();

        converge(&fake, &settings, SystemTime::now()).await?;
        assert_eq!(fake.writes(), []);
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }

    #[tokio::test]
    async fn a_replace_that_loses_to_a_newer_version_reads_it_again() -> anyhow::Result<()> {
        let fake = cluster();
        let dir = temp_dir("certs-conflict");
        let settings = settings(&dir, unused_addr());
        // Issued two and a half days ago, of three: due for renewal now.
        let first = converge(&fake, &settings, SystemTime::now() - 2 * DAY - DAY / 2).await?;
        fake.writes();
        // Another replica renews it between this one's GET and its PUT.
        let renewed = renewal(SystemTime::now(), Some(&first), &settings)?.context("due")?;
        let mut newer = fake.get(SECRET_PATH);
        newer["data"] = serde_json::to_value(renewed.data())?;
        newer["metadata"]["resourceVersion"] = json!("1000");
        fake.0.lock().expect("state").before_replace = Some(newer);

        let stored = converge(&fake, &settings, SystemTime::now()).await?;
        assert_eq!(
            stored, renewed,
            "the newer Secret is used, not a third certificate"
        );
        let writes = fake.writes();
        assert_eq!(
            writes
                .iter()
                .filter(|(method, _)| *method == Method::PUT)
                .count(),
            1,
            "{writes:?}"
        );
        assert_eq!(std::fs::read_to_string(dir.join(CERT_FILE))?, renewed.cert);
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }

    /// A webhook server of the certificate in `dir`, read again every 50 ms, as the
    /// manager runs it.
    async fn webhook_server(dir: &Path) -> anyhow::Result<(SocketAddr, crate::shutdown::Trigger)> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let config = super::super::server::Config {
            addr,
            cert_dir: dir.to_path_buf(),
            reload_interval: Duration::from_millis(50),
        };
        let (trigger, shutdown) = Shutdown::channel();
        let router = axum::Router::new();
        tokio::spawn(super::super::server::serve_on(
            listener,
            config,
            router,
            Readiness::default(),
            shutdown,
        ));
        Ok((addr, trigger))
    }

    /// The certificate served at `addr` once it is `expected`, within 2 s.
    async fn serves(addr: SocketAddr, bundle: &str, expected: &str) -> bool {
        let expected = pem_certs(expected).expect("PEM").remove(0);
        for _ in 0..40 {
            if let Ok(served) = trusted(addr, "webhook-service.system.svc", bundle).await
                && served == expected
            {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        false
    }

    #[tokio::test]
    async fn a_certificate_near_expiry_is_renewed_and_served_without_a_restart()
    -> anyhow::Result<()> {
        let fake = cluster();
        let dir = temp_dir("certs-renewal");
        let (addr, _trigger) = webhook_server(&dir).await?;
        let settings = settings(&dir, addr);
        // Issued two and a half days ago, of three: still valid, and due.
        let old = converge(&fake, &settings, SystemTime::now() - 2 * DAY - DAY / 2).await?;
        assert!(
            serves(addr, &old.ca_bundle, &old.cert).await,
            "the first certificate is not served"
        );
        fake.writes();

        let new = converge(&fake, &settings, SystemTime::now()).await?;
        assert_ne!(new.cert, old.cert);
        assert_eq!(new.ca_bundle, old.ca_bundle, "the CA has years left");
        assert_eq!(fake.writes(), [(Method::PUT, SECRET_PATH.to_string())]);
        // The same server, never restarted, serves the new certificate.
        assert!(
            serves(addr, &new.ca_bundle, &new.cert).await,
            "the renewed certificate is not served"
        );
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }

    /// What `trusted` finds served at `addr` for `dns_name` once it is the certificate in
    /// `dir`, within 2 s.
    async fn serves_the_file(addr: SocketAddr, dns_name: &str, bundle: &str, dir: &Path) -> bool {
        for _ in 0..40 {
            let file = std::fs::read_to_string(dir.join(CERT_FILE)).unwrap_or_default();
            let expected = pem_certs(&file).ok().and_then(|mut certs| certs.pop());
            if let Ok(served) = trusted(addr, dns_name, bundle).await
                && Some(served) == expected
            {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        false
    }

    /// `--metrics-cert-dir`: the metrics server's certificate is issued by the webhook CA
    /// for the metrics Service's names, the ConfigMap publishes that CA, a good
    /// certificate is kept, and a new CA issues a new one.
    #[tokio::test]
    async fn the_metrics_certificate_is_issued_by_the_ca_the_config_map_publishes()
    -> anyhow::Result<()> {
        const METRICS_NAME: &str = "controller-manager-metrics-service.system.svc";
        let fake = cluster();
        let dir = temp_dir("certs-metrics");
        let metrics = MetricsCert {
            service: "controller-manager-metrics-service".into(),
            dir: dir.join("metrics"),
        };
        let settings = Settings {
            metrics: Some(metrics.clone()),
            ..settings(&dir, unused_addr())
        };
        // Issued 21 days ago: the CA (30 days) is due, the certificates long expired.
        let settings_old = Settings {
            lifetimes: Lifetimes {
                ca: 30 * DAY,
                serving: 30 * DAY,
            },
            ..settings.clone()
        };
        let then = SystemTime::now() - 21 * DAY;
        let old = converge(&fake, &settings_old, then).await?;
        let published = |fake: &Fake| {
            let path = format!("/api/v1/namespaces/system/configmaps/{METRICS_CA}");
            fake.get(&path)["data"][CA_BUNDLE_KEY]
                .as_str()
                .map(str::to_string)
        };
        assert_eq!(published(&fake).as_ref(), Some(&old.ca_bundle));
        assert!(
            !write_metrics_pair(then, &settings_old, &metrics, &old)?,
            "a good metrics certificate was issued again"
        );
        let (addr, _trigger) = webhook_server(&metrics.dir).await?;
        assert!(serves_the_file(addr, METRICS_NAME, &old.ca_bundle, &metrics.dir).await);
        assert!(
            trusted(addr, "webhook-service.system.svc", &old.ca_bundle)
                .await
                .is_err(),
            "the metrics certificate names the webhook Service"
        );

        let new = converge(&fake, &settings, SystemTime::now()).await?;
        assert_ne!(new.ca_key, old.ca_key, "the CA was not replaced");
        assert_eq!(published(&fake).as_ref(), Some(&new.ca_bundle));
        let new_ca_only = &pem_blocks(&new.ca_bundle)?[0].0;
        assert!(
            serves_the_file(addr, METRICS_NAME, new_ca_only, &metrics.dir).await,
            "the new CA signed no metrics certificate"
        );
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }

    #[tokio::test]
    async fn a_ca_near_expiry_is_replaced_and_the_old_one_stays_trusted() -> anyhow::Result<()> {
        let fake = cluster();
        let dir = temp_dir("certs-ca-renewal");
        let (addr, _trigger) = webhook_server(&dir).await?;
        let settings = settings(&dir, addr);
        // Issued 21 days ago, of 30: the CA is due, its serving certificate long expired.
        let settings_old = Settings {
            lifetimes: Lifetimes {
                ca: 30 * DAY,
                serving: 30 * DAY,
            },
            ..settings.clone()
        };
        let old = converge(&fake, &settings_old, SystemTime::now() - 21 * DAY).await?;
        assert!(serves(addr, &old.ca_bundle, &old.cert).await);

        let new = converge(&fake, &settings, SystemTime::now()).await?;
        let cas = pem_blocks(&new.ca_bundle)?;
        assert_eq!(cas.len(), 2, "the new CA and the old one");
        assert_eq!(cas[1].0, old.ca_bundle, "the old CA stays in the bundle");
        assert_ne!(new.ca_key, old.ca_key);
        // Every object has the bundle with both CAs before the new certificate is served.
        assert_eq!(bundles(&fake), vec![new.ca_bundle.clone(); 4]);
        // A replica still serving the old certificate is trusted by the new bundle, and
        // this one serves the new certificate, which the new CA signed.
        assert!(serves(addr, &new.ca_bundle, &new.cert).await);
        let other_replica = temp_dir("certs-ca-renewal-other");
        write_pair(&other_replica, &old)?;
        let (other, _other_trigger) = webhook_server(&other_replica).await?;
        assert!(
            serves(other, &new.ca_bundle, &old.cert).await,
            "the old certificate is no longer trusted"
        );
        std::fs::remove_dir_all(&other_replica)?;
        let new_ca_only = &cas[0].0;
        assert!(
            trusted(addr, "webhook-service.system.svc", new_ca_only)
                .await
                .is_ok()
        );
        // Once the old CA expired, the next pass drops it.
        let later = SystemTime::now() + 10 * DAY;
        let pruned = renewal(later, Some(&new), &settings)?.context("the old CA expired")?;
        assert_eq!(pem_blocks(&pruned.ca_bundle)?.len(), 1);
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }

    #[tokio::test]
    async fn an_api_error_leaves_the_manager_not_ready_and_is_retried_with_backoff()
    -> anyhow::Result<()> {
        let fake = cluster();
        fake.0
            .lock()
            .expect("state")
            .fail
            .insert(SECRET_PATH.into(), 3);
        let dir = temp_dir("certs-backoff");
        let (addr, _trigger) = webhook_server(&dir).await?;
        let settings = settings(&dir, addr);
        let ready = Readiness::default();
        let (trigger, shutdown) = Shutdown::channel();
        let task = tokio::spawn(run(fake.client(), settings, ready.clone(), shutdown));

        tokio::time::sleep(Duration::from_millis(120)).await;
        assert!(!ready.get(), "ready while the API server fails");
        let mut became_ready = false;
        for _ in 0..60 {
            if ready.get() {
                became_ready = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(became_ready, "not ready once the API server answers");
        // Three failures, then the pass that succeeds: the delays between the reads of
        // the Secret double from 50 ms.
        let reads: Vec<std::time::Instant> = fake
            .0
            .lock()
            .expect("state")
            .log
            .iter()
            .filter(|(method, path, _)| *method == Method::GET && path == SECRET_PATH)
            .map(|(_, _, at)| *at)
            .collect();
        assert!(reads.len() >= 4, "{} reads", reads.len());
        let gaps: Vec<Duration> = reads.windows(2).map(|w| w[1] - w[0]).collect();
        for (gap, least) in gaps.iter().zip([50, 100, 200]) {
            assert!(*gap >= Duration::from_millis(least), "{gaps:?}");
        }
        trigger.fire();
        task.await??;
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }

    /// Whether `ready` holds within 3 s.
    async fn becomes(ready: &Readiness, wanted: bool) -> bool {
        for _ in 0..60 {
            if ready.get() == wanted {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        false
    }

    /// Readiness follows what is served: once a pass succeeded, passes that fail (the API
    /// server away) leave a replica ready while its webhook server serves a certificate
    /// the bundle trusts, and not once it serves one the bundle does not.
    #[tokio::test]
    async fn a_replica_that_serves_a_trusted_certificate_stays_ready_while_the_api_fails()
    -> anyhow::Result<()> {
        let fake = cluster();
        let dir = temp_dir("certs-serving");
        let (addr, _trigger) = webhook_server(&dir).await?;
        let settings = Settings {
            interval: Duration::from_millis(100),
            ..settings(&dir, addr)
        };
        let ready = Readiness::default();
        let (trigger, shutdown) = Shutdown::channel();
        let task = tokio::spawn(run(fake.client(), settings, ready.clone(), shutdown));
        assert!(becomes(&ready, true).await, "never ready");

        fake.0
            .lock()
            .expect("state")
            .fail
            .insert(SECRET_PATH.into(), usize::MAX);
        let reads = || {
            let state = fake.0.lock().expect("state");
            state
                .log
                .iter()
                .filter(|(_, path, _)| path == SECRET_PATH)
                .count()
        };
        let before = reads();
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert!(
            reads() > before + 2,
            "no pass ran while the API server failed"
        );
        assert!(
            ready.get(),
            "an API error took a replica serving a trusted certificate out"
        );

        // A certificate of another CA, as a stale mount or another issuer would leave.
        crate::tls::testing::write_pair(
            &dir,
            crate::tls::testing::CERT_A,
            crate::tls::testing::KEY_A,
        );
        assert!(
            becomes(&ready, false).await,
            "ready while serving an untrusted certificate"
        );
        trigger.fire();
        task.await??;
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }

    #[tokio::test]
    async fn a_served_certificate_the_bundle_does_not_trust_is_not_ready() -> anyhow::Result<()> {
        let dir = temp_dir("certs-untrusted");
        // A certificate of another CA, as a stale mount or another issuer would leave.
        crate::tls::testing::write_pair(
            &dir,
            crate::tls::testing::CERT_A,
            crate::tls::testing::KEY_A,
        );
        let (addr, _trigger) = webhook_server(&dir).await?;
        let settings = settings(&dir, addr);
        let stored = renewal(SystemTime::now(), None, &settings)?.context("a new Secret")?;
        tokio::time::sleep(Duration::from_millis(100)).await;
        let untrusted = trusted(addr, "webhook-service.system.svc", &stored.ca_bundle).await;
        assert!(
            untrusted.is_err(),
            "a certificate of another CA was trusted"
        );

        write_pair(&dir, &stored)?;
        assert!(
            serves(addr, &stored.ca_bundle, &stored.cert).await,
            "the issued certificate is not trusted"
        );
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }
}
