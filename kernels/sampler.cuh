// Where a sample's random numbers come from, docs/path-tracing.md "Random numbers" and
// "Sobol sampler" (CPU: renderer/src/backend/cpu/sampler.rs, the same functions). The
// module's sampler is a compile-time switch, kSobol (features.cuh, PT_SAMPLER, set by
// the host from the job): the independent sampler's module has no Sobol code, and its
// draws are the PCG stream's, in the spec's order, whatever the dimension.
#pragma once

#include "constants.cuh"
#include "features.cuh"
#include "rng.cuh"

// The random numbers of one camera sample: the PCG stream (independent), or the pixel's
// scramble seed and the sample index (Sobol; every value a function of them and the
// dimension). One type per sampler, so a module's Path carries only its own sampler's state.
template <bool kIsSobol>
struct SamplerState;
template <>
struct SamplerState<false> {
    Rng rng;
};
template <>
struct SamplerState<true> {
    unsigned int pixel_seed;
    unsigned int index;
};
using Sampler = SamplerState<kSobol>;

// Point `index` of Sobol dimension `dim` (0..4), unscrambled: the XOR of the direction
// numbers of the index's set bits. `dim` is the same in every lane, so the direction
// numbers are constant-cache broadcasts.
__device__ __forceinline__ unsigned int sobol(unsigned int index, unsigned int dim) {
    unsigned int x = 0u;
    for (unsigned int bit = 0u; index != 0u; index >>= 1u, ++bit) {
        x ^= SOBOL_DIRECTIONS[dim][bit] & (0u - (index & 1u));
    }
    return x;
}

// Burley's Laine-Karras style hash (his paper's improved constants).
__device__ __forceinline__ unsigned int laine_karras_permutation(unsigned int x, unsigned int seed) {
    x += seed;
    x ^= x * LAINE_KARRAS_MULTIPLIER_0;
    x ^= x * LAINE_KARRAS_MULTIPLIER_1;
    x ^= x * LAINE_KARRAS_MULTIPLIER_2;
    x ^= x * LAINE_KARRAS_MULTIPLIER_3;
    return x;
}

// Nested uniform (Owen) scrambling of a 32-bit fraction in base 2.
__device__ __forceinline__ unsigned int nested_uniform_scramble(unsigned int x, unsigned int seed) {
    return __brev(laine_karras_permutation(__brev(x), seed));
}

// Sampler dimension `dim` of sample `index` of the pixel with scramble seed `pixel_seed`,
// as a 32-bit fraction: Sobol dimension dim % 4 in padded group dim / 4, whose seed
// shuffles the index; each dimension's value is scrambled with a seed of its own.
__device__ __forceinline__ unsigned int sobol_sample(unsigned int index, unsigned int dim, unsigned int pixel_seed) {
    const unsigned int group = dim / SOBOL_GROUP_DIMS;
    const unsigned int within = dim % SOBOL_GROUP_DIMS;
    const unsigned int group_seed = pcg_hash(pixel_seed ^ pcg_hash(group));
    const unsigned int shuffled = nested_uniform_scramble(index, group_seed);
    return nested_uniform_scramble(sobol(shuffled, within), pcg_hash(group_seed ^ within));
}

// Starts the sampler of sample `sample_index` of pixel `pixel_index`; `seed_hash` =
// pcg_hash(seed). One overload per sampler: a module calls its own.
__device__ __forceinline__ void sampler_start(SamplerState<false>& s, unsigned int pixel_index,
                                              unsigned int sample_index, unsigned int seed_hash) {
    s.rng = rng_init(pixel_index, sample_index, seed_hash);
}
__device__ __forceinline__ void sampler_start(SamplerState<true>& s, unsigned int pixel_index,
                                              unsigned int sample_index, unsigned int seed_hash) {
    s.pixel_seed = pcg_hash(pixel_index ^ seed_hash);
    s.index = sample_index;
}

// The module's sampler for sample `sample_index` of pixel `pixel_index`.
__device__ __forceinline__ Sampler sampler_init(unsigned int pixel_index, unsigned int sample_index,
                                                unsigned int seed_hash) {
    Sampler s;
    sampler_start(s, pixel_index, sample_index, seed_hash);
    return s;
}

// A uniform number in [0, 1) for dimension `dim` (constants.cuh, DIM_*): the independent
// sampler's next number, whatever the dimension, or the Sobol sample of that dimension.
__device__ __forceinline__ float sample_dim(SamplerState<false>& s, unsigned int) { return next_f32(s.rng); }
__device__ __forceinline__ float sample_dim(SamplerState<true>& s, unsigned int dim) {
    return (float)(sobol_sample(s.index, dim, s.pixel_seed) >> UNIT_FLOAT_SHIFT) * UNIT_FLOAT_SCALE;
}

// The dimension of the number at `offset` (DIM_SCATTER_*, DIM_NEE_*, DIM_ROULETTE) of
// bounce `depth` (CPU: constants.rs `bounce_dim`).
__device__ __forceinline__ unsigned int bounce_dim(unsigned int depth, unsigned int offset) {
    return CAMERA_DIMS + depth * DIMS_PER_BOUNCE + offset;
}
