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

// A pixel's AOV sums over the samples of one launch (CPU: denoise/mod.rs `AovSample`):
// albedo and depth, normal and squared luminance.
struct AovSum {
    float4 albedo_depth;
    float4 normal_l2;
};

__device__ __forceinline__ AovSum aov_zero() {
    AovSum s;
    s.albedo_depth = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    s.normal_l2 = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    return s;
}

// Adds this launch's AOV sums to pixel `pixel_index` (two float4 per pixel), or
// overwrites them for the first samples, as `accumulate` does the radiance.
__device__ __forceinline__ void accumulate_aov(unsigned int pixel_index, const AovSum& s) {
    float4* __restrict__ aov = params.aov + 2u * pixel_index;
    if (params.first_sample == 0) {
        aov[0] = s.albedo_depth;
        aov[1] = s.normal_l2;
        return;
    }
    const float4 a = aov[0];
    const float4 b = aov[1];
    aov[0] = make_float4(a.x + s.albedo_depth.x, a.y + s.albedo_depth.y, a.z + s.albedo_depth.z,
                         a.w + s.albedo_depth.w);
    aov[1] = make_float4(b.x + s.normal_l2.x, b.y + s.normal_l2.y, b.z + s.normal_l2.z, b.w + s.normal_l2.w);
}

// Adds every thread's ray count to the frame's counter: a warp-shuffle sum, then one
// atomic per warp instead of one per thread. Every lane of the block must call it.
__device__ __forceinline__ void count_rays(unsigned int rays) {
    unsigned long long sum = rays;
    for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if ((threadIdx.y * PT_BLOCK_W + threadIdx.x) % 32u == 0 && sum != 0) atomicAdd(params.ray_count, sum);
}
