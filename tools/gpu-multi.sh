#!/usr/bin/env bash
# Multi-GPU scaling on a machine with two or more GPUs, from the bundle that
# tools/gpu-bundle.sh made (that machine has CUDA but no Rust). From the repo root:
#
#   bash tools/gpu-multi.sh          # JSON reports and the table into $OUT (default gpu-out/multi)
#
# Runs `renderer bench` on assets/scenes/rtiow_final.ron, max depth 50, at
# 3840x2160 256 spp and 1280x720 30 spp, and on a grid of GRID spheres (a PLY sphere
# file from scene-gen, compiled to a blob) at 1280x720 32 spp, max depth 16, once with
# `--gpus 0` (one GPU, the plain one-GPU backend) and once with `--gpus all`, and
# prints a table: median frame time of each (CUDA events; a multi-GPU frame takes as
# long as its slowest GPU), the scaling (one-GPU time / all-GPU time), the efficiency
# (scaling / GPUs), the same ratio on the host's wall clock (launches, threads and
# waits included), and each GPU's share and median time.
#
# The balance check (issue 38's GPU-machine test): where the GPUs get equal shares,
# their median times must agree within 10 %; the script exits 1 when they do not
# (an imbalance once made one GPU of two take 76 ms and the other 22 ms of a frame).
#
# Env: OUT, BUNDLE (default gpu-bundle), CUDA_HOME (default /usr/local/cuda),
# FRAMES_4K / FRAMES_720P (timed frames, default 5 / 20), GRID (spheres, default
# 1000000; 0 skips the grid).
set -uo pipefail
cd "$(dirname "$0")/.."

BUNDLE=${BUNDLE:-gpu-bundle}
OUT=${OUT:-gpu-out/multi}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
renderer="$BUNDLE/bin/renderer"
scene="$BUNDLE/assets/scenes/rtiow_final.ron"
[ -x "$renderer" ] || { echo "no $renderer: run tools/gpu-bundle.sh first" >&2; exit 2; }
[ -f "$scene" ] || { echo "no $scene in the bundle" >&2; exit 2; }
mkdir -p "$OUT"

export LD_LIBRARY_PATH="$CUDA_HOME/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# One kernel cache for the run: the first start compiles, the other GPUs and runs load it.
export RENDERER_KERNEL_CACHE
RENDERER_KERNEL_CACHE=$(mktemp -d)
trap 'rm -rf "$RENDERER_KERNEL_CACHE"' EXIT

gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU ' || true)
echo "GPUs: ${gpus:-unknown}"
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv 2> /dev/null | tee "$OUT/gpus.csv"
[ "${gpus:-0}" -ge 2 ] || echo "warning: fewer than 2 GPUs: --gpus all is one GPU here" >&2

failed=0
# bench <scene> <label> <width> <height> <spp> <max depth> <frames> <gpus>
bench() {
    local name="bench-$2-$3x$4-$5spp-gpus-$8"
    echo "== $name"
    if ! timeout 600 "$renderer" bench "$1" --gpus "$8" --width "$3" --height "$4" --spp "$5" \
        --max-depth "$6" --frames "$7" --warmup 2 --json > "$OUT/$name.json" 2> "$OUT/$name.log"; then
        echo "$name failed:" >&2
        tail -n 5 "$OUT/$name.log" >&2
        failed=1
    fi
}
grid=${GRID:-1000000}
if [ "$grid" -gt 0 ]; then
    "$BUNDLE/bin/scene-gen" grid --count "$grid" --seed 1 --ply -o "$OUT/grid.ron" > /dev/null &&
        "$BUNDLE/bin/scene-compiler" build "$OUT/grid.ron" -o "$OUT/grid.blob" > /dev/null ||
        { echo "could not make the $grid-sphere grid" >&2; failed=1; grid=0; }
fi
for selection in 0 all; do
    bench "$scene" rtiow 3840 2160 256 50 "${FRAMES_4K:-5}" "$selection"
    bench "$scene" rtiow 1280 720 30 50 "${FRAMES_720P:-20}" "$selection"
    [ "$grid" -gt 0 ] && bench "$OUT/grid.blob" "grid$grid" 1280 720 32 16 5 "$selection"
done

python3 - "$OUT" "$grid" << 'PY' | tee "$OUT/scaling.txt"
import json, os, sys
out, grid = sys.argv[1], int(sys.argv[2])
def load(name):
    path = os.path.join(out, name + ".json")
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
print(f"| resolution, spp | one GPU (ms) | all GPUs (ms) | GPUs | scaling | efficiency | wall-clock scaling |")
print(f"| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
shares, unbalanced = [], []
runs = [("rtiow", 3840, 2160, 256), ("rtiow", 1280, 720, 30)]
if grid > 0:
    runs.append((f"grid{grid}", 1280, 720, 32))
for label, w, h, spp in runs:
    one = load(f"bench-{label}-{w}x{h}-{spp}spp-gpus-0")
    every = load(f"bench-{label}-{w}x{h}-{spp}spp-gpus-all")
    if not one or not every:
        print(f"| {label} {w}x{h}, {spp} spp | missing report | | | | | |")
        continue
    devices = every.get("devices") or []
    n = max(1, len(devices))
    scaling = one["median_ms"] / every["median_ms"]
    wall = one["median_wall_ms"] / every["median_wall_ms"]
    print(f"| {label} {w}x{h}, {spp} spp | {one['median_ms']:.2f} | {every['median_ms']:.2f} | {n} | "
          f"{scaling:.2f}x | {100 * scaling / n:.0f}% | {wall:.2f}x |")
    for d in devices:
        shares.append(f"  {label} {w}x{h}: {d['device']}: {d['spp']} spp/frame, median {d['median_ms']:.2f} ms "
                      f"(min {d['min_ms']:.2f}, max {d['max_ms']:.2f})")
    if len(devices) > 1 and len({d["spp"] for d in devices}) == 1:
        times = [d["median_ms"] for d in devices]
        if max(times) > 1.1 * min(times):
            unbalanced.append(f"{label} {w}x{h}: equal shares, GPU times {', '.join(f'{t:.2f}' for t in times)} ms")
print()
print(f"device: {every['device'] if every else 'unknown'}")
print("per GPU, --gpus all:")
print("\n".join(shares) if shares else "  (none)")
print()
if unbalanced:
    print("balance check FAILED (equal shares more than 10 % apart):")
    print("\n".join("  " + u for u in unbalanced))
    sys.exit(1)
print("balance check: equal shares agree within 10 %")
PY
[ "${PIPESTATUS[0]}" -eq 0 ] || failed=1
exit "$failed"
