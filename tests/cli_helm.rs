//! `rsbuilder edit --helm[=false]` and `rsbuilder generate helm [--check]`: dist/chart is
//! made from what kustomize renders of config/default, kept in step by `generate`, and the
//! user's files in it (Chart.yaml, templates/extras/) are never touched.

mod common;

use std::fs;
use std::path::Path;
use std::process::Command;

use common::*;

const CHART: &str = "dist/chart";
const CRD_TEMPLATE: &str = "dist/chart/templates/crd/cronjobs.batch.example.com.yaml";
const MANAGER_TEMPLATE: &str = "dist/chart/templates/manager/controller-manager.yaml";
const ROLE_TEMPLATE: &str = "dist/chart/templates/rbac/manager-role.yaml";

/// A fresh project with one kind: `init` and `create api`.
fn fresh() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&rsbuilder(
        d,
        &["init", "--domain", "example.com", "--project-name", "demo"],
    ));
    ok(&rsbuilder(
        d,
        &[
            "create",
            "api",
            "--group",
            "batch",
            "--version",
            "v1",
            "--kind",
            "CronJob",
        ],
    ));
    dir
}

/// A fresh project with its chart (`edit --helm`).
fn with_chart() -> tempfile::TempDir {
    let dir = fresh();
    ok(&rsbuilder(dir.path(), &["edit", "--helm"]));
    dir
}

/// The chart's files (relative to dist/chart), bytes included.
fn chart(d: &Path) -> std::collections::BTreeMap<std::path::PathBuf, Option<Vec<u8>>> {
    snapshot(&d.join(CHART))
}

#[track_caller]
fn check_fails_naming(d: &Path, args: &[&str], file: &str) {
    let before = snapshot(d);
    let err = fails(&rsbuilder(d, args), 1);
    assert!(err.contains(file), "{args:?} does not name {file}:\n{err}");
    assert_eq!(snapshot(d), before, "{args:?} wrote");
}

#[test]
fn edit_helm_records_it_writes_the_chart_and_the_make_targets_and_twice_is_nothing_to_do() {
    let dir = fresh();
    let d = dir.path();
    assert!(!read(d, "PROJECT").contains("helm"));

    let out = ok(&rsbuilder(d, &["edit", "--helm"]));
    assert!(out.contains("create dist/chart/values.yaml"), "{out}");
    assert!(read(d, "PROJECT").contains("\nhelm: true\n"));
    for file in [
        "Chart.yaml",
        "values.yaml",
        "values.schema.json",
        "templates/_helpers.tpl",
        "templates/NOTES.txt",
        "templates/crd/cronjobs.batch.example.com.yaml",
        "templates/manager/controller-manager.yaml",
        "templates/rbac/manager-role.yaml",
    ] {
        assert!(d.join(CHART).join(file).is_file(), "no dist/chart/{file}");
    }
    assert!(read(d, CRD_TEMPLATE).contains("DO NOT EDIT"));
    assert!(read(d, "dist/chart/Chart.yaml").contains("name: demo\n"));
    // The targets go in before the Makefile's marker, which stays for the next insertion.
    let makefile = read(d, "Makefile");
    let marker = makefile
        .find("# +rsbuilder:scaffold:make-targets")
        .expect("the marker stays");
    for target in [
        "helm-lint",
        "helm-template",
        "helm-deploy",
        "helm-uninstall",
    ] {
        let at = makefile
            .find(&format!("\n{target}:"))
            .unwrap_or_else(|| panic!("no {target} in the Makefile:\n{makefile}"));
        assert!(at < marker, "{target} is after the marker");
        assert!(makefile.contains(&format!(".PHONY: {target}\n")));
    }
    let make = Command::new("make")
        .args([
            "-n",
            "helm-lint",
            "helm-template",
            "helm-deploy",
            "helm-uninstall",
        ])
        .current_dir(d)
        .output()
        .unwrap();
    assert!(make.status.success(), "{}", stderr(&make));

    // Again: nothing to do, nothing written. The chart is what `generate helm` makes.
    let before = snapshot(d);
    let out = ok(&rsbuilder(d, &["edit", "--helm"]));
    assert!(out.contains("nothing to do"), "{out}");
    assert_eq!(snapshot(d), before, "a second edit --helm changed the tree");
    let out = ok(&rsbuilder(d, &["generate", "helm"]));
    assert!(out.contains("nothing to do"), "{out}");
    assert_eq!(snapshot(d), before, "generate helm changed a fresh chart");
}

