//! kube-apiserver and etcd built from their Go module sources, for machines that reach the
//! Go module proxy but not the envtest archives.
//!
//! `k8s.io/kubernetes` is not meant to be used as a module: its go.mod points every
//! `k8s.io/*` staging module at `./staging/...` (kubernetes#79384). A module of our own
//! that requires `k8s.io/kubernetes v1.X.Y` and replaces each staging module that release's
//! go.mod lists with its published `v0.X.Y` builds it. etcd is built from
//! `go.etcd.io/etcd/server/v3` (whose `main` package is the server) at the version that
//! Kubernetes release requires. Go's module cache makes a second build faster; the build
//! cache (some 3 GiB for kube-apiserver) is a private one, deleted once the binaries are in
//! the store, which is the cache that matters.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result, bail};

use super::version::{Selector, Version};

/// The newest release of `k8s.io/kubernetes` on the module proxy that `selector` accepts.
pub fn resolve(selector: &Selector) -> Result<Version> {
    let out = go(
        Path::new("."),
        &["list", "-m", "-versions", "k8s.io/kubernetes"],
    )?;
    let versions: Vec<Version> = out.split_whitespace().filter_map(Version::parse).collect();
    selector
        .newest(&versions)
        .with_context(|| format!("the Go module proxy has no k8s.io/kubernetes {selector}"))
}

/// Builds `kube-apiserver` and `etcd` of `version` into `into`, saying what it does on
/// stderr. `work` keeps the build modules between runs.
pub fn build(version: &Version, work: &Path, into: &Path) -> Result<()> {
    let cache = work.join("go-build");
    build_with(version, work, &cache, into)?;
    std::fs::remove_dir_all(&cache)
        .with_context(|| format!("cannot remove Go's build cache {}", cache.display()))
}

fn build_with(version: &Version, work: &Path, cache: &Path, into: &Path) -> Result<()> {
    crate::errln!(
        "building kube-apiserver and etcd for Kubernetes {version} from source with go (the first build takes several minutes)"
    );
    let kubernetes_mod = download_go_mod(&format!("k8s.io/kubernetes@v{version}"))?;
    let text = std::fs::read_to_string(&kubernetes_mod)
        .with_context(|| format!("cannot read {}", kubernetes_mod.display()))?;
    let requirements = Requirements::of(&text);
    if requirements.staging.is_empty() {
        bail!(
            "{} replaces no staging module: not a k8s.io/kubernetes go.mod",
            kubernetes_mod.display()
        );
    }
    let etcd = requirements.etcd.with_context(|| {
        format!(
            "{} requires no go.etcd.io/etcd/server/v3",
            kubernetes_mod.display()
        )
    })?;

    let staging_version = format!("v0.{}.{}", version.minor, version.patch);
    let mut kube = format!(
        "module rsbuilder.local/envtest/kube\n\ngo 1.24\n\nrequire k8s.io/kubernetes v{version}\n\nreplace (\n"
    );
    for module in &requirements.staging {
        kube.push_str(&format!("\t{module} => {module} {staging_version}\n"));
    }
    kube.push_str(")\n");
    let kube_dir = work.join(format!("kube-{version}"));
    let package = "k8s.io/kubernetes/cmd/kube-apiserver";
    prepare(&kube_dir, &kube, package, cache)?;
    // What `kube-apiserver --version` and the /version endpoint report.
    let ldflags = format!(
        "-s -w -X k8s.io/component-base/version.gitVersion=v{version} -X k8s.io/component-base/version.gitMajor={} -X k8s.io/component-base/version.gitMinor={} -X k8s.io/component-base/version.gitTreeState=clean",
        version.major, version.minor
    );
    crate::errln!("  go build {package}");
    compile(
        &kube_dir,
        package,
        &into.join("kube-apiserver"),
        &ldflags,
        cache,
    )?;

    let etcd_dir = work.join(format!("etcd-{etcd}"));
    let package = "go.etcd.io/etcd/server/v3";
    let module =
        format!("module rsbuilder.local/envtest/etcd\n\ngo 1.24\n\nrequire {package} {etcd}\n");
    prepare(&etcd_dir, &module, package, cache)?;
    crate::errln!("  go build {package} ({etcd})");
    compile(&etcd_dir, package, &into.join("etcd"), "-s -w", cache)?;
    Ok(())
}

/// What a k8s.io/kubernetes go.mod says the build needs.
#[derive(Debug, Default, PartialEq)]
struct Requirements {
    /// Every `k8s.io/*` module replaced by a directory under `./staging`.
    staging: Vec<String>,
    /// The etcd server version required.
    etcd: Option<String>,
}

