#!/usr/bin/env bash
# What bounds the 10^6-instance forest (issue 35's 1 G rays/s target), from the repo
# root with a bundle (tools/gpu-bundle.sh): the same million placements with trees of
# 80, 20k and 1.3M triangles (subdivisions 2, 5, 8) benchmarked, then ncu on the render
# kernel's first launch of the 1.3M and 80-triangle forests (time, instructions, active
# lanes, caches, DRAM, stall reasons). Extra renderer flags for every run: FLAGS.
# Everything goes to $OUT/forest-million.txt (default gpu-out), as it comes.
set -uo pipefail
. "$(dirname "$0")/gpu-env.sh"
B="$BUNDLE/bin"
W=$(mktemp -d)
log="$OUT/forest-million.txt"
: > "$log"
say() { echo "$@" | tee -a "$log"; }
say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
for k in ${SUBDIVISIONS:-2 5 8}; do
    "$B/scene-gen" forest --instances 1000000 --subdivisions "$k" -o "$W/f$k.ron" > /dev/null
    "$B/scene-compiler" build "$W/f$k.ron" -o "$W/f$k.blob" > /dev/null 2>&1
    say "== 10^6 trees, subdivisions $k: $(timeout 120 "$B/renderer" bench "$W/f$k.blob" --backend cuda --width 1280 \
        --height 720 --spp 30 --max-depth 16 --frames ${FRAMES:-3} ${FLAGS:-} 2>&1 | grep -E "median|throughput|rror" | tr '\n' ' ')"
done
metrics=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,\
sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,\
dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,launch__registers_per_thread,\
l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,\
smsp__average_warp_latency_per_inst_issued.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active
for k in ${PROFILE:-8 2}; do
    say "== ncu, subdivisions $k"
    timeout 240 ncu --metrics "$metrics" --section WarpStateStats -k regex:render -c 1 "$B/renderer" render "$W/f$k.blob" \
        --backend cuda --width 1280 --height 720 --spp 4 --max-depth 16 ${FLAGS:-} -o "$W/f$k.png" 2>&1 |
        grep -vE "^==PROF==|^\s*$|render |wrote" | tee -a "$log"
done
rm -rf "$W"
