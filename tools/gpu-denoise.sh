#!/usr/bin/env bash
# Issue 36 on the GPU machine, from the repo root with a bundle (tools/gpu-bundle.sh):
# the GPU tests, the denoiser's time at 1920x1080 (bench --denoise) on RTIOW and the
# meshes, and compute-sanitizer memcheck on a denoised render with every AOV.
set -uo pipefail
. "$(dirname "$0")/gpu-env.sh"
R="$BUNDLE/bin/renderer"
timeout 300 "$BUNDLE/tests/gpu" --include-ignored --test-threads 1 --nocapture ${TESTS:-} 2>&1 | grep -E "^test |test result|GPU against|pixels that differ|panicked" | tee "$OUT/gpu-tests.txt"
for scene in rtiow_final meshes; do
    timeout 120 "$R" bench "assets/scenes/$scene.ron" --backend cuda --width 1920 --height 1080 --spp 4 --max-depth 16 \
        --frames 10 --warmup 3 --denoise 2>&1 | grep -E "bench|render |denoise" | tee -a "$OUT/denoise-bench.txt"
done
timeout 120 compute-sanitizer --tool memcheck "$R" render assets/scenes/meshes.ron --backend cuda --width 160 --height 90 \
    --spp 4 --denoise --aov albedo,normal,depth -o "$OUT/meshes-denoised.exr" 2>&1 | tail -3 | tee "$OUT/sanitizer.txt"
"$R" render assets/scenes/meshes.ron --backend cuda --spp 4 -o "$OUT/meshes-4spp.png" > /dev/null
"$R" render assets/scenes/meshes.ron --backend cuda --spp 4 --denoise -o "$OUT/meshes-4spp-denoised.png" | grep denoised
"$R" render assets/scenes/meshes.ron --backend cuda --spp 1024 -o "$OUT/meshes-1024spp.png" > /dev/null
