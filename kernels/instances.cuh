// Instances (CPU twin: renderer/src/backend/cpu/instances.rs): a placed copy of a
// bottom level, the ray taken into its space to walk that tree, and the hit brought
// back to the world (docs/path-tracing.md, "Instances"). Compiled in only where the
// scene has instances (kInstances, features.cuh).
//
// The ray's direction is not normalised in object space, so the distance t along it is
// the same in both spaces and the closest hit compares across instances as it is. The
// hit's point and error bound come back as pbrt-v4 transforms a point with its error:
// the map's own rounding, GAMMA_3 of each row's terms, plus the point's bound carried
// through the map's magnitudes. Normals go through the inverse transpose (the
// world-to-object rows read as columns), so a non-uniform scale keeps them normal and a
// mirroring map keeps them pointing out.
#pragma once

#include "blob_layout.cuh"
#include "constants.cuh"
#include "params.cuh"
#include "surface.cuh"
#include "vec3.cuh"

// Instance `i` (index within the kind); its section is LaunchParams::prims[BLOB_PRIM_INSTANCE].
__device__ __forceinline__ const InstanceRecord* instance_at(unsigned int i) {
    return &reinterpret_cast<const InstanceRecord*>(params.prims[BLOB_PRIM_INSTANCE])[i];
}

// Row r of a 3x4 matrix applied to the point p (w = 1) or the direction d (w = 0).
__device__ __forceinline__ float row_point(float4 r, float3 p) { return fmaf(r.x, p.x, fmaf(r.y, p.y, fmaf(r.z, p.z, r.w))); }
__device__ __forceinline__ float row_dir(float4 r, float3 d) { return fmaf(r.x, d.x, fmaf(r.y, d.y, r.z * d.z)); }

// The ray in instance `inst`'s space.
__device__ __forceinline__ void instance_ray(const InstanceRecord* inst, float3 origin, float3 dir, float3& o,
                                             float3& d) {
    const float4 r0 = __ldg(&inst->world_to_object[0]);
    const float4 r1 = __ldg(&inst->world_to_object[1]);
    const float4 r2 = __ldg(&inst->world_to_object[2]);
    o = make_float3(row_point(r0, origin), row_point(r1, origin), row_point(r2, origin));
    d = make_float3(row_dir(r0, dir), row_dir(r1, dir), row_dir(r2, dir));
}

// A direction on the surface (a tangent) of instance `inst`, in the world.
__device__ __forceinline__ float3 instance_dir_to_world(const InstanceRecord* inst, float3 v) {
    return make_float3(row_dir(__ldg(&inst->object_to_world[0]), v), row_dir(__ldg(&inst->object_to_world[1]), v),
                       row_dir(__ldg(&inst->object_to_world[2]), v));
}

// A normal of instance `inst` in the world: the inverse transpose, made unit.
__device__ __forceinline__ float3 instance_normal_to_world(const InstanceRecord* inst, float3 n) {
    const float4 r0 = __ldg(&inst->world_to_object[0]);
    const float4 r1 = __ldg(&inst->world_to_object[1]);
    const float4 r2 = __ldg(&inst->world_to_object[2]);
    return normalize(make_float3(fmaf(r0.x, n.x, fmaf(r1.x, n.y, r2.x * n.z)),
                                 fmaf(r0.y, n.x, fmaf(r1.y, n.y, r2.y * n.z)),
                                 fmaf(r0.z, n.x, fmaf(r1.z, n.y, r2.z * n.z))));
}

// One output axis of the point transform, with its error bound.
__device__ __forceinline__ void row_point_error(float4 r, float3 p, float3 e, float& x, float& err) {
    x = row_point(r, p);
    const float terms = fabsf(r.x * p.x) + fabsf(r.y * p.y) + fabsf(r.z * p.z) + fabsf(r.w);
    const float carried = fabsf(r.x) * e.x + fabsf(r.y) * e.y + fabsf(r.z) * e.z;
    err = GAMMA_3 * terms + (1.0f + GAMMA_3) * carried;
}

// `s`, a hit in instance `inst`'s space, in the world.
__device__ __forceinline__ Surface instance_surface_to_world(const InstanceRecord* inst, const Surface& s) {
    Surface w;
    row_point_error(__ldg(&inst->object_to_world[0]), s.point, s.error, w.point.x, w.error.x);
    row_point_error(__ldg(&inst->object_to_world[1]), s.point, s.error, w.point.y, w.error.y);
    row_point_error(__ldg(&inst->object_to_world[2]), s.point, s.error, w.point.z, w.error.z);
    w.normal = instance_normal_to_world(inst, s.normal);
    w.shading = instance_normal_to_world(inst, s.shading);
    return w;
}