#[test]
fn generate_helm_in_a_project_without_a_chart_is_one_error_and_changes_nothing() {
    let dir = fresh();
    let d = dir.path();
    for args in [&["generate", "helm"][..], &["generate", "helm", "--check"]] {
        refused(
            d,
            args,
            1,
            "this project has no Helm chart; `rsbuilder edit --helm` adds one",
        );
    }
    assert!(!d.join("dist").exists());
    // And `generate manifests` leaves a project without one alone.
    ok(&rsbuilder(d, &["generate", "manifests"]));
    assert!(!d.join("dist").exists());
}

#[test]
fn check_fails_naming_the_file_when_config_changes_or_a_template_is_edited() {
    let dir = with_chart();
    let d = dir.path();
    let out = ok(&rsbuilder(d, &["generate", "helm", "--check"]));
    assert!(out.contains("up to date"), "{out}");
    let fresh_chart = chart(d);

    // A default the chart takes from config/: the replicas of the manager's Deployment.
    apply(
        d,
        &[Edit::Replace(
            "config/manager/manager.yaml",
            "replicas: 1",
            "replicas: 2",
        )],
    );
    for args in [
        &["generate", "helm", "--check"][..],
        &["generate", "manifests", "--check"],
    ] {
        check_fails_naming(d, args, "dist/chart/values.yaml (differs)");
    }
    ok(&rsbuilder(d, &["generate", "helm"]));
    assert!(read(d, "dist/chart/values.yaml").contains("\nreplicas: 2\n"));
    ok(&rsbuilder(d, &["generate", "helm", "--check"]));

    // What the templates render: an argument of the manager.
    apply(
        d,
        &[Edit::Replace(
            "config/manager/manager.yaml",
            "- --log-format=json",
            "- --log-format=text",
        )],
    );
    for args in [
        &["generate", "helm", "--check"][..],
        &["generate", "manifests", "--check"],
    ] {
        check_fails_naming(d, args, &format!("{MANAGER_TEMPLATE} (differs)"));
    }
    ok(&rsbuilder(d, &["generate", "manifests"]));
    assert!(read(d, MANAGER_TEMPLATE).contains("- --log-format=text\n"));
    ok(&rsbuilder(d, &["generate", "manifests", "--check"]));

    // A hand edit of a generated template: reported, then undone by generate.
    let role = read(d, ROLE_TEMPLATE);
    fs::write(d.join(ROLE_TEMPLATE), format!("{role}# my own rule\n")).unwrap();
    for args in [
        &["generate", "helm", "--check"][..],
        &["generate", "manifests", "--check"],
    ] {
        check_fails_naming(d, args, &format!("{ROLE_TEMPLATE} (differs)"));
    }
    let out = ok(&rsbuilder(d, &["generate", "helm"]));
    assert!(out.contains(&format!("update {ROLE_TEMPLATE}")), "{out}");
    assert_eq!(read(d, ROLE_TEMPLATE), role);

    // Back to config/ as it was: back to the fresh chart.
    apply(
        d,
        &[
            Edit::Replace("config/manager/manager.yaml", "replicas: 2", "replicas: 1"),
            Edit::Replace(
                "config/manager/manager.yaml",
                "- --log-format=text",
                "- --log-format=json",
            ),
        ],
    );
    ok(&rsbuilder(d, &["generate", "helm"]));
    assert_eq!(chart(d), fresh_chart);
}

