//! `rsbuilder envtest use|list`: the lookup order controller-runtime uses, setup-envtest's
//! store, and the download of the official archive, served here from 127.0.0.1 (an index
//! and an archive made by the test, in the layout controller-tools publishes).

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha512};

use common::*;

/// This machine's platform, as the archives name it.
fn platform() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("{}-{arch}", std::env::consts::OS)
}

/// Serves `files` (path -> body) over HTTP on loopback until the test ends; any other path
/// is a 404. Returns the base URL.
fn serve(files: Vec<(String, Vec<u8>)>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().take(64) {
            let Ok(mut stream) = stream else { continue };
            let mut line = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).is_err() || header.trim().is_empty() {
                    break;
                }
            }
            let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
            let (status, body) = match files.iter().find(|(p, _)| *p == path) {
                Some((_, body)) => ("200 OK", body.clone()),
                None => ("404 Not Found", b"not found".to_vec()),
            };
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
    });
    url
}

/// A tar.gz with `entries` (path, contents, symlink target).
fn archive(entries: &[(&str, &str, Option<&str>)]) -> Vec<u8> {
    let encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut tar = tar::Builder::new(encoder);
    for (path, contents, link) in entries {
        let mut header = tar::Header::new_gnu();
        header.set_mode(0o755);
        match link {
            Some(target) => {
                header.set_entry_type(tar::EntryType::Symlink);
                header.set_size(0);
                tar.append_link(&mut header, path, target).unwrap();
            }
            None => {
                header.set_size(contents.len() as u64);
                tar.append_data(&mut header, path, contents.as_bytes())
                    .unwrap();
            }
        }
    }
    tar.into_inner().unwrap().finish().unwrap()
}

fn official_archive() -> Vec<u8> {
    archive(&[
        (
            "controller-tools/envtest/kube-apiserver",
            "#!/bin/sh\necho apiserver\n",
            None,
        ),
        (
            "controller-tools/envtest/etcd",
            "#!/bin/sh\necho etcd\n",
            None,
        ),
        (
            "controller-tools/envtest/kubectl",
            "#!/bin/sh\necho kubectl\n",
            None,
        ),
    ])
}

fn hex_sha512(bytes: &[u8]) -> String {
    Sha512::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// An index listing 1.37.0 and 1.37.1 (whose archive is `archive` with hash `hash`) and
/// 1.38.0 for this platform, and 1.37.2 for another platform only.
fn index(base: &str, hash: &str) -> String {
    let p = platform();
    format!(
        "releases:\n  v1.37.0:\n    envtest-v1.37.0-{p}.tar.gz:\n      hash: {hash}\n      selfLink: {base}/old.tar.gz\n  v1.37.1:\n    envtest-v1.37.1-{p}.tar.gz:\n      hash: {hash}\n      selfLink: {base}/envtest.tar.gz\n  v1.37.2:\n    envtest-v1.37.2-plan9-mips.tar.gz:\n      hash: {hash}\n      selfLink: {base}/other.tar.gz\n  v1.38.0:\n    envtest-v1.38.0-{p}.tar.gz:\n      hash: {hash}\n      selfLink: {base}/new.tar.gz\n"
    )
}

/// `rsbuilder envtest ...` with no lookup variables of the caller's.
fn envtest(args: &[&str]) -> Command {
    let mut command = rsbuilder_command(Path::new("."), args);
    for name in [
        "TEST_ASSET_KUBE_APISERVER",
        "TEST_ASSET_ETCD",
        "KUBEBUILDER_ASSETS",
    ] {
        command.env_remove(name);
    }
    command
}

fn files_under(root: &Path) -> Vec<String> {
    let mut found: Vec<String> = snapshot(root)
        .into_keys()
        .map(|p| p.display().to_string())
        .collect();
    found.sort();
    found
}

#[test]
fn the_newest_matching_archive_is_downloaded_checked_and_unpacked_into_the_store() {
    let store = tempfile::tempdir().unwrap();
    let bytes = official_archive();
    let hash = hex_sha512(&bytes);
    let base = serve(vec![("/envtest.tar.gz".into(), bytes)]);
    let index_url = {
        let base_for_index = base.clone();
        let text = index(&base_for_index, &hash);
        serve(vec![("/envtest-releases.yaml".into(), text.into_bytes())])
    };
    let bin_dir = store.path().to_str().unwrap();
    let index = format!("{index_url}/envtest-releases.yaml");
    let out = envtest(&[
        "envtest",
        "use",
        "1.37",
        "--bin-dir",
        bin_dir,
        "--index",
        &index,
        "-p",
        "path",
    ])
    .output()
    .unwrap();
    let printed = ok(&out);
    let dir = store.path().join(format!("k8s/1.37.1-{}", platform()));
    assert_eq!(printed.trim(), dir.display().to_string());
    for name in ["kube-apiserver", "etcd", "kubectl"] {
        let mode = std::fs::metadata(dir.join(name))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111, "{name} is not executable");
    }
    assert_eq!(
        files_under(store.path()),
        [
            "k8s".to_string(),
            format!("k8s/1.37.1-{}", platform()),
            format!("k8s/1.37.1-{}/etcd", platform()),
            format!("k8s/1.37.1-{}/kube-apiserver", platform()),
            format!("k8s/1.37.1-{}/kubectl", platform()),
        ],
        "nothing but the version directory is left in the store"
    );

    // Installed now: found without the network, and listed.
    let out = envtest(&[
        "envtest",
        "use",
        "1.37.1",
        "--bin-dir",
        bin_dir,
        "--installed-only",
        "-p",
        "env",
    ])
    .output()
    .unwrap();
    assert_eq!(
        ok(&out).trim(),
        format!("export KUBEBUILDER_ASSETS='{}'", dir.display())
    );
    let listed = ok(&envtest(&["envtest", "list", "--bin-dir", bin_dir])
        .output()
        .unwrap());
    assert!(
        listed.contains("v1.37.1") && listed.contains(&dir.display().to_string()),
        "{listed}"
    );
}

