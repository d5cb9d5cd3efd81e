// The render kernel's copy of the BVH's inner nodes (CUDA backend: scene.rs builds it
// with repack_nodes right after uploading the blob).
#pragma once

#include "blob_layout.cuh"

// One blob inner node, its six box rows and its child links together in 128 bytes.
// The blob keeps boxes and links in two sections (104 bytes per node, so a 1M-sphere
// scene stays under 128 bytes per sphere); read from there, a node visit touches two
// or three cache lines. In this record it touches one: on an H200, RTIOW at 1920x1080,
// 30 spp, 8.45 ms against 8.25 (and 8.57 with two sections read through the params).
struct __align__(16) DeviceNode {
    // NodeBoxesRecord's x_pos, x_neg, y_pos, y_neg, z_pos, z_neg.
    float4 rows[6];
    // Left and right child links (docs/blob-format.md), then two zeros.
    uint4 links;
    // To 128 bytes: the allocation is 256-aligned, so a node is one cache line.
    uint4 padding;
};
static_assert(sizeof(DeviceNode) == 128, "a DeviceNode is one 128-byte cache line");
static_assert(sizeof(NodeBoxesRecord) == 6 * sizeof(float4), "NodeBoxesRecord is the six rows");

// The record size for the host, which allocates the node array (read once per module).
__constant__ unsigned int device_node_bytes = sizeof(DeviceNode);
