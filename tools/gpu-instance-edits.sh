#!/usr/bin/env bash
# Instance edits and the top level's shape (issue 35) on the GPU machine, from the repo
# root with a bundle (tools/gpu-bundle.sh) and an earlier renderer in gpu-before/bin:
# the small forest instanced and flattened, each renderer compiling the scene itself
# (so the earlier one builds the earlier tree); then `renderer watch` on the forest of
# $FOREST instances while one instance of its instance file moves, three saves by
# rename (save to new frame). Everything goes to $OUT (default gpu-out).
set -uo pipefail
. "$(dirname "$0")/gpu-env.sh"
FOREST=${FOREST:-1000000}
B="$BUNDLE/bin"
W=$(mktemp -d)
log="$OUT/instance-edits.txt"
: > "$log"
say() { echo "$@" | tee -a "$log"; }
bench() { # renderer label scene
    local renderer=$1 label=$2 scene=$3
    say "== $label"
    timeout 240 "$renderer" bench "$scene" --backend cuda --width 1280 --height 720 --spp 30 --max-depth 16 \
        --frames 10 2>&1 | grep -E "median|throughput|rror" | tee -a "$log"
}
say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
"$B/scene-gen" forest --instances 400 --subdivisions 5 -o "$W/small.ron" > /dev/null
"$B/scene-gen" forest --instances 400 --subdivisions 5 --flatten -o "$W/small-flat.ron" > /dev/null
for round in 1 2; do
    [ -x gpu-before/bin/renderer ] && bench gpu-before/bin/renderer "before: 400 trees instanced (round $round)" "$W/small.ron"
    bench "$B/renderer" "after: 400 trees instanced (round $round)" "$W/small.ron"
    bench "$B/renderer" "400 trees flattened (round $round)" "$W/small-flat.ron"
done

# Save to new frame with one instance moved: the instance file rewritten by rename.
"$B/scene-gen" forest --instances "$FOREST" --subdivisions 8 -o "$W/forest.ron" | tee -a "$log"
move() {
    python3 "$(dirname "$0")/move-instance.py" "$W/forest-instances.ply"
}
say "== watch: $FOREST instances, instance 0 moved by three saves"
timeout 300 "$B/renderer" watch "$W/forest.ron" --backend cuda --spp 4 --width 1280 --height 720 --max-depth 16 \
    -o "$W/watch.png" --frames 3 > "$W/watch.txt" 2>&1 &
watcher=$!
for _ in $(seq 120); do grep -q "^gen 1" "$W/watch.txt" 2>/dev/null && break; sleep 1; done
for k in 1 2 3; do
    move
    for _ in $(seq 60); do grep -q "^gen $((k + 1))" "$W/watch.txt" 2>/dev/null && break; sleep 0.5; done
    sleep 1
done
wait $watcher
tee -a "$log" < "$W/watch.txt"
say "== compute-sanitizer memcheck: 400 trees instanced"
timeout 200 compute-sanitizer --tool memcheck "$B/renderer" render "$W/small.ron" --backend cuda --width 160 \
    --height 90 --spp 2 -o "$OUT/sanitized-forest.png" 2>&1 | tail -2 | tee -a "$log"
rm -rf "$W"
