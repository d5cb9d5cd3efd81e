// The axis-aligned box, docs/path-tracing.md "Intersection" and "Robust hits" (CPU twin:
// renderer/src/backend/cpu/shapes/cuboid.rs). shapes.cuh dispatches to it by kind.
//
// The slabs are closed: a ray parallel to an axis is inside that axis's slab when its
// origin is within [lo, hi], bounds included, decided explicitly (0 * inf would be a
// NaN): a shadow ray that starts on a wall and runs along it must meet the box.
#pragma once

#include "constants.cuh"
#include "params.cuh"
#include "sampling.cuh"
#include "surface.cuh"
#include "vec3.cuh"

// Box `i` (index within the kind); its section is LaunchParams::prims[BLOB_PRIM_BOX].
__device__ __forceinline__ const BoxRecord* box_at(unsigned int i) {
    return &reinterpret_cast<const BoxRecord*>(params.prims[BLOB_PRIM_BOX])[i];
}

// An axis the ray does not move along: all of it inside the closed slab, or none.
__device__ __forceinline__ void parallel_slab(float d, float o, float lo, float hi, float& near, float& far) {
    if (d == 0.0f) {
        const bool inside = lo <= o && o <= hi;
        near = inside ? -PT_INFINITY : PT_INFINITY;
        far = inside ? PT_INFINITY : -PT_INFINITY;
    }
}

// Per axis, the ray's distances to the box's near and far planes.
__device__ __forceinline__ void box_slabs(float3 lo, float3 hi, float3 origin, float3 dir, float3& near,
                                          float3& far) {
    const float3 inv = make_float3(1.0f / dir.x, 1.0f / dir.y, 1.0f / dir.z);
    const float3 t0 = (lo - origin) * inv;
    const float3 t1 = (hi - origin) * inv;
    near = make_float3(fminf(t0.x, t1.x), fminf(t0.y, t1.y), fminf(t0.z, t1.z));
    far = make_float3(fmaxf(t0.x, t1.x), fmaxf(t0.y, t1.y), fmaxf(t0.z, t1.z));
    parallel_slab(dir.x, origin.x, lo.x, hi.x, near.x, far.x);
    parallel_slab(dir.y, origin.y, lo.y, hi.y, near.y, far.y);
    parallel_slab(dir.z, origin.z, lo.z, hi.z, near.z, far.z);
}

// The distance to the box in (0, t_max), written to `t_hit`: where the ray enters it,
// or, from inside, where it leaves. False on a miss.
__device__ __forceinline__ bool intersect_box(float4 lo4, float4 hi4, float3 origin, float3 dir, float t_max,
                                              float& t_hit) {
    float3 near, far;
    box_slabs(xyz(lo4), xyz(hi4), origin, dir, near, far);
    const float t_near = fmaxf(fmaxf(near.x, near.y), near.z);
    const float t_far = fminf(fminf(far.x, far.y), far.z);
    const float t = t_near > 0.0f ? t_near : t_far;
    t_hit = t;
    return t_near <= t_far && 0.0f < t && t < t_max;
}

// `v` clamped to [next float above lo, next float below hi], or the middle of a slab
// thinner than that.
__device__ __forceinline__ float clamp_inside(float v, float lo, float hi) {
    const float in_lo = nextafterf(lo, PT_INFINITY), in_hi = nextafterf(hi, -PT_INFINITY);
    if (in_lo > in_hi) return 0.5f * (lo + hi);
    return fminf(fmaxf(v, in_lo), in_hi);
}

__device__ __forceinline__ float lane(float3 v, int axis) { return axis == 0 ? v.x : (axis == 1 ? v.y : v.z); }
__device__ __forceinline__ void set_lane(float3& v, int axis, float value) {
    if (axis == 0) v.x = value;
    else if (axis == 1) v.y = value;
    else v.z = value;
}

// The hit at distance `t` (from intersect_box): on the face's plane exactly, the other
// two coordinates clamped strictly inside the face (one ulp in from every edge: far
// from the origin, origin + t dir can round onto a side face's plane, and a shadow ray
// leaving through that plane meets it at t = 0, which does not count), and the
// outward face normal.
__device__ __forceinline__ Surface box_surface(float4 lo4, float4 hi4, float3 origin, float3 dir, float t) {
    const float3 lo = xyz(lo4), hi = xyz(hi4);
    float3 near, far;
    box_slabs(lo, hi, origin, dir, near, far);
    const float t_near = fmaxf(fmaxf(near.x, near.y), near.z);
    // Entering: the axis whose near plane is farthest; leaving: whose far plane is
    // nearest. Ties (an edge or a corner) go to the first axis, as on the CPU.
    const bool entering = t_near > 0.0f;
    int axis = 0;
    if (entering) {
        if (near.y > lane(near, axis)) axis = 1;
        if (near.z > lane(near, axis)) axis = 2;
    } else {
        if (far.y < lane(far, axis)) axis = 1;
        if (far.z < lane(far, axis)) axis = 2;
    }
    const bool towards = lane(dir, axis) > 0.0f;
    // Entering heading +axis crosses `lo`; leaving heading +axis crosses `hi`.
    const bool on_max = entering != towards;
    const float3 travelled = t * dir;
    const float3 raw = origin + travelled;
    Surface s;
    s.point = make_float3(clamp_inside(raw.x, lo.x, hi.x), clamp_inside(raw.y, lo.y, hi.y),
                          clamp_inside(raw.z, lo.z, hi.z));
    set_lane(s.point, axis, on_max ? lane(hi, axis) : lane(lo, axis));
    s.normal = make_float3(0.0f, 0.0f, 0.0f);
    set_lane(s.normal, axis, on_max ? 1.0f : -1.0f);
    s.error = BOX_ERR * (fabs3(origin) + fabs3(travelled));
    set_lane(s.error, axis, 0.0f);
    s.shading = s.normal;
    return s;
}

