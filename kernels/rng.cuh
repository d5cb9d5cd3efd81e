// PCG random numbers, docs/path-tracing.md "Random numbers: PCG"; the CPU backend's
// renderer/src/backend/cpu/rng.rs is the same code. Every (pixel, sample) pair seeds
// its own stream, so an image does not depend on launch shape or sample split.
#pragma once

#include "constants.cuh"

// PCG's RXS-M-XS output permutation of one state.
__device__ __forceinline__ unsigned int pcg_permute(unsigned int state) {
    const unsigned int word = ((state >> ((state >> PCG_RXS_SELECT_SHIFT) + PCG_RXS_MIN_SHIFT)) ^ state) * PCG_OUTPUT_MULTIPLIER;
    return (word >> PCG_XS_SHIFT) ^ word;
}

// One LCG step.
__device__ __forceinline__ unsigned int pcg_step(unsigned int state) { return state * PCG_MULTIPLIER + PCG_INCREMENT; }

// The PCG hash of one value (Jarzynski & Olano 2020, "Hash Functions for GPU Rendering").
__device__ __forceinline__ unsigned int pcg_hash(unsigned int v) { return pcg_permute(pcg_step(v)); }

// One random stream: PCG-RXS-M-XS-32.
struct Rng {
    unsigned int state;
};

// rng_init(pixel, sample, seed) of the spec with `seed_hash = pcg_hash(seed)`, which is
// the same for the whole launch and so is computed once per thread, not per sample.
__device__ __forceinline__ Rng rng_init(unsigned int pixel_index, unsigned int sample_index, unsigned int seed_hash) {
    return Rng{pcg_hash(pixel_index ^ pcg_hash(sample_index ^ seed_hash))};
}

__device__ __forceinline__ unsigned int next_u32(Rng& rng) {
    rng.state = pcg_step(rng.state);
    return pcg_permute(rng.state);
}

// Uniform in [0, 1) from the top 24 bits: every value is exactly representable.
__device__ __forceinline__ float next_f32(Rng& rng) { return (float)(next_u32(rng) >> UNIT_FLOAT_SHIFT) * UNIT_FLOAT_SCALE; }

// A uniform float in [0, 1) fixed by a ray and a primitive: the threshold a Blend
// surface's alpha is held against inside traversal (stochastic transparency), so the
// closest-hit and shadow queries need no random stream (CPU: rng.rs `ray_hash`).
__device__ __forceinline__ float ray_hash(float3 origin, float3 dir, unsigned int prim) {
    unsigned int h = pcg_hash(prim);
    h = pcg_hash(h ^ __float_as_uint(origin.x));
    h = pcg_hash(h ^ __float_as_uint(origin.y));
    h = pcg_hash(h ^ __float_as_uint(origin.z));
    h = pcg_hash(h ^ __float_as_uint(dir.x));
    h = pcg_hash(h ^ __float_as_uint(dir.y));
    h = pcg_hash(h ^ __float_as_uint(dir.z));
    return (float)(h >> UNIT_FLOAT_SHIFT) * UNIT_FLOAT_SCALE;
}
