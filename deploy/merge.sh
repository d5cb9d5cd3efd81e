#!/usr/bin/env bash
# Merges the partial films in $PARTS_DIR (part-*.exr, written by deploy/render-shard.sh)
# into one image: `renderer merge`, which checks that they are every shard of one
# render exactly once and says which are missing or doubled (exit 1).
#
# Env:
#   PARTS_DIR     the shared folder of partial films (required)
#   OUTPUT        the image to write, .png or .exr (required)
#   RENDERER      the renderer binary [renderer, from PATH]
#   SHARD_COUNT   with WAIT_SECONDS: how many parts to wait for
#   WAIT_SECONDS  wait up to this long for SHARD_COUNT parts to appear [0: don't wait]
#                 (a Kubernetes merge Job started beside the render Job; Slurm
#                 starts the merge after the array instead: --dependency=afterok)
set -euo pipefail

: "${PARTS_DIR:?set PARTS_DIR to the folder of partial films}"
: "${OUTPUT:?set OUTPUT to the image to write (.png or .exr)}"
RENDERER=${RENDERER:-renderer}
WAIT_SECONDS=${WAIT_SECONDS:-0}

shopt -s nullglob
parts=("$PARTS_DIR"/part-*.exr)
if [ "$WAIT_SECONDS" -gt 0 ]; then
    : "${SHARD_COUNT:?WAIT_SECONDS needs SHARD_COUNT}"
    deadline=$((SECONDS + WAIT_SECONDS))
    while [ "${#parts[@]}" -lt "$SHARD_COUNT" ] && [ "$SECONDS" -lt "$deadline" ]; do
        sleep 1
        parts=("$PARTS_DIR"/part-*.exr)
    done
fi
if [ "${#parts[@]}" -eq 0 ]; then
    echo "merge.sh: no partial films (part-*.exr) in $PARTS_DIR" >&2
    exit 2
fi
mkdir -p "$(dirname "$OUTPUT")"
exec "$RENDERER" merge "${parts[@]}" -o "$OUTPUT"
