#!/usr/bin/env bash
# Next-event estimation against BSDF sampling alone on the GPU machine: times both on
# the Cornell asset, then writes linear EXRs (a 65536-spp NEE + MIS reference and both
# strategies at several sample counts) and their RMSE against it (tools/src/bin/rmse.rs).
# From the repo root, after tools/gpu-bundle.sh:
#
#   OUT=out bash tools/gpu-lights.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BUNDLE=${BUNDLE:-gpu-bundle}
OUT=${OUT:-gpu-lights}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export LD_LIBRARY_PATH="$CUDA_HOME/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$OUT"
renderer=$BUNDLE/bin/renderer
scene=$BUNDLE/assets/scenes/cornell.ron
size=(--width 400 --height 400)

for mode in nee no-nee; do
    flag=(); [ "$mode" = no-nee ] && flag=(--no-nee)
    "$renderer" bench "$scene" --backend cuda "${size[@]}" --spp 256 --frames 10 --warmup 2 --json \
        ${flag[@]+"${flag[@]}"} > "$OUT/bench-cornell-$mode.json"
    for spp in 16 32 64 128 256 512; do
        "$renderer" render "$scene" --backend cuda "${size[@]}" --spp "$spp" --seed 7 \
            ${flag[@]+"${flag[@]}"} --output "$OUT/cornell-$mode-$spp.exr" > "$OUT/cornell-$mode-$spp.log" 2>&1
    done
done
"$renderer" render "$scene" --backend cuda "${size[@]}" --spp 65536 --seed 1 \
    --output "$OUT/cornell-reference.exr" > "$OUT/cornell-reference.log" 2>&1
# RMSE against the reference and the time per frame; the EXRs stay on the machine.
"$BUNDLE/bin/rmse" "$OUT/cornell-reference.exr" "$OUT"/cornell-nee-*.exr "$OUT"/cornell-no-nee-*.exr \
    | sort -V | tee "$OUT/rmse.txt"
for mode in nee no-nee; do
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[2], "256 spp median ms", r["median_ms"])' \
        "$OUT/bench-cornell-$mode.json" "$mode" | tee -a "$OUT/rmse.txt"
done
rm -f "$OUT"/*.exr "$OUT"/cornell-*.log
for lit in point_light sun; do
    "$renderer" render "$BUNDLE/assets/scenes/$lit.ron" --backend cuda --output "$OUT/$lit.png" > "$OUT/$lit.log" 2>&1
done
echo "lights: done"
