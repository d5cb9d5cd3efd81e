// The denoiser on the device, step for step the CPU's renderer/src/denoise/filter.rs
// (docs/path-tracing.md, "The denoiser"): denoise_prepare demodulates the film's
// average by the albedo and estimates each pixel's variance; denoise_clamp clamps
// fireflies; ATROUS_PASSES denoise_atrous passes (steps 1, 2, 4, ...) filter it, the
// last multiplying the albedo back. Launched on
// 2D blocks of DENOISE_BLOCK x DENOISE_BLOCK pixels (launch_params.cuh).
#pragma once

#include "denoise_params.cuh"
#include "launch_params.cuh"
#include "vec3.cuh"

__device__ __forceinline__ float denoise_luminance(float r, float g, float b) {
    return LUMINANCE_R * r + LUMINANCE_G * g + LUMINANCE_B * b;
}

// This thread's pixel (x, y) of a width x height image; false when the block's edge
// lies outside the image.
__device__ __forceinline__ bool denoise_pixel(unsigned int width, unsigned int height, int& x, int& y) {
    x = blockIdx.x * DENOISE_BLOCK + threadIdx.x;
    y = blockIdx.y * DENOISE_BLOCK + threadIdx.y;
    return x < (int)width && y < (int)height;
}

// The smaller one-sided depth difference along an axis (an edge does not widen its
// own gradient); 0 without a neighbour.
__device__ __forceinline__ float one_sided(float z, bool has_a, float za, bool has_b, float zb) {
    const float a = fabsf(z - za);
    const float b = fabsf(z - zb);
    if (has_a && has_b) return fminf(a, b);
    if (has_a) return a;
    if (has_b) return b;
    return 0.0f;
}

// Per pixel: irradiance (the average over the albedo, at least ALBEDO_EPSILON) with the
// variance of its luminance's mean; the unit normal and depth; the depth gradient; the
// albedo to multiply back. `accum` and `aov` are the film's sums over `samples` samples.
extern "C" __global__ void __launch_bounds__(DENOISE_BLOCK* DENOISE_BLOCK)
    denoise_prepare(const float4* __restrict__ accum, const float4* __restrict__ aov, float4* __restrict__ color,
                    float4* __restrict__ guide, float* __restrict__ depth_gradient, float4* __restrict__ albedo,
                    unsigned int width, unsigned int height, unsigned int samples) {
    int x, y;
    if (!denoise_pixel(width, height, x, y)) return;
    const int w = (int)width;
    const int h = (int)height;
    const unsigned int i = y * width + x;
    const float n = (float)(samples > 0u ? samples : 1u);
    const float inv_n = 1.0f / n;
    const float4 sum = accum[i];
    const float3 c = make_float3(sum.x * inv_n, sum.y * inv_n, sum.z * inv_n);
    const float4 ad = aov[2u * i];
    const float4 nl = aov[2u * i + 1u];
    const float l = denoise_luminance(c.x, c.y, c.z);
    float variance;
    if (samples >= POOL_VARIANCE_BELOW) {
        variance = fmaxf(nl.w * inv_n - l * l, 0.0f) / n;
    } else {
        // Too few samples of its own: the moments of the 3 x 3 neighbourhood.
        float m1 = 0.0f, m2 = 0.0f, count = 0.0f;
        for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
                const int qx = x + dx, qy = y + dy;
                if (qx < 0 || qy < 0 || qx >= w || qy >= h) continue;
                const unsigned int q = qy * width + qx;
                const float4 s = accum[q];
                m1 += denoise_luminance(s.x * inv_n, s.y * inv_n, s.z * inv_n);
                m2 += aov[2u * q + 1u].w * inv_n;
                count += 1.0f;
            }
        }
        m1 /= count;
        m2 /= count;
        variance = fmaxf(m2 - m1 * m1, 0.0f) / n;
    }
    const float3 a = make_float3(fmaxf(ad.x * inv_n, ALBEDO_EPSILON), fmaxf(ad.y * inv_n, ALBEDO_EPSILON),
                                 fmaxf(ad.z * inv_n, ALBEDO_EPSILON));
    const float la = denoise_luminance(a.x, a.y, a.z);
    color[i] = make_float4(c.x / a.x, c.y / a.y, c.z / a.z, variance / (la * la));
    float3 normal = make_float3(nl.x * inv_n, nl.y * inv_n, nl.z * inv_n);
    const float len2 = dot(normal, normal);
    if (len2 > 0.0f) {
        normal = normal * (1.0f / sqrtf(len2));
    } else {
        normal = make_float3(0.0f, 0.0f, 0.0f);
    }
    const float z = ad.w * inv_n;
    guide[i] = make_float4(normal.x, normal.y, normal.z, z);
    const auto depth_at = [&](int qx, int qy) { return aov[2u * (qy * width + qx)].w * inv_n; };
    const float zl = x > 0 ? depth_at(x - 1, y) : 0.0f;
    const float zr = x + 1 < w ? depth_at(x + 1, y) : 0.0f;
    const float zd = y > 0 ? depth_at(x, y - 1) : 0.0f;
    const float zu = y + 1 < h ? depth_at(x, y + 1) : 0.0f;
    depth_gradient[i] = one_sided(z, x > 0, zl, x + 1 < w, zr) + one_sided(z, y > 0, zd, y + 1 < h, zu);
    albedo[i] = make_float4(a.x, a.y, a.z, 1.0f);
}

