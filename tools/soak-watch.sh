#!/usr/bin/env bash
# Soak test of `renderer watch` (not in CI): SAVES saves over DURATION seconds, in
# turn a scene edit saved by rename (as most editors save), a scene edit written in
# place, a heightmap image replaced in place and a heightmap image renamed over, on a
# small voxel-city scene. Reports the watcher's resident memory (VmRSS), open file
# descriptors and threads after its first frame and at the end, how many frames it
# rendered and how many errors it printed, and fails (exit 1) if the open files grew
# or the resident memory grew by more than GROWTH_MB.
#
#   bash tools/soak-watch.sh                   # 10 000 saves over 600 s, CPU backend
#   SAVES=2000 DURATION=120 bash tools/soak-watch.sh
#   BACKEND=cuda bash tools/soak-watch.sh      # on the GPU machine (bin/ from the bundle)
#
# Env: RENDERER [target/release/renderer, or bin/renderer in a bundle],
#      SCENE_GEN [the same folder's scene-gen], SAVES [10000], DURATION [600 s],
#      BACKEND [cpu], SIZE [heightmap side, 32], GROWTH_MB [16], OUT [a temp folder].
set -euo pipefail
cd "$(dirname "$0")/.."
bin=target/release
[ -x "$bin/renderer" ] || bin=bin
RENDERER=${RENDERER:-$bin/renderer}
SCENE_GEN=${SCENE_GEN:-$(dirname "$RENDERER")/scene-gen}
SAVES=${SAVES:-10000}
DURATION=${DURATION:-600}
BACKEND=${BACKEND:-cpu}
SIZE=${SIZE:-32}
GROWTH_MB=${GROWTH_MB:-16}
OUT=${OUT:-$(mktemp -d)}
for tool in "$RENDERER" "$SCENE_GEN"; do
    [ -x "$tool" ] || { echo "soak-watch.sh: no $tool (cargo build --release first)" >&2; exit 2; }
done
RENDERER=$(realpath "$RENDERER")
SCENE_GEN=$(realpath "$SCENE_GEN")
mkdir -p "$OUT"
cd "$OUT"

# Two heightmaps and a scene that names height.png.
"$SCENE_GEN" terrain --size "$SIZE" --seed 1 -o a.ron > /dev/null
"$SCENE_GEN" terrain --size "$SIZE" --seed 2 -o b.ron > /dev/null
cp a.png height.png
sed 's/"a\.png"/"height.png"/' a.ron > base.ron
grep -q '"height.png"' base.ron || { echo "soak-watch.sh: the generated scene does not name a.png" >&2; exit 2; }
# Each save changes the camera's field of view a little, so every save is a change.
scene_text() { sed "s/vfov_deg: *[0-9.]*/vfov_deg: $1/" base.ron; }
scene_text 40.0 > scene.ron

"$RENDERER" watch scene.ron --out frame.png --backend "$BACKEND" --width 64 --height 36 --spp 1 \
    > watch.log 2> watch.err &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
until grep -q '^gen 1 ' watch.log; do
    kill -0 "$pid" 2>/dev/null || { echo "soak-watch.sh: watch ended:" >&2; cat watch.err >&2; exit 1; }
    sleep 0.05
done

sample() { # label -> "rss_kb fds threads"
    local rss fds threads
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
    threads=$(awk '/^Threads:/ {print $2}' "/proc/$pid/status")
    fds=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 | wc -l)
    echo "$rss $fds $threads"
}
read -r rss0 fds0 threads0 < <(sample)
echo "start: VmRSS ${rss0} kB, ${fds0} open files, ${threads0} threads (pid $pid, $OUT)"

interval_ns=$((DURATION * 1000000000 / SAVES))
start_ns=$(date +%s%N)
for ((i = 1; i <= SAVES; i++)); do
    fov="$((30 + i % 20)).$((i % 7))"
    case $((i % 4)) in
        0) scene_text "$fov" > scene.ron.tmp && mv scene.ron.tmp scene.ron ;;
        1) scene_text "$fov" > scene.ron ;;
        2) if ((i % 8 == 2)); then cat b.png > height.png; else cat a.png > height.png; fi ;;
        3) if ((i % 8 == 3)); then cp a.png height.tmp; else cp b.png height.tmp; fi && mv height.tmp height.png ;;
    esac
    if ((i % 1000 == 0)); then
        read -r rss fds threads < <(sample)
        echo "save $i: VmRSS ${rss} kB, ${fds} open files, ${threads} threads, $(grep -c '^gen ' watch.log) frames"
    fi
    # Keep the pace: sleep until this save's slot has passed.
    next_ns=$((start_ns + i * interval_ns))
    now_ns=$(date +%s%N)
    if ((next_ns > now_ns)); then
        wait_ns=$((next_ns - now_ns))
        sleep "$((wait_ns / 1000000000)).$(printf '%09d' $((wait_ns % 1000000000)))"
    fi
done
# Let the last saves be handled, then measure.
sleep 2
read -r rss1 fds1 threads1 < <(sample)
elapsed=$((($(date +%s%N) - start_ns) / 1000000000))
frames=$(grep -c '^gen ' watch.log || true)
errors=$(grep -c '^error' watch.log || true)
echo "end:   VmRSS ${rss1} kB, ${fds1} open files, ${threads1} threads"
echo "$SAVES saves in ${elapsed} s: $frames frames, $errors error lines (watch.log in $OUT)"
status=0
if ((fds1 > fds0)); then
    echo "FAIL: open files grew from $fds0 to $fds1" >&2
    status=1
fi
if ((rss1 > rss0 + GROWTH_MB * 1024)); then
    echo "FAIL: resident memory grew by $(((rss1 - rss0) / 1024)) MB (more than $GROWTH_MB MB)" >&2
    status=1
fi
((status == 0)) && echo "OK: no growth in open files; resident memory within $GROWTH_MB MB"
exit $status
