#!/usr/bin/env bash
# Times triangle meshes against spheres at a million primitives on the GPU machine,
# from the bundle (tools/gpu-bundle.sh): `renderer bench` at 1280x720, 30 spp, max depth
# 50 of
#   - mesh-1m: a 32 x 32 grid of icospheres (scene-gen mesh --subdivisions 3, 1280
#     triangles each: 1.31M triangles) on a floor, under a sky;
#   - grid-1m: scene-gen grid --count 1000000 --seed 1 --ply (spheres), for comparison.
# JSON reports go to $OUT/bench-<name>.json. Run from the repo root.
set -euo pipefail
cd "$(dirname "$0")/.."
BUNDLE=${BUNDLE:-gpu-bundle}
OUT=${OUT:-gpu-out}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export LD_LIBRARY_PATH="$CUDA_HOME/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$OUT"
work=$(mktemp -d)
"$BUNDLE/bin/scene-gen" mesh --subdivisions 3 -o "$work/ico.ply"
{
    echo 'Scene(camera: (look_from: (0, 40, 70), look_at: (0, 0, 0), vfov_deg: 40),'
    echo 'sky: Gradient(bottom: (1, 1, 1), top: (0.5, 0.7, 1)),'
    echo 'materials: { "floor": Lambert(albedo: (0.5, 0.5, 0.5)), "clay": Lambert(albedo: (0.7, 0.4, 0.3)), "steel": Metal(albedo: (0.8, 0.8, 0.8), fuzz: 0.1) },'
    echo 'boxes: [(min: (-100, -1, -100), max: (100, 0, 100), material: "floor")],'
    echo 'meshes: ['
    for i in $(seq 0 31); do
        for j in $(seq 0 31); do
            material=$([ $(((i + j) % 3)) -eq 0 ] && echo steel || echo clay)
            echo "(file: \"ico.ply\", material: \"$material\", transform: (translate: ($((i * 3 - 47)), 1, $((j * 3 - 47))))),"
        done
    done
    echo '],)'
} > "$work/mesh-1m.ron"
"$BUNDLE/bin/scene-gen" grid --count 1000000 --seed 1 --ply -o "$work/grid-1m.ron" > /dev/null
for name in mesh-1m grid-1m; do
    "$BUNDLE/bin/renderer" bench "$work/$name.ron" --backend cuda --width 1280 --height 720 --spp 30 \
        --max-depth 50 --json > "$OUT/bench-$name.json"
    python3 - "$OUT/bench-$name.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(sys.argv[2], f"{r['median_ms']:.2f} ms, {r['mrays_per_s'] / 1000:.2f} G rays/s, {r['rays_per_frame'] / r['samples_per_frame']:.2f} rays per sample")
PY
done
rm -rf "$work"
