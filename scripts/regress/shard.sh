#!/usr/bin/env bash
# Runs shard K of N of the regression run build.sh started: the test suite's
# nextest partition hash:K/N, the fuzzer's streams K-1 mod N of FUZZ_COUNT
# (seed FUZZ_SEED), and the sweep's runs K-1 mod N (every bundled network on
# both configurations behind SWEEP_MEMORIES). Results go to
# build/regress/results/ as tests-K.xml (JUnit), fuzz-K.json/.xml and
# sweep-K.json/.xml, and shard-K.status, written last: the run's identity
# and each part's outcome, for scripts/regress/merge.sh. Every part runs
# whatever the others did. A shard of a run whose build failed runs
# nothing and says so. Needs Verilator (scripts/install-deps.sh).
# With REGRESS_WORKDIR set (shards sharing one file system, as Slurm array
# tasks do), the tests run in a private copy of the checkout there, removed
# at the end.
# Usage: scripts/regress/shard.sh K N
set -euo pipefail
k=${1:?usage: shard.sh K N}
n=${2:?usage: shard.sh K N}
cd "$(dirname "$0")/../.."
root=$(pwd)
dir=$root/build/regress
results=$dir/results
sim=$dir/npu-sim
: "${FUZZ_COUNT:=20000}"
: "${FUZZ_SEED:=1}"
: "${SWEEP_MEMORIES:=all}"
mkdir -p "$results"
status_file=$results/shard-$k.status
rm -f "$status_file" "$results/tests-$k.xml" "$results"/fuzz-"$k".* "$results"/sweep-"$k".*

[ -f "$dir/run" ] || { echo "shard $k/$n: no regression run (run scripts/regress/build.sh first)" >&2; exit 1; }
run=$(cat "$dir/run")
status=()
finish() {
    { echo "run $run"; echo "shard $k/$n"; printf '%s\n' "${status[@]}"; } > "$status_file"
    printf 'shard %s/%s of run %s: %s\n' "$k" "$n" "$run" "${status[*]}"
    for s in "${status[@]}"; do [[ $s == *" ok" ]] || exit 1; done
    exit 0
}
if [ "$(cat "$dir/build.ok" 2>/dev/null)" != "$run" ]; then
    status+=("build failed: nothing ran")
    finish
fi

work=$root
if [ -n "${REGRESS_WORKDIR:-}" ]; then
    work=$REGRESS_WORKDIR/shard-$k
    trap 'rm -rf "$work"' EXIT
    mkdir -p "$work"
    tar -C "$root" --exclude=./target --exclude=./build --exclude=./scripts/.venv -cf - . \
        | tar -C "$work" -xf -
    # One Verilator build per design for all shards (a file lock orders them).
    mkdir -p "$root/build/verilator" "$work/build"
    ln -sfn "$root/build/verilator" "$work/build/verilator"
fi
rm -f "$work/target/nextest/ci/junit.xml"
if (cd "$work" && cargo nextest run --archive-file "$dir/npu-tests.tar.zst" \
    --workspace-remap "$work" --partition "hash:$k/$n" --profile ci); then
    tests=ok
else
    tests="failed (cargo nextest run)"
fi
if [ -f "$work/target/nextest/ci/junit.xml" ]; then
    cp "$work/target/nextest/ci/junit.xml" "$results/tests-$k.xml"
    status+=("tests $tests")
else
    status+=("tests failed: nextest wrote no JUnit report")
fi

if "$sim" fuzz --count "$FUZZ_COUNT" --seed "$FUZZ_SEED" --shard "$k/$n" -q --run-id "$run" \
    --save "$results/fuzz-found" --summary "$results/fuzz-$k.json" --junit "$results/fuzz-$k.xml" \
    | tail -n 20; then
    status+=("fuzz ok")
else
    status+=("fuzz failed")
fi
if "$sim" sweep --memories "$SWEEP_MEMORIES" --shard "$k/$n" --run-id "$run" \
    --summary "$results/sweep-$k.json" --junit "$results/sweep-$k.xml"; then
    status+=("sweep ok")
else
    status+=("sweep failed")
fi
finish
