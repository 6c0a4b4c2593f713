#!/usr/bin/env bash
# Runs shard K of N of the regression: the test suite's nextest partition
# hash:K/N, the fuzzer's streams K-1 mod N of FUZZ_COUNT (seed FUZZ_SEED),
# and the sweep's runs K-1 mod N (every bundled network on both
# configurations behind SWEEP_MEMORIES). Results go to build/regress/results/
# as tests-K.xml (JUnit), fuzz-K.json/.xml and sweep-K.json/.xml, for
# scripts/regress/merge.sh. Needs scripts/regress/build.sh's outputs, and
# Verilator (scripts/install-deps.sh).
# With REGRESS_WORKDIR set (shards sharing one file system, as Slurm array
# tasks do), the tests run in a private copy of the checkout there.
# Usage: scripts/regress/shard.sh K N
set -euo pipefail
k=${1:?usage: shard.sh K N}
n=${2:?usage: shard.sh K N}
cd "$(dirname "$0")/../.."
root=$(pwd)
results=$root/build/regress/results
sim=$root/build/regress/npu-sim
mkdir -p "$results"
: "${FUZZ_COUNT:=20000}"
: "${FUZZ_SEED:=1}"
: "${SWEEP_MEMORIES:=all}"
status=0

work=$root
if [ -n "${REGRESS_WORKDIR:-}" ]; then
    work=$REGRESS_WORKDIR/shard-$k
    mkdir -p "$work"
    tar -C "$root" --exclude=./target --exclude=./build --exclude=./scripts/.venv -cf - . \
        | tar -C "$work" -xf -
    # One Verilator build per design for all shards (a file lock orders them).
    mkdir -p "$root/build/verilator" "$work/build"
    ln -sfn "$root/build/verilator" "$work/build/verilator"
fi
(cd "$work" && cargo nextest run --archive-file "$root/build/regress/npu-tests.tar.zst" \
    --workspace-remap "$work" --partition "hash:$k/$n" --profile ci) || status=1
cp "$work/target/nextest/ci/junit.xml" "$results/tests-$k.xml"

"$sim" fuzz --count "$FUZZ_COUNT" --seed "$FUZZ_SEED" --shard "$k/$n" -q \
    --save "$results/fuzz-found" --summary "$results/fuzz-$k.json" --junit "$results/fuzz-$k.xml" \
    | tail -n 20 || status=1
"$sim" sweep --memories "$SWEEP_MEMORIES" --shard "$k/$n" \
    --summary "$results/sweep-$k.json" --junit "$results/sweep-$k.xml" || status=1
exit $status
