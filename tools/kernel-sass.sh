#!/usr/bin/env bash
# The render kernel's registers, stack and SASS for sm_90, here, without a GPU: NVRTC
# (from PyPI, as CI installs it) compiles a kernels folder, nvdisasm (PyPI
# `nvidia-cuda-nvdisasm`) disassembles it. For comparing kernel variants before
# spending GPU time on them; instruction counts per region are what ncu's source page
# (tools/gpu-run.sh has the command in the README) then weighs by execution.
#
#   bash tools/kernel-sass.sh [KERNELS_DIR] [OUT_DIR]     # defaults: kernels/, target/kernel-sass/
#
# Writes OUT_DIR/<arch>[-define].cubin for every compiled variant, OUT_DIR/ptxas.txt
# (registers, stack, spills) and OUT_DIR/render.sass (sm_90, path regeneration).
set -euo pipefail
cd "$(dirname "$0")/.."
KERNELS=$(realpath "${1:-kernels}")
OUT=$(realpath -m "${2:-target/kernel-sass}")
TOOLS="$PWD/target/cuda-tools"
mkdir -p "$OUT"
if [ ! -d "$PWD/target/ci-nvrtc/nvidia/cuda_nvrtc/lib" ]; then
    python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$PWD/target/ci-nvrtc" 'nvidia-cuda-nvrtc-cu12>=12.4,<13'
fi
if [ ! -x "$TOOLS/nvidia/cu13/bin/nvdisasm" ]; then
    python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$TOOLS" nvidia-cuda-nvdisasm
fi
export LD_LIBRARY_PATH="$PWD/target/ci-nvrtc/nvidia/cuda_nvrtc/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
RENDERER_TEST_KERNELS="$KERNELS" RENDERER_TEST_CUBINS="$OUT" \
    cargo test -q --release -p renderer --test gpu -- --ignored nvrtc_compile::kernels_compile --nocapture > "$OUT/ptxas.txt"
# The render function's section only (nvdisasm takes function indices, not names).
"$TOOLS/nvidia/cu13/bin/nvdisasm" -c "$OUT/sm_90.cubin" 2> /dev/null |
    awk '/\.section/ { keep = ($2 ~ /^\.text\.render,/) } keep' > "$OUT/render.sass"
sed -n '/^--- sm_90 \[\]/,/^---/p' "$OUT/ptxas.txt" | grep -A2 "'render"
echo "$(grep -c '^ */\*[0-9a-f]*\*/' "$OUT/render.sass") instructions in $OUT/render.sass"
