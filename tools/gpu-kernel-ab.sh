#!/usr/bin/env bash
# A kernel change measured on the GPU machine without rebuilding: from the repo root
# with a bundle (tools/gpu-bundle.sh, whose kernels/ are the earlier sources), the
# forests (400 and 10^5 instances) and RTIOW benchmarked with the bundle's kernels and
# with the working tree's (`--kernels`), three rounds alternating; then
# compute-sanitizer and the GPU-vs-CPU tests on the working tree's kernels. MESHES=1
# adds the meshes asset, a 21M-triangle icosphere (`scene-gen mesh --subdivisions 10`)
# seen close, the same icosphere in the meshes asset's place (issue 35's 21M view) and
# the 400-tree forest flattened to the forests (compiled once, then benchmarked as blobs).
set -uo pipefail
. "$(dirname "$0")/gpu-env.sh"
B="$BUNDLE/bin"
W=$(mktemp -d)
$B/scene-gen forest --instances 400 --subdivisions 5 -o $W/small.ron > /dev/null
$B/scene-gen forest --instances 100000 --subdivisions 5 -o $W/big.ron > /dev/null
bench() { timeout 120 $B/renderer bench "$2" --backend cuda --width 1280 --height 720 --spp 30 --max-depth 16 --frames 10 --kernels "$1" 2>&1 | grep -E "median" | head -1; }
scenes="$W/small.ron $W/big.ron"
if [ -n "${MESHES:-}" ]; then
  $B/scene-gen mesh --subdivisions 10 -o $W/m10.ply > /dev/null
  printf '%s\n' 'Scene(camera: (look_from: (0, 0.6, 3), look_at: (0, 0, 0), vfov_deg: 40),' \
    'sky: Gradient(bottom: (1, 1, 1), top: (0.5, 0.7, 1)),' \
    'materials: { "clay": Lambert(albedo: (0.7, 0.4, 0.3)) }, meshes: [(file: "m10.ply", material: "clay")],)' > $W/m10.ron
  sed -e "s#../models/icosphere.ply#$W/m10.ply#" "$BUNDLE/assets/scenes/meshes.ron" > "$BUNDLE/assets/scenes/meshes10.ron"
  $B/scene-gen forest --instances 400 --subdivisions 5 --flatten -o $W/flat.ron > /dev/null
  for s in $W/m10.ron $BUNDLE/assets/scenes/meshes10.ron $W/flat.ron; do
    $B/scene-compiler build $s -o $W/$(basename $s .ron).blob > /dev/null 2>&1
  done
  rm -f "$BUNDLE/assets/scenes/meshes10.ron"
  scenes="$scenes $BUNDLE/assets/scenes/meshes.ron $W/m10.blob $W/meshes10.blob $W/flat.blob"
fi
for r in 1 2 3; do
  for k in "$BUNDLE/kernels" kernels; do
    for s in $scenes; do echo "$k $(basename $s): $(bench $k $s)"; done
  done
done
for k in "$BUNDLE/kernels" kernels; do echo "$k rtiow: $(bench $k "$BUNDLE/assets/scenes/rtiow_final.ron")"; done
timeout 150 compute-sanitizer --tool memcheck $B/renderer render $W/small.ron --backend cuda --kernels kernels --width 160 --height 90 --spp 2 --denoise --aov albedo,normal,depth -o $W/s.exr 2>&1 | tail -1
RENDERER_REPO_ROOT=$PWD timeout 200 "$BUNDLE/tests/gpu" --include-ignored --test-threads 1 --skip nvrtc_compile vs_cpu 2>&1 | grep -E "test result|FAILED|panicked"
rm -rf "$W"
