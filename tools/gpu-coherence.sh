#!/usr/bin/env bash
# Issue 40's three leads (warp-wide refill, `PT_WARP_REFILL=k`; camera-ray packets,
# `PT_CAMERA_PACKETS=1`; sorted bounces, `PT_SORTED_BOUNCES=1`; kernels/render.cu) against
# the megakernel (base: the defaults; refill0: no refill) in one device call,
# from the repo root with a bundle (tools/gpu-bundle.sh), the working tree's kernels:
#   1. the GPU-vs-CPU tests with each lead on; the image of each lead against the
#      megakernel's (RMSE; the same samples in the same order, so 0 up to ties);
#   2. compute-sanitizer: memcheck with each lead, racecheck of the sorted bounces'
#      shared memory, synccheck of both (warp votes, barriers);
#   3. `renderer bench` of every variant (tools/gpu-sweep.sh): RTIOW at 1280x720,
#      1920x1080 and 3840x2160, the 1M and 10M sphere grids (30 spp, depth 50), the
#      meshes asset, the 400-tree forest and a 1.31M-triangle icosphere (30 spp, depth 16);
#   4. ncu's lanes per instruction, instructions and time of the first render launch.
# VARIANTS="name:ENV=V ..." replaces the variants; SKIP="tests sanitizer sweep ncu" leaves
# parts out; SCENES="rtiow grid1m grid10m meshes forest m8" picks the swept scenes. Tables
# in $OUT/coherence.txt.
. "$(dirname "$0")/gpu-env.sh"
set -uo pipefail
B="$BUNDLE/bin"
G="$BUNDLE/gen"
mkdir -p "$G"
summary="$OUT/coherence.txt"
: > "$summary"
skip=" ${SKIP:-} "
scenes=" ${SCENES:-rtiow grid1m grid10m meshes forest m8} "
read -r -a variants <<< "${VARIANTS:-base:KERNELS=kernels \
refill0:KERNELS=kernels,RENDERER_KERNEL_DEFINES=PT_WARP_REFILL=0 \
refill24:KERNELS=kernels,RENDERER_KERNEL_DEFINES=PT_WARP_REFILL=24 \
packets:KERNELS=kernels,RENDERER_KERNEL_DEFINES=PT_CAMERA_PACKETS=1 \
sorted:KERNELS=kernels,RENDERER_KERNEL_DEFINES=PT_SORTED_BOUNCES=1}"
# `+` joins two defines inside one variant (the sweep splits a variant at commas).
for i in "${!variants[@]}"; do variants[i]=${variants[i]//+/ }; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$summary"

if [[ $skip != *" tests "* ]]; then
    for defines in PT_CAMERA_PACKETS=1 PT_SORTED_BOUNCES=1; do
        echo "== GPU vs CPU with $defines" | tee -a "$summary"
        RENDERER_KERNEL_DEFINES=$defines RENDERER_REPO_ROOT=$PWD timeout 300 "$BUNDLE/tests/gpu" --include-ignored \
            --test-threads 1 --skip nvrtc_compile vs_cpu 2>&1 | grep -E "test result|FAILED|panicked" | tee -a "$summary"
    done
    for scene in rtiow_final meshes textures reference/pbr_showcase; do
        for defines in "" PT_CAMERA_PACKETS=1 PT_SORTED_BOUNCES=1; do
            env ${defines:+RENDERER_KERNEL_DEFINES=$defines} "$B/renderer" render "$BUNDLE/assets/scenes/$scene.ron" \
                --backend cuda --kernels kernels --width 320 --height 180 --spp 8 -o "$G/image-${defines:-base}.exr" \
                > /dev/null 2>&1 || echo "$scene $defines: render failed" | tee -a "$summary"
        done
        for defines in PT_CAMERA_PACKETS=1 PT_SORTED_BOUNCES=1; do
            echo "RMSE $scene base against $defines (320x180, 8 spp): $("$B/rmse" "$G/image-base.exr" "$G/image-$defines.exr" 2>&1 | tail -1)" |
                tee -a "$summary"
        done
    done
fi

if [[ $skip != *" sanitizer "* ]]; then
    sanitize() { # <tool> <defines> <scene> <render options...>
        local tool=$1 defines=$2 scene=$3; shift 3
        RENDERER_KERNEL_DEFINES=$defines timeout 300 compute-sanitizer --tool "$tool" "$B/renderer" render \
            "$BUNDLE/assets/scenes/$scene.ron" --backend cuda --kernels kernels "$@" -o "$G/sanitized.exr" 2>&1 |
            tail -2 | sed "s|^|$tool $defines $scene: |" | tee -a "$summary"
    }
    for defines in PT_CAMERA_PACKETS=1 PT_SORTED_BOUNCES=1; do
        sanitize memcheck "$defines" rtiow_final --width 160 --height 90 --spp 2
        sanitize memcheck "$defines" meshes --width 160 --height 90 --spp 4 --denoise --aov albedo,normal,depth
        sanitize memcheck "$defines" reference/pbr_showcase --width 160 --height 90 --spp 2
    done
    sanitize racecheck PT_SORTED_BOUNCES=1 rtiow_final --width 100 --height 50 --spp 1
    sanitize racecheck PT_SORTED_BOUNCES=1 meshes --width 100 --height 50 --spp 1
    for defines in PT_CAMERA_PACKETS=1 PT_SORTED_BOUNCES=1; do
        sanitize synccheck "$defines" rtiow_final --width 320 --height 180 --spp 4
        sanitize synccheck "$defines" meshes --width 320 --height 180 --spp 4
    done
fi

[[ $scenes == *" grid1m "* ]] && "$B/scene-gen" grid --count 1000000 --seed 1 --ply -o "$G/grid-1m.ron" > /dev/null
[[ $scenes == *" grid10m "* ]] && "$B/scene-gen" grid --count 10000000 --seed 1 --ply -o "$G/grid-10m.ron" > /dev/null
[[ $scenes == *" forest "* ]] && "$B/scene-gen" forest --instances 400 --subdivisions 5 -o "$G/forest.ron" > /dev/null
if [[ $scenes == *" m8 "* ]]; then
    "$B/scene-gen" mesh --subdivisions 8 -o "$G/m8.ply" > /dev/null
    printf '%s\n' 'Scene(camera: (look_from: (0, 0.6, 3), look_at: (0, 0, 0), vfov_deg: 40),' \
        'sky: Gradient(bottom: (1, 1, 1), top: (0.5, 0.7, 1)),' \
        'materials: { "clay": Lambert(albedo: (0.7, 0.4, 0.3)) }, meshes: [(file: "m8.ply", material: "clay")],)' > "$G/m8.ron"
fi
declare -A scene_file=([rtiow]=assets/scenes/rtiow_final.ron [grid1m]=gen/grid-1m.ron [grid10m]=gen/grid-10m.ron
    [meshes]=assets/scenes/meshes.ron [forest]=gen/forest.ron [m8]=gen/m8.ron)
declare -A scene_settings=([rtiow]="--spp 30 --max-depth 50" [grid1m]="--spp 30 --max-depth 50"
    [grid10m]="--spp 30 --max-depth 50" [meshes]="--spp 30 --max-depth 16" [forest]="--spp 30 --max-depth 16"
    [m8]="--spp 30 --max-depth 16")
declare -A scene_resolutions=([rtiow]="1280x720 1920x1080 3840x2160")

if [[ $skip != *" sweep "* ]]; then
    for name in $scenes; do
        echo "== $name (${scene_settings[$name]})" | tee -a "$summary"
        SCENE=${scene_file[$name]} SETTINGS=${scene_settings[$name]} RESOLUTIONS=${scene_resolutions[$name]:-1280x720} \
            FRAMES=${FRAMES:-10} OUT="$OUT/sweep-$name" bash tools/gpu-sweep.sh "${variants[@]}" | tee -a "$summary"
    done
fi

if [[ $skip != *" ncu "* ]]; then
    metrics=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,\
sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
    for name in $scenes; do
        [ "$name" = m8 ] && continue
        for defines in "" PT_WARP_REFILL=0 PT_WARP_REFILL=24 PT_CAMERA_PACKETS=1 PT_SORTED_BOUNCES=1; do
            echo "== ncu $name ${defines:-base}" | tee -a "$summary"
            env ${defines:+RENDERER_KERNEL_DEFINES=$defines} timeout 200 ncu --metrics "$metrics" -k regex:render -c 1 \
                "$B/renderer" render "$BUNDLE/${scene_file[$name]}" --backend cuda --kernels kernels --width 1280 \
                --height 720 ${scene_settings[$name]} -o "$G/p.png" 2>&1 |
                grep -E "^\s+(gpu__|smsp__|sm__|launch__)" | tee -a "$summary"
        done
    done
fi
rm -rf "$G"
