// Closest-hit queries: iterative BVH traversal, docs/path-tracing.md "Intersection"
// (CPU: traverse.rs, same structure).
#pragma once

#include "blob_layout.cuh"
#include "constants.cuh"
#include "instances.cuh"
#include "params.cuh"
#include "shapes.cuh"

// The closest hit of a ray; `prim == NO_HIT` when it leaves the scene.
struct Hit {
    float t;
    // The primitive reference (shapes.cuh): kind and index within its kind; a triangle
    // of a bottom level when `instance` names one.
    unsigned int prim;
    // The instance whose bottom level holds `prim` (index within the kind), or NO_HIT.
    unsigned int instance = NO_HIT;
};

// A direction component smaller than SLAB_MIN_DIR (zero included) is SLAB_MIN_DIR, with
// its sign, in the slab test, as on the CPU (cpu/traverse.rs). With an exact zero,
// inv_dir is infinite and the folded plane distance fma(plane, inv, -origin * inv) is
// inf - inf, a NaN, for every box, which fminf/fmaxf drop: the ray ignored that axis and
// walked every node its other two axes crossed. One camera ray of the 10M-sphere grid
// with dir.x exactly 0 (seed 1, one pixel's jitter) took 3 to 6 times a frame's normal
// time, on whichever GPU rendered that sample (issue 38). Clamped, a ray that lies in a
// box's plane gets the distance 0 (the two products are equal) and keeps the box.
__device__ __forceinline__ float slab_dir(float d) { return copysignf(fmaxf(fabsf(d), SLAB_MIN_DIR), d); }

// PT_WIDE_BVH=1 (device_nodes.cuh) walks compressed 8-wide nodes instead of the
// binary ones.
#if PT_WIDE_BVH
#include "traverse_wide.cuh"
#endif

// The ray's distances to the planes x = px, y = py, z = pz: `origin * inv_dir` is
// folded into one FMA per plane.
__device__ __forceinline__ float3 planes(float px, float py, float pz, float3 inv_dir, float3 neg_origin_inv_dir) {
    return make_float3(fmaf(px, inv_dir.x, neg_origin_inv_dir.x), fmaf(py, inv_dir.y, neg_origin_inv_dir.y),
                       fmaf(pz, inv_dir.z, neg_origin_inv_dir.z));
}

// Where the ray enters a box, from its near planes, and leaves it, from its far planes.
// fmaxf/fminf drop a NaN plane (0 * inf from an axis-parallel ray), which only makes
// the test conservative; the results themselves are never NaN.
__device__ __forceinline__ float slab_enter(float3 near) { return fmaxf(fmaxf(near.x, near.y), fmaxf(near.z, 0.0f)); }
__device__ __forceinline__ float slab_exit(float3 far, float t_max) { return fminf(fminf(far.x, far.y), fminf(far.z, t_max)); }

// A ray prepared for node visits: its inverse direction, `-origin * inv_dir` (the plane
// distances are one FMA each), and the row of DeviceNode::rows each axis reads: the
// blob's row, or its mirror when the direction's sign bit is set (a -0 component reads
// the mirror, which is as good as the row for a zero component).
struct NodeRay {
    float3 inv_dir;
    float3 neg_origin_inv_dir;
    unsigned int row_x, row_y, row_z;
};


__device__ __forceinline__ NodeRay node_ray(float3 origin, float3 dir) {
    NodeRay r;
    r.inv_dir = make_float3(1.0f / slab_dir(dir.x), 1.0f / slab_dir(dir.y), 1.0f / slab_dir(dir.z));
    r.neg_origin_inv_dir = -origin * r.inv_dir;
    r.row_x = __float_as_uint(r.inv_dir.x) >> 31;
    r.row_y = 2u + (__float_as_uint(r.inv_dir.y) >> 31);
    r.row_z = 4u + (__float_as_uint(r.inv_dir.z) >> 31);
    return r;
}

// Where the ray enters and leaves both child boxes of inner node `node` (within
// [0, t_max]; a box is hit when enter <= exit), and the node's child links.
struct ChildSpans {
    float enter_left, exit_left, enter_right, exit_right;
    uint2 links;
};

__device__ __forceinline__ ChildSpans child_spans(const DeviceNode* __restrict__ node, const NodeRay& r,
                                                  float t_max) {
    const float4* __restrict__ rows = node->rows;
    const float4 x = __ldg(rows + r.row_x);
    const float4 y = __ldg(rows + r.row_y);
    const float4 z = __ldg(rows + r.row_z);
    ChildSpans c;
    c.links = __ldg(reinterpret_cast<const uint2*>(&node->links));
    // Lanes x, y: the near planes of the left and right box; z, w: their far planes.
    c.enter_left = slab_enter(planes(x.x, y.x, z.x, r.inv_dir, r.neg_origin_inv_dir));
    c.exit_left = slab_exit(planes(x.z, y.z, z.z, r.inv_dir, r.neg_origin_inv_dir), t_max);
    c.enter_right = slab_enter(planes(x.y, y.y, z.y, r.inv_dir, r.neg_origin_inv_dir));
    c.exit_right = slab_exit(planes(x.w, y.w, z.w, r.inv_dir, r.neg_origin_inv_dir), t_max);
    return c;
}

