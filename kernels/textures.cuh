// Textures: a material's colour at a surface point, docs/path-tracing.md "Textures"
// (CPU twin: renderer/src/backend/cpu/textures.rs, function for function). Texels are
// plain float4 loads from the blob's texels section.
#pragma once

#include "constants.cuh"
#include "params.cuh"
#include "vec3.cuh"

// Bilinear between the four texels around (u, v) (texel centres at half-integers, v
// down from the top row), repeating or clamping at the edges; `image` is the record's
// (first texel, width, height, wrap).
__device__ __forceinline__ float4 texture_image(uint4 image, float u, float v) {
    const unsigned int first = image.x, width = image.y, height = image.z;
    const bool clamp = image.w == BLOB_WRAP_CLAMP;
    // The blob loader refuses wrap modes it does not know.
    if (!clamp && image.w != BLOB_WRAP_REPEAT) __builtin_unreachable();
    // fmaxf turns a NaN (a transformed coordinate past f32, see texture_uv_transformed)
    // into 0, as the CPU's f32::max does.
    if (clamp) {
        u = fminf(fmaxf(u, 0.0f), 1.0f);
        v = fminf(fmaxf(v, 0.0f), 1.0f);
    } else {
        u = fmaxf(u - floorf(u), 0.0f);
        v = fmaxf(v - floorf(v), 0.0f);
    }
    const float x = u * (float)width - 0.5f, y = v * (float)height - 0.5f;
    const float x0 = floorf(x), y0 = floorf(y);
    const float fx = x - x0, fy = y - y0;
    // x0 is in [-1, width - 1]: one step of wrapping or clamping brings it back.
    const int w = (int)width, h = (int)height;
    const int ix = (int)x0, iy = (int)y0;
    int ix0, ix1, iy0, iy1;
    if (clamp) {
        ix0 = min(max(ix, 0), w - 1);
        ix1 = min(max(ix + 1, 0), w - 1);
        iy0 = min(max(iy, 0), h - 1);
        iy1 = min(max(iy + 1, 0), h - 1);
    } else {
        ix0 = ((ix % w) + w) % w;
        ix1 = ((ix + 1) % w + w) % w;
        iy0 = ((iy % h) + h) % h;
        iy1 = ((iy + 1) % h + h) % h;
    }
    const float4* t = params.texels + first;
    const float4 t00 = __ldg(&t[iy0 * width + ix0]), t10 = __ldg(&t[iy0 * width + ix1]);
    const float4 t01 = __ldg(&t[iy1 * width + ix0]), t11 = __ldg(&t[iy1 * width + ix1]);
    const float4 top = t00 * (1.0f - fx) + t10 * fx;
    const float4 bottom = t01 * (1.0f - fx) + t11 * fx;
    return top * (1.0f - fy) + bottom * fy;
}

// An image's texture coordinates moved by its uv transform (the record's rows `a` and
// `b`; glTF's KHR_texture_transform). __fmul_rn and __fadd_rn keep the compiler from
// fusing them into FMAs: the CPU rounds each product and sums left to right, and both
// look up the same point. Huge finite coordinates may come out infinite; the lookup's
// wrap turns what that makes into 0.
__device__ __forceinline__ float2 texture_uv_transformed(float4 a, float4 b, float u, float v) {
    return make_float2(__fadd_rn(__fadd_rn(__fmul_rn(a.x, u), __fmul_rn(a.y, v)), a.z),
                       __fadd_rn(__fadd_rn(__fmul_rn(b.x, u), __fmul_rn(b.y, v)), b.z));
}

// The cell floor(p / size) is `even` when the sum of its three integers is.
__device__ __forceinline__ float3 texture_checker(float4 even_size, float4 odd, float3 p) {
    const float s = even_size.w;
    const float sum = floorf(p.x / s) + floorf(p.y / s) + floorf(p.z / s);
    return sum - 2.0f * floorf(0.5f * sum) == 0.0f ? xyz(even_size) : xyz(odd);
}

