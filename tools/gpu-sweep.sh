#!/usr/bin/env bash
# Benchmarks kernel variants side by side on the GPU machine, from the bundle that
# tools/gpu-bundle.sh made: the same scene and settings as tools/gpu-run.sh (RTIOW
# final, 30 spp, max depth 50), one `renderer bench` per variant and resolution, then
# one table. Run from the repo root:
#
#   bash tools/gpu-sweep.sh base: regen:RENDERER_KERNEL_DEFINES=PT_PATH_REGENERATION=1 \
#        dyn16x8:RENDERER_KERNEL_DEFINES=PT_DYNAMIC_PIXELS=1,RENDERER_CUDA_BLOCK=16x8
#
# Each argument is NAME:ENV=VALUE[,ENV=VALUE...]. Two pseudo-variables: KERNELS=DIR
# renders with the kernel sources in DIR (`--kernels DIR`), for variants that are more
# than a define; BUNDLE=DIR runs another bundle's renderer on that bundle's scene, to
# time the previous build against this one in the same run (before/after). RESOLUTIONS (default "1280x720
# 1920x1080") and FRAMES (default 20) override the defaults. JSON reports go to
# $OUT/sweep-<name>-<resolution>.json (OUT defaults to ./gpu-out). SCENE (a path inside
# the bundle, default the RTIOW scene) and SETTINGS (default "--spp 30 --max-depth 50";
# empty for the scene's own) time another scene, e.g. a `scene-gen grid` written there.
set -uo pipefail
cd "$(dirname "$0")/.."

BUNDLE=${BUNDLE:-gpu-bundle}
OUT=${OUT:-gpu-out}
RESOLUTIONS=${RESOLUTIONS:-"1280x720 1920x1080"}
FRAMES=${FRAMES:-20}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export LD_LIBRARY_PATH="$CUDA_HOME/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# A kernel cache handed down (tools/gpu-env.sh makes one per script) is shared by the
# sweeps of a run: each variant's modules compile once, not once per scene.
own_cache=
[ -n "${RENDERER_KERNEL_CACHE:-}" ] || { RENDERER_KERNEL_CACHE=$(mktemp -d); own_cache=1; }
export RENDERER_KERNEL_CACHE
mkdir -p "$OUT"
scene=${SCENE:-assets/scenes/rtiow_final.ron}
read -r -a settings <<< "${SETTINGS---spp 30 --max-depth 50}"
# Table cells from one bench report.
fields=$(mktemp --suffix .py)
cat > "$fields" <<'PY'
import json, sys
r = json.load(open(sys.argv[2]))
if sys.argv[1] == "times":
    print(f" | {r['median_ms']:.3f} ({r['min_ms']:.3f}) {r['mrays_per_s']:.0f}")
else:
    k = r["kernels"][0]
    print(f" | {k['registers']} | {k['local_bytes']} | {k['blocks_per_sm']}")
PY

table="variant"
for res in $RESOLUTIONS; do table+=" | $res median (min) ms, Mrays/s"; done
table+=" | registers | local B | blocks/SM"$'\n'
for variant in "$@"; do
    name=${variant%%:*}
    IFS=',' read -r -a assignments <<< "${variant#*:}"
    envs=()
    kernels=()
    bundle=$BUNDLE
    for a in "${assignments[@]}"; do
        case $a in
            KERNELS=*) kernels=(--kernels "${a#KERNELS=}") ;;
            BUNDLE=*) bundle=${a#BUNDLE=} ;;
            *) envs+=("$a") ;;
        esac
    done
    row="$name"
    resources=""
    for res in $RESOLUTIONS; do
        json="$OUT/sweep-$name-$res.json"
        if env ${envs[@]+"${envs[@]}"} "$bundle/bin/renderer" bench "$bundle/$scene" --backend cuda --width "${res%x*}" \
            --height "${res#*x}" ${settings[@]+"${settings[@]}"} --frames "$FRAMES" --warmup 3 "${kernels[@]}" --json > "$json" 2> "$json.err"; then
            row+=$(python3 "$fields" times "$json")
            resources=$(python3 "$fields" resources "$json")
        else
            row+=" | failed: $(tail -n 1 "$json.err")"
        fi
    done
    table+="$row$resources"$'\n'
done
rm -f "$fields"
[ -z "$own_cache" ] || rm -rf "$RENDERER_KERNEL_CACHE"
printf '%s' "$table" | tee "$OUT/sweep.txt"
