#!/usr/bin/env bash
# Scripted hot-reload run for the GPU machine (called by tools/gpu-run.sh, or alone
# from the repo root): `renderer watch` on a copy of a scene while this script saves
# it editor-style (write a temp file, rename it over the scene) a few times, saves a
# broken version once, then fixes it, and last resizes the first sphere, or scales
# the first sphere file's spheres when the scene writes none (either way the BVH is
# refitted, not rebuilt). The sphere and model files a scene names are copied too.
# `watch` prints one timing line per reload.
#
#   bash tools/gpu-watch.sh <scene.ron> <width> <height> [backend]
#
# Env: BUNDLE (default gpu-bundle), SAVE_INTERVAL (seconds between saves, default
# 0.7; give a 1M-sphere scene, which takes seconds to compile, several).
set -uo pipefail
cd "$(dirname "$0")/.."
BUNDLE=${BUNDLE:-gpu-bundle}
scene=$1 width=$2 height=$3 backend=${4:-cuda}
interval=${SAVE_INTERVAL:-0.7}

work=$(mktemp -d)
cp "$scene" "$work/scene.ron"
grep -o 'file: "[^"]*"' "$scene" | cut -d'"' -f2 | while read -r f; do # sphere and model files
    mkdir -p "$(dirname "$work/$f")" && cp "$(dirname "$scene")/$f" "$work/$f"
done
save() { # save <sed expression>: an editor-style rename-over save of an edited copy
    sed "$1" "$work/scene.ron" > "$work/.scene.ron.tmp" && mv "$work/.scene.ron.tmp" "$work/scene.ron"
}
"$BUNDLE/bin/renderer" watch "$work/scene.ron" --backend "$backend" --width "$width" --height "$height" \
    --out "$work/frame.png" --frames 7 &
watch_pid=$!
sleep 3 # context creation and the first frame
sleep "$interval"
for fov in 21 22 23 24; do
    save "s/vfov_deg: [0-9.]*/vfov_deg: $fov.0/"
    sleep "$interval"
done
save "s/vfov_deg: [0-9.]*/vfov_deg: -5.0/" # broken: the last good scene stays
sleep "$interval"
save "s/vfov_deg: [0-9.-]*/vfov_deg: 20.0/" # the fix
sleep "$interval"
save "s/vfov_deg: [0-9.-]*/vfov_deg: 25.0/"
sleep "$interval"
if grep -q 'radius: ' "$work/scene.ron"; then
    save '0,/radius: \([0-9]*\)\.[0-9]/s//radius: \1.9/' # a resize: the BVH refitted
else
    save '0,/materials: \[\([^]]*\)\])/s//materials: [\1], transform: (scale: 1.01))/' # the same
fi
wait "$watch_pid"
rc=$?
rm -rf "$work"
exit "$rc"
