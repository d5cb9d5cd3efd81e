#!/usr/bin/env bash
# Queues a sharded render on Slurm: the shard array (render.sbatch), then the merge
# (merge.sbatch) with --dependency=afterok on the array, so it runs only when every
# shard has succeeded. Prints both job ids.
#
#   deploy/slurm/submit.sh SCENE OUTPUT [SHARDS]       SHARDS default 16
#
# Env: RENDER_ARGS (flags for every shard, e.g. "--width 3840 --height 2160 --spp 4096"),
# RENDERER (the binary, default `renderer` from PATH), PARTS_DIR (default
# <OUTPUT's folder>/parts), RTSCENE_DIR (default: the checkout this script is in).
# Every path must be on storage the compute nodes see.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
export RTSCENE_DIR=${RTSCENE_DIR:-$(cd "$here/../.." && pwd)}
export SCENE=${1:?usage: submit.sh SCENE OUTPUT [SHARDS]}
export OUTPUT=${2:?usage: submit.sh SCENE OUTPUT [SHARDS]}
shards=${3:-16}
export PARTS_DIR=${PARTS_DIR:-$(dirname "$OUTPUT")/parts}
export RENDERER=${RENDERER:-renderer}
export RENDER_ARGS=${RENDER_ARGS:-}
mkdir -p "$PARTS_DIR"

render_job=$(sbatch --parsable --export=ALL --array="0-$((shards - 1))" "$here/render.sbatch")
render_job=${render_job%%;*} # "id;cluster" on a multi-cluster setup
merge_job=$(sbatch --parsable --export=ALL --dependency="afterok:$render_job" "$here/merge.sbatch")
merge_job=${merge_job%%;*}
echo "render: job array $render_job, $shards shards -> $PARTS_DIR"
echo "merge:  job $merge_job (after every shard succeeded) -> $OUTPUT"
