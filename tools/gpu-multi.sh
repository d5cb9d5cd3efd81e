#!/usr/bin/env bash
# Multi-GPU scaling on a machine with two or more GPUs, from the bundle that
# tools/gpu-bundle.sh made (that machine has CUDA but no Rust). From the repo root:
#
#   bash tools/gpu-multi.sh          # JSON reports and the table into $OUT (default gpu-out/multi)
#
# Runs `renderer bench` on assets/scenes/rtiow_final.ron, max depth 50, at
# 3840x2160 256 spp and 1280x720 30 spp, once with `--gpus 0` (one GPU, the plain
# one-GPU backend) and once with `--gpus all`, and prints a table: median frame time
# of each (CUDA events; a multi-GPU frame takes as long as its slowest GPU), the
# scaling (one-GPU time / all-GPU time), the efficiency (scaling / GPUs), the same
# ratio on the host's wall clock (launches, threads and waits included), and each
# GPU's share and median time.
#
# Env: OUT, BUNDLE (default gpu-bundle), CUDA_HOME (default /usr/local/cuda),
# FRAMES_4K / FRAMES_720P (timed frames, default 5 / 20).
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
# bench <width> <height> <spp> <frames> <gpus>
bench() {
    local name="bench-$1x$2-$3spp-gpus-$5"
    echo "== $name"
    if ! timeout 600 "$renderer" bench "$scene" --gpus "$5" --width "$1" --height "$2" --spp "$3" \
        --max-depth 50 --frames "$4" --warmup 2 --json > "$OUT/$name.json" 2> "$OUT/$name.log"; then
        echo "$name failed:" >&2
        tail -n 5 "$OUT/$name.log" >&2
        failed=1
    fi
}
for selection in 0 all; do
    bench 3840 2160 256 "${FRAMES_4K:-5}" "$selection"
    bench 1280 720 30 "${FRAMES_720P:-20}" "$selection"
done

python3 - "$OUT" << 'PY' | tee "$OUT/scaling.txt"
import json, os, sys
out = sys.argv[1]
def load(name):
    path = os.path.join(out, name + ".json")
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
print(f"| resolution, spp | one GPU (ms) | all GPUs (ms) | GPUs | scaling | efficiency | wall-clock scaling |")
print(f"| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
shares = []
for w, h, spp in [(3840, 2160, 256), (1280, 720, 30)]:
    one = load(f"bench-{w}x{h}-{spp}spp-gpus-0")
    every = load(f"bench-{w}x{h}-{spp}spp-gpus-all")
    if not one or not every:
        print(f"| {w}x{h}, {spp} spp | missing report | | | | | |")
        continue
    n = max(1, len(every.get("devices") or []))
    scaling = one["median_ms"] / every["median_ms"]
    wall = one["median_wall_ms"] / every["median_wall_ms"]
    print(f"| {w}x{h}, {spp} spp | {one['median_ms']:.2f} | {every['median_ms']:.2f} | {n} | "
          f"{scaling:.2f}x | {100 * scaling / n:.0f}% | {wall:.2f}x |")
    for d in every.get("devices") or []:
        shares.append(f"  {w}x{h}: {d['device']}: {d['spp']} spp/frame, median {d['median_ms']:.2f} ms "
                      f"(min {d['min_ms']:.2f}, max {d['max_ms']:.2f})")
print()
print(f"device: {every['device'] if every else 'unknown'}")
print("per GPU, --gpus all:")
print("\n".join(shares) if shares else "  (none)")
PY
exit "$failed"
