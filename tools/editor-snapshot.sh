#!/usr/bin/env bash
# The editor's pictures, drawn by wgpu: the snapshot test (tools/editor-snapshot/tests)
# and the README's docs/editor.png. Run it whenever the editor's look or the blob
# changes, and commit the new PNGs:
#
#   bash tools/editor-snapshot.sh            # check the snapshot, rewrite docs/editor.png
#   UPDATE_SNAPSHOTS=1 bash tools/editor-snapshot.sh   # also accept a changed snapshot
#
# Without a GPU, wgpu draws on Mesa's software Vulkan (lavapipe): on Debian/Ubuntu it is
# the package mesa-vulkan-drivers, installed here when no Vulkan driver is found.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! ls /usr/share/vulkan/icd.d/*.json > /dev/null 2>&1; then
    echo "no Vulkan driver: installing mesa-vulkan-drivers (software Vulkan)"
    apt-get install -y -q mesa-vulkan-drivers > /dev/null
fi
cargo test --release --locked -p editor-snapshot
cargo run --release --locked -p editor-snapshot -- assets/scenes/rtiow_final.ron -o docs/editor.png
