#!/usr/bin/env bash
# Triangle scenes timed with an earlier build's renderer against this bundle's, in one
# device call (before, after, after, before per scene): the blob layout of triangles
# changed (version 14: indexed vertices), so each renderer compiles the same RON into
# its own blob. On the GPU machine, from the repo root:
#
#   BEFORE=gpu-before bash tools/gpu-triangles-ab.sh
#
# BEFORE holds the earlier build's bin/renderer (see tools/gpu-before-after.sh for how
# to make it). Scenes: the meshes and textured assets, the PBR showcase (normal maps,
# texture coordinates), a 1.31M-triangle and a 21M-triangle icosphere (scene-gen mesh
# --subdivisions 8 and 10, closed, with normals) and the 400-tree forest (instances),
# at 1280x720, 30 spp, max depth 16, 20 frames. Then compute-sanitizer over this
# bundle's renderer on the PBR showcase and the forest (NO_SANITIZER=1 skips it).
# Results in $OUT/triangles-ab.txt.
. "$(dirname "$0")/gpu-env.sh"
set -uo pipefail
BEFORE=${BEFORE:-gpu-before}
[ -x "$BEFORE/bin/renderer" ] || { echo "no $BEFORE/bin/renderer" >&2; exit 2; }
summary="$OUT/triangles-ab.txt"
: > "$summary"
work=$(mktemp -d)
B=$BUNDLE/bin
$B/scene-gen mesh --subdivisions 8 -o "$work/m8.ply" > /dev/null
$B/scene-gen mesh --subdivisions 10 -o "$work/m10.ply" > /dev/null
for n in 8 10; do
    cat > "$work/m$n.ron" <<EOF
Scene(
    camera: (look_from: (0, 0.6, 3), look_at: (0, 0, 0), vfov_deg: 40),
    sky: Gradient(bottom: (1, 1, 1), top: (0.5, 0.7, 1)),
    materials: { "clay": Lambert(albedo: (0.7, 0.4, 0.3)) },
    meshes: [(file: "m$n.ply", material: "clay")],
)
EOF
done
$B/scene-gen forest --instances 400 --subdivisions 5 -o "$work/forest.ron" > /dev/null

cat > "$work/line.py" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{sys.argv[2]}: {r['median_ms']:.3f} ms (min {r['min_ms']:.3f}), {r['mrays_per_s']:.0f} Mrays/s")
PY
# bench <label> <renderer> <scene>: one line, median and min ms, Mrays/s.
bench() {
    local json="$work/$1.json"
    if "$2" bench "$3" --backend cuda --width 1280 --height 720 --spp 30 --max-depth 16 --frames 20 \
        --json > "$json" 2> "$work/$1.err"; then
        python3 "$work/line.py" "$json" "$1"
    else
        echo "$1: failed: $(tail -3 "$work/$1.err")"
    fi
}

for scene in "$BUNDLE/assets/scenes/meshes.ron" "$BUNDLE/assets/scenes/textures.ron" \
    "$BUNDLE/assets/scenes/reference/pbr_showcase.ron" "$work/m8.ron" "$work/m10.ron" "$work/forest.ron"; do
    name=$(basename "$scene" .ron)
    echo "== $name" | tee -a "$summary"
    for round in before after after-again before-again; do
        case $round in before*) r="$BEFORE/bin/renderer" ;; *) r="$B/renderer" ;; esac
        bench "$name-$round" "$r" "$scene" | tee -a "$summary"
    done
done

[ -n "${NO_SANITIZER:-}" ] && { rm -rf "$work"; exit 0; }
echo "== compute-sanitizer (memcheck), this bundle" | tee -a "$summary"
for scene in "$BUNDLE/assets/scenes/reference/pbr_showcase.ron" "$work/forest.ron"; do
    compute-sanitizer --tool memcheck --print-limit 5 "$B/renderer" render "$scene" --backend cuda \
        --width 160 --height 90 --spp 2 --max-depth 8 -o "$work/sanitized.png" > "$work/san.log" 2>&1
    echo "$(basename "$scene"): exit $?, $(grep -E 'ERROR SUMMARY' "$work/san.log" | tail -1)" | tee -a "$summary"
done
rm -rf "$work"
