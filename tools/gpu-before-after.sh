#!/usr/bin/env bash
# Times this build against an earlier one in the same device call: for each scene, the
# two renderers in turn, twice (before, after, after, before), through tools/gpu-sweep.sh
# (`BUNDLE=` runs the other bundle's renderer). On the GPU machine, from the repo root:
#
#   BEFORE=gpu-before bash tools/gpu-before-after.sh
#
# BEFORE is the earlier build's bundle: its bin/renderer and the assets it renders
# (assets/scenes, assets/models, assets/textures are enough: scenes are read as RON, so
# a renderer of an older blob format renders them too). Make it here with
# `git worktree add /tmp/before <commit>`, `cargo build --release -p renderer --bin
# renderer` there, and copy the stripped binary and those folders into gpu-before/.
# The tables go to $OUT/before-after.txt (OUT defaults to ./gpu-out).
set -uo pipefail
cd "$(dirname "$0")/.."

BEFORE=${BEFORE:-gpu-before}
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
[ -x "$BEFORE/bin/renderer" ] || { echo "no $BEFORE/bin/renderer" >&2; exit 2; }
summary="$OUT/before-after.txt"
: > "$summary"

# run <label> <scene> <settings> <resolutions>
run() {
    echo "== $1: $2 ($3) at $4" | tee -a "$summary"
    OUT="$OUT/ba-$1" SCENE=$2 SETTINGS=$3 RESOLUTIONS=$4 bash tools/gpu-sweep.sh \
        "before:BUNDLE=$BEFORE" after: after-again: "before-again:BUNDLE=$BEFORE" >> "$summary" 2>&1
}

run rtiow assets/scenes/rtiow_final.ron "--spp 30 --max-depth 50" "1280x720 1920x1080"
for scene in point_light cornell meshes textures environment city; do
    run "$scene" "assets/scenes/$scene.ron" "--spp 30 --max-depth 16" "1280x720"
done
cat "$summary"
