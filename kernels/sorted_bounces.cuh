// Sorted bounces (issue 40, lead 3; PT_SORTED_BOUNCES=1, render.cu): the closest-hit
// rays of a block's paths, traced in the order of a key (direction octant, then the
// Morton code of the origin) so that a warp takes rays that leave one region in one
// direction, and the hits handed back to the paths' own threads, which shade them where
// they were. The sort is the block's (one bitonic sort per bounce, in registers and
// shared memory), not the frame's: a frame-wide sort needs the paths' state in memory
// between launches, the wavefront split that lost (docs/performance.md).
#pragma once

#include "arch.cuh"
#include "traverse.cuh"

// Measured and checked (GPU-vs-CPU, sanitizers) with the default 16x8 block only: with
// 16x4 blocks a render did not finish in its device call (docs/performance.md), which is
// not understood yet, so other shapes are refused rather than risked.
static_assert(PT_BLOCK_THREADS == 128, "sorted bounces run with 128-thread blocks only, as the default 16x8 (RENDERER_CUDA_BLOCK)");

// The box the origins are quantized in: the root's two children's (the scene's bounds).
struct SortFrame {
    float3 low;
    float3 cells_per_unit;
};

__device__ __forceinline__ SortFrame sort_frame() {
    SortFrame f;
    f.low = make_float3(0.0f, 0.0f, 0.0f);
    f.cells_per_unit = make_float3(0.0f, 0.0f, 0.0f);
    if (params.bvh_root & BLOB_LEAF_FLAG) return f;
    // Rows 0, 2, 4: an axis' (left min, right min, left max, right max).
    const float4* rows = params.nodes[params.bvh_root].rows;
    const float4 x = __ldg(rows), y = __ldg(rows + 2), z = __ldg(rows + 4);
    f.low = make_float3(fminf(x.x, x.y), fminf(y.x, y.y), fminf(z.x, z.y));
    const float3 high = make_float3(fmaxf(x.z, x.w), fmaxf(y.z, y.w), fmaxf(z.z, z.w));
    // 64 cells an axis; a flat axis gets one.
    f.cells_per_unit = make_float3(64.0f / fmaxf(high.x - f.low.x, 1e-30f), 64.0f / fmaxf(high.y - f.low.y, 1e-30f),
                                   64.0f / fmaxf(high.z - f.low.z, 1e-30f));
    return f;
}

// Bits 0..5 of `v` spread to every third bit.
__device__ __forceinline__ unsigned int spread3(unsigned int v) {
    v = (v | (v << 8)) & 0x0000f00fu;
    v = (v | (v << 4)) & 0x000c30c3u;
    v = (v | (v << 2)) & 0x00249249u;
    return v;
}

__device__ __forceinline__ unsigned int cell(float o, float low, float per_unit) {
    const float c = (o - low) * per_unit;
    // NaN and anything outside the box land in the edge cells.
    return (unsigned int)fminf(fmaxf(c, 0.0f), 63.0f);
}

// The 21-bit sort key of a ray: its direction's octant, then the 18-bit Morton code of its
// origin's cell (below SORT_NO_RAY >> 8, which no key reaches).
__device__ __forceinline__ unsigned int sort_key(float3 origin, float3 dir, const SortFrame& f) {
    const unsigned int octant = (__float_as_uint(dir.x) >> 31) | ((__float_as_uint(dir.y) >> 31) << 1) |
                                ((__float_as_uint(dir.z) >> 31) << 2);
    const unsigned int morton = spread3(cell(origin.x, f.low.x, f.cells_per_unit.x)) |
                                (spread3(cell(origin.y, f.low.y, f.cells_per_unit.y)) << 1) |
                                (spread3(cell(origin.z, f.low.z, f.cells_per_unit.z)) << 2);
    return (octant << 18) | morton;
}

// The entry of a thread without a ray: after every key.
#define SORT_NO_RAY 0xffffff00u

// Sorts the block's entries (key << 8 | thread) ascending, each thread giving one and
// getting the one of its rank back: a bitonic network, its exchanges within a warp by
// shuffles and across warps through `scratch`. Every thread of the block calls it.
__device__ __forceinline__ unsigned int block_sort(unsigned int v, unsigned int tid, unsigned int* scratch) {
#pragma unroll
    for (unsigned int k = 2; k <= PT_BLOCK_THREADS; k <<= 1) {
#pragma unroll
        for (unsigned int j = k >> 1; j > 0; j >>= 1) {
            unsigned int u;
            if (j >= 32) {
                scratch[tid] = v;
                __syncthreads();
                u = scratch[tid ^ j];
                __syncthreads();
            } else {
                u = __shfl_xor_sync(0xffffffffu, v, j);
            }
            const bool keep_min = ((tid & j) == 0) == ((tid & k) == 0);
            v = keep_min ? min(v, u) : max(v, u);
        }
    }
    return v;
}

// The closest hit of this thread's ray (origin, dir) when `tracing`, traced by the thread
// whose rank the ray's key has in the block. Every thread of the block calls it.
__device__ __forceinline__ Hit sorted_trace(bool tracing, float3 origin, float3 dir, const SortFrame& frame) {
    __shared__ unsigned int scratch[PT_BLOCK_THREADS];
    __shared__ float3 ray_origin[PT_BLOCK_THREADS];
    __shared__ float3 ray_dir[PT_BLOCK_THREADS];
    __shared__ float hit_t[PT_BLOCK_THREADS];
    __shared__ unsigned int hit_prim[PT_BLOCK_THREADS];
    __shared__ unsigned int hit_instance[PT_BLOCK_THREADS];
    const unsigned int tid = threadIdx.y * PT_BLOCK_W + threadIdx.x;
    ray_origin[tid] = origin;
    ray_dir[tid] = dir;
    const unsigned int entry = block_sort((tracing ? sort_key(origin, dir, frame) << 8 : SORT_NO_RAY) | tid, tid, scratch);
    __syncthreads();
    if (entry < SORT_NO_RAY) {
        const unsigned int owner = entry & 0xffu;
        const Hit h = traverse(ray_origin[owner], ray_dir[owner]);
        hit_t[owner] = h.t;
        hit_prim[owner] = h.prim;
        hit_instance[owner] = h.instance;
    }
    __syncthreads();
    return Hit{hit_t[tid], hit_prim[tid], hit_instance[tid]};
}
