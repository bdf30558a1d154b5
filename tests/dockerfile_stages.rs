//! The image of every golden project builds: each stage of its Dockerfile is laid out from
//! the Dockerfile's own instructions (COPY honours `.dockerignore` and keeps modification
//! times, RUN runs as written) and its cargo commands run on that layout. A manifest that
//! names a file the stage lacks (a bench, a build script) fails here, not in
//! `make docker-build`.
//!
//! `cargo build` runs as `cargo check` in the debug profile: it reads the manifest and
//! Cargo.lock exactly as the image build does, links nothing, and shares
//! `RSBUILDER_SAMPLES_TARGET` with `sample_projects.rs`. Ignored by a plain `cargo test`
//! because a cold shared target checks kube once.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use common::*;

#[test]
#[ignore = "slow: checks every golden project as its Dockerfile lays it out; run with `cargo test -- --include-ignored`"]
fn every_dockerfile_stage_holds_what_its_cargo_commands_need() {
    for name in golden_projects() {
        build_image(&name, true);
    }
}

#[test]
fn without_cargo_lock_the_image_build_stops_at_once_and_says_why() {
    for name in golden_projects() {
        let failed = std::panic::catch_unwind(|| build_image(&name, false))
            .expect_err("the image built without Cargo.lock");
        let message = failed.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(
            message.contains("RUN failed in stage skeleton")
                && message.contains("no Cargo.lock")
                && message.contains("cargo generate-lockfile"),
            "{name}: {message}"
        );
    }
}

/// A file a developer's checkout holds besides the committed ones; `.dockerignore` must keep
/// it out of every stage (host build output is large, and wrong for the image's platform).
const HOST_BUILD_OUTPUT: &str = "target/debug/host-build-output";

/// Lays out and runs every stage of the golden project `name`'s Dockerfile, its build
/// context holding a Cargo.lock when `lock` says so. Panics at the first failure.
fn build_image(name: &str, lock: bool) {
    let work = repo_root().join("target/dockerfile-stages").join(if lock {
        name.to_string()
    } else {
        format!("{name}-no-lock")
    });
    if work.exists() {
        fs::remove_dir_all(&work).unwrap();
    }
    let context = work.join("context");
    copy_keeping_mtime(&repo_root().join("testdata").join(name), &context);
    runtime_copy::write_copy(&context);
    if lock {
        write_lockfile(&context);
    }
    fs::create_dir_all(context.join(HOST_BUILD_OUTPUT).parent().unwrap()).unwrap();
    fs::write(context.join(HOST_BUILD_OUTPUT), "not for the image").unwrap();

    let dockerfile = fs::read_to_string(context.join("Dockerfile")).unwrap();
    let ignore =
        DockerIgnore::parse(&fs::read_to_string(context.join(".dockerignore")).unwrap_or_default());
    let context_files: Vec<PathBuf> = files_under(&context)
        .into_iter()
        .filter(|rel| !ignore.excludes(rel))
        .collect();
    let shim = Shim::new(&work);
    let mut stages: Vec<Stage> = Vec::new();
    for instruction in parse(&dockerfile) {
        let at = format!("{name}/Dockerfile:{}", instruction.line);
        let args = instruction.args.as_str();
        if instruction.keyword == "FROM" {
            let stage = Stage::from(args, &work, &stages, &at);
            stages.push(stage);
            continue;
        }
        let stage = stages
            .last_mut()
            .unwrap_or_else(|| panic!("{at}: instruction before FROM"));
        match instruction.keyword.as_str() {
            "WORKDIR" => {
                stage.workdir = stage.container_path(args);
                fs::create_dir_all(stage.host(&stage.workdir)).unwrap();
            }
            "SHELL" => stage.shell = serde_json::from_str(args).expect("SHELL takes a JSON array"),
            "COPY" => {
                let (from, sources, dest) = copy_args(args, &at);
                let files = match from {
                    None => context_sources(&context, &context_files, &sources, &at),
                    Some(from) => {
                        let source = stages
                            .iter()
                            .find(|s| s.name == from)
                            .unwrap_or_else(|| panic!("{at}: no stage {from}"));
                        stage_sources(source, &sources, &at)
                    }
                };
                let stage = stages.last_mut().unwrap();
                stage.copy(files, &dest);
            }
            "RUN" => stage.run(args, &shim, &at),
            // Metadata of the image: nothing to lay out.
            "USER" | "ENTRYPOINT" | "CMD" | "EXPOSE" | "LABEL" | "STOPSIGNAL" => {}
            other => panic!("{at}: this test does not model {other} yet; teach it"),
        }
    }

    let builds: usize = stages.iter().map(|s| s.builds.len()).sum();
    assert!(builds > 0, "{name}: the Dockerfile runs no cargo build");
    for stage in &stages {
        let leaked = files_under(&stage.root)
            .into_iter()
            .find(|rel| rel.ends_with(Path::new(HOST_BUILD_OUTPUT).file_name().unwrap()));
        assert!(
            leaked.is_none(),
            "{name}: stage {} holds the host's {HOST_BUILD_OUTPUT} at {leaked:?}; .dockerignore must keep target/ out",
            stage.name
        );
    }
}

