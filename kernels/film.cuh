// The film on the device: per-pixel sums of samples and the frame's ray counter (its
// 8-bit output: view_transform.cuh) (docs/path-tracing.md "Accumulation and output"; CPU: film.rs).
#pragma once

#include "arch.cuh"
#include "params.cuh"
#include "vec3.cuh"

// Adds this launch's sample sum to pixel `pixel_index`; overwrites it for the first
// samples, so a new frame needs no separate clear of the film.
__device__ __forceinline__ void accumulate(unsigned int pixel_index, float3 sum) {
    float4* __restrict__ accum = params.accum;
    const float4 prev = params.first_sample == 0 ? make_float4(0.0f, 0.0f, 0.0f, 0.0f) : accum[pixel_index];
    accum[pixel_index] = make_float4(prev.x + sum.x, prev.y + sum.y, prev.z + sum.z, 0.0f);
}

// Adds every thread's ray count to the frame's counter: a warp-shuffle sum, then one
// atomic per warp instead of one per thread. Every lane of the block must call it.
__device__ __forceinline__ void count_rays(unsigned int rays) {
    unsigned long long sum = rays;
    for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if ((threadIdx.y * PT_BLOCK_W + threadIdx.x) % 32u == 0 && sum != 0) atomicAdd(params.ray_count, sum);
}
