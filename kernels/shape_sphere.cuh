// The sphere shape, docs/path-tracing.md "Intersection" and "Robust hits" (CPU twin:
// renderer/src/backend/cpu/shapes/sphere.rs). Everything the kernels know about
// spheres is here; shapes.cuh dispatches to it by primitive kind.
#pragma once

#include "constants.cuh"
#include "params.cuh"
#include "sampling.cuh"
#include "surface.cuh"
#include "vec3.cuh"

// Sphere `i` (index within the kind): center.xyz, radius; its section is
// LaunchParams::prims[BLOB_PRIM_SPHERE].
__device__ __forceinline__ float4 sphere_at(unsigned int i) {
    return __ldg(&reinterpret_cast<const SphereRecord*>(params.prims[BLOB_PRIM_SPHERE])[i].center_radius);
}

// The distance to the sphere in (0, t_max), written to `t_hit`; false on a miss.
// The precise discriminant (Ray Tracing Gems, ch. 7): the textbook `b² - c` loses all
// precision on the radius-1000 ground sphere. `dir` must be unit length.
__device__ __forceinline__ bool intersect_sphere(float4 center_radius, float3 origin, float3 dir, float t_max,
                                                 float& t_hit) {
    const float3 oc = xyz(center_radius) - origin;
    const float b = dot(oc, dir);
    const float3 l = oc - b * dir;
    const float disc = center_radius.w * center_radius.w - dot(l, l);
    if (disc < 0.0f) return false;
    const float h = sqrtf(disc);
    float t = b - h;
    if (t <= 0.0f) t = b + h;
    t_hit = t;
    return 0.0f < t && t < t_max;
}

// The hit at distance `t` re-projected onto the sphere, with its error bound and normal.
__device__ __forceinline__ Surface sphere_surface(float4 center_radius, float3 origin, float3 dir, float t) {
    const float3 center = xyz(center_radius);
    const float3 raw = origin + t * dir - center;
    // A correctly rounded square root and divisions, as the CPU twin: rsqrtf measured
    // no faster here (docs/performance.md, "Choices in the code").
    Surface s;
    const float3 local = raw * (center_radius.w / sqrtf(dot(raw, raw)));
    s.normal = local / center_radius.w;
    s.point = center + local;
    s.error = SPHERE_ERR * (fabs3(center) + fabs3(local));
    s.shading = s.normal;
    return s;
}

// The cone the sphere subtends from `o`: unit axis towards its centre and
// 1 - cos(theta_max) (as sin² / (1 + cos): a small, far sphere keeps its digits).
// False when `o` is inside.
__device__ __forceinline__ bool sphere_cone(float4 center_radius, float3 o, float3& axis, float& one_minus_cos) {
    const float3 to = xyz(center_radius) - o;
    const float dist2 = dot(to, to);
    const float radius2 = center_radius.w * center_radius.w;
    if (dist2 <= radius2) return false;
    const float sin2_max = radius2 / dist2;
    one_minus_cos = sin2_max / (1.0f + sqrtf(1.0f - sin2_max));
    axis = to * rsqrtf(dist2);
    return true;
}

// The solid-angle density of uniform cone sampling of the sphere from `o`; 0 inside.
__device__ __forceinline__ float sphere_solid_angle_pdf(float4 center_radius, float3 o) {
    float3 axis;
    float one_minus_cos;
    return sphere_cone(center_radius, o, axis, one_minus_cos) ? 1.0f / (PT_TWO_PI * one_minus_cos) : 0.0f;
}

// The distance from `o` along unit `wi` to the sphere's near side; a direction that
// grazes past the edge (by rounding) gets its closest approach.
__device__ __forceinline__ float sphere_near_distance(float4 center_radius, float3 o, float3 wi) {
    const float3 oc = xyz(center_radius) - o;
    const float b = dot(oc, wi);
    const float3 l = oc - b * wi;
    const float disc = center_radius.w * center_radius.w - dot(l, l);
    return b - sqrtf(fmaxf(disc, 0.0f));
}

// Next-event estimation: a direction uniform in the cone the sphere subtends from `p`
// (shadow ray from `o`); false when `p` is inside.
// Longitude and latitude of the outward normal `n`, in the environment's convention:
// u = atan2(n.x, -n.z) / 2pi wrapped into [0, 1), v = acos(n.y) / pi (0 at the pole).
__device__ __forceinline__ float2 sphere_uv(float3 n) {
    float u = atan2f(n.x, -n.z) * (0.5f * PT_INV_PI);
    if (u < 0.0f) u += 1.0f;
    return make_float2(u, acosf(fminf(fmaxf(n.y, -1.0f), 1.0f)) * PT_INV_PI);
}

__device__ __forceinline__ bool sphere_sample(float4 center_radius, float3 p, float3 o, float u1, float u2,
                                              LightSample& s) {
    float3 axis;
    float one_minus_cos;
    if (!sphere_cone(center_radius, p, axis, one_minus_cos)) return false;
    s.wi = sample_cone(axis, one_minus_cos, u1, u2);
    s.t_max = sphere_near_distance(center_radius, o, s.wi);
    s.inv_pdf = PT_TWO_PI * one_minus_cos;
    return true;
}