/// Cargo.lock as the user commits it. Offline first (the crates are in cargo's cache once
/// the golden projects were built), else from crates.io.
fn write_lockfile(dir: &Path) {
    let offline = Command::new("cargo")
        .args(["generate-lockfile", "--offline", "--quiet"])
        .current_dir(dir)
        .output()
        .unwrap();
    if offline.status.success() {
        return;
    }
    let online = Command::new("cargo")
        .args(["generate-lockfile", "--quiet"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        online.status.success(),
        "cargo generate-lockfile failed in {}:\n{}",
        dir.display(),
        String::from_utf8_lossy(&online.stderr)
    );
}

// ---------------------------------------------------------------------------------------
// The Dockerfile

struct Instruction {
    line: usize,
    keyword: String,
    args: String,
}

/// Instructions with their continuation lines joined the way Docker joins them (the
/// backslash and newline removed) and comment lines dropped, also inside a continuation.
fn parse(dockerfile: &str) -> Vec<Instruction> {
    let mut instructions = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (index, line) in dockerfile.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with('#') || (trimmed.is_empty() && current.is_none()) {
            continue;
        }
        let (start, mut text) = current.take().unwrap_or((index + 1, String::new()));
        let (body, continued) = match line.trim_end().strip_suffix('\\') {
            Some(body) => (body, true),
            None => (line, false),
        };
        text.push_str(body);
        if continued {
            current = Some((start, text));
            continue;
        }
        let text = text.trim();
        let (keyword, args) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
        instructions.push(Instruction {
            line: start,
            keyword: keyword.to_uppercase(),
            args: args.trim().to_string(),
        });
    }
    assert!(
        current.is_none(),
        "the Dockerfile ends inside a continuation"
    );
    instructions
}

/// `COPY [--from=<stage>] [--chown=..] [--chmod=..] [--link] <src>... <dest>`.
fn copy_args(args: &str, at: &str) -> (Option<String>, Vec<String>, String) {
    assert!(
        !args.starts_with('['),
        "{at}: the JSON form of COPY is not modelled"
    );
    let mut from = None;
    let mut paths = Vec::new();
    for word in args.split_whitespace() {
        if let Some(stage) = word.strip_prefix("--from=") {
            from = Some(stage.to_string());
        } else if word.starts_with("--chown=") || word.starts_with("--chmod=") || word == "--link" {
            // Ownership and layering, not what the stage holds.
        } else if word.starts_with("--") {
            panic!("{at}: COPY {word} is not modelled; teach this test");
        } else {
            assert!(
                !word.contains(['*', '?', '[']),
                "{at}: wildcards in COPY are not modelled"
            );
            paths.push(word.to_string());
        }
    }
    let dest = paths
        .pop()
        .unwrap_or_else(|| panic!("{at}: COPY without a destination"));
    assert!(!paths.is_empty(), "{at}: COPY without a source");
    (from, paths, dest)
}

/// What one COPY source names: a directory's files (relative to it) or a single file.
enum Source {
    Dir(Vec<(PathBuf, PathBuf)>),
    File(PathBuf),
}

fn clean(path: &str) -> PathBuf {
    Path::new(path)
        .components()
        .filter(|c| {
            !matches!(
                c,
                std::path::Component::CurDir | std::path::Component::RootDir
            )
        })
        .collect()
}

fn context_sources(context: &Path, files: &[PathBuf], sources: &[String], at: &str) -> Vec<Source> {
    sources
        .iter()
        .map(|source| {
            let source = clean(source);
            if context.join(&source).is_dir() {
                Source::Dir(
                    files
                        .iter()
                        .filter(|f| f.starts_with(&source))
                        .map(|f| {
                            (
                                f.strip_prefix(&source).unwrap().to_path_buf(),
                                context.join(f),
                            )
                        })
                        .collect(),
                )
            } else {
                assert!(
                    files.contains(&source),
                    "{at}: {} is not in the build context (missing, or excluded by .dockerignore)",
                    source.display()
                );
                Source::File(context.join(source))
            }
        })
        .collect()
}

