#!/usr/bin/env bash
# The regression on a Slurm cluster, from a checkout on a file system every
# node sees: one job builds (scripts/regress/build.sh), an array of N
# tasks runs the shards (scripts/regress/shard.sh K N, each in a private
# copy under the node's TMPDIR), and a last job merges them
# (scripts/regress/merge.sh N). The shards wait for the build to end, not
# to succeed, and the merge for the shards to end, whatever their outcome:
# a failed build, a failed or timed-out shard, all reach the merge, which
# fails naming them. All jobs share one run identity (REGRESS_RUN). Extra
# arguments go to every sbatch after this script's own, so they override
# them (partition, account, time limit, --cpus-per-task).
# Usage: scripts/regress/slurm.sh N [sbatch options...]
set -euo pipefail
n=${1:?usage: slurm.sh N [sbatch options...]}
shift
cd "$(dirname "$0")/../.."
command -v sbatch >/dev/null || { echo "slurm: sbatch not found (run on a Slurm login node)" >&2; exit 1; }
logs=build/regress/logs
mkdir -p "$logs"
export REGRESS_RUN=${REGRESS_RUN:-slurm-$(date -u +%Y%m%dT%H%M%SZ)-$$}
build=$(sbatch --parsable --job-name npu-build --cpus-per-task 2 --export ALL \
    --output "$logs/%x-%j.out" "$@" --wrap "scripts/regress/build.sh")
shards=$(sbatch --parsable --job-name npu-shard --cpus-per-task 2 --export ALL \
    --dependency "afterany:$build" --array "1-$n" --output "$logs/%x-%A_%a.out" "$@" \
    --wrap "REGRESS_WORKDIR=\${TMPDIR:-/tmp}/npu-regress-\$SLURM_ARRAY_JOB_ID scripts/regress/shard.sh \$SLURM_ARRAY_TASK_ID $n")
merge=$(sbatch --parsable --job-name npu-merge --export ALL --dependency "afterany:$shards" \
    --output "$logs/%x-%j.out" "$@" --wrap "scripts/regress/merge.sh $n")
echo "slurm: run $REGRESS_RUN: build $build, shards $shards (1-$n), merge $merge;" \
    "logs in $logs, results in build/regress/results (the merge job's exit status is the verdict)"
