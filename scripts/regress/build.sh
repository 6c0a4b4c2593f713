#!/usr/bin/env bash
# Builds what every regression shard runs, once: the test suite as a
# cargo-nextest archive and the release npu-sim, into build/regress/. It
# starts a regression run: its identity (REGRESS_RUN, or a fresh one) goes
# to build/regress/run, the results of any earlier run are removed, and
# build/regress/build.ok records a build that succeeded (build.failed one
# that did not), for shard.sh and merge.sh.
# Usage: scripts/regress/build.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=build/regress
run=${REGRESS_RUN:-local-$(date -u +%Y%m%dT%H%M%SZ)-$$}
mkdir -p "$dir"
rm -rf "$dir/results" "$dir/build.ok" "$dir/build.failed"
echo "$run" > "$dir/run"
failed() {
    echo "$run $1" > "$dir/build.failed"
    echo "regress: build of run $run failed: $1" >&2
    exit 1
}
command -v cargo-nextest >/dev/null || failed "cargo-nextest not found (cargo install cargo-nextest --locked)"
cargo nextest archive --workspace --archive-file "$dir/npu-tests.tar.zst" || failed "cargo nextest archive"
cargo build --release -p npu-sim || failed "cargo build --release -p npu-sim"
cp target/release/npu-sim "$dir/npu-sim"
echo "$run" > "$dir/build.ok"
echo "regress: run $run: $dir/npu-tests.tar.zst and $dir/npu-sim ready"
