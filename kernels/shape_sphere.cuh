// The sphere shape, docs/path-tracing.md "Intersection" (CPU twin:
// renderer/src/backend/cpu/shapes/sphere.rs). Everything the kernels know about
// spheres is here; shapes.cuh dispatches to it by primitive kind.
#pragma once

#include "vec3.cuh"

// The distance to the sphere in (T_MIN, t_max), written to `t_hit`; false on a miss.
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
    if (t <= T_MIN) t = b + h;
    t_hit = t;
    return T_MIN < t && t < t_max;
}

// The unit normal pointing out of the sphere at `point` on its surface.
__device__ __forceinline__ float3 sphere_normal(float4 center_radius, float3 point) {
    return (point - xyz(center_radius)) / center_radius.w;
}
