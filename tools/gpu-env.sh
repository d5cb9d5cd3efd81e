# What every tools/gpu-*.sh sets up on the GPU machine, sourced first thing
# (`. "$(dirname "$0")/gpu-env.sh"`): it moves to the repo root and sets
#   BUNDLE   the bundle tools/gpu-bundle.sh made (default gpu-bundle)
#   OUT      where results go (default gpu-out), created
#   CUDA_HOME (default /usr/local/cuda): its lib64 on LD_LIBRARY_PATH (libnvrtc and its
#            builtins; the renderer also looks there by itself), its bin and
#            compute-sanitizer on PATH
#   RENDERER_REPO_ROOT  the bundle: the tests find assets/ and kernels/ there (their
#            build-time source path does not exist on that machine)
#   RENDERER_KERNEL_CACHE  a fresh cache per run: the first start compiles, later
#            starts in this run load it
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUNDLE=${BUNDLE:-gpu-bundle}
OUT=${OUT:-gpu-out}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$CUDA_HOME/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$CUDA_HOME/bin:$CUDA_HOME/compute-sanitizer:$PATH"
export RENDERER_REPO_ROOT="$PWD/$BUNDLE"
export RENDERER_KERNEL_CACHE
RENDERER_KERNEL_CACHE=$(mktemp -d)
