#!/usr/bin/env bash
# Folds the N shards' results in build/regress/results/ into one report:
# fuzz.json/.xml and sweep.json/.xml (npu-sim merge: fails on a failed case,
# a missing shard or shards of different runs) beside the shards' tests-K.xml.
# Usage: scripts/regress/merge.sh N
set -euo pipefail
n=${1:?usage: merge.sh N}
cd "$(dirname "$0")/../.."
results=build/regress/results
sim=build/regress/npu-sim
status=0
for suite in fuzz sweep; do
    files=()
    for k in $(seq 1 "$n"); do files+=("$results/$suite-$k.json"); done
    missing=()
    for f in "${files[@]}"; do [ -f "$f" ] || missing+=("$f"); done
    if [ ${#missing[@]} -ne 0 ]; then
        echo "merge: $suite: no summary ${missing[*]}" >&2
        status=1
        continue
    fi
    "$sim" merge "${files[@]}" --summary "$results/$suite.json" --junit "$results/$suite.xml" || status=1
done
for k in $(seq 1 "$n"); do
    [ -f "$results/tests-$k.xml" ] || { echo "merge: tests: no $results/tests-$k.xml" >&2; status=1; }
done
exit $status
