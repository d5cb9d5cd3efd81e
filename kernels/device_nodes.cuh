// The render kernel's copy of the BVH's inner nodes (CUDA backend: scene.rs builds it
// with repack_nodes right after uploading the blob).
#pragma once

#include "blob_layout.cuh"
#include "features.cuh"

// Which of the two node forms below the module walks: the compact one for scenes with
// big meshes (the `compact_nodes` feature, backend/features.rs), unless PT_COMPACT_NODES
// (1 or 0) says which on any scene (tests and measurements).
#ifdef PT_COMPACT_NODES
static constexpr bool kCompactLayout = PT_COMPACT_NODES;
#else
static constexpr bool kCompactLayout = kCompactNodes;
#endif

// One blob inner node, its box rows and their mirrors, and its child links together in
// 128 bytes. The blob keeps boxes and links in two sections (56 bytes per node, each
// axis's row stored once); read from there, a node visit touches two or three cache
// lines. In this record it touches one (docs/performance.md, "Choices in the code").
struct __align__(16) MirroredNode {
    // Per axis the blob's row (left.min, right.min, left.max, right.max), then its
    // mirror (left.max, right.max, left.min, right.min): a ray reads the first for an
    // axis it travels up (direction >= 0) and the second otherwise, so lanes x, y are
    // always its near planes and z, w its far planes, and the slab test needs no
    // min/max to sort them (traverse.cuh).
    float4 rows[6];
    // Left and right child links (docs/blob-format.md), then two zeros.
    uint4 links;
    // To 128 bytes: the allocation is 256-aligned, so a node is one cache line.
    uint4 padding;
};
static_assert(sizeof(MirroredNode) == 128, "a MirroredNode is one 128-byte cache line");

// One blob inner node in 64 bytes: its box rows as the blob stores them (left.min,
// right.min, left.max, right.max), and its child links. Half the bytes of a mirrored
// node, for twelve selects a visit (a ray swaps the lanes of the rows of the axes it
// travels down). Trees of a million triangles and more do not fit the L2 cache, and
// rays scattered over them wait on memory more than on instructions: there this form
// is 3-6 % faster, on trees that fit 1-8 % slower (docs/performance.md, "Compact
// nodes for big meshes").
struct __align__(16) CompactNode {
    float4 rows[3];
    // Left and right child links, then two zeros.
    uint4 links;
};
static_assert(sizeof(CompactNode) == 64, "a CompactNode is half a cache line");

template <bool kCompact> struct NodeForm {
    using type = MirroredNode;
};
template <> struct NodeForm<true> {
    using type = CompactNode;
};
using DeviceNode = NodeForm<kCompactLayout>::type;
static_assert(sizeof(NodeBoxesRecord) == 3 * sizeof(float4), "NodeBoxesRecord is one row per axis");

// The record size for the host, which allocates the node array (read once per module).
__constant__ unsigned int device_node_bytes = sizeof(DeviceNode);

// Whether the kernels walk compressed 8-wide nodes (traverse.cuh, PT_WIDE_BVH): the host
// then builds them (scene-compiler/src/bvh/wide.rs) and uploads them instead of
// repacking the binary ones.
#ifndef PT_WIDE_BVH
#define PT_WIDE_BVH 0
#endif
__constant__ unsigned int device_wide_bvh = PT_WIDE_BVH;
