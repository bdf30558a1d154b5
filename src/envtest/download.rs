//! The official envtest archives: controller-tools publishes, per Kubernetes release,
//! `envtest-v<version>-<os>-<arch>.tar.gz` holding `controller-tools/envtest/{kube-apiserver,
//! etcd,kubectl}`, and lists them with their SHA-512 in `envtest-releases.yaml`:
//!
//! ```yaml
//! releases:
//!   v1.37.0:
//!     envtest-v1.37.0-linux-amd64.tar.gz:
//!       hash: <sha512, hex>
//!       selfLink: https://.../envtest-v1.37.0-linux-amd64.tar.gz
//! ```
//!
//! Network calls have short connect and read timeouts: where the index is out of reach,
//! `envtest use` says so at once and can build from source instead.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::Path;
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use serde::Deserialize;
use sha2::{Digest, Sha512};

use super::platform::Platform;
use super::store::REQUIRED;
use super::version::{Selector, Version};

/// Where setup-envtest reads the index from.
pub const DEFAULT_INDEX: &str =
    "https://raw.githubusercontent.com/kubernetes-sigs/controller-tools/HEAD/envtest-releases.yaml";

/// The largest index and archive read; today's are about 30 KB and 100 MB.
const INDEX_LIMIT: u64 = 16 << 20;
const ARCHIVE_LIMIT: u64 = 1 << 30;

#[derive(Debug, Deserialize)]
struct Index {
    releases: BTreeMap<String, BTreeMap<String, Archive>>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Archive {
    pub hash: String,
    #[serde(rename = "selfLink")]
    pub self_link: String,
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(5)))
        .timeout_resolve(Some(Duration::from_secs(5)))
        .timeout_recv_response(Some(Duration::from_secs(15)))
        .timeout_per_read(Some(Duration::from_secs(30)))
        .build()
        .into()
}

/// The newest release `selector` accepts for `platform`, from the index at `url`.
pub fn resolve(url: &str, selector: &Selector, platform: &Platform) -> Result<(Version, Archive)> {
    let text = agent()
        .get(url)
        .call()
        .and_then(|mut response| {
            response
                .body_mut()
                .with_config()
                .limit(INDEX_LIMIT)
                .read_to_string()
        })
        .with_context(|| format!("cannot read the envtest index {url}"))?;
    let index: Index = crate::yaml::read::from_str(&text)
        .with_context(|| format!("{url} is not an envtest release index"))?;
    pick(&index, selector, platform).with_context(|| {
        format!("the envtest index {url} lists no Kubernetes {selector} for {platform}")
    })
}

fn pick(index: &Index, selector: &Selector, platform: &Platform) -> Option<(Version, Archive)> {
    index
        .releases
        .iter()
        .filter_map(|(name, archives)| {
            let version = Version::parse(name)?;
            let archive = archives.get(&archive_name(&version, platform))?;
            selector
                .matches(&version)
                .then(|| (version, archive.clone()))
        })
        .max_by_key(|(version, _)| *version)
}

pub fn archive_name(version: &Version, platform: &Platform) -> String {
    format!("envtest-v{version}-{platform}.tar.gz")
}

/// Downloads `archive`, checks its SHA-512, and unpacks its binaries into `into`. Only
/// the known binaries are taken, as plain files: an archive with anything else at their
/// place (a link, a directory, a path outside) is refused.
pub fn fetch(archive: &Archive, into: &Path) -> Result<()> {
    let url = &archive.self_link;
    let response = agent()
        .get(url)
        .call()
        .with_context(|| format!("cannot download {url}"))?;
    let mut reader = response
        .into_body()
        .into_with_config()
        .limit(ARCHIVE_LIMIT)
        .reader();
    let mut file = tempfile::tempfile_in(into).context("cannot create a temporary file")?;
    let mut hasher = Sha512::new();
    let mut buffer = vec![0; 1 << 16];
    loop {
        let n = reader
            .read(&mut buffer)
            .with_context(|| format!("the download of {url} broke off"))?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
        file.write_all(&buffer[..n])
            .context("cannot store the downloaded archive")?;
    }
    let digest = hex(&hasher.finalize());
    if !digest.eq_ignore_ascii_case(archive.hash.trim()) {
        bail!(
            "{url}: the SHA-512 of the download is {digest}, the index says {}; not installed",
            archive.hash.trim()
        );
    }
    use std::io::Seek as _;
    file.rewind()?;
    unpack(file, into).with_context(|| format!("cannot unpack {url}"))
}

fn unpack(archive: impl Read, into: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(archive));
    for entry in tar.entries()? {
        let mut entry = entry?;
        let path = entry.path()?.into_owned();
        let Some(name) = path
            .strip_prefix("controller-tools/envtest")
            .ok()
            .and_then(|rest| rest.to_str())
            .filter(|name| REQUIRED.contains(name) || *name == "kubectl")
        else {
            continue;
        };
        if !entry.header().entry_type().is_file() {
            bail!("{} is not a plain file in the archive", path.display());
        }
        let target = into.join(name);
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&target)
            .with_context(|| format!("cannot create {}", target.display()))?;
        std::io::copy(&mut entry, &mut out)?;
        out.set_permissions(std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_matching_release_of_the_platform_is_picked() {
        let index: Index = crate::yaml::read::from_str(
            "releases:\n  v1.37.0:\n    envtest-v1.37.0-linux-amd64.tar.gz: {hash: a, selfLink: x0}\n  v1.37.2:\n    envtest-v1.37.2-darwin-arm64.tar.gz: {hash: b, selfLink: x2}\n  v1.37.1:\n    envtest-v1.37.1-linux-amd64.tar.gz: {hash: c, selfLink: x1}\n  v1.38.0:\n    envtest-v1.38.0-linux-amd64.tar.gz: {hash: d, selfLink: x3}\n",
        )
        .unwrap();
        let linux = Platform::new("linux", "amd64");
        let (version, archive) = pick(&index, &"1.37".parse().unwrap(), &linux).unwrap();
        assert_eq!(
            (version.to_string(), archive.self_link.as_str()),
            ("1.37.1".into(), "x1")
        );
        assert!(pick(&index, &"1.37.2".parse().unwrap(), &linux).is_none());
    }
}