// Each pixel's irradiance luminance at most its brightest neighbour's times
// FIREFLY_CLAMP unless its samples agree (CPU: filter.rs `clamp_fireflies`); variances kept.
extern "C" __global__ void __launch_bounds__(DENOISE_BLOCK* DENOISE_BLOCK)
    denoise_clamp(const float4* __restrict__ color, float4* __restrict__ out, unsigned int width,
                  unsigned int height) {
    int x, y;
    if (!denoise_pixel(width, height, x, y)) return;
    float brightest = 0.0f;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            const int qx = x + dx, qy = y + dy;
            if ((dx == 0 && dy == 0) || qx < 0 || qy < 0 || qx >= (int)width || qy >= (int)height) continue;
            const float4 q = color[qy * width + qx];
            brightest = fmaxf(brightest, denoise_luminance(q.x, q.y, q.z));
        }
    }
    const unsigned int i = y * width + x;
    const float4 c = color[i];
    const float l = denoise_luminance(c.x, c.y, c.z);
    const float cap = brightest * FIREFLY_CLAMP;
    if (l > cap && c.w > 0.0f) {
        const float k = cap / l;
        out[i] = make_float4(c.x * k, c.y * k, c.z * k, c.w);
    } else {
        out[i] = c;
    }
}

// max(0, n_p . n_q)^128 by squaring; 1 between two pixels where nothing was hit.
__device__ __forceinline__ float normal_weight(float4 np, float4 nq) {
    const bool zero_p = np.x == 0.0f && np.y == 0.0f && np.z == 0.0f;
    const bool zero_q = nq.x == 0.0f && nq.y == 0.0f && nq.z == 0.0f;
    if (zero_p && zero_q) return 1.0f;
    float w = fmaxf(np.x * nq.x + np.y * nq.y + np.z * nq.z, 0.0f);
    for (unsigned int k = 0; k < NORMAL_POWER_LOG2; ++k) w *= w;
    return w;
}

// One à-trous pass with taps `step` pixels apart. `remodulate` is null except on the
// last pass, which multiplies the albedo back and writes rgb with alpha 1.
extern "C" __global__ void __launch_bounds__(DENOISE_BLOCK* DENOISE_BLOCK)
    denoise_atrous(const float4* __restrict__ color, float4* __restrict__ out, const float4* __restrict__ guide,
                   const float* __restrict__ depth_gradient, const float4* __restrict__ remodulate,
                   unsigned int width, unsigned int height, int step) {
    int x, y;
    if (!denoise_pixel(width, height, x, y)) return;
    const int w = (int)width;
    const int h = (int)height;
    const unsigned int i = y * width + x;
    const float4 cp = color[i];
    const float4 gp = guide[i];
    const float lp = denoise_luminance(cp.x, cp.y, cp.z);

    // SVGF's 3 x 3 Gaussian prefilter of the variance, over the taps inside the image.
    float var_sum = 0.0f, var_weight = 0.0f;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            const int qx = x + dx, qy = y + dy;
            if (qx < 0 || qy < 0 || qx >= w || qy >= h) continue;
            const float k = (dx == 0 ? 0.5f : 0.25f) * (dy == 0 ? 0.5f : 0.25f);
            var_sum += k * color[qy * width + qx].w;
            var_weight += k;
        }
    }
    const float luminance_scale = SIGMA_LUMINANCE * sqrtf(var_sum / var_weight) + LUMINANCE_EPSILON;
    const float depth_scale = SIGMA_DEPTH * depth_gradient[i] * (float)step;
    const float depth_epsilon = DEPTH_EPSILON * gp.w;

    float3 sum = make_float3(0.0f, 0.0f, 0.0f);
    float sum_var = 0.0f, sum_w = 0.0f;
    for (int dy = -2; dy <= 2; ++dy) {
        const int qy = y + dy * step;
        if (qy < 0 || qy >= h) continue;
        for (int dx = -2; dx <= 2; ++dx) {
            const int qx = x + dx * step;
            if (qx < 0 || qx >= w) continue;
            const unsigned int q = qy * width + qx;
            const float4 cq = color[q];
            const float4 gq = guide[q];
            const float hk = ATROUS_TAPS[abs(dx)] * ATROUS_TAPS[abs(dy)];
            const float distance = (float)max(abs(dx), abs(dy));
            const float wz = expf(-fabsf(gp.w - gq.w) / (depth_scale * distance + depth_epsilon));
            const float wl = expf(-fabsf(lp - denoise_luminance(cq.x, cq.y, cq.z)) / luminance_scale);
            const float wt = hk * normal_weight(gp, gq) * wz * wl;
            sum += wt * make_float3(cq.x, cq.y, cq.z);
            sum_var += wt * wt * cq.w;
            sum_w += wt;
        }
    }
    // The centre tap has weight hk > 0 (its normal, depth and luminance weights are 1).
    const float inv_w = 1.0f / sum_w;
    if (remodulate != nullptr) {
        const float4 a = remodulate[i];
        out[i] = make_float4(sum.x * inv_w * a.x, sum.y * inv_w * a.y, sum.z * inv_w * a.z, 1.0f);
    } else {
        out[i] = make_float4(sum.x * inv_w, sum.y * inv_w, sum.z * inv_w, sum_var * inv_w * inv_w);
    }
}
