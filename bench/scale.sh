#!/usr/bin/env bash
# The generated operator at scale, on a real API server: the golden project
# testdata/project-v1 with this tree's runtime, `make bench-scale` for N objects (default
# 1,000) of CronJob (a finalizer, a conversion webhook, defaulting and validation) and of
# Tenant (cluster-scoped, no finalizer). Run from anywhere:
#   bench/scale.sh [N]
# Needs kube-apiserver and etcd, as the envtest tests do (`rsbuilder envtest use 1.37`, or
# KUBEBUILDER_ASSETS). The release builds go to target/bench-scale (RSBUILDER_BENCH_TARGET).
# Each run prints its table and a `scale:` line; bench/README.md keeps the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
cargo build --quiet
bin="$PWD/target/debug/rsbuilder"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r testdata/project-v1 "$work/project"
# The golden holds no copy of the runtime (testdata/rsbuilder-runtime.sum stands for it).
"$bin" -q -C "$work/project" generate runtime
export CARGO_TARGET_DIR="${RSBUILDER_BENCH_TARGET:-$PWD/target/bench-scale}"
for kind in CronJob Tenant; do
  make -C "$work/project" --no-print-directory bench-scale N="$n" BENCH_KIND="$kind" RSBUILDER="$bin"
done
