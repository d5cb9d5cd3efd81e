// The shading normal of a Principled hit: its normal map applied in the surface's
// tangent frame, then bent so that no view sees it from behind (docs/path-tracing.md,
// "Normal maps"; CPU twin: renderer/src/backend/cpu/shading.rs).
#pragma once

#include "constants.cuh"
#include "vec3.cuh"

// Normal map texel `texel` (rgb in [0, 1], tangent space, +Y up the image) scaled by
// `scale`, around shading normal `ns` of a surface whose texture coordinates grow along
// `dpdu` and `dpdv`. Degenerate frames or texels leave `ns`.
__device__ __forceinline__ float3 normal_mapped(float3 texel, float scale, float3 ns, float3 dpdu, float3 dpdv) {
    const float3 t0 = dpdu - ns * dot(ns, dpdu);
    const float len2 = dot(t0, t0);
    if (!(len2 > SHADING_MIN_LEN2 && len2 < PT_INFINITY)) return ns;
    const float3 t = t0 * rsqrtf(len2);
    float3 b = cross(ns, t);
    if (dot(b, dpdv) > 0.0f) b = -b;
    const float mx = (2.0f * texel.x - 1.0f) * scale, my = (2.0f * texel.y - 1.0f) * scale;
    const float mz = 2.0f * texel.z - 1.0f;
    const float3 n = t * mx + b * my + ns * mz;
    const float n2 = dot(n, n);
    return (n2 > SHADING_MIN_LEN2 && n2 < PT_INFINITY) ? n * rsqrtf(n2) : ns;
}

// `n` bent towards the geometric normal `ng` (on the side of `wo`) just enough that the
// mirror reflection of `wo` about it stays above the surface by
// min(BEND_VIEW_SHARE wo·ng, BEND_MAX_MARGIN).
__device__ __forceinline__ float3 valid_shading_normal(float3 ng, float3 wo, float3 n) {
    const float iz = dot(wo, ng);
    const float threshold = fminf(BEND_VIEW_SHARE * iz, BEND_MAX_MARGIN);
    const float3 r = 2.0f * dot(n, wo) * n - wo;
    if (dot(r, ng) >= threshold || iz <= 0.0f) return n;
    const float3 across = n - dot(n, ng) * ng;
    const float len2 = dot(across, across);
    if (!(len2 > SHADING_MIN_LEN2)) return ng;
    const float3 x = across * rsqrtf(len2);
    const float ix = dot(wo, x);
    const float a = ix * ix + iz * iz;
    const float b = 2.0f * (a + iz * threshold);
    const float c = (threshold + iz) * (threshold + iz);
    const float root = sqrtf(fmaxf(b * b - 4.0f * a * c, 0.0f));
    const float nz2 = ix < 0.0f ? 0.25f * (b + root) / a : 0.25f * (b - root) / a;
    const float nz = sqrtf(fminf(fmaxf(nz2, 0.0f), 1.0f));
    const float nx = sqrtf(fminf(fmaxf(1.0f - nz2, 0.0f), 1.0f));
    const float3 m = nx * x + nz * ng;
    const float m2 = dot(m, m);
    return m2 > 0.0f ? m * rsqrtf(m2) : ng;
}
