#!/usr/bin/env bash
# Runs the GPU checks on the GPU machine, from the bundle tools/gpu-bundle.sh made
# (that machine has CUDA, nvcc and compute-sanitizer but no Rust). From the repo root:
#
#   bash tools/gpu-run.sh            # logs and results into $OUT (default ./gpu-out)
#
# Steps, each logged to $OUT/<step>.log with its exit code in $OUT/summary.txt (a
# failing step does not stop the others; the script exits 1 if any failed):
#   1. nvidia-smi (GPU, driver, clocks)
#   2. layout-check: nvcc compiles kernels/render.cu, which checks the struct offsets
#      that NVRTC cannot (__builtin_offsetof)
#   3. every bundled test binary, one test at a time, output shown (--nocapture),
#      the GPU tests included (they are #[ignore]d where there is no GPU)
#   4. renderer bench on assets/scenes/rtiow_final.ron, 30 spp, max depth 50:
#      1280x720, 1920x1080, 3840x2160, then the schedule without path regeneration
#      at 1280x720 and 1920x1080 (tools/gpu-sweep.sh compares more variants)
#      -> $OUT/bench-*.json; the voxel city (assets/scenes/city.ron) at 1280x720
#   5. the CPU backend on the machine's cores, 1280x720 (5 frames)
#   6. hot reload: tools/gpu-watch.sh on the RTIOW scene and on a 1M-sphere grid (a PLY sphere file)
#   7. compute-sanitizer memcheck on a 160x90, 4 spp render, and on the lit scenes
#      (cornell, point_light, sun), the box scenes (boxes, box_lamp, city), the
#      meshes, the textures and the Principled reference scenes at 160x120
# The whole run takes a few minutes; every step has a timeout.
#
# Env: OUT (output folder), BUNDLE (default gpu-bundle), CUDA_HOME (default /usr/local/cuda).
set -uo pipefail
. "$(dirname "$0")/gpu-env.sh"
[ -x "$BUNDLE/bin/renderer" ] || { echo "no $BUNDLE/bin/renderer: run tools/gpu-bundle.sh first" >&2; exit 2; }
export RUST_BACKTRACE=1

summary="$OUT/summary.txt"
: > "$summary"
failed=0

# step <name> <timeout seconds> <command...>: runs it, logs to $OUT/<name>.log.
step() {
    local name=$1 limit=$2
    shift 2
    echo "== $name: $*"
    timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
    local rc=$?
    tail -n 5 "$OUT/$name.log"
    echo "$name: exit $rc" | tee -a "$summary"
    [ "$rc" -eq 0 ] || failed=1
}

step nvidia-smi 30 nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,memory.total --format=csv
nvidia-smi >> "$OUT/nvidia-smi.log" 2>&1

step layout-check 120 nvcc -std=c++17 -arch=sm_90 -DPT_BLOCK_W=8 -DPT_BLOCK_H=8 -c "$BUNDLE/kernels/render.cu" -o /dev/null

