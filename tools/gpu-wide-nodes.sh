#!/usr/bin/env bash
# Binary against compressed 8-wide nodes (RENDERER_KERNEL_DEFINES=PT_WIDE_BVH=1) on the
# scenes of issue 35 and the assets, from the repo root with a bundle
# (tools/gpu-bundle.sh): the 10^6-instance forests (trees of 1.3M and 20k triangles),
# the 400-tree forest instanced and flattened, a 1.3M- and a 21M-triangle icosphere in
# meshes.ron, and the asset scenes; each pair alternating, ROUNDS rounds (default 2).
# Then the wide walk's image against the binary one, the GPU tests and memcheck with
# wide nodes. Results go to $OUT/wide-nodes.txt (default gpu-out) as they come.
set -uo pipefail
. "$(dirname "$0")/gpu-env.sh"
B="$BUNDLE/bin"
W=$(mktemp -d)
log="$OUT/wide-nodes.txt"
: > "$log"
say() { echo "$@" | tee -a "$log"; }
WIDE=PT_WIDE_BVH=1
say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
ms() { # defines scene
    RENDERER_KERNEL_DEFINES=$1 timeout 200 "$B/renderer" bench "$2" --backend cuda --width 1280 --height 720 \
        --spp 30 --max-depth 16 --frames ${FRAMES:-5} 2>&1 | grep -E "median|throughput|rror" |
        sed -E 's/.*median ([0-9.]+ ms).*/\1/; s/.* ([0-9.]+ Mrays\/s) .*/\1/' | tr '\n' ' '
}
scenes=()
for k in 8 5; do
    "$B/scene-gen" forest --instances 1000000 --subdivisions $k -o "$W/m$k.ron" > /dev/null
    "$B/scene-compiler" build "$W/m$k.ron" -o "$W/m$k.blob" > /dev/null 2>&1 && scenes+=("$W/m$k.blob")
done
"$B/scene-gen" forest --instances 400 --subdivisions 5 -o "$W/small.ron" > /dev/null
"$B/scene-gen" forest --instances 400 --subdivisions 5 --flatten -o "$W/flat.ron" > /dev/null
for f in small flat; do "$B/scene-compiler" build "$W/$f.ron" -o "$W/$f.blob" > /dev/null 2>&1 && scenes+=("$W/$f.blob"); done
for k in 8 10; do
    "$B/scene-gen" mesh --subdivisions $k -o "$W/ico$k.ply" > /dev/null
    sed -e "s#../models/icosphere.ply#$W/ico$k.ply#" "$BUNDLE/assets/scenes/meshes.ron" > "$BUNDLE/assets/scenes/mesh$k.ron"
    "$B/scene-compiler" build "$BUNDLE/assets/scenes/mesh$k.ron" -o "$W/mesh$k.blob" > /dev/null 2>&1 && scenes+=("$W/mesh$k.blob")
    rm -f "$BUNDLE/assets/scenes/mesh$k.ron" "$W/ico$k.ply"
done
for s in rtiow_final meshes pbr_showcase textures; do scenes+=("$BUNDLE/assets/scenes/$s.ron"); done
for r in $(seq 1 ${ROUNDS:-2}); do
    for s in "${scenes[@]}"; do
        say "$(basename "$s"): binary $(ms "" "$s")| wide $(ms $WIDE "$s")"
    done
done
say "== images, 320x180 64 spp: binary against wide"
for s in "$W/small.blob" "$W/m8.blob" "$BUNDLE/assets/scenes/meshes.ron"; do
    for d in "" $WIDE; do
        RENDERER_KERNEL_DEFINES=$d "$B/renderer" render "$s" --backend cuda --width 320 --height 180 --spp 64 \
            -o "$W/img-${d:-binary}.exr" > /dev/null 2>&1
    done
    say "$(basename "$s"): $("$B/rmse" "$W/img-binary.exr" "$W/img-$WIDE.exr" 2>&1 | tail -1)"
done
say "== GPU tests, wide"
RENDERER_KERNEL_DEFINES=$WIDE RENDERER_REPO_ROOT=$PWD/$BUNDLE timeout 300 "$BUNDLE/tests/gpu" --include-ignored \
    --test-threads 1 --skip nvrtc_compile 2>&1 | grep -E "test result|FAILED|panicked" | tee -a "$log"
say "== memcheck, wide, 400-tree forest"
RENDERER_KERNEL_DEFINES=$WIDE timeout 200 compute-sanitizer --tool memcheck "$B/renderer" render "$W/small.blob" \
    --backend cuda --width 160 --height 90 --spp 2 -o "$W/s.png" 2>&1 | tail -1 | tee -a "$log"
rm -rf "$W"
