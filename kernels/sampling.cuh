// Directions drawn for next-event estimation: a cone (sphere lights, a sun's disc) and
// the orthonormal basis it is built in, and what a shape's light sample returns (CPU
// twin: renderer/src/backend/cpu/sampling.rs and `LightSample` in cpu/shapes/mod.rs),
// and the density of a point drawn over an area.
#pragma once

#include "surface.cuh"
#include "vec3.cuh"

// A direction towards a light's shape, drawn for next-event estimation: unit `wi` from
// the shading point, the shadow ray's length `t_max` (where it reaches the shape), and
// one over the direction's solid-angle density (for a cone: its solid angle).
struct LightSample {
    float3 wi;
    float t_max;
    float inv_pdf;
};

// Two unit vectors completing unit `n` to an orthonormal basis, without a branch on a
// near-zero component (Duff et al. 2017, "Building an Orthonormal Basis, Revisited").
__device__ __forceinline__ void onb(float3 n, float3& t, float3& b) {
    const float sign = copysignf(1.0f, n.z);
    const float a = -1.0f / (sign + n.z);
    const float k = n.x * n.y * a;
    t = make_float3(1.0f + sign * n.x * n.x * a, sign * k, -sign * n.x);
    b = make_float3(k, sign + n.y * n.y * a, -n.y);
}

// A direction uniform in solid angle within the cone of 1 - cos(theta_max) =
// `one_minus_cos` around unit `axis`.
__device__ __forceinline__ float3 sample_cone(float3 axis, float one_minus_cos, float u1, float u2) {
    const float cos_theta = 1.0f - u1 * one_minus_cos;
    const float sin_theta = sqrtf(fmaxf(0.0f, (1.0f - cos_theta) * (1.0f + cos_theta)));
    float sin_phi, cos_phi;
    sincosf(PT_TWO_PI * u2, &sin_phi, &cos_phi);
    float3 t, b;
    onb(axis, t, b);
    return t * (sin_theta * cos_phi) + b * (sin_theta * sin_phi) + axis * cos_theta;
}

// The solid-angle density, seen from `from`, of a point drawn uniformly over `area` that
// lands at `hit`: d^2 / (area |cos|); 0 where that is not finite (no area seen, a
// grazing direction).
__device__ __forceinline__ float area_pdf_towards(float area, float3 from, const Surface& hit) {
    const float3 to = hit.point - from;
    const float dist2 = dot(to, to);
    const float cos = fabsf(dot(hit.normal, to)) / sqrtf(dist2);
    const float pdf = dist2 / (area * cos);
    return pdf < PT_INFINITY ? pdf : 0.0f;
}
