// The environment sky: an equirectangular image looked up with bilinear filtering,
// sampled as a light by two alias tables (rows, then the row's columns), and the
// solid-angle density of that sampling for MIS (docs/path-tracing.md, "Environment";
// CPU twin: backend/cpu/environment.rs, function for function). Plain loads from the
// blob's env_texels: a texture object's hardware filter weighs texels with 8-bit
// fractions, which the CPU would have to imitate to agree.
#pragma once

#include "blob_layout.cuh"
#include "constants.cuh"
#include "params.cuh"
#include "vec3.cuh"

#define PT_PI 3.14159265358979323846f
#define PT_INV_TWO_PI 0.15915494309189533577f

// World direction to the image's frame: R_y(-rotation) d.
__device__ __forceinline__ float3 env_to_local(float3 d) {
    const float c = params.env_rotation_pdf.x, s = params.env_rotation_pdf.y;
    return make_float3(c * d.x - s * d.z, d.y, s * d.x + c * d.z);
}

// The image's frame to world: R_y(rotation) l.
__device__ __forceinline__ float3 env_to_world(float3 l) {
    const float c = params.env_rotation_pdf.x, s = params.env_rotation_pdf.y;
    return make_float3(c * l.x + s * l.z, l.y, -s * l.x + c * l.z);
}

struct EnvUv {
    float u;
    float v;
    float cos_theta;
};

// Image coordinates of unit world direction d: u in [0, 1] (0.5 looking along +Z in
// the image's frame), v in [0, 1] (0 straight up), and cos θ.
__device__ __forceinline__ EnvUv env_uv(float3 d) {
    const float3 l = env_to_local(d);
    EnvUv r;
    r.u = atan2f(l.x, -l.z) * PT_INV_TWO_PI;
    if (r.u < 0.0f) r.u += 1.0f;
    r.cos_theta = fminf(fmaxf(l.y, -1.0f), 1.0f);
    r.v = acosf(r.cos_theta) * PT_INV_PI;
    return r;
}

__device__ __forceinline__ float4 env_texel(unsigned int i, unsigned int j) {
    return __ldg(&params.env_texels[j * params.env_size.x + i].rgb_pdf);
}

// Radiance arriving from direction d (unit): the bilinear filter of the four texel
// centres around (u W - 0.5, v H - 0.5), columns wrapping, rows clamped at the poles.
__device__ __forceinline__ float3 env_radiance(float3 d) {
    const unsigned int w = params.env_size.x, h = params.env_size.y;
    const EnvUv uv = env_uv(d);
    const float x = uv.u * static_cast<float>(w) - 0.5f;
    const float y = uv.v * static_cast<float>(h) - 0.5f;
    const float x0 = floorf(x), y0 = floorf(y);
    const float fx = x - x0, fy = y - y0;
    const unsigned int i0 = x0 < 0.0f ? w - 1u : min(static_cast<unsigned int>(x0), w - 1u);
    const unsigned int i1 = i0 + 1u < w ? i0 + 1u : 0u;
    const float last_row = static_cast<float>(h) - 1.0f;
    const unsigned int j0 = static_cast<unsigned int>(fminf(fmaxf(y0, 0.0f), last_row));
    const unsigned int j1 = static_cast<unsigned int>(fminf(fmaxf(y0 + 1.0f, 0.0f), last_row));
    const float3 top = lerp(xyz(env_texel(i0, j0)), xyz(env_texel(i1, j0)), fx);
    const float3 bottom = lerp(xyz(env_texel(i0, j1)), xyz(env_texel(i1, j1)), fx);
    return lerp(top, bottom, fy);
}

// The solid-angle density with which env_sample draws direction d: its cell's density
// over 2π² sin θ; 0 at the poles.
__device__ __forceinline__ float env_pdf(float3 d) {
    const unsigned int w = params.env_size.x, h = params.env_size.y;
    const EnvUv uv = env_uv(d);
    const float sin_theta = sqrtf(fmaxf((1.0f - uv.cos_theta) * (1.0f + uv.cos_theta), 0.0f));
    if (sin_theta <= 0.0f) return 0.0f;
    const unsigned int i = min(static_cast<unsigned int>(uv.u * static_cast<float>(w)), w - 1u);
    const unsigned int j = min(static_cast<unsigned int>(uv.v * static_cast<float>(h)), h - 1u);
    return env_texel(i, j).w / (2.0f * PT_PI * PT_PI * sin_theta);
}

struct EnvPick {
    unsigned int cell;
    float fraction;
};

// The cell the alias table `table` (n cells) picks for u in [0, 1), and where in the
// cell u falls, in [0, 1): the pick's fraction rescaled to the part of the cell that
// kept or passed it on.
__device__ __forceinline__ EnvPick env_pick(const EnvAliasRecord* __restrict__ table, unsigned int n, float u) {
    const float scaled = u * static_cast<float>(n);
    const unsigned int i = min(static_cast<unsigned int>(scaled), n - 1u);
    const float f = scaled - static_cast<float>(i);
    const float threshold = __ldg(&table[i].threshold);
    EnvPick p;
    if (f < threshold) {
        p.cell = i;
        p.fraction = f / threshold;
    } else {
        p.cell = __ldg(&table[i].alias);
        p.fraction = (f - threshold) / (1.0f - threshold);
    }
    p.fraction = fminf(p.fraction, ONE_MINUS_EPSILON);
    return p;
}

struct EnvSample {
    float3 wi;
    float pdf;
};

// A direction drawn in proportion to the cells' densities, uniformly in (u, v) within
// its cell, and its solid-angle density; false at a pole (sin θ = 0).
__device__ __forceinline__ bool env_sample(float u1, float u2, EnvSample& out) {
    const unsigned int w = params.env_size.x, h = params.env_size.y;
    const EnvPick row = env_pick(params.env_sampling, h, u1);
    const EnvPick column = env_pick(params.env_sampling + h + row.cell * w, w, u2);
    const float u = (static_cast<float>(column.cell) + column.fraction) / static_cast<float>(w);
    const float v = (static_cast<float>(row.cell) + row.fraction) / static_cast<float>(h);
    const float sin_theta = sinf(PT_PI * v), cos_theta = cosf(PT_PI * v);
    const float sin_phi = sinf(PT_TWO_PI * u), cos_phi = cosf(PT_TWO_PI * u);
    out.pdf = env_texel(column.cell, row.cell).w / (2.0f * PT_PI * PT_PI * sin_theta);
    if (sin_theta <= 0.0f || !(out.pdf > 0.0f && out.pdf < PT_INFINITY)) return false;
    out.wi = env_to_world(make_float3(sin_theta * sin_phi, cos_theta, -sin_theta * cos_phi));
    return true;
}
