#!/usr/bin/env bash
# After a kernel change, on the GPU machine from the repo root with a bundle
# (tools/gpu-bundle.sh) and the earlier build in gpu-before/ (tools/gpu-before-after.sh
# says how): the GPU tests but the NVRTC compile ones (TESTS= narrows them), the
# before/after timings, and compute-sanitizer memcheck on scenes that reach every
# kernel switch (RTIOW; textures, alpha and Principled; meshes with AOVs and the
# denoiser). Everything goes to $OUT (default gpu-out).
set -uo pipefail
. "$(dirname "$0")/gpu-env.sh"
R="$BUNDLE/bin/renderer"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
timeout 240 "$BUNDLE/tests/gpu" --include-ignored --test-threads 1 --skip nvrtc_compile ${TESTS:-} 2>&1 |
    grep -E "^test |test result|panicked" | tee "$OUT/gpu-tests.txt"
sanitize() {
    local name=$1; shift
    timeout 120 compute-sanitizer --tool memcheck "$R" render "$@" --backend cuda -o "$OUT/sanitized-$name.exr" 2>&1 |
        tail -2 | sed "s/^/$name: /" | tee -a "$OUT/sanitizer.txt"
}
sanitize rtiow assets/scenes/rtiow_final.ron --width 160 --height 90 --spp 2
sanitize textures assets/scenes/textures.ron --width 160 --height 90 --spp 2
sanitize pbr assets/scenes/reference/pbr_features.ron --width 160 --height 90 --spp 2
sanitize meshes assets/scenes/meshes.ron --width 160 --height 90 --spp 4 --denoise --aov albedo,normal,depth
# The earlier renderer reads today's scenes (RON): give it the bundle's assets.
[ -e gpu-before/assets ] || ln -s "../$BUNDLE/assets" gpu-before/assets
[ -x gpu-before/bin/renderer ] && OUT="$OUT" bash tools/gpu-before-after.sh > /dev/null 2>&1
cat "$OUT/before-after.txt" 2>/dev/null | grep -E "^==|median|ms" | head -60
