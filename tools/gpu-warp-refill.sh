#!/usr/bin/env bash
# Issue 40, lead 2 (warp-wide refill, `PT_WARP_REFILL=k` in kernels/render.cu) against
# the megakernel in one device call, from the repo root with a bundle
# (tools/gpu-bundle.sh): RTIOW (1280x720 and 1920x1080, 30 spp, depth 50), the 1M-sphere
# grid (30 spp, depth 50), the 400-tree forest and the meshes asset (30 spp, depth 16),
# each with the working tree's kernels as they are (base) and with k = 12, 20, 28
# (tools/gpu-sweep.sh); then ncu's lanes per instruction, instructions and time of the
# render kernel's first launch on RTIOW, the grid, the meshes asset and the forest (each
# at its own depth), base against REFILL (default 28). KS="..." picks other k;
# MESHES_ONLY=1 leaves out RTIOW and the grid; the PBR showcase and a 1.31M-triangle
# icosphere are swept too.
# SWEEP_ONLY=1 / NCU_ONLY=1 run one half. Tables in $OUT/warp-refill.txt.
. "$(dirname "$0")/gpu-env.sh"
set -uo pipefail
B="$BUNDLE/bin"
G="$BUNDLE/gen"
mkdir -p "$G"
"$B/scene-gen" grid --count 1000000 --seed 1 --ply -o "$G/grid-1m.ron" > /dev/null
"$B/scene-gen" forest --instances 400 --subdivisions 5 -o "$G/forest.ron" > /dev/null
"$B/scene-gen" mesh --subdivisions 8 -o "$G/m8.ply" > /dev/null
printf '%s\n' 'Scene(camera: (look_from: (0, 0.6, 3), look_at: (0, 0, 0), vfov_deg: 40),' \
    'sky: Gradient(bottom: (1, 1, 1), top: (0.5, 0.7, 1)),' \
    'materials: { "clay": Lambert(albedo: (0.7, 0.4, 0.3)) }, meshes: [(file: "m8.ply", material: "clay")],)' > "$G/m8.ron"
summary="$OUT/warp-refill.txt"
: > "$summary"
variants=(base:KERNELS=kernels)
for k in ${KS:-12 20 28}; do variants+=("refill$k:KERNELS=kernels,RENDERER_KERNEL_DEFINES=PT_WARP_REFILL=$k"); done
sweep() { # <scene inside the bundle> <settings> <resolutions>
    echo "== $1 ($2)" | tee -a "$summary"
    SCENE=$1 SETTINGS=$2 RESOLUTIONS=$3 OUT="$OUT/sweep-$(basename "$1" .ron)" bash tools/gpu-sweep.sh "${variants[@]}" |
        tee -a "$summary"
}
if [ -z "${NCU_ONLY:-}" ]; then
    if [ -z "${MESHES_ONLY:-}" ]; then
        sweep assets/scenes/rtiow_final.ron "--spp 30 --max-depth 50" "1280x720 1920x1080"
        sweep gen/grid-1m.ron "--spp 30 --max-depth 50" "1280x720"
    fi
    sweep gen/forest.ron "--spp 30 --max-depth 16" "1280x720"
    sweep assets/scenes/meshes.ron "--spp 30 --max-depth 16" "1280x720"
    sweep assets/scenes/reference/pbr_showcase.ron "--spp 30 --max-depth 16" "1280x720"
    sweep gen/m8.ron "--spp 30 --max-depth 16" "1280x720"
    # The same samples in the same order: the same image.
    for defines in "" "PT_WARP_REFILL=20"; do
        env ${defines:+RENDERER_KERNEL_DEFINES=$defines} "$B/renderer" render "$BUNDLE/assets/scenes/meshes.ron" \
            --backend cuda --kernels kernels --width 320 --height 180 --spp 8 -o "$G/image${defines:+-refill}.exr" > /dev/null
    done
    echo "RMSE base against refill20 (meshes, 8 spp): $("$B/rmse" "$G/image.exr" "$G/image-refill.exr" 2>&1 | tail -1)" |
        tee -a "$summary"
fi
[ -n "${SWEEP_ONLY:-}" ] && { rm -rf "$G"; exit 0; }
metrics=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,\
sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
for scene in "$BUNDLE/assets/scenes/rtiow_final.ron" "$G/grid-1m.ron" "$BUNDLE/assets/scenes/meshes.ron" "$G/forest.ron"; do
    for defines in "" "PT_WARP_REFILL=${REFILL:-28}"; do
        echo "== ncu $(basename "$scene") ${defines:-base}" | tee -a "$summary"
        env ${defines:+RENDERER_KERNEL_DEFINES=$defines} timeout 200 ncu --metrics "$metrics" -k regex:render -c 1 "$B/renderer" render \
            "$scene" --backend cuda --kernels kernels --width 1280 --height 720 --spp 30 -o "$G/p.png" 2>&1 |
            grep -E "^\s+(gpu__|smsp__|sm__|launch__)" | tee -a "$summary"
    done
done
rm -rf "$G"
