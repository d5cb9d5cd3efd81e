#!/usr/bin/env bash
# The two node forms (kernels/device_nodes.cuh) on the GPU machine, from the repo root
# with a bundle (tools/gpu-bundle.sh) and, in $BUNDLE/kernels-before, the kernels of
# the build before (optional): scenes from a few hundred to 21M triangles and a million
# instances, each rendered with the 128-byte mirrored nodes (PT_COMPACT_NODES=0), the
# 64-byte compact ones (=1) and the scene's own choice (the `compact_nodes` feature),
# ROUNDS rounds (default 2) alternating, and with the kernels before where present
# (they refuse the scenes with the feature, which they do not know: an NVRTC error on
# those lines). 1280x720, 30 spp, depth 16, median of FRAMES timed frames (default 6).
# Results to stdout.
set -uo pipefail
. "$(dirname "$0")/gpu-env.sh"
B="$BUNDLE/bin"
W=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"$B/scene-gen" forest --instances 400 --subdivisions 5 -o "$W/forest400.ron" > /dev/null
"$B/scene-gen" forest --instances 1000000 --subdivisions 5 -o "$W/forest1m-20k.ron" > /dev/null
"$B/scene-gen" forest --instances 1000000 --subdivisions 8 -o "$W/forest1m-1.3m.ron" > /dev/null
# The meshes asset with an icosphere of 20 * 4^k triangles in its first mesh's place
# (written beside it for its other models, compiled, removed).
for k in 7 8 10; do
    "$B/scene-gen" mesh --subdivisions $k -o "$W/ico$k.ply" > /dev/null
    sed -e "s#../models/icosphere.ply#$W/ico$k.ply#" "$BUNDLE/assets/scenes/meshes.ron" > "$BUNDLE/assets/scenes/meshes-ico$k.ron"
done
scenes="rtiow_final meshes forest400 forest1m-20k meshes-ico7 meshes-ico8 meshes-ico10 forest1m-1.3m"
for s in $scenes; do
    ron="$W/$s.ron"
    [ -e "$ron" ] || ron="$BUNDLE/assets/scenes/$s.ron"
    echo "$s: $("$B/scene-compiler" build "$ron" -o "$W/$s.blob" 2>&1 | grep -E 'triangles,|error' | tr -s ' ')"
done
rm -f "$BUNDLE"/assets/scenes/meshes-ico*.ron
rm -f "$W"/*.ply
bench() {
    local kernels=$1 defines=$2 blob=$3
    RENDERER_KERNEL_DEFINES="$defines" timeout 150 "$B/renderer" bench "$blob" --backend cuda --width 1280 \
        --height 720 --spp 30 --max-depth 16 --frames "${FRAMES:-6}" --kernels "$kernels" 2>&1 |
        grep -E "median|rror" | head -1 | sed -e 's/(wall.*//' -e 's/^ *render *//'
}
for r in $(seq "${ROUNDS:-2}"); do
    for s in $scenes; do
        # (On a scene with the feature they do not know, the kernels before fail to compile.)
        [ -d "$BUNDLE/kernels-before" ] && echo "$s before: $(bench "$BUNDLE/kernels-before" "" "$W/$s.blob")"
        echo "$s mirrored: $(bench "$BUNDLE/kernels" PT_COMPACT_NODES=0 "$W/$s.blob")"
        echo "$s compact: $(bench "$BUNDLE/kernels" PT_COMPACT_NODES=1 "$W/$s.blob")"
        echo "$s scene's choice: $(bench "$BUNDLE/kernels" "" "$W/$s.blob")"
    done
done
rm -rf "$W"
