#!/usr/bin/env bash
# Compile speed of big meshes on the GPU machine's cores (issue 35, item 4), from the
# repo root with a bundle (tools/gpu-bundle.sh) that also holds an earlier compiler as
# gpu-bundle/compile/scene-compiler-before and the new one as .../scene-compiler:
# `meshes.ron` with its icosphere subdivided $SUBDIVISIONS times (default 10: 21M
# triangles), built by each compiler in turn, $ROUNDS rounds (default 3).
set -uo pipefail
. "$(dirname "$0")/gpu-env.sh"
K=${SUBDIVISIONS:-10}
W=$(mktemp -d)
"$BUNDLE/bin/scene-gen" mesh --subdivisions "$K" -o "$W/ico.ply" > /dev/null
scene="$BUNDLE/assets/scenes/mesh-speed.ron"
sed -e "s#../models/icosphere.ply#$W/ico.ply#" "$BUNDLE/assets/scenes/meshes.ron" > "$scene"
for round in $(seq "${ROUNDS:-3}"); do
    for compiler in scene-compiler-before scene-compiler; do
        echo "== $compiler (round $round)"
        /usr/bin/time -f "compile wall %e s, peak %M KB" "$BUNDLE/compile/$compiler" build "$scene" -o "$W/m.blob" 2>&1 |
            grep -E "time:|compile wall"
        cmp -s "$W/m.blob" "$W/before.blob" 2>/dev/null && echo "same blob as the earlier compiler's"
        [ "$compiler" = scene-compiler-before ] && mv "$W/m.blob" "$W/before.blob"
    done
done
rm -rf "$W" "$scene"