for test in "$BUNDLE"/tests/*; do
    step "test-$(basename "$test")" 300 "$test" --include-ignored --test-threads=1 --nocapture
done

scene="$BUNDLE/assets/scenes/rtiow_final.ron"
if [ -f "$scene" ]; then
    bench() { # bench <name> <width> <height> [env assignments...]
        local name=$1 width=$2 height=$3
        shift 3
        # stdout (the JSON report) to bench-<name>.json, stderr to the step's log.
        step "bench-$name" 120 bash -c 'out=$1; shift; "$@" > "$out"' _ "$OUT/bench-$name.json" \
            env "$@" "$BUNDLE/bin/renderer" bench "$scene" --backend cuda \
            --width "$width" --height "$height" --spp 30 --max-depth 50 --json
        cat "$OUT/bench-$name.json"
    }
    bench 1280x720 1280 720
    bench 1920x1080 1920 1080
    bench 3840x2160 3840 2160
    bench 1280x720-per-sample 1280 720 RENDERER_KERNEL_DEFINES=PT_PATH_REGENERATION=0
    bench 1920x1080-per-sample 1920 1080 RENDERER_KERNEL_DEFINES=PT_PATH_REGENERATION=0
    # The voxel city (a 512 x 512 heightmap with a sun): boxes, NEE and the shape dispatch.
    step bench-city-1280x720 120 bash -c 'out=$1; shift; "$@" > "$out"' _ "$OUT/bench-city-1280x720.json" \
        "$BUNDLE/bin/renderer" bench "$BUNDLE/assets/scenes/city.ron" --backend cuda --width 1280 --height 720 \
        --spp 30 --max-depth 50 --json
    cat "$OUT/bench-city-1280x720.json"
    # Textures (checker, noise, images; the `_meshes` kernels) with a sun.
    step bench-textures-1280x720 120 bash -c 'out=$1; shift; "$@" > "$out"' _ "$OUT/bench-textures-1280x720.json" \
        "$BUNDLE/bin/renderer" bench "$BUNDLE/assets/scenes/textures.ron" --backend cuda --width 1280 --height 720 \
        --spp 30 --max-depth 50 --json
    cat "$OUT/bench-textures-1280x720.json"
    # The Blender glTF scenes: Principled metal, plastic and glass, normal maps,
    # metallic-roughness textures (pbr_showcase), an alpha-masked leaf (pbr_features).
    for ref in pbr_showcase pbr_features; do
        step "bench-$ref-1280x720" 120 bash -c 'out=$1; shift; "$@" > "$out"' _ "$OUT/bench-$ref-1280x720.json" \
            "$BUNDLE/bin/renderer" bench "$BUNDLE/assets/scenes/reference/$ref.ron" --backend cuda --width 1280 \
            --height 720 --spp 30 --max-depth 16 --json
        cat "$OUT/bench-$ref-1280x720.json"
    done
    step bench-cpu-1280x720 300 bash -c 'out=$1; shift; "$@" > "$out"' _ "$OUT/bench-cpu-1280x720.json" \
        "$BUNDLE/bin/renderer" bench "$scene" --backend cpu --width 1280 --height 720 --spp 30 --max-depth 50 \
        --frames 5 --warmup 1 --json
    step watch-gpu-1280x720 120 bash tools/gpu-watch.sh "$scene" 1280 720 cuda
    if [ -x "$BUNDLE/bin/scene-gen" ]; then
        # The form the docs recommend for big scenes: a small scene and a PLY sphere file.
        "$BUNDLE/bin/scene-gen" grid --count 1000000 --seed 1 --ply -o "$OUT/grid-1m.ron" > /dev/null
        step watch-gpu-1m-1280x720 300 env SAVE_INTERVAL=8 bash tools/gpu-watch.sh "$OUT/grid-1m.ron" 1280 720 cuda
        rm -f "$OUT/grid-1m.ron" "$OUT/grid-1m.ply"
    fi
    step memcheck 300 compute-sanitizer --tool memcheck --error-exitcode 1 \
        "$BUNDLE/bin/renderer" render "$scene" --backend cuda --width 160 --height 90 --spp 4 \
        --output "$OUT/memcheck.png"
    # The lit scenes run next-event estimation (shadow rays, the light table).
    for lit in cornell point_light sun boxes box_lamp meshes city textures; do
        step "memcheck-$lit" 300 compute-sanitizer --tool memcheck --error-exitcode 1 \
            "$BUNDLE/bin/renderer" render "$BUNDLE/assets/scenes/$lit.ron" --backend cuda --width 160 --height 120 \
            --spp 4 --output "$OUT/memcheck-$lit.png"
    done
    # The Principled material: rough metal and glass under an environment, and the
    # Blender glTF scenes (normal maps, metallic-roughness textures, an alpha mask).
    for ref in rough_metal_r07 rough_glass_r03 pbr_features pbr_showcase; do
        step "memcheck-$ref" 300 compute-sanitizer --tool memcheck --error-exitcode 1 \
            "$BUNDLE/bin/renderer" render "$BUNDLE/assets/scenes/reference/$ref.ron" --backend cuda --width 160 \
            --height 120 --spp 4 --output "$OUT/memcheck-$ref.png"
    done
else
    echo "bench, memcheck: skipped, no $scene" | tee -a "$summary"
    failed=1
fi

rm -rf "$RENDERER_KERNEL_CACHE"
# One archive of every log and report: the device tool brings back only a few files.
(cd "$OUT" && tar czf gpu-run.tgz --exclude gpu-run.tgz --exclude summary.txt --exclude 'sweep*' \
    --remove-files $(ls | grep -v -e '^gpu-run.tgz$' -e '^summary.txt$' -e '^sweep'))
echo "== summary (logs and JSON reports: $OUT/gpu-run.tgz)"
cat "$summary"
exit "$failed"
