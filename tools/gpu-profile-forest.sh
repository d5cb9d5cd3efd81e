#!/usr/bin/env bash
# An ncu profile of the 400-tree forest instanced against the same trees flattened
# (issue 35's instancing gap), from the repo root with a bundle (tools/gpu-bundle.sh):
# time, instructions, active lanes per instruction, caches, local memory traffic of
# the render kernel's first launch. Goes to $OUT/profile-forest.txt (default gpu-out).
set -uo pipefail
. "$(dirname "$0")/gpu-env.sh"
B="$BUNDLE/bin"
W=$(mktemp -d)
"$B/scene-gen" forest --instances 400 --subdivisions 5 -o "$W/small.ron" > /dev/null
"$B/scene-gen" forest --instances 400 --subdivisions 5 --flatten -o "$W/flat.ron" > /dev/null
metrics=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,\
sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,\
dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,\
l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
for scene in small flat; do
    echo "== $scene" | tee -a "$OUT/profile-forest.txt"
    timeout 200 ncu --metrics "$metrics" -k regex:render -c 1 "$B/renderer" render "$W/$scene.ron" --backend cuda \
        --width 1280 --height 720 --spp 30 --max-depth 16 -o "$W/$scene.png" 2>&1 |
        grep -E "^\s+(gpu__|smsp__|sm__|l1tex__|lts__|dram__|launch__)" | tee -a "$OUT/profile-forest.txt"
done
rm -rf "$W"