// The walk the closest-hit query runs from link `root` (the world's tree or a bottom
// level's), handing each leaf the ray meets to `leaf(link, t_closest)`, which may shrink
// t_closest.
//
// Near child first with an explicit stack of BLOB_MAX_BVH_DEPTH entries (the blob
// loader refuses deeper trees, so it cannot overflow). A node (DeviceNode, one cache
// line) holds both children's boxes and links, so one visit tests both; each axis is
// stored in both plane orders and the ray reads the row that puts its near planes in
// lanes x, y and far planes in z, w: the slab test needs no min/max to sort planes (the
// min/max were the largest instruction class; docs/performance.md, "Choices in the code"). A stack entry keeps its box's entry
// distance, so a subtree behind a closer hit found meanwhile is dropped unvisited.
template <typename Leaf>
__device__ __forceinline__ void walk_closest(unsigned int root, float3 origin, float3 dir, float& t_closest,
                                             Leaf&& leaf) {
    const DeviceNode* __restrict__ nodes = params.nodes;
    const NodeRay r = node_ray(origin, dir);
    // x: a child link; y: the bits of its box's entry distance.
    uint2 stack[BLOB_MAX_BVH_DEPTH];
    unsigned int stack_len = 0;
    unsigned int node = root;
    for (;;) {
        if (node & BLOB_LEAF_FLAG) {
            leaf(node, t_closest);
        } else {
            const ChildSpans c = child_spans(nodes + node, r, t_closest);
            const bool hit_left = c.enter_left <= c.exit_left;
            const bool hit_right = c.enter_right <= c.exit_right;
            if (hit_left && hit_right) {
                const bool left_first = c.enter_left <= c.enter_right;
                stack[stack_len++] = left_first ? make_uint2(c.links.y, __float_as_uint(c.enter_right))
                                                : make_uint2(c.links.x, __float_as_uint(c.enter_left));
                node = left_first ? c.links.x : c.links.y;
                continue;
            }
            if (hit_left || hit_right) {
                node = hit_left ? c.links.x : c.links.y;
                continue;
            }
        }
        // Pop the nearest pending subtree that can still hold a closer hit.
        bool popped = false;
        while (stack_len > 0) {
            const uint2 entry = stack[--stack_len];
            if (__uint_as_float(entry.y) < t_closest) {
                node = entry.x;
                popped = true;
                break;
            }
        }
        if (!popped) return;
    }
}

// The shadow-ray walk from link `root`: true as soon as `leaf(link)` finds a blocker.
// Same walk as walk_closest, without the entry distances: any blocker will do, so
// there is no closer hit to prune by.
template <typename Leaf>
__device__ __forceinline__ bool walk_any(unsigned int root, float3 origin, float3 dir, float t_max, Leaf&& leaf) {
    const DeviceNode* __restrict__ nodes = params.nodes;
    const NodeRay r = node_ray(origin, dir);
    unsigned int stack[BLOB_MAX_BVH_DEPTH];
    unsigned int stack_len = 0;
    unsigned int node = root;
    for (;;) {
        if (node & BLOB_LEAF_FLAG) {
            if (leaf(node)) return true;
        } else {
            const ChildSpans c = child_spans(nodes + node, r, t_max);
            const bool hit_left = c.enter_left <= c.exit_left;
            const bool hit_right = c.enter_right <= c.exit_right;
            if (hit_left && hit_right) stack[stack_len++] = c.links.y;
            if (hit_left || hit_right) {
                node = hit_left ? c.links.x : c.links.y;
                continue;
            }
        }
        if (stack_len == 0) return false;
        node = stack[--stack_len];
    }
}

// Whether leaf link `leaf` holds instances (only in modules with kInstances).
__device__ __forceinline__ bool holds_instances(unsigned int leaf) {
    return kInstances && (leaf & BLOB_PRIM_KIND_MASK) == (BLOB_PRIM_INSTANCE << BLOB_PRIM_KIND_SHIFT);
}

// The material that replaces instance `i`'s triangles' own, or NO_HIT (BLOB_NO_MATERIAL).
__device__ __forceinline__ unsigned int instance_material(unsigned int i) {
    const unsigned int* kind_first = reinterpret_cast<const unsigned int*>(&params.kind_first);
    return __ldg(&params.prim_materials[kind_first[BLOB_PRIM_INSTANCE] + i]);
}

