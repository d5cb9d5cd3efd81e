#!/usr/bin/env bash
# One shard of a sharded render: a task of a Slurm job array (slurm/render.sbatch) or
# a pod of a Kubernetes Indexed Job (k8s/render-job.yaml). Writes the shard's partial
# film to $PARTS_DIR/part-<index>.exr (index zero-padded to 5 digits); `deploy/merge.sh`
# adds them up. docs/shards.md explains the format; README "Render farms" the setup.
#
# The shard (index from 0, count), the first source that is set wins:
#   SHARD_INDEX, SHARD_COUNT                             by hand
#   SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN,
#   SLURM_ARRAY_TASK_COUNT                               a Slurm job array (--array=0-15)
#   JOB_COMPLETION_INDEX, SHARD_COUNT                    a Kubernetes Indexed Job (set
#                                                        SHARD_COUNT to its completions)
# Env:
#   SCENE        the scene, .ron or .blob, on storage every node sees (required)
#   PARTS_DIR    the shared folder for the partial films (required; created)
#   RENDERER     the renderer binary [renderer, from PATH]
#   RENDER_ARGS  more `renderer render` flags, split on spaces: resolution, --spp,
#                --seed, --max-depth, --backend, ... (the same for every shard)
#   CHECKPOINT_DIR    shared folder for checkpoints [$PARTS_DIR/checkpoints]
#   CHECKPOINT_EVERY  seconds of rendering between checkpoints [300]
set -euo pipefail

: "${SCENE:?set SCENE to the scene file}"
: "${PARTS_DIR:?set PARTS_DIR to the shared folder for the partial films}"
RENDERER=${RENDERER:-renderer}

if [ -n "${SHARD_INDEX:-}" ]; then
    index=$SHARD_INDEX
    count=${SHARD_COUNT:?SHARD_INDEX is set: set SHARD_COUNT too}
elif [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
    index=$((SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-0}))
    count=${SLURM_ARRAY_TASK_COUNT:?not in a Slurm job array (no SLURM_ARRAY_TASK_COUNT)}
elif [ -n "${JOB_COMPLETION_INDEX:-}" ]; then
    index=$JOB_COMPLETION_INDEX
    count=${SHARD_COUNT:?set SHARD_COUNT to the completions of the Job}
else
    echo "render-shard.sh: no shard index: set SHARD_INDEX, or run in a Slurm job array or an Indexed Job" >&2
    exit 2
fi

checkpoints=${CHECKPOINT_DIR:-$PARTS_DIR/checkpoints}
mkdir -p "$PARTS_DIR" "$checkpoints"
part=$(printf '%s/part-%05d.exr' "$PARTS_DIR" "$index")
checkpoint=$(printf '%s/part-%05d.ckpt.exr' "$checkpoints" "$index")
resume=()
if [ -f "$checkpoint" ]; then
    echo "render-shard.sh: resuming shard $index/$count from $checkpoint" >&2
    resume=(--resume "$checkpoint")
fi
# exec: the renderer itself receives the scheduler's SIGTERM.
# RENDER_ARGS is a list of flags: split on spaces on purpose.
# shellcheck disable=SC2086
exec "$RENDERER" render "$SCENE" --shard "$index/$count" -o "$part" \
    --checkpoint "$checkpoint" --checkpoint-every "${CHECKPOINT_EVERY:-300}" "${resume[@]}" ${RENDER_ARGS:-}
