#!/usr/bin/env bash
# Builds what every regression shard runs, once: the test suite as a
# cargo-nextest archive and the release npu-sim, into build/regress/.
# Usage: scripts/regress/build.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v cargo-nextest >/dev/null || {
    echo "regress: cargo-nextest not found (cargo install cargo-nextest --locked)" >&2
    exit 1
}
mkdir -p build/regress
cargo nextest archive --workspace --archive-file build/regress/npu-tests.tar.zst
cargo build --release -p npu-sim
cp target/release/npu-sim build/regress/npu-sim
echo "regress: build/regress/npu-tests.tar.zst and build/regress/npu-sim ready"