// The instances of leaf link `leaf` against the ray: each one's bottom level walked
// with the ray in its space (instances.cuh), on the same distance scale; a closer hit
// shrinks `t_closest` and sets `closest` and `instance`. Not inlined: the walk within a
// walk is large, and every query that reaches it would carry a copy (traverse and the
// shadow rays' several call sites), which multiplied the kernels' compile time.
__device__ __noinline__ void intersect_instances(unsigned int leaf, float3 origin, float3 dir, float& t_closest,
                                                 unsigned int& closest, unsigned int& instance) {
    const unsigned int first = leaf & BLOB_PRIM_INDEX_MASK;
    const unsigned int end = first + ((leaf & BLOB_LEAF_COUNT_MASK) >> BLOB_LEAF_COUNT_SHIFT) + 1u;
    for (unsigned int i = first; i < end; ++i) {
        const InstanceRecord* inst = instance_at(i);
        float3 o, d;
        instance_ray(inst, origin, dir, o, d);
        const unsigned int replaced = kAlpha ? instance_material(i) : NO_HIT;
        unsigned int found = NO_HIT;
        walk_closest(__ldg(&inst->root), o, d, t_closest, [&](unsigned int bottom_leaf, float& t) {
            leaf_hits<false>(bottom_leaf, o, d, t, found, NO_HIT, replaced);
        });
        if (found != NO_HIT) {
            closest = found;
            instance = i;
        }
    }
}

// True when a triangle of an instance of leaf link `leaf` lies on the ray in
// (0, t_max). Not inlined, as intersect_instances.
__device__ __noinline__ bool occluded_by_instances(unsigned int leaf, float3 origin, float3 dir, float t_max) {
    const unsigned int first = leaf & BLOB_PRIM_INDEX_MASK;
    const unsigned int end = first + ((leaf & BLOB_LEAF_COUNT_MASK) >> BLOB_LEAF_COUNT_SHIFT) + 1u;
    for (unsigned int i = first; i < end; ++i) {
        const InstanceRecord* inst = instance_at(i);
        float3 o, d;
        instance_ray(inst, origin, dir, o, d);
        const unsigned int replaced = kAlpha ? instance_material(i) : NO_HIT;
        const bool blocked = walk_any(__ldg(&inst->root), o, d, t_max, [&](unsigned int bottom_leaf) {
            float t = t_max;
            unsigned int unused = NO_HIT;
            return leaf_hits<true>(bottom_leaf, o, d, t, unused, NO_HIT, replaced);
        });
        if (blocked) return true;
    }
    return false;
}

// The closest primitive hit in (0, +inf): one "ray" in the Mrays/s count.
__device__ __forceinline__ Hit traverse_binary(float3 origin, float3 dir) {
    static_assert(BLOB_NO_MATERIAL == NO_HIT, "an instance without a material of its own reads as NO_HIT");
    float t_closest = PT_INFINITY;
    unsigned int closest = NO_HIT;
    unsigned int instance = NO_HIT;
    walk_closest(params.bvh_root, origin, dir, t_closest, [&](unsigned int leaf, float& t) {
        if (holds_instances(leaf)) {
            intersect_instances(leaf, origin, dir, t, closest, instance);
            return;
        }
        const unsigned int before = closest;
        intersect_leaf(leaf, origin, dir, t, closest);
        if (kInstances && closest != before) instance = NO_HIT;
    });
    return Hit{t_closest, closest, instance};
}

// True when a primitive other than `skip` lies on the ray in (0, t_max): the
// shadow-ray query, which stops at the first blocker (one "ray"). `skip` is a light of
// the world's tree: instances are not lights, so none of theirs is skipped.
__device__ __forceinline__ bool occluded_binary(float3 origin, float3 dir, float t_max, unsigned int skip) {
    return walk_any(params.bvh_root, origin, dir, t_max, [&](unsigned int leaf) {
        if (holds_instances(leaf)) return occluded_by_instances(leaf, origin, dir, t_max);
        return occludes_leaf(leaf, origin, dir, t_max, skip);
    });
}

__device__ __forceinline__ Hit traverse(float3 origin, float3 dir) {
#if PT_WIDE_BVH
    return traverse_wide(origin, dir);
#else
    return traverse_binary(origin, dir);
#endif
}

__device__ __forceinline__ bool occluded(float3 origin, float3 dir, float t_max, unsigned int skip) {
#if PT_WIDE_BVH
    return occluded_wide(origin, dir, t_max, skip);
#else
    return occluded_binary(origin, dir, t_max, skip);
#endif
}