// Per axis, the area of the face `p` sees on that axis (it is on the outer side of the
// face's plane), or 0; their sum is what light sampling spreads over.
// Per face, the hit's place across it: on +-x faces (z, -y), on +-y faces (x, z), on
// +-z faces (x, -y), each from 0 to 1 over the face.
__device__ __forceinline__ float2 box_uv(float4 lo4, float4 hi4, const Surface& hit) {
    const float3 lo = xyz(lo4), hi = xyz(hi4);
    const float fx = (hit.point.x - lo.x) / (hi.x - lo.x), fy = (hit.point.y - lo.y) / (hi.y - lo.y),
                fz = (hit.point.z - lo.z) / (hi.z - lo.z);
    const float3 n = fabs3(hit.normal);
    if (n.x > 0.5f) return make_float2(fz, 1.0f - fy);
    if (n.y > 0.5f) return make_float2(fx, fz);
    return make_float2(fx, 1.0f - fy);
}

__device__ __forceinline__ float3 box_visible_face_areas(float3 lo, float3 hi, float3 p) {
    const float3 e = hi - lo;
    return make_float3((p.x < lo.x || p.x > hi.x) ? e.y * e.z : 0.0f, (p.y < lo.y || p.y > hi.y) ? e.z * e.x : 0.0f,
                       (p.z < lo.z || p.z > hi.z) ? e.x * e.y : 0.0f);
}

// Next-event estimation: a point uniform by area over the faces `p` sees (at most
// three), the direction to it (shadow ray from `o`); false when `p` sees none. `u1`
// picks the face and, rescaled, the point along the face's first axis; `u2` along its
// second. Faces turned away are never drawn: a shadow ray to one would pass through the
// box itself, which the shadow test skips.
__device__ __forceinline__ bool box_sample(float4 lo4, float4 hi4, float3 p, float3 o, float u1, float u2,
                                           LightSample& s) {
    const float3 lo = xyz(lo4), hi = xyz(hi4);
    const float3 areas = box_visible_face_areas(lo, hi, p);
    const float total = areas.x + areas.y + areas.z;
    if (!(total > 0.0f)) return false;
    float pick = u1 * total;
    // The last visible face takes what rounding leaves past the others.
    int axis = areas.z > 0.0f ? 2 : (areas.y > 0.0f ? 1 : 0);
    if (axis > 0 && pick < areas.x) {
        axis = 0;
    } else {
        if (axis > 0) pick -= areas.x;
        if (axis > 1 && pick < areas.y) {
            axis = 1;
        } else if (axis > 1) {
            pick -= areas.y;
        }
    }
    const float along = fminf(fmaxf(pick / lane(areas, axis), 0.0f), 1.0f);
    const int b = axis == 2 ? 0 : axis + 1, c = axis == 0 ? 2 : axis - 1;
    float3 x;
    set_lane(x, axis, lane(p, axis) < lane(lo, axis) ? lane(lo, axis) : lane(hi, axis));
    set_lane(x, b, lane(lo, b) + along * (lane(hi, b) - lane(lo, b)));
    set_lane(x, c, lane(lo, c) + u2 * (lane(hi, c) - lane(lo, c)));
    const float3 to = x - p;
    const float dist2 = dot(to, to);
    s.wi = to / sqrtf(dist2);
    s.inv_pdf = total * fabsf(lane(s.wi, axis)) / dist2;
    if (!(s.inv_pdf > 0.0f && s.inv_pdf < PT_INFINITY)) return false;
    s.t_max = (lane(x, axis) - lane(o, axis)) / lane(s.wi, axis);
    return true;
}

// The solid-angle density with which box_sample from `from` picks the direction that
// reaches `hit` on the box (0 if it never does).
__device__ __forceinline__ float box_pdf_towards(float4 lo4, float4 hi4, float3 from, const Surface& hit) {
    const float3 areas = box_visible_face_areas(xyz(lo4), xyz(hi4), from);
    return area_pdf_towards(areas.x + areas.y + areas.z, from, hit);
}
