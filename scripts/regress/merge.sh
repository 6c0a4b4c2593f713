#!/usr/bin/env bash
# Folds the N shards' results of the regression run build.sh started (its
# identity in build/regress/run) into one report in build/regress/results/:
# fuzz.json/.xml and sweep.json/.xml (npu-sim merge --run-id: fails on a
# failed case, a missing shard or a shard of another run), the shards'
# tests-K.xml checked (npu-sim junit: fails on a failed or errored test),
# and every shard's status. Fails, naming the part, when anything failed:
# the build, a shard that never ran, timed out or belongs to another run, a
# part of a shard, a missing or unreadable file. Merged reports of an
# earlier merge are removed first.
# Usage: scripts/regress/merge.sh N
set -euo pipefail
n=${1:?usage: merge.sh N}
cd "$(dirname "$0")/../.."
dir=build/regress
results=$dir/results
sim=$dir/npu-sim
mkdir -p "$results"
rm -f "$results"/fuzz.json "$results"/fuzz.xml "$results"/sweep.json "$results"/sweep.xml

problems=()
fail() {
    problems+=("$1")
    echo "merge: FAILED $1" >&2
}
verdict() {
    if [ ${#problems[@]} -eq 0 ]; then
        echo "merge: run $run passed: $n shards, every test, fuzz stream and sweep run"
        exit 0
    fi
    echo "merge: run $run FAILED (${#problems[@]} problems):" >&2
    printf '  %s\n' "${problems[@]}" >&2
    exit 1
}

run=$(cat "$dir/run" 2>/dev/null) || { run="(none)"; fail "build: no regression run ($dir/run): build.sh never ran"; verdict; }
if [ "$(cat "$dir/build.ok" 2>/dev/null)" != "$run" ]; then
    why=$(cut -d' ' -f2- "$dir/build.failed" 2>/dev/null || echo "it did not finish")
    fail "build of run $run failed: $why"
    verdict
fi

for k in $(seq 1 "$n"); do
    status=$results/shard-$k.status
    if [ ! -f "$status" ]; then
        fail "shard $k/$n: no $status (the shard never ran, or did not finish: timed out or killed)"
        continue
    fi
    shard_run=$(sed -n 's/^run //p' "$status")
    if [ "$shard_run" != "$run" ]; then
        fail "shard $k/$n: $status is of run ${shard_run:-(none)}, not of this run $run"
        continue
    fi
    while read -r part outcome; do
        case "$part" in run | shard) continue ;; esac
        [ "$outcome" = ok ] || fail "shard $k/$n: $part $outcome"
    done < "$status"
done

tests=()
for k in $(seq 1 "$n"); do tests+=("$results/tests-$k.xml"); done
"$sim" junit "${tests[@]}" || fail "tests: a test failed or a report is missing (above)"
for suite in fuzz sweep; do
    files=()
    for k in $(seq 1 "$n"); do files+=("$results/$suite-$k.json"); done
    missing=()
    for f in "${files[@]}"; do [ -f "$f" ] || missing+=("$f"); done
    if [ ${#missing[@]} -ne 0 ]; then
        fail "$suite: no summary ${missing[*]}"
        continue
    fi
    "$sim" merge "${files[@]}" --run-id "$run" \
        --summary "$results/$suite.json" --junit "$results/$suite.xml" \
        || fail "$suite: a case failed or the shards do not make one run (above)"
done
verdict