#[test]
fn the_users_chart_files_survive_and_a_stray_template_is_reported_not_deleted() {
    let dir = with_chart();
    let d = dir.path();
    let chart_yaml = read(d, "dist/chart/Chart.yaml").replace("version: 0.1.0", "version: 1.4.2")
        + "icon: https://example.com/icon.png\n";
    let extra = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-extra\n";
    // A template an older config/ produced, or the user's own in the wrong place.
    let stray = read(d, ROLE_TEMPLATE).replace("manager-role", "old-role");
    let stray_path = "dist/chart/templates/rbac/old-role.yaml";
    fs::write(d.join("dist/chart/Chart.yaml"), &chart_yaml).unwrap();
    apply(
        d,
        &[Edit::Write(
            "dist/chart/templates/extras/configmap.yaml",
            extra,
        )],
    );
    fs::write(d.join(stray_path), &stray).unwrap();
    let before = snapshot(d);

    for args in [
        &["generate", "helm", "--check"][..],
        &["generate", "manifests", "--check"],
    ] {
        let err = fails(&rsbuilder(d, args), 1);
        assert!(
            err.contains(&format!("{stray_path} (no longer generated)")),
            "{err}"
        );
        assert!(!err.contains("Chart.yaml"), "{err}");
        assert!(!err.contains("extras"), "{err}");
    }
    for args in [&["generate", "helm"][..], &["generate", "manifests"]] {
        let out = ok(&rsbuilder(d, args));
        assert!(
            out.contains(&format!(
                "warning: {stray_path} is no longer generated; delete it"
            )),
            "{out}"
        );
        assert!(!out.contains("extras"), "{out}");
        assert_eq!(snapshot(d), before, "{args:?} changed the user's files");
    }
    assert_eq!(read(d, stray_path), stray, "the stray template was touched");
}

#[test]
fn edit_helm_false_removes_what_edit_helm_made_and_leaves_what_is_the_users() {
    let dir = fresh();
    let d = dir.path();
    let makefile = read(d, "Makefile");
    ok(&rsbuilder(d, &["edit", "--helm"]));
    // What is the user's: Chart.yaml (edited), an extra template, and a generated file
    // edited by hand.
    apply(
        d,
        &[
            Edit::Replace("dist/chart/Chart.yaml", "version: 0.1.0", "version: 0.2.0"),
            Edit::Write("dist/chart/templates/extras/mine.yaml", "# mine\n"),
            Edit::Replace("dist/chart/values.yaml", "replicas:", "# mine\nreplicas:"),
        ],
    );
    let chart_yaml = read(d, "dist/chart/Chart.yaml");
    let values = read(d, "dist/chart/values.yaml");

    let out = ok(&rsbuilder(d, &["edit", "--helm=false"]));
    assert!(
        out.contains("remove dist/chart/templates/_helpers.tpl"),
        "{out}"
    );
    assert!(
        out.contains("kept dist/chart/values.yaml: it differs"),
        "{out}"
    );
    assert!(!read(d, "PROJECT").contains("helm"));
    assert_eq!(
        read(d, "Makefile"),
        makefile,
        "the Makefile keeps helm targets"
    );
    let left: Vec<_> = chart(d).into_keys().collect();
    assert_eq!(
        left,
        [
            "Chart.yaml",
            "templates",
            "templates/extras",
            "templates/extras/mine.yaml",
            "values.yaml"
        ]
        .map(std::path::PathBuf::from),
        "what dist/chart holds after --helm=false"
    );
    assert_eq!(read(d, "dist/chart/Chart.yaml"), chart_yaml);
    assert_eq!(read(d, "dist/chart/values.yaml"), values);

    // config/ moves on; nothing touches what is left of the chart.
    apply(
        d,
        &[Edit::Replace(
            "config/manager/manager.yaml",
            "replicas: 1",
            "replicas: 2",
        )],
    );
    let before = chart(d);
    ok(&rsbuilder(d, &["generate", "manifests"]));
    ok(&rsbuilder(d, &["generate", "manifests", "--check"]));
    assert_eq!(chart(d), before, "generate manifests touched the chart");
    refused(
        d,
        &["generate", "helm"],
        1,
        "`rsbuilder edit --helm` adds one",
    );

    // Again: nothing to do.
    let before = snapshot(d);
    let out = ok(&rsbuilder(d, &["edit", "--helm=false"]));
    assert!(out.contains("nothing to do"), "{out}");
    assert_eq!(snapshot(d), before);
}

