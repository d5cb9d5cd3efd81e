#!/usr/bin/env bash
# Save to new frame with one instance of a million moved (issue 35), on the GPU machine,
# from the repo root with a bundle (tools/gpu-bundle.sh) and, when present, an earlier
# renderer in gpu-before/bin: `renderer watch` (CUDA, 1280x720, depth 16) on the forest
# of $FOREST instances of a $SUBDIV-subdivision tree while its instance file is saved
# by rename $SAVES times, each save moving instance 0 along x; at 4 samples per pixel
# (the viewer's frame) with each renderer in turn, then at 1. The files are written
# two seconds before the watch starts, so the session trusts their stamps (a file
# written around the time it is read is read again at the next reload). Then
# compute-sanitizer memcheck on a 400-tree forest's watch through two moves (the
# in-place update's copies and repack). Everything goes to $OUT (default gpu-out).
set -uo pipefail
. "$(dirname "$0")/gpu-env.sh"
FOREST=${FOREST:-1000000}
SUBDIV=${SUBDIV:-8}
SAVES=${SAVES:-5}
B="$BUNDLE/bin"
W=$(mktemp -d)
log="$OUT/save-to-frame.txt"
: > "$log"
say() { echo "$@" | tee -a "$log"; }
move() { # instance file: instance 0 moved by 0.5 along x, saved by rename
    python3 "$(dirname "$0")/move-instance.py" "$1"
}
watch() { # label renderer scene spp [sanitizer...]
    local label=$1 renderer=$2 scene=$3 spp=$4
    shift 4
    say "== $label"
    local text="$W/watch-$RANDOM.txt"
    timeout 400 "$@" "$renderer" watch "$scene" --backend cuda --spp "$spp" --width "${WIDTH:-1280}" --height "${HEIGHT:-720}" \
        --max-depth 16 -o "$W/watch.png" --frames "$SAVES" > "$text" 2> "$text.err" &
    local watcher=$!
    for _ in $(seq 300); do grep -q "^gen 1" "$text" 2>/dev/null && break; sleep 1; done
    for k in $(seq "$SAVES"); do
        move "${scene%.ron}-instances.ply"
        for _ in $(seq 120); do grep -q "^gen $((k + 1))" "$text" 2>/dev/null && break; sleep 0.5; done
        sleep 1
    done
    wait $watcher
    tee -a "$log" < "$text"
    grep -E "ERROR SUMMARY|rror" "$text.err" | tail -3 | tee -a "$log"
}
say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
"$B/scene-gen" forest --instances "$FOREST" --subdivisions "$SUBDIV" -o "$W/forest.ron" | tee -a "$log"
"$B/scene-gen" forest --instances 400 --subdivisions 5 -o "$W/small.ron" > /dev/null
sleep 2
for round in 1 2; do
    [ -x gpu-before/bin/renderer ] && watch "before, 4 spp (round $round)" gpu-before/bin/renderer "$W/forest.ron" 4
    watch "after, 4 spp (round $round)" "$B/renderer" "$W/forest.ron" 4
done
watch "after, 1 spp" "$B/renderer" "$W/forest.ron" 1
SAVES=2 WIDTH=160 HEIGHT=90 watch "memcheck: 400 trees at 160x90, two moves" "$B/renderer" "$W/small.ron" 1 compute-sanitizer --tool memcheck
rm -rf "$W"