/// `envtest use` of the archive `bytes`, listed with `hash`, into `store`, with no go on
/// PATH, so that the fallback to a source build cannot run either.
fn install_without_go(bytes: Vec<u8>, hash: &str, store: &Path) -> std::process::Output {
    let base = serve(vec![("/envtest.tar.gz".into(), bytes)]);
    let index_url = serve(vec![("/i.yaml".into(), index(&base, hash).into_bytes())]);
    let index = format!("{index_url}/i.yaml");
    let bin_dir = store.to_str().unwrap();
    envtest(&["envtest", "use", "--bin-dir", bin_dir, "--index", &index])
        .env("PATH", "/nonexistent")
        .output()
        .unwrap()
}

#[test]
fn an_archive_whose_hash_differs_from_the_index_installs_nothing() {
    let store = tempfile::tempdir().unwrap();
    let out = install_without_go(official_archive(), &"0".repeat(128), store.path());
    let err = fails(&out, 1);
    assert!(err.contains("SHA-512"), "{err}");
    assert!(err.contains("go is not on PATH"), "{err}");
    assert_eq!(
        files_under(store.path()),
        ["k8s"],
        "something was installed"
    );
}

#[test]
fn an_archive_with_a_link_in_place_of_a_binary_is_refused() {
    let store = tempfile::tempdir().unwrap();
    let bytes = archive(&[
        (
            "controller-tools/envtest/kube-apiserver",
            "#!/bin/sh\n",
            None,
        ),
        ("controller-tools/envtest/etcd", "", Some("/bin/sh")),
    ]);
    let hash = hex_sha512(&bytes);
    let err = fails(&install_without_go(bytes, &hash, store.path()), 1);
    assert!(err.contains("not a plain file"), "{err}");
    assert_eq!(files_under(store.path()), ["k8s"]);
}

#[test]
fn an_unreachable_index_fails_at_once_with_the_way_out() {
    let store = tempfile::tempdir().unwrap();
    // A port nobody listens on: connection refused.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let index = format!("http://127.0.0.1:{port}/envtest-releases.yaml");
    let started = Instant::now();
    let out = envtest(&[
        "envtest",
        "use",
        "--bin-dir",
        store.path().to_str().unwrap(),
        "--index",
        &index,
    ])
    .env("PATH", "/nonexistent")
    .output()
    .unwrap();
    let err = fails(&out, 1);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );
    assert!(err.contains("cannot read the envtest index"), "{err}");
    assert!(err.contains("Go"), "{err}");
    assert_eq!(
        err.lines().filter(|l| l.starts_with("error:")).count(),
        1,
        "{err}"
    );
}

fn fake_binaries(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for name in ["kube-apiserver", "etcd"] {
        let path = dir.join(name);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[test]
fn the_environment_comes_first_as_in_controller_runtime() {
    let assets = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    fake_binaries(assets.path());
    fake_binaries(&store.path().join(format!("k8s/1.37.9-{}", platform())));
    let bin_dir = store.path().to_str().unwrap();
    let use_path = || envtest(&["envtest", "use", "--bin-dir", bin_dir, "-i", "-p", "path"]);

    let out = use_path().output().unwrap();
    assert!(
        ok(&out)
            .trim()
            .ends_with(&format!("k8s/1.37.9-{}", platform()))
    );

    let out = use_path()
        .env("KUBEBUILDER_ASSETS", assets.path())
        .output()
        .unwrap();
    assert_eq!(ok(&out).trim(), assets.path().display().to_string());

    let apiserver = assets.path().join("kube-apiserver");
    let etcd = assets.path().join("etcd");
    let out = envtest(&["envtest", "use", "--bin-dir", bin_dir, "-i", "-p", "env"])
        .env("KUBEBUILDER_ASSETS", "/nonexistent")
        .env("TEST_ASSET_KUBE_APISERVER", &apiserver)
        .env("TEST_ASSET_ETCD", &etcd)
        .output()
        .unwrap();
    let printed = ok(&out);
    assert!(
        printed.contains(&format!("TEST_ASSET_ETCD='{}'", etcd.display())),
        "{printed}"
    );

    // A variable that names nothing usable is the user's mistake, said as such.
    let empty = tempfile::tempdir().unwrap();
    let out = use_path()
        .env("KUBEBUILDER_ASSETS", empty.path())
        .output()
        .unwrap();
    let err = fails(&out, 1);
    assert!(
        err.contains("KUBEBUILDER_ASSETS") && err.contains("does not hold"),
        "{err}"
    );
}

#[test]
fn a_version_that_is_not_one_is_a_usage_error_and_a_missing_one_is_said() {
    let store = tempfile::tempdir().unwrap();
    let bin_dir = store.path().to_str().unwrap();
    for bad in ["latest", "1", "../1.37", "1.37.x"] {
        let out = envtest(&["envtest", "use", bad, "--bin-dir", bin_dir])
            .output()
            .unwrap();
        let err = fails(&out, 2);
        assert!(err.contains("not a Kubernetes version"), "{bad}: {err}");
    }
    let out = envtest(&["envtest", "use", "1.37", "--bin-dir", bin_dir, "-i"])
        .output()
        .unwrap();
    let err = fails(&out, 1);
    assert!(err.contains("not installed"), "{err}");
    assert!(
        !store.path().join("k8s").exists(),
        "--installed-only wrote into the store"
    );
}
