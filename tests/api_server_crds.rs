//! Every CRD rsbuilder writes, judged by the real API server: applied server-side, as
//! `make install` applies it, it must become Established, the condition the API server sets
//! once it accepted the schema and serves the kind
//! (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#create-a-customresourcedefinition).
//! The corpus: what `generate crds` makes of every case of the parity corpus
//! (`testdata/crds`), every golden project's `config/crd/bases`, and the third-party CRDs
//! whose types `--from-crd` generates (`testdata/external-crds`), and what `generate crds`
//! makes of the benchmark cases (`bench/crds`, CloudNativePG's Pooler among them).
#![allow(clippy::disallowed_methods)] // reads rsbuilder's and the tools' own YAML output

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use common::api_server::{ApiServer, api_server};
use common::{crd_cases, golden_projects, repo_root};

/// The names of the CRDs of a multi-document YAML file.
fn crd_names(text: &str) -> Vec<String> {
    common::documents(text)
        .iter()
        .filter(|d| d["kind"] == "CustomResourceDefinition")
        .map(|d| {
            d["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// Applies the file's text as it is written (replacing earlier CRDs of the same names,
/// which another case of the corpus may define differently) and waits until each of its
/// CRDs is Established; the number of CRDs judged.
fn judge(
    server: &ApiServer,
    dir: &Path,
    seen: &mut BTreeSet<String>,
    text: &str,
) -> Result<usize, String> {
    let names = crd_names(text);
    for name in &names {
        if !seen.insert(name.clone()) {
            server.delete_crd(name);
        }
    }
    let file = dir.join("crds.yaml");
    fs::write(&file, text).unwrap();
    server.apply(&file)?;
    for name in &names {
        server.established(name)?;
    }
    Ok(names.len())
}

#[test]
#[ignore = "needs kube-apiserver and etcd (KUBEBUILDER_ASSETS); run with --include-ignored"]
fn every_crd_rsbuilder_writes_is_established_on_the_api_server() {
    let mut corpus: Vec<(String, String)> = Vec::new();
    for case in crd_cases::cases() {
        let case_name = case.file_name().unwrap().to_string_lossy().into_owned();
        let generated =
            crd_cases::generate(&case).unwrap_or_else(|e| panic!("testdata/crds/{case_name}: {e}"));
        for (file, text) in generated {
            corpus.push((format!("testdata/crds/{case_name}: {file}"), text));
        }
    }
    // The benchmark cases: among them CloudNativePG's Pooler as `create api --from-crd`
    // writes its types (with JsonSchema derived), so a third-party CRD makes the round trip
    // types -> generate crds -> API server.
    let bench = repo_root().join("bench/crds");
    let mut benches: Vec<PathBuf> = fs::read_dir(&bench)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    benches.sort();
    // `big` has a test of its own below, which installs and deletes it.
    let judged_here = |c: &&PathBuf| c.join("src").is_dir() && !c.ends_with("big");
    for case in benches.iter().filter(judged_here) {
        let case_name = case.file_name().unwrap().to_string_lossy().into_owned();
        let generated =
            crd_cases::generate(case).unwrap_or_else(|e| panic!("bench/crds/{case_name}: {e}"));
        for (file, text) in generated {
            corpus.push((format!("bench/crds/{case_name}: {file}"), text));
        }
    }
    let mut files: Vec<PathBuf> = Vec::new();
    for name in golden_projects() {
        let bases = repo_root()
            .join("testdata")
            .join(&name)
            .join("config/crd/bases");
        if let Ok(entries) = fs::read_dir(&bases) {
            files.extend(entries.map(|e| e.unwrap().path()));
        }
    }
    let external = repo_root().join("testdata/external-crds");
    files.extend(
        fs::read_dir(&external)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "yaml")),
    );
    files.sort();
    for file in files {
        let shown = file
            .strip_prefix(repo_root())
            .unwrap()
            .display()
            .to_string();
        corpus.push((shown, fs::read_to_string(&file).unwrap()));
    }

    let server = api_server();
    let dir = tempfile::tempdir().unwrap();
    let mut seen = BTreeSet::new();
    let (mut accepted, mut refused) = (0, Vec::new());
    for (source, text) in &corpus {
        assert!(!crd_names(text).is_empty(), "{source}: no CRD");
        match judge(server, dir.path(), &mut seen, text) {
            Ok(judged) => accepted += judged,
            Err(error) => refused.push(format!("{source}: {error}")),
        }
    }
    eprintln!(
        "{accepted} CRDs Established, {} refused, from {} files",
        refused.len(),
        corpus.len()
    );
    assert!(
        refused.is_empty(),
        "the API server refused {} CRDs:\n{}",
        refused.len(),
        refused.join("\n")
    );
    assert!(accepted >= 40, "only {accepted} CRDs judged");
}

/// Big CRDs (`bench/crds/big`, what `generate crds` makes of a kind embedding Kubernetes
/// types, over 1 MiB of YAML): the API server installs one server-side, as `make install`
/// does, while client-side apply needs it whole in the last-applied annotation, which the
/// server caps at 256 KiB (apimachinery's TotalAnnotationSizeLimitB). Three times the
/// schema is still stored (etcd's 1.5 MiB applies to the protobuf the server stores), four
/// times is over the 3 MiB the server reads in one request. `lint`'s `crd-size` draws the
/// same lines.
#[test]
#[ignore = "needs kube-apiserver and etcd (KUBEBUILDER_ASSETS); run with --include-ignored"]
fn a_big_crd_installs_server_side_only_and_one_over_the_request_limit_not_at_all() {
    use rsbuilder::lint::rules::size::{ANNOTATION_LIMIT, REQUEST_LIMIT};

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let bench = repo_root().join("bench/crds/big/src");
    let args = [
        "generate",
        "crds",
        "--paths",
        bench.to_str().unwrap(),
        "--output-dir",
        out.to_str().unwrap(),
    ];
    common::ok(&common::rsbuilder(dir.path(), &args));
    let file = fs::read_dir(&out).unwrap().next().unwrap().unwrap().path();
    let text = fs::read_to_string(&file).unwrap();
    assert!(text.len() > 1024 * 1024, "{} bytes of YAML", text.len());
    let crd: serde_json::Value = serde_yaml::from_str(&text).unwrap();
    let name = crd["metadata"]["name"].as_str().unwrap().to_string();
    let size = serde_json::to_string(&crd).unwrap().len();
    assert!(
        size > ANNOTATION_LIMIT,
        "{size} bytes as JSON: lint would not warn about client-side apply"
    );

    let server = api_server();
    let client_side = server.kubectl(&["apply", "-f", file.to_str().unwrap()]);
    let refusal = String::from_utf8_lossy(&client_side.stderr);
    assert!(
        !client_side.status.success() && refusal.contains("262144"),
        "client-side apply of {size} bytes was not refused for its annotation: {refusal}"
    );
    server
        .apply(&file)
        .expect("server-side apply of the big CRD");
    server.established(&name).expect("the big CRD is served");
    server.delete_crd(&name);

    // The same schema in more versions.
    for (versions, stored) in [(3, true), (4, false)] {
        let mut grown = crd.clone();
        for n in 2..=versions {
            let mut version = crd["spec"]["versions"][0].clone();
            version["name"] = format!("v{n}").into();
            version["storage"] = false.into();
            grown["spec"]["versions"]
                .as_array_mut()
                .unwrap()
                .push(version);
        }
        let size = serde_json::to_string(&grown).unwrap().len();
        assert_eq!(
            size <= REQUEST_LIMIT,
            stored,
            "{size} bytes: lint draws another line"
        );
        let file = dir.path().join(format!("{versions}.json"));
        fs::write(&file, serde_json::to_string(&grown).unwrap()).unwrap();
        match server.apply(&file) {
            Ok(()) if stored => server.delete_crd(&name),
            Ok(()) => panic!("{size} bytes in {versions} versions were stored"),
            Err(error) if stored => panic!("{size} bytes in {versions} versions: {error}"),
            Err(error) => assert!(error.contains("too large"), "{error}"),
        }
    }
}

/// The other direction: every shape `generate crds` refuses as one kube-derive or the API
/// server would reject (`testdata/crds/refused/<shape>`, README's list of refused shapes)
/// is sent to the server as kube-derive writes it, and the server must refuse it. v1 CRDs
/// must have a structural schema, and the server validates it on create
/// (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#specifying-a-structural-schema).
/// Where kube-derive panics instead (`kube-derive-panics.txt`), there is nothing to send:
/// both refuse.
#[test]
#[ignore = "needs kube-apiserver and etcd (KUBEBUILDER_ASSETS); run with --include-ignored"]
fn every_shape_rsbuilder_refuses_is_refused_by_kube_derive_or_the_api_server() {
    let server = api_server();
    let dir = tempfile::tempdir().unwrap();
    let (mut by_server, mut by_kube_derive, mut disagreements) = (0, 0, Vec::new());
    let cases = crd_cases::refused_cases();
    for case in &cases {
        let shape = case.file_name().unwrap().to_string_lossy().into_owned();
        if let Ok(files) = crd_cases::generate(case) {
            let files: Vec<&String> = files.keys().collect();
            disagreements.push(format!("{shape}: rsbuilder writes {files:?}"));
            continue;
        }
        for (file, text) in crd_cases::expected(case) {
            if file == "kube-derive-panics.txt" {
                by_kube_derive += 1;
                continue;
            }
            let path = dir.path().join(&file);
            fs::write(&path, &text).unwrap();
            let names = crd_names(&text);
            match server.apply(&path) {
                Err(error) => {
                    eprintln!("{shape}: {}", error.trim());
                    by_server += 1;
                }
                Ok(()) => {
                    disagreements.push(format!("{shape}: the API server accepts {file}"));
                    names.iter().for_each(|name| server.delete_crd(name));
                }
            }
        }
    }
    eprintln!(
        "{} shapes refused by rsbuilder: {by_server} refused by the API server, \
         {by_kube_derive} by kube-derive, {} disagreements",
        cases.len(),
        disagreements.len()
    );
    assert!(
        disagreements.is_empty(),
        "rsbuilder's refusals disagree:\n{}",
        disagreements.join("\n")
    );
    assert!(cases.len() >= 15, "only {} refused shapes", cases.len());
}
