#!/usr/bin/env bash
# The same scenes compiled with other BVH build options (`scene-compiler build --bins,
# --max-leaf, --layout`) and benchmarked, from the repo root with a bundle
# (tools/gpu-bundle.sh): the 21M-triangle icosphere in the meshes asset's place (issue
# 35's 21M view), the 400-tree forest instanced and flattened, and the 10^6 forest of
# 1.31M-triangle trees (and, named in SCENES: `million5` and `forest5`, 10^6 and 10^5
# trees of 20k triangles, and the assets `meshes`, `rtiow`, `textures`). OPTIONS lists the option sets ("name:flags,with,commas"; a
# word NAME=VALUE is set in the compiler's environment instead, and `compiler=FILE`
# takes $BUNDLE/bin/FILE as the compiler, e.g. an earlier build), ROUNDS the rounds
# (default 2), SCENES the scenes. Results go to $OUT/tree-options.txt as they come.
set -uo pipefail
. "$(dirname "$0")/gpu-env.sh"
B="$BUNDLE/bin"
W=$(mktemp -d)
log="$OUT/tree-options.txt"
: > "$log"
say() { echo "$@" | tee -a "$log"; }
say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
read -r -a options <<< "${OPTIONS:-default: bins32:--bins,32 leaf1:--max-leaf,1 leaf2:--max-leaf,2 leaf8:--max-leaf,8 veb:--layout,veb}"
# Asset scene $1 as $W/$2.ron, the files it names relative to its folder named by full
# path, and with a third argument its icosphere model replaced by that file.
asset() {
    sed -e "s#\"../models/icosphere.ply\"#\"${3:-../models/icosphere.ply}\"#" \
        -e "s#\"../models/#\"$PWD/$BUNDLE/assets/models/#g; s#\"../textures/#\"$PWD/$BUNDLE/assets/textures/#g" \
        "$BUNDLE/assets/scenes/$1.ron" > "$W/$2.ron"
}
"$B/scene-gen" mesh --subdivisions 10 -o "$W/m10.ply" > /dev/null
asset meshes meshes10 "$W/m10.ply"
asset meshes meshes
asset textures textures
asset rtiow_final rtiow
"$B/scene-gen" forest --instances 400 --subdivisions 5 -o "$W/small.ron" > /dev/null
"$B/scene-gen" forest --instances 400 --subdivisions 5 --flatten -o "$W/flat.ron" > /dev/null
"$B/scene-gen" forest --instances 1000000 --subdivisions 8 -o "$W/million.ron" > /dev/null
"$B/scene-gen" forest --instances 1000000 --subdivisions 5 -o "$W/million5.ron" > /dev/null
"$B/scene-gen" forest --instances 100000 --subdivisions 5 -o "$W/forest5.ron" > /dev/null
scenes="${SCENES:-meshes10 small flat million}"
for o in "${options[@]}"; do
    name=${o%%:*}; envs=(); args=(); compiler="$B/scene-compiler"
    IFS=, read -r -a words <<< "${o#*:}"
    for word in "${words[@]}"; do
        case $word in
            -*) args+=("$word") ;;
            compiler=*) compiler="$B/${word#compiler=}" ;;
            *=*) envs+=("$word") ;;
            *) args+=("$word") ;;
        esac
    done
    for s in $scenes; do
        env "${envs[@]}" "$compiler" build "$W/$s.ron" -o "$W/$s-$name.blob" "${args[@]}" 2>&1 | grep -E "^  (time|bvh)" | sed "s/^/$s $name /" | tee -a "$log"
    done
done
for r in $(seq 1 ${ROUNDS:-2}); do
    for s in $scenes; do
        line="$s:"
        for o in "${options[@]}"; do
            name=${o%%:*}
            ms=$(timeout 120 "$B/renderer" bench "$W/$s-$name.blob" --backend cuda --width 1280 --height 720 --spp 30 \
                --max-depth 16 --frames ${FRAMES:-5} 2>&1 | grep -E "median" | sed -E 's/.*median ([0-9.]+) ms.*/\1/')
            line="$line $name $ms"
        done
        say "$line"
    done
done
rm -rf "$W"
