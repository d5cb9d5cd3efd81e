#!/usr/bin/env bash
# Instancing's numbers (issue 35) on the GPU machine, from the repo root with a bundle
# (tools/gpu-bundle.sh): the forest of 1M instances of a 1.3M-triangle tree (compile
# time, device memory, rays/s), a small forest instanced against the same trees
# flattened (speed within 10 %, same image), the big unique meshes with binary and wide
# nodes, and compute-sanitizer on an instanced render. Everything goes to $OUT
# (default gpu-out); FOREST=N changes the big forest's instance count.
set -uo pipefail
. "$(dirname "$0")/gpu-env.sh"
FOREST=${FOREST:-1000000}
B="$BUNDLE/bin"
W=$(mktemp -d)
log="$OUT/instances.txt"
: > "$log"
say() { echo "$@" | tee -a "$log"; }
bench() { # label scene [flags...]
    local label=$1 scene=$2; shift 2
    say "== $label"
    timeout 240 "$B/renderer" bench "$scene" --backend cuda --width 1280 --height 720 --spp 30 --max-depth 16 \
        --frames 10 "$@" 2>&1 | grep -E "median|throughput|rror|refus|unset" | tee -a "$log"
}
# The most device memory in use while `$@` runs (nvidia-smi every 100 ms), in MiB.
peak_memory() {
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > "$W/memory.txt" &
    local sampler=$!
    "$@"
    kill $sampler
    say "peak device memory $(sort -n "$W/memory.txt" | tail -1) MiB (idle $(head -1 "$W/memory.txt") MiB)"
}

say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
"$B/scene-gen" forest --instances "$FOREST" --subdivisions 8 -o "$W/forest.ron" | tee -a "$log"
for run in 1 2 3; do
    /usr/bin/time -f "compile wall %e s, peak %M KB" "$B/scene-compiler" build "$W/forest.ron" -o "$W/forest.blob" 2>&1 |
        grep -E "time:|compile wall|instances|bytes:" | tee -a "$log"
done
ls -la "$W/forest.blob" | tee -a "$log"
peak_memory bench "forest $FOREST x 1.3M triangles (blob)" "$W/forest.blob"
"$B/renderer" render "$W/forest.blob" --backend cuda --spp 256 -o "$OUT/forest.png" 2>&1 | grep -E "render " | tee -a "$log"
rm -f "$W/forest.blob"

# The same 400 trees of 20k triangles (8M triangles placed) instanced and flattened.
"$B/scene-gen" forest --instances 400 --subdivisions 5 -o "$W/small.ron" > /dev/null
"$B/scene-gen" forest --instances 400 --subdivisions 5 --flatten -o "$W/small-flat.ron" > /dev/null
for form in small small-flat; do
    "$B/scene-compiler" build "$W/$form.ron" -o "$W/$form.blob" 2>&1 | grep -E "^  (bytes|time)" | tee -a "$log"
    bench "$form (400 trees x 20480 triangles)" "$W/$form.blob"
    "$B/renderer" render "$W/$form.blob" --backend cuda --width 320 --height 180 --spp 256 -o "$OUT/$form.png" > /dev/null 2>&1
done
"$B/rmse" "$OUT/small-flat.png" "$OUT/small.png" | tee -a "$log"

# Unique triangles: 1.3M and 21M, binary nodes and PT_WIDE_BVH=1 (item 7).
for k in 8 10; do
    "$B/scene-gen" mesh --subdivisions $k -o "$W/ico$k.ply" > /dev/null
    # Beside meshes.ron, whose other models it names relative to its folder.
    scene="$BUNDLE/assets/scenes/mesh$k.ron"
    sed -e "s#../models/icosphere.ply#$W/ico$k.ply#" "$BUNDLE/assets/scenes/meshes.ron" > "$scene"
    /usr/bin/time -f "compile wall %e s, peak %M KB" "$B/scene-compiler" build "$scene" -o "$W/mesh$k.blob" 2>&1 |
        grep -E "time:|compile wall|triangles" | tee -a "$log"
    bench "meshes.ron with a $k-subdivision icosphere, binary nodes" "$W/mesh$k.blob"
    RENDERER_KERNEL_DEFINES=PT_WIDE_BVH=1 bench "meshes.ron with a $k-subdivision icosphere, PT_WIDE_BVH=1" "$W/mesh$k.blob"
    rm -f "$W/mesh$k.blob" "$W/ico$k.ply" "$scene"
done

say "== compute-sanitizer memcheck, instanced"
timeout 180 compute-sanitizer --tool memcheck "$B/renderer" render "$W/small.blob" --backend cuda --width 160 --height 90 \
    --spp 2 --denoise --aov albedo,normal,depth -o "$OUT/sanitized-forest.exr" 2>&1 | tail -2 | tee -a "$log"
rm -rf "$W"