fn stage_sources(stage: &Stage, sources: &[String], at: &str) -> Vec<Source> {
    sources
        .iter()
        .map(|source| {
            let host = stage.host(&PathBuf::from("/").join(source));
            if host.is_dir() {
                Source::Dir(
                    files_under(&host)
                        .into_iter()
                        .map(|rel| (rel.clone(), host.join(rel)))
                        .collect(),
                )
            } else if host.is_file() {
                Source::File(host)
            } else {
                // Not linked by this test: a binary the stage's `cargo build` would write.
                Source::File(stage.cargo_output(&PathBuf::from("/").join(source), at))
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Stages

struct Stage {
    name: String,
    /// The stage's filesystem root on the host.
    root: PathBuf,
    /// The working directory, as a path in the container.
    workdir: PathBuf,
    shell: Vec<String>,
    builds: Vec<Build>,
}

/// One `cargo build` a RUN made, as the shim logged it.
struct Build {
    args: Vec<String>,
    /// The units of the stage's own packages.
    units: Vec<Unit>,
    /// When the RUN that made it ended.
    finished: SystemTime,
}

struct Unit {
    name: String,
    kinds: Vec<String>,
    /// cargo reused the unit's earlier build.
    fresh: bool,
    /// The crate root, which cargo compares with the earlier build.
    src_path: PathBuf,
}

impl Stage {
    fn from(args: &str, work: &Path, stages: &[Stage], at: &str) -> Stage {
        let words: Vec<&str> = args.split_whitespace().collect();
        let (image, name) = match words.as_slice() {
            [image] => (*image, stages.len().to_string()),
            [image, as_, name] if as_.eq_ignore_ascii_case("as") => (*image, name.to_string()),
            _ => panic!("{at}: FROM {args} is not modelled"),
        };
        let root = work.join("stages").join(&name);
        fs::create_dir_all(&root).unwrap();
        let mut stage = Stage {
            name,
            root,
            workdir: PathBuf::from("/"),
            shell: vec!["/bin/sh".into(), "-c".into()],
            builds: Vec::new(),
        };
        // A stage built on an earlier one starts from its files and settings; one built
        // on an image starts empty (the image's own files are not the project's concern).
        if let Some(base) = stages.iter().find(|s| s.name == image) {
            copy_keeping_mtime(&base.root, &stage.root);
            stage.workdir = base.workdir.clone();
            stage.shell = base.shell.clone();
        }
        stage
    }

    fn container_path(&self, path: &str) -> PathBuf {
        self.workdir.join(path)
    }

    fn host(&self, container: &Path) -> PathBuf {
        self.root.join(clean(&container.to_string_lossy()))
    }

    /// COPY: a directory source's contents go into `dest`; a file goes to `dest`, or into
    /// it when `dest` ends with `/`, is a directory, or there are several sources.
    fn copy(&mut self, sources: Vec<Source>, dest: &str) {
        let target = self.host(&self.container_path(dest));
        let into = dest.ends_with('/') || target.is_dir() || sources.len() > 1;
        for source in sources {
            match source {
                Source::Dir(files) => {
                    for (rel, from) in files {
                        copy_file(&from, &target.join(rel));
                    }
                }
                Source::File(from) if into => {
                    copy_file(&from, &target.join(from.file_name().unwrap()))
                }
                Source::File(from) => copy_file(&from, &target),
            }
        }
    }

    fn run(&mut self, command: &str, shim: &Shim, at: &str) {
        assert!(
            !command.starts_with('['),
            "{at}: the exec form of RUN is not modelled"
        );
        let cwd = self.host(&self.workdir);
        fs::create_dir_all(&cwd).unwrap();
        let _ = fs::remove_file(&shim.log);
        let out = Command::new(&self.shell[0])
            .args(&self.shell[1..])
            .arg(command)
            .current_dir(&cwd)
            .env("PWD", &cwd)
            .env("PATH", shim.path())
            .env("REAL_CARGO", &shim.cargo)
            .env("SHIM_LOG", &shim.log)
            .env("CARGO_TARGET_DIR", samples_target())
            .env_remove("RUSTFLAGS")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{at}: RUN failed in stage {}:\n{}{}",
            self.name,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let log = fs::read_to_string(&shim.log).unwrap_or_default();
        for build in shim.builds(&log, &cwd, SystemTime::now()) {
            assert!(
                build.args.iter().any(|a| a == "--locked"),
                "{at}: `cargo {}` does not build from the committed Cargo.lock (--locked)",
                build.args.join(" ")
            );
            // Docker's COPY keeps modification times, which may be older than an earlier
            // build of stub sources in this stage: a later build must still compile the
            // project's own crates anew, or the image ships the stubs. cargo rebuilds a
            // unit when its root is newer than the earlier build; checking that rule as
            // well as cargo's answer keeps the test exact when something else (another
            // build in the shared target) happens to force a rebuild.
            if let Some(earlier) = self.builds.last() {
                for unit in &build.units {
                    let modified = fs::metadata(&unit.src_path).unwrap().modified().unwrap();
                    assert!(
                        !unit.fresh && modified > earlier.finished,
                        "{at}: `cargo {}` takes {} ({}) as up to date from the stage's earlier build",
                        build.args.join(" "),
                        unit.name,
                        unit.src_path.display()
                    );
                }
            }
            self.builds.push(build);
        }
    }

    /// A file under `<workdir>/target/<profile>/` that no build of this test links: accepted
    /// when one of the stage's builds named that binary in that profile. Returns a
    /// placeholder to copy in its place.
    fn cargo_output(&self, container: &Path, at: &str) -> PathBuf {
        let rel = container
            .strip_prefix(self.workdir.join("target"))
            .unwrap_or_else(|_| {
                panic!(
                    "{at}: {} does not exist in stage {}",
                    container.display(),
                    self.name
                )
            });
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let [profile, binary] = parts.as_slice() else {
            panic!("{at}: {} is not a binary cargo builds", container.display());
        };
        let built = self.builds.iter().any(|b| {
            let release = b.args.iter().any(|a| a == "--release");
            let wanted = if release { "release" } else { "debug" };
            wanted == profile
                && b.args.windows(2).any(|w| w == ["--bin", binary.as_str()])
                && b.units
                    .iter()
                    .any(|u| &u.name == binary && u.kinds.iter().any(|k| k == "bin"))
        });
        assert!(
            built,
            "{at}: stage {} never runs `cargo build{} --bin {binary}`, so {} does not exist",
            self.name,
            if profile == "release" {
                " --release"
            } else {
                ""
            },
            container.display()
        );
        let placeholder = self.root.join(".cargo-output").join(binary);
        fs::create_dir_all(placeholder.parent().unwrap()).unwrap();
        fs::write(&placeholder, "built by cargo in the image").unwrap();
        placeholder
    }
}

// ---------------------------------------------------------------------------------------
// cargo, as the RUN commands see it

struct Shim {
    dir: PathBuf,
    cargo: PathBuf,
    log: PathBuf,
}

impl Shim {
    fn new(work: &Path) -> Shim {
        let dir = work.join("shim");
        fs::create_dir_all(&dir).unwrap();
        let script = dir.join("cargo");
        fs::write(
            &script,
            r#"#!/bin/sh
# cargo for the Dockerfile's RUN commands: `build` runs as `check` in the debug profile,
# with its messages logged for the test; every other command passes through.
printf '# cargo %s\n' "$*" >> "$SHIM_LOG"
if [ "$1" != build ]; then exec "$REAL_CARGO" "$@"; fi
shift
for arg; do shift; [ "$arg" = --release ] || set -- "$@" "$arg"; done
exec "$REAL_CARGO" check "$@" --message-format=json-render-diagnostics >> "$SHIM_LOG"
"#,
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
        Shim {
            log: work.join("cargo.log"),
            cargo: real_cargo(),
            dir,
        }
    }

    fn path(&self) -> std::ffi::OsString {
        let mut dirs = vec![self.dir.clone()];
        dirs.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        std::env::join_paths(dirs).unwrap()
    }

    /// The `cargo build` calls in one RUN's log, with the units of the packages under `cwd`.
    fn builds(&self, log: &str, cwd: &Path, finished: SystemTime) -> Vec<Build> {
        let mut builds: Vec<Build> = Vec::new();
        let mut in_build = false;
        for line in log.lines() {
            if let Some(call) = line.strip_prefix("# cargo ") {
                let args: Vec<String> = call.split_whitespace().map(String::from).collect();
                in_build = args.first().is_some_and(|a| a == "build");
                if in_build {
                    builds.push(Build {
                        args,
                        units: Vec::new(),
                        finished,
                    });
                }
                continue;
            }
            if !in_build {
                continue;
            }
            let message: serde_json::Value = serde_json::from_str(line).unwrap();
            let manifest = message["manifest_path"].as_str().unwrap_or_default();
            if message["reason"] != "compiler-artifact" || !Path::new(manifest).starts_with(cwd) {
                continue;
            }
            let target = &message["target"];
            let kinds = target["kind"]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| k.as_str().unwrap().to_string())
                .collect();
            builds.last_mut().unwrap().units.push(Unit {
                name: target["name"].as_str().unwrap().to_string(),
                kinds,
                fresh: message["fresh"].as_bool().unwrap(),
                src_path: PathBuf::from(target["src_path"].as_str().unwrap()),
            });
        }
        builds
    }
}

/// The cargo that runs this test (cargo sets CARGO), else the first on PATH.
fn real_cargo() -> PathBuf {
    if let Some(cargo) = std::env::var_os("CARGO") {
        return PathBuf::from(cargo);
    }
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join("cargo"))
        .find(|p| p.is_file())
        .expect("cargo on PATH")
}

// ---------------------------------------------------------------------------------------
// .dockerignore

/// Docker's rules: patterns relative to the context root (a leading `/` changes nothing),
/// `*` and `?` within one path segment, `**` any number of segments, `!` re-includes; the
/// last pattern matching a path or one of its parent directories decides.
struct DockerIgnore {
    patterns: Vec<(bool, Vec<String>)>,
}

impl DockerIgnore {
    fn parse(text: &str) -> DockerIgnore {
        let patterns = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|line| {
                let (exception, pattern) = match line.strip_prefix('!') {
                    Some(rest) => (true, rest.trim()),
                    None => (false, line),
                };
                assert!(
                    !pattern.contains(['[', '\\']),
                    ".dockerignore pattern {pattern:?} is not modelled"
                );
                let segments = pattern
                    .split('/')
                    .filter(|s| !s.is_empty() && *s != ".")
                    .map(String::from)
                    .collect();
                (exception, segments)
            })
            .collect();
        DockerIgnore { patterns }
    }

    fn excludes(&self, rel: &Path) -> bool {
        let segments: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let mut excluded = false;
        for (exception, pattern) in &self.patterns {
            if (1..=segments.len()).any(|n| glob(pattern, &segments[..n])) {
                excluded = !exception;
            }
        }
        excluded
    }
}

fn glob(pattern: &[String], path: &[String]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((first, rest)) if first == "**" => (0..=path.len()).any(|i| glob(rest, &path[i..])),
        Some((first, rest)) => {
            !path.is_empty() && segment_matches(first, &path[0]) && glob(rest, &path[1..])
        }
    }
}

fn segment_matches(pattern: &str, name: &str) -> bool {
    fn go(p: &[char], n: &[char]) -> bool {
        match p.split_first() {
            None => n.is_empty(),
            Some(('*', rest)) => (0..=n.len()).any(|i| go(rest, &n[i..])),
            Some(('?', rest)) => !n.is_empty() && go(rest, &n[1..]),
            Some((c, rest)) => n.first() == Some(c) && go(rest, &n[1..]),
        }
    }
    go(
        &pattern.chars().collect::<Vec<_>>(),
        &name.chars().collect::<Vec<_>>(),
    )
}

#[test]
fn dockerignore_follows_dockers_rules() {
    let ignore =
        DockerIgnore::parse("# build output\ntarget/\n/dist\n**/*.swp\n*.md\n!README.md\n");
    for (path, excluded) in [
        ("target", true),
        ("target/release/manager", true),
        ("dist/install.yaml", true),
        ("src/target/x.rs", false),
        ("src/.main.rs.swp", true),
        ("NOTES.md", true),
        ("docs/NOTES.md", false),
        ("README.md", false),
        ("src/main.rs", false),
    ] {
        assert_eq!(ignore.excludes(Path::new(path)), excluded, "{path}");
    }
}

// ---------------------------------------------------------------------------------------
// Files

/// Every file under `root`, relative to it.
fn files_under(root: &Path) -> Vec<PathBuf> {
    snapshot(root)
        .into_iter()
        .filter(|(_, contents)| contents.is_some())
        .map(|(rel, _)| rel)
        .collect()
}

/// Copies a file the way Docker's COPY does: contents, permissions and modification time.
fn copy_file(from: &Path, to: &Path) {
    fs::create_dir_all(to.parent().unwrap()).unwrap();
    fs::copy(from, to).unwrap_or_else(|e| panic!("copy {}: {e}", from.display()));
    let modified = fs::metadata(from).unwrap().modified().unwrap();
    fs::File::options()
        .write(true)
        .open(to)
        .unwrap()
        .set_modified(modified)
        .unwrap();
}

fn copy_keeping_mtime(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for rel in files_under(from) {
        copy_file(&from.join(&rel), &to.join(&rel));
    }
}