#[test]
fn dry_run_edit_helm_writes_nothing() {
    let dir = fresh();
    let d = dir.path();
    let before = snapshot(d);
    let out = ok(&rsbuilder(d, &["--dry-run", "edit", "--helm"]));
    assert!(out.contains("would create dist/chart/values.yaml"), "{out}");
    assert!(out.contains("would update Makefile"), "{out}");
    assert_eq!(snapshot(d), before, "--dry-run wrote");

    ok(&rsbuilder(d, &["edit", "--helm"]));
    let before = snapshot(d);
    let out = ok(&rsbuilder(d, &["--dry-run", "edit", "--helm=false"]));
    assert!(out.contains("would update PROJECT"), "{out}");
    assert_eq!(snapshot(d), before, "--dry-run wrote");
}

/// Runs rsbuilder with `KUSTOMIZE` set; expects exit 1 with one line naming `message`, and
/// the tree untouched. Returns the error.
#[track_caller]
fn refused_with_kustomize(d: &Path, kustomize: &str, args: &[&str], message: &str) -> String {
    let mut command = rsbuilder_command(d, args);
    command.env("KUSTOMIZE", kustomize);
    refused_command(d, command, 1, message)
}

#[test]
fn without_kustomize_the_chart_is_one_clear_error_and_nothing_is_written() {
    let dir = fresh();
    let d = dir.path();
    // A command that fails without a word.
    let err = refused_with_kustomize(d, "false", &["edit", "--helm"], "KUSTOMIZE");
    assert!(err.contains("`false config/default`"), "{err}");
    assert!(
        err.contains("failed (exit status: 1) without saying why"),
        "{err}"
    );
    assert!(err.contains("kubectl kustomize"), "names the fix: {err}");
    // A command that is not there.
    let err = refused_with_kustomize(d, "no-such-kustomize", &["edit", "--helm"], "KUSTOMIZE");
    assert!(err.contains("cannot run `no-such-kustomize`"), "{err}");
    // kustomize's own error, on one line.
    let err = refused_with_kustomize(
        d,
        "kubectl kustomiz",
        &["edit", "--helm"],
        "kustomize cannot render config/default",
    );
    assert!(err.contains("unknown command"), "{err}");

    // In a project with a chart, a pass that would change the CRDs writes none of them.
    ok(&rsbuilder(d, &["edit", "--helm"]));
    apply(
        d,
        &[Edit::Replace(
            "src/api/batch/v1/cron_job.rs",
            "pub struct CronJobSpec {",
            "pub struct CronJobSpec {\n    pub paused: Option<bool>,",
        )],
    );
    refused_with_kustomize(d, "false", &["generate", "manifests"], "KUSTOMIZE");
    refused_with_kustomize(d, "false", &["generate", "helm"], "KUSTOMIZE");
    ok(&rsbuilder(d, &["generate", "manifests"]));
    assert!(read(d, CRD_TEMPLATE).contains("paused:"));
}

