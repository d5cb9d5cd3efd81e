#!/usr/bin/env bash
# Builds what the GPU machine needs into ./gpu-bundle/ (git-ignored), because that
# machine has CUDA but no Rust. Run here, from anywhere in the repo:
#
#   tools/gpu-bundle.sh
#
# then carry `gpu-bundle` to the GPU machine and run `tools/gpu-run.sh` there.
#
# The bundle:
#   bin/renderer          the release CLI (bench, render, watch)
#   bin/scene-gen         the scene generator (the 1M-sphere hot-reload run, the grids)
#   bin/scene-compiler    the compiler (tools/gpu-scale.sh compiles each grid once)
#   tests/gpu             the renderer's GPU test binary (renderer/tests/gpu), release
#   assets/ kernels/      copies, so the tests and bench find scenes and kernel sources
#                         (the tests look under $RENDERER_REPO_ROOT, set by gpu-run.sh)
#   MANIFEST.txt          commit, toolchain, and a sha256 per file
#
# Binaries are built on this machine (Debian 12, glibc 2.36) and run on the GPU
# machine (Ubuntu 24.04, glibc 2.39). CUDA is loaded at run time, so nothing here
# needs a CUDA toolkit. Debug info is stripped to stay well under the 64 MiB carry limit.
set -euo pipefail
cd "$(dirname "$0")/.."

BUNDLE=gpu-bundle
rm -rf "$BUNDLE"
mkdir -p "$BUNDLE/bin" "$BUNDLE/tests"

cargo build --release --locked -p renderer --bin renderer -p tools --bin scene-gen --bin rmse
cargo build --release --locked -p scene-compiler --features cli --bin scene-compiler
cp target/release/renderer target/release/scene-gen target/release/rmse target/release/scene-compiler "$BUNDLE/bin/"

# Cargo prints one JSON object per artifact; pick the renderer's GPU test executable.
cargo test --release --locked -p renderer --no-run --message-format=json |
    python3 -c '
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("reason") == "compiler-message":
        sys.stderr.write(msg["message"]["rendered"])
    if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
        continue
    target = msg["target"]
    name = target["name"]
    if "test" in target["kind"] and name == "gpu":
        print(name, msg["executable"])
' | while read -r name executable; do
    cp "$executable" "$BUNDLE/tests/$name"
done

strip --strip-all "$BUNDLE"/bin/* "$BUNDLE"/tests/*
cp -r assets kernels "$BUNDLE/"

{
    echo "gpu-bundle built $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (+ uncommitted changes)')"
    echo "toolchain: $(rustc --version)"
    echo
    (cd "$BUNDLE" && find . -type f ! -name MANIFEST.txt | sort | xargs sha256sum)
} > "$BUNDLE/MANIFEST.txt"

echo "bundle: $BUNDLE ($(du -sh "$BUNDLE" | cut -f1)); tests: $(ls "$BUNDLE/tests" | tr '\n' ' ')"
