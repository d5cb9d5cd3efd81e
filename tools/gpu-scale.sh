#!/usr/bin/env bash
# The grids of issue 29 on the GPU machine, from the bundle tools/gpu-bundle.sh made:
# `scene-gen grid --count N --seed 1` (as a PLY sphere file) for each N in COUNTS,
# compiled once to a blob, then timed by tools/gpu-sweep.sh for every variant given
# (same NAME:ENV=VALUE[,...] arguments) at 1280x720, 30 spp, depth 50. Run from the
# repo root:
#
#   bash tools/gpu-scale.sh base: wide:RENDERER_KERNEL_DEFINES=PT_WIDE_BVH=1
#
# COUNTS (default "10000 100000 1000000 10000000"), FRAMES (default 5) and OUT
# (default ./gpu-out; each count's tables go to $OUT/grid-N/sweep.txt) override.
set -uo pipefail
cd "$(dirname "$0")/.."

BUNDLE=${BUNDLE:-gpu-bundle}
OUT=${OUT:-gpu-out}
COUNTS=${COUNTS:-"10000 100000 1000000 10000000"}
grids="$BUNDLE/grids"
mkdir -p "$grids" "$OUT"
for n in $COUNTS; do
    if [ ! -f "$grids/grid-$n.blob" ]; then
        "$BUNDLE/bin/scene-gen" grid --count "$n" --seed 1 --ply -o "$grids/grid-$n.ron" > /dev/null || exit 1
        start=$(date +%s%N)
        "$BUNDLE/bin/scene-compiler" build "$grids/grid-$n.ron" -o "$grids/grid-$n.blob" > /dev/null || exit 1
        echo "grid $n: compiled in $(( ($(date +%s%N) - start) / 1000000 )) ms"
    fi
    echo "== grid $n"
    SCENE="grids/grid-$n.blob" RESOLUTIONS=1280x720 FRAMES=${FRAMES:-5} OUT="$OUT/grid-$n" \
        bash tools/gpu-sweep.sh "$@"
done