#[test]
fn edit_storage_version_moves_the_charts_crd_in_the_same_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&rsbuilder(
        d,
        &["init", "--domain", "example.com", "--project-name", "demo"],
    ));
    for version in ["v1alpha1", "v1"] {
        ok(&rsbuilder(
            d,
            &[
                "create",
                "api",
                "--group",
                "batch",
                "--version",
                version,
                "--kind",
                "CronJob",
            ],
        ));
    }
    ok(&rsbuilder(d, &["edit", "--helm"]));
    let stored = |d: &Path| -> String {
        #[allow(clippy::disallowed_methods)] // rsbuilder's own output
        let crd: serde_yaml::Value = serde_yaml::from_str(
            &read(d, CRD_TEMPLATE)
                .lines()
                .filter(|l| !l.contains("{{"))
                .collect::<Vec<_>>()
                .join("\n"),
        )
        .unwrap();
        let versions = crd["spec"]["versions"].as_sequence().unwrap();
        let stored: Vec<&str> = versions
            .iter()
            .filter(|v| v["storage"].as_bool() == Some(true))
            .map(|v| v["name"].as_str().unwrap())
            .collect();
        assert_eq!(stored.len(), 1, "{versions:?}");
        stored[0].to_string()
    };
    assert_eq!(stored(d), "v1alpha1");

    let out = ok(&rsbuilder(
        d,
        &["edit", "--storage-version", "v1", "--kind", "CronJob"],
    ));
    assert!(out.contains(&format!("update {CRD_TEMPLATE}")), "{out}");
    assert_eq!(stored(d), "v1");
    ok(&rsbuilder(d, &["generate", "manifests", "--check"]));
}

#[test]
fn alpha_generate_replays_the_chart_and_carries_the_users_chart_files_over() {
    let work = tempfile::tempdir().unwrap();
    let input = work.path().join("old");
    runtime_copy::copy_golden("project-v1", &input);
    assert!(read(&input, "PROJECT").contains("\nhelm: true\n"));
    let chart_yaml =
        read(&input, "dist/chart/Chart.yaml").replace("version: 0.1.0", "version: 2.0.0");
    fs::write(input.join("dist/chart/Chart.yaml"), &chart_yaml).unwrap();
    let extra = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-extra\n";
    apply(
        &input,
        &[Edit::Write(
            "dist/chart/templates/extras/configmap.yaml",
            extra,
        )],
    );
    let args = |dry: bool| {
        let mut args = vec![
            "alpha",
            "generate",
            "--input-dir",
            "old",
            "--output-dir",
            "new",
        ];
        if dry {
            args.insert(0, "--dry-run");
        }
        args
    };
    let out = ok(&rsbuilder(work.path(), &args(true)));
    let last = out.lines().rfind(|l| l.starts_with("would run: "));
    assert_eq!(last, Some("would run: rsbuilder edit --helm"), "{out}");
    assert!(
        out.contains("dist/chart/Chart.yaml and dist/chart/templates/extras"),
        "{out}"
    );

    ok(&rsbuilder(work.path(), &args(false)));
    let new = work.path().join("new");
    assert!(read(&new, "PROJECT").contains("\nhelm: true\n"));
    assert!(read(&new, "Makefile").contains("\nhelm-lint:"));
    let out = ok(&rsbuilder(&new, &["generate", "helm", "--check"]));
    assert!(out.contains("up to date"), "{out}");
    // The generated chart is the golden's; the user's files are the user's.
    let golden = repo_root().join("testdata/project-v1");
    for file in ["values.yaml", "templates/manager/controller-manager.yaml"] {
        let file = format!("{CHART}/{file}");
        assert_eq!(read(&new, &file), read(&golden, &file), "{file}");
    }
    assert_eq!(read(&new, "dist/chart/Chart.yaml"), chart_yaml);
    assert_eq!(
        read(&new, "dist/chart/templates/extras/configmap.yaml"),
        extra
    );
}

/// The steps of the generated test workflow's `manifests` job.
#[allow(clippy::disallowed_methods)] // rsbuilder's own output
fn manifests_steps(d: &Path) -> Vec<serde_yaml::Value> {
    let workflow: serde_yaml::Value =
        serde_yaml::from_str(&read(d, ".github/workflows/test.yml")).unwrap();
    workflow["jobs"]["manifests"]["steps"]
        .as_sequence()
        .expect("the manifests job has steps")
        .clone()
}

