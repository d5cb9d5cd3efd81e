// Closest-hit queries: iterative BVH traversal, docs/path-tracing.md "Intersection"
// (CPU: traverse.rs, same structure).
#pragma once

#include "blob_layout.cuh"
#include "params.cuh"
#include "sphere.cuh"

#define NO_HIT 0xffffffffu

// The closest hit of a ray; `sphere == NO_HIT` when it leaves the scene.
struct Hit {
    float t;
    // Index into the sphere sections (BVH leaf order).
    unsigned int sphere;
};

// Slab test of one node's box: the entry distance clamped to [T_MIN, t_max], or +inf
// when the ray misses it. `origin * inv_dir` is folded into one FMA per plane; fminf and
// fmaxf return the other operand for a NaN (0 * inf from an axis-parallel ray), which
// only makes the test conservative.
__device__ __forceinline__ float slab(const NodeBoundsRecord* __restrict__ box, float3 inv_dir,
                                      float3 neg_origin_inv_dir, float t_max) {
    const float4 lo = __ldg(&box->min);
    const float4 hi = __ldg(&box->max);
    const float tx0 = fmaf(lo.x, inv_dir.x, neg_origin_inv_dir.x);
    const float tx1 = fmaf(hi.x, inv_dir.x, neg_origin_inv_dir.x);
    const float ty0 = fmaf(lo.y, inv_dir.y, neg_origin_inv_dir.y);
    const float ty1 = fmaf(hi.y, inv_dir.y, neg_origin_inv_dir.y);
    const float tz0 = fmaf(lo.z, inv_dir.z, neg_origin_inv_dir.z);
    const float tz1 = fmaf(hi.z, inv_dir.z, neg_origin_inv_dir.z);
    const float t_enter = fmaxf(fmaxf(fminf(tx0, tx1), fminf(ty0, ty1)), fmaxf(fminf(tz0, tz1), T_MIN));
    const float t_exit = fminf(fminf(fmaxf(tx0, tx1), fmaxf(ty0, ty1)), fminf(fmaxf(tz0, tz1), t_max));
    return t_enter <= t_exit ? t_enter : PT_INFINITY;
}

// The closest sphere hit in (T_MIN, +inf): one "ray" in the Mrays/s count.
//
// Near child first with an explicit stack of BLOB_MAX_BVH_DEPTH node indices (the
// blob loader refuses deeper trees, so it cannot overflow). Both children's boxes are
// tested at their parent, so a popped node is entered without another box test.
__device__ __forceinline__ Hit traverse(float3 origin, float3 dir) {
    const SphereRecord* __restrict__ spheres = params.spheres;
    const NodeBoundsRecord* __restrict__ bounds = params.node_bounds;
    const uint2* __restrict__ links = reinterpret_cast<const uint2*>(params.node_links);
    const float3 inv_dir = make_float3(1.0f / dir.x, 1.0f / dir.y, 1.0f / dir.z);
    const float3 neg_origin_inv_dir = -origin * inv_dir;
    float t_closest = PT_INFINITY;
    unsigned int closest = NO_HIT;
    unsigned int stack[BLOB_MAX_BVH_DEPTH];
    unsigned int stack_len = 0;
    unsigned int node = 0;
    for (;;) {
        // x: left child or first sphere; y: right child, or sphere count | BLOB_LEAF_FLAG.
        const uint2 link = __ldg(&links[node]);
        if (link.y & BLOB_LEAF_FLAG) {
            const unsigned int end = link.x + (link.y & ~BLOB_LEAF_FLAG);
            for (unsigned int i = link.x; i < end; ++i) {
                float t;
                if (intersect_sphere(__ldg(&spheres[i].center_radius), origin, dir, t_closest, t)) {
                    t_closest = t;
                    closest = i;
                }
            }
        } else {
            const float t_left = slab(bounds + link.x, inv_dir, neg_origin_inv_dir, t_closest);
            const float t_right = slab(bounds + link.y, inv_dir, neg_origin_inv_dir, t_closest);
            const bool hit_left = t_left < PT_INFINITY;
            const bool hit_right = t_right < PT_INFINITY;
            if (hit_left && hit_right) {
                const bool left_first = t_left <= t_right;
                stack[stack_len++] = left_first ? link.y : link.x;
                node = left_first ? link.x : link.y;
                continue;
            }
            if (hit_left || hit_right) {
                node = hit_left ? link.x : link.y;
                continue;
            }
        }
        if (stack_len == 0) break;
        node = stack[--stack_len];
    }
    return Hit{t_closest, closest};
}