// A coordinate's cell modulo the table, in floats so huge points stay defined.
__device__ __forceinline__ unsigned int noise_cell(float c) {
    const float n = (float)BLOB_NOISE_POINTS;
    return ((unsigned int)(c - n * floorf(c / n))) % BLOB_NOISE_POINTS;
}

// Perlin noise with random gradients and Hermite-smoothed trilinear interpolation ("The
// Next Week", section 5), in about [-1, 1].
__device__ __forceinline__ float perlin_noise(float3 p) {
    const float fx = floorf(p.x), fy = floorf(p.y), fz = floorf(p.z);
    const float u = p.x - fx, v = p.y - fy, w = p.z - fz;
    const unsigned int i = noise_cell(fx), j = noise_cell(fy), k = noise_cell(fz);
    const float uu = u * u * (3.0f - 2.0f * u), vv = v * v * (3.0f - 2.0f * v), ww = w * w * (3.0f - 2.0f * w);
    float accum = 0.0f;
#pragma unroll
    for (int di = 0; di < 2; ++di) {
#pragma unroll
        for (int dj = 0; dj < 2; ++dj) {
#pragma unroll
            for (int dk = 0; dk < 2; ++dk) {
                const unsigned int x = __ldg(&params.noise[(i + di) % BLOB_NOISE_POINTS].perm.x);
                const unsigned int y = __ldg(&params.noise[(j + dj) % BLOB_NOISE_POINTS].perm.y);
                const unsigned int z = __ldg(&params.noise[(k + dk) % BLOB_NOISE_POINTS].perm.z);
                const float4 g = __ldg(&params.noise[x ^ y ^ z].gradient);
                const float a = (float)di, b = (float)dj, c = (float)dk;
                const float d = g.x * (u - a) + g.y * (v - b) + g.z * (w - c);
                accum += (a * uu + (1.0f - a) * (1.0f - uu)) * (b * vv + (1.0f - b) * (1.0f - vv)) *
                         (c * ww + (1.0f - c) * (1.0f - ww)) * d;
            }
        }
    }
    return accum;
}

// |sum of 0.5^i noise(2^i p)| over TURBULENCE_DEPTH octaves.
__device__ __forceinline__ float turbulence(float3 p) {
    float accum = 0.0f, weight = 1.0f;
    for (unsigned int i = 0u; i < TURBULENCE_DEPTH; ++i) {
        accum += weight * perlin_noise(p);
        weight *= 0.5f;
        p = p * 2.0f;
    }
    return fabsf(accum);
}

// Texture `index`'s colour at world point `p` with texture coordinates (u, v), and its
// alpha: an image's alpha channel (1 where it has none), 1 for the procedural textures.
__device__ __forceinline__ float4 texture_eval4(unsigned int index, float3 p, float u, float v) {
    const TextureRecord* t = params.textures + index;
    const unsigned int kind = __ldg(&t->kind);
    const float4 a = __ldg(&t->a);
    if (kind == BLOB_TEXTURE_IMAGE) {
        const float2 uv = texture_uv_transformed(a, __ldg(&t->b), u, v);
        return texture_image(__ldg(&t->image), uv.x, uv.y);
    }
    if (kind == BLOB_TEXTURE_CHECKER) return make_float4(texture_checker(a, __ldg(&t->b), p), 1.0f);
    if (kind != BLOB_TEXTURE_NOISE) __builtin_unreachable();
    const float n = 0.5f * (1.0f + sinf(a.x * p.z + MARBLE_TURBULENCE_WEIGHT * turbulence(p)));
    return make_float4(n, n, n, 1.0f);
}

// Texture `index`'s colour (texture_eval4 without alpha).
__device__ __forceinline__ float3 texture_eval(unsigned int index, float3 p, float u, float v) {
    return xyz(texture_eval4(index, p, u, v));
}