#[test]
fn the_ci_workflow_lints_and_renders_the_chart_when_the_project_has_one() {
    let dir = fresh();
    let d = dir.path();
    let steps = manifests_steps(d);
    let helm_steps: Vec<&serde_yaml::Value> = steps
        .iter()
        .filter(|s| {
            let text = format!("{:?} {:?}", s["uses"], s["run"]);
            text.contains("helm")
        })
        .collect();
    let uses: Vec<&str> = helm_steps
        .iter()
        .filter_map(|s| s["uses"].as_str())
        .collect();
    let runs: Vec<&str> = helm_steps
        .iter()
        .filter_map(|s| s["run"].as_str())
        .collect();
    assert_eq!(uses, ["azure/setup-helm@v4"], "{steps:?}");
    assert_eq!(runs, ["make helm-lint", "make helm-template"], "{steps:?}");
    // The helm the chart is tested with here (.ci/run builds it).
    let ci = fs::read_to_string(repo_root().join(".ci/run")).unwrap();
    let version = helm_steps[0]["with"]["version"]
        .as_str()
        .expect("a pinned helm");
    assert!(
        ci.contains(&format!("\nhelm_version={version}\n")),
        "the workflow installs helm {version}, .ci/run tests with another"
    );
    // Each runs only in a project with a chart: the workflow is the same in every project.
    for step in &helm_steps {
        assert_eq!(
            step["if"].as_str(),
            Some("hashFiles('dist/chart/Chart.yaml') != ''"),
            "{step:?}"
        );
    }
    // After the manifests are known to be up to date: the chart is made from them.
    let position = |run: &str| steps.iter().position(|s| s["run"].as_str() == Some(run));
    assert!(position("make check-manifests") < position("make helm-lint"));
    let lint = Command::new(tool("actionlint"))
        .arg(".github/workflows/test.yml")
        .current_dir(d)
        .output()
        .unwrap();
    assert!(
        lint.status.success(),
        "{}{}",
        String::from_utf8_lossy(&lint.stdout),
        stderr(&lint)
    );

    // What those steps run works in a project with a chart, with the Makefile's defaults.
    ok(&rsbuilder(d, &["edit", "--helm"]));
    for run in runs {
        let target = run.strip_prefix("make ").expect("a make target");
        let out = make(d, target, &[]);
        assert!(
            out.status.success(),
            "{run}: {}{}",
            stdout(&out),
            stderr(&out)
        );
    }
}

/// `make <target>` in `d` with this rsbuilder and the test's helm, and `vars`.
fn make(d: &Path, target: &str, vars: &[&str]) -> std::process::Output {
    Command::new("make")
        .arg(target)
        .arg(format!("RSBUILDER={}", env!("CARGO_BIN_EXE_rsbuilder")))
        .arg(format!("HELM={}", helm().display()))
        .args(vars)
        .env_remove("IMG")
        .current_dir(d)
        .output()
        .unwrap()
}

#[test]
fn make_helm_template_renders_the_image_img_names() {
    let dir = with_chart();
    let d = dir.path();
    for (vars, image) in [
        (&[][..], "controller:latest"),
        (
            &["IMG=registry.example.com/team/demo:v1.2.3"],
            "registry.example.com/team/demo:v1.2.3",
        ),
    ] {
        let out = make(d, "helm-template", vars);
        assert!(
            out.status.success(),
            "{vars:?}: {}{}",
            stdout(&out),
            stderr(&out)
        );
        assert!(
            stdout(&out).contains(&format!("image: \"{image}\"")),
            "{vars:?}: {}",
            stdout(&out)
        );
    }
}

#[test]
fn edit_helm_on_a_kept_chart_reports_the_templates_it_no_longer_generates() {
    let dir = with_chart();
    let d = dir.path();
    let stray = read(d, ROLE_TEMPLATE).replace("manager-role", "old-role");
    ok(&rsbuilder(d, &["edit", "--helm=false"]));
    let stray_path = "dist/chart/templates/rbac/old-role.yaml";
    fs::create_dir_all(d.join("dist/chart/templates/rbac")).unwrap();
    fs::write(d.join(stray_path), &stray).unwrap();

    let out = ok(&rsbuilder(d, &["edit", "--helm"]));
    assert!(
        out.contains(&format!(
            "warning: {stray_path} is no longer generated; delete it"
        )),
        "{out}"
    );
    assert_eq!(read(d, stray_path), stray);
}