impl Requirements {
    fn of(go_mod: &str) -> Self {
        let mut found = Self::default();
        for line in go_mod.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            let words = match words.first() {
                Some(&"replace" | &"require") => &words[1..],
                _ => &words[..],
            };
            match words {
                [module, "=>", path, ..]
                    if module.starts_with("k8s.io/") && path.starts_with("./staging/") =>
                {
                    found.staging.push(module.to_string());
                }
                ["go.etcd.io/etcd/server/v3", version, ..] if version.starts_with('v') => {
                    found.etcd = Some(version.to_string());
                }
                _ => {}
            }
        }
        found.staging.sort();
        found.staging.dedup();
        found
    }
}

/// Writes the build module into `dir` and resolves its dependencies, unless an earlier
/// run left the same module there already resolved.
fn prepare(dir: &Path, go_mod: &str, package: &str, cache: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let tools = format!("//go:build tools\n\npackage tools\n\nimport _ \"{package}\"\n");
    let stamp = dir.join("go.mod.in");
    if std::fs::read_to_string(&stamp).is_ok_and(|old| old == go_mod)
        && dir.join("go.sum").is_file()
    {
        return Ok(());
    }
    std::fs::write(dir.join("go.mod"), go_mod)?;
    std::fs::write(dir.join("tools.go"), tools)?;
    crate::errln!("  go mod tidy in {}", dir.display());
    go_cached(dir, &["mod", "tidy"], Some(cache))?;
    std::fs::write(&stamp, go_mod)?;
    Ok(())
}

fn compile(dir: &Path, package: &str, output: &Path, ldflags: &str, cache: &Path) -> Result<()> {
    let output = output.to_str().context("the store's path is not UTF-8")?;
    go_cached(
        dir,
        &[
            "build",
            "-trimpath",
            "-ldflags",
            ldflags,
            "-o",
            output,
            package,
        ],
        Some(cache),
    )
    .map(drop)
}

fn download_go_mod(module: &str) -> Result<PathBuf> {
    let out = go(Path::new("."), &["mod", "download", "-json", module])?;
    let info: serde_json::Value = serde_json::from_str(&out)
        .with_context(|| format!("go mod download {module}: unexpected output"))?;
    info["GoMod"]
        .as_str()
        .map(PathBuf::from)
        .with_context(|| format!("go mod download {module}: no go.mod ({out})"))
}

/// Runs `go` in `dir` with static binaries and no toolchain download, and returns its
/// standard output.
fn go(dir: &Path, args: &[&str]) -> Result<String> {
    go_cached(dir, args, None)
}

/// [`go`], with its build cache in `cache` when given.
fn go_cached(dir: &Path, args: &[&str], cache: Option<&Path>) -> Result<String> {
    let mut command = Command::new("go");
    if let Some(cache) = cache {
        command.env("GOCACHE", cache);
    }
    let out = command
        .args(args)
        .current_dir(dir)
        .env("CGO_ENABLED", "0")
        .env("GOFLAGS", "-mod=mod")
        .env("GOTOOLCHAIN", "local")
        // Outside a module, `go list -m` and `go mod download` work from the module cache.
        .env("GO111MODULE", "on")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                anyhow::anyhow!("go is not on PATH: building kube-apiserver and etcd from source needs Go (https://go.dev/dl)")
            } else {
                anyhow::anyhow!("cannot run go: {e}")
            }
        })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(20).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        bail!(
            "go {} failed in {}:\n{}",
            args.join(" "),
            dir.display(),
            tail.join("\n")
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_staging_modules_and_etcd_come_from_the_release_go_mod() {
        let go_mod = "module k8s.io/kubernetes\n\nrequire (\n\tgo.etcd.io/etcd/client/v3 v3.7.0\n\tk8s.io/api v0.0.0\n)\n\nrequire go.etcd.io/etcd/server/v3 v3.7.0 // indirect\n\nreplace (\n\tk8s.io/api => ./staging/src/k8s.io/api\n\tk8s.io/apiserver => ./staging/src/k8s.io/apiserver\n\tgithub.com/x/y => github.com/x/y v1.0.0\n)\nreplace k8s.io/kms => ./staging/src/k8s.io/kms\n";
        assert_eq!(
            Requirements::of(go_mod),
            Requirements {
                staging: vec![
                    "k8s.io/api".into(),
                    "k8s.io/apiserver".into(),
                    "k8s.io/kms".into()
                ],
                etcd: Some("v3.7.0".into()),
            }
        );
    }
}
