#!/usr/bin/env bash
# Whole-process benchmarks of rsbuilder (hyperfine). Run from the repository root:
#   bench/run.sh            # release build, then every benchmark
# Needs hyperfine (Debian: apt-get install hyperfine). Prints hyperfine's summaries;
# the figures go into the closing notes of the issues that set targets for them.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin="$PWD/target/release/rsbuilder"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NO_COLOR=1

echo "== rsbuilder binary: $(du -k "$bin" | cut -f1) KiB"

echo "== --help"
hyperfine --warmup 5 -N "$bin --help"

echo "== init (fresh directory each run)"
hyperfine --warmup 3 --prepare "rm -rf $work/init && mkdir $work/init" \
  "$bin -q -C $work/init init --domain example.com --project-name bench --fetch-deps=false"

# The largest golden project, as a real project to read.
for golden in testdata/project-v1 testdata/project-init; do [ -d "$golden" ] && break; done
cp -r "$golden" "$work/golden"
cp -r testdata/project-v1 "$work/v1-lint"
cp -r testdata/lint-seeded "$work/seeded"
echo "== generate crds --check on $golden"
hyperfine --warmup 5 -N "$bin -C $work/golden generate crds --check"

echo "== lint on testdata/project-v1 (target: under 50 ms), and on the seeded fixture"
hyperfine --warmup 5 -N "$bin -C $work/v1-lint lint" "$bin -C $work/seeded lint --format json" -i

echo "== every command on a fresh copy of testdata/project-v1"
cp -r testdata/project-v1 "$work/v1-source"
# --prepare needs a shell, so these runs use hyperfine's shell mode (its overhead is subtracted).
# CronJob converts through its hub v1, so `edit` may not move its storage version (it fails):
# the edit re-states v1, which plans everything and writes nothing.
prep="rm -rf $work/v1 && cp -r $work/v1-source $work/v1"
hyperfine --warmup 2 --runs 30 --prepare "$prep" \
  "$bin -q -C $work/v1 create api --group batch --version v2 --kind CronJob" \
  "$bin -q -C $work/v1 create api --group infra --version v1 --kind Quota" \
  "$bin -q -C $work/v1 create api --group core --version v1 --kind ConfigMap --resource=false --controller" \
  "$bin -q -C $work/v1 edit --storage-version v1 --kind CronJob --group batch" \
  "$bin -q -C $work/v1 create webhook --group infra --version v1 --kind Tenant --defaulting" \
  "$bin -q -C $work/v1 generate manifests" \
  "$bin -q -C $work/v1 generate manifests --check" \
  "$bin -q -C $work/v1 generate crds" \
  "$bin -q -C $work/v1 generate rbac" \
  "$bin -q -C $work/v1 generate webhooks"
hyperfine --warmup 2 --runs 20 --prepare "rm -rf $work/regen" \
  "$bin -q alpha generate --input-dir $work/v1-source --output-dir $work/regen --fetch-deps=false"

echo "== generate crds: one small kind, a kind embedding a PodTemplateSpec, a ~1 MB CRD, CloudNativePG's Pooler as kopium types (bench/crds)"
# Issue 11's target: the PodTemplateSpec case within 4x the one-kind case, whole process.
# The Pooler case (325 user types, its PodTemplateSpec written out as structs of its own): the same target.
cases="one-kind pod-template big pooler"
cmds=()
for c in $cases; do
  mkdir -p "$work/crds-$c"
  "$bin" -q generate crds --paths "bench/crds/$c/src" --output-dir "$work/crds-$c"
  echo "   $c: $(cat "$work/crds-$c"/*.yaml | wc -c) bytes of YAML"
  cmds+=("$bin -q generate crds --paths bench/crds/$c/src --output-dir $work/crds-$c")
done
hyperfine --warmup 5 --runs 100 -N "${cmds[@]}"
# The goal's measure: the cases side by side, round after round (medians of wall and cpu),
# and a process that does nothing, for what starting one costs on this machine.
python3 bench/pairs.py --runs 100 "${cmds[@]}" "$(command -v true)"
# Instructions do not depend on the machine's load: the figure to compare across runs.
if command -v valgrind >/dev/null; then
  for c in $cases; do
    ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
      "$bin" -q generate crds --paths "bench/crds/$c/src" --output-dir "$work/crds-$c" 2>&1 \
      | sed -n 's/.*Collected : //p')
    echo "   $c: $ir instructions (callgrind)"
  done
fi

echo "== generate crds on a synthetic project: 200 kinds x 3 versions"
python3 - "$work/synthetic" <<'PY'
import os, sys
root = sys.argv[1]
for k in range(200):
    for i, v in enumerate(["v1alpha1", "v1beta1", "v1"]):
        d = os.path.join(root, "src/api", v)
        os.makedirs(d, exist_ok=True)
        storage = "" if v == "v1" else ", storage = false"
        with open(os.path.join(d, f"kind{k}.rs"), "w") as f:
            f.write(f'''use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{{Deserialize, Serialize}};
use std::collections::BTreeMap;

/// Kind{k} wants things done.
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "g{k % 10}.example.com", version = "{v}", kind = "Kind{k}", plural = "kind{k}s", namespaced, status = "Kind{k}Status"{storage})]
#[serde(rename_all = "camelCase")]
pub struct Kind{k}Spec {{
    /// How many.
    pub replicas: Option<i32>,
    pub image: String,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    pub mode: Mode{k},
}}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub enum Mode{k} {{ Fast, Slow }}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Kind{k}Status {{
    #[serde(default)]
    pub conditions: Vec<Condition>,
    pub observed_generation: Option<i64>,
}}
''')
PY
hyperfine --warmup 1 --runs 5 -N \
  "$bin generate crds --paths $work/synthetic/src/api --output-dir $work/synthetic/out --check" \
  -i

if [ -f "$work/golden/Cargo.toml" ] && grep -q crdgen "$work/golden/Cargo.toml"; then
  echo "== generate crds --exact on $golden (after a warm build), for the static/exact ratio"
  export CARGO_TARGET_DIR="${RSBUILDER_SAMPLES_TARGET:-$PWD/target/sample-projects/target}"
  # The golden holds no copy of the runtime (testdata/rsbuilder-runtime.sum stands for it).
  "$bin" -q -C "$work/golden" generate runtime
  (cd "$work/golden" && cargo build --quiet --bin crdgen)
  hyperfine --warmup 1 --runs 5 -i "$bin -C $work/golden generate crds --exact --check"
fi