/// The files below `d` (directories left out: an undone removal may leave one empty).
fn files(d: &Path) -> std::collections::BTreeMap<std::path::PathBuf, Vec<u8>> {
    snapshot(d)
        .into_iter()
        .filter_map(|(path, bytes)| Some((path, bytes?)))
        .collect()
}

/// `edit --helm=false` aborted (as under SIGKILL) before every 5th filesystem operation of
/// its write: recovery gives back the chart as it was, or the tree without it, never a
/// part of each; and the next run finishes the job.
#[test]
fn edit_helm_false_aborted_at_any_operation_is_undone() {
    use std::os::unix::process::ExitStatusExt;
    let seed = with_chart();
    let old = files(seed.path());
    let done = tempfile::tempdir().unwrap();
    copy_tree(seed.path(), done.path());
    ok(&rsbuilder(done.path(), &["edit", "--helm=false"]));
    let new = files(done.path());
    assert_ne!(old, new);
    let (mut aborted, mut n) = (0, 0);
    loop {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        copy_tree(seed.path(), d);
        let out = rsbuilder_command(d, &["edit", "--helm=false"])
            .env("RSBUILDER_TEST_KILL_AT", n.to_string())
            .output()
            .unwrap();
        if out.status.success() {
            assert_eq!(files(d), new, "past the last operation");
            break;
        }
        assert_eq!(
            out.status.signal(),
            Some(6),
            "operation {n}: {}",
            stderr(&out)
        );
        aborted += 1;
        let scratch = tempfile::tempdir().unwrap();
        copy_tree(d, scratch.path());
        rsbuilder::scaffold::DiskTree::new(scratch.path())
            .recover()
            .unwrap_or_else(|e| panic!("aborted at {n}: recovery failed: {e:#}"));
        let recovered = files(scratch.path());
        assert!(
            recovered == old || recovered == new,
            "aborted at {n}: a mixed tree: {} files differ from the old, {} from the new",
            recovered
                .iter()
                .filter(|(p, b)| old.get(*p) != Some(*b))
                .count(),
            recovered
                .iter()
                .filter(|(p, b)| new.get(*p) != Some(*b))
                .count()
        );
        ok(&rsbuilder(d, &["edit", "--helm=false"]));
        assert_eq!(files(d), new, "the run after the abort at {n}");
        n += 5;
        assert!(n < 2000, "the write never finished");
    }
    assert!(aborted >= 6, "only {aborted} aborts");
}

/// `create api` and `create webhook` change config/; in a project with a chart they
/// rewrite the chart in the same write, as they rewrite the CRDs and the webhook manifests.
#[test]
fn create_api_and_create_webhook_keep_the_chart_in_step() {
    let dir = with_chart();
    let d = dir.path();
    let api = [
        "create",
        "api",
        "--group",
        "fleet",
        "--version",
        "v1",
        "--kind",
        "Boat",
    ];
    ok(&rsbuilder(d, &api));
    assert!(
        d.join("dist/chart/templates/crd/boats.fleet.example.com.yaml")
            .is_file()
    );
    ok(&rsbuilder(d, &["generate", "manifests", "--check"]));
    let webhook = [
        "create",
        "webhook",
        "--group",
        "fleet",
        "--version",
        "v1",
        "--kind",
        "Boat",
        "--defaulting",
    ];
    ok(&rsbuilder(d, &webhook));
    assert!(
        d.join("dist/chart/templates/webhook/mutating-webhook-configuration.yaml")
            .is_file()
    );
    ok(&rsbuilder(d, &["generate", "manifests", "--check"]));
}
