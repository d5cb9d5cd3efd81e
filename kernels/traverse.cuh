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
// distances are one FMA each), and per axis whether it travels down it (the direction's
// sign bit; a -0 component counts as down, which is as good as up for a zero one): such
// an axis reads its row's mirror (MirroredNode) or its row's lanes swapped
// (CompactNode), so that lanes x, y hold its near planes and z, w its far ones.
struct NodeRay {
    float3 inv_dir;
    float3 neg_origin_inv_dir;
    unsigned int flip_x, flip_y, flip_z;
};


// The node ray from `origin` with inverse direction `inv_dir`.
__device__ __forceinline__ NodeRay node_ray_inv(float3 origin, float3 inv_dir) {
    NodeRay r;
    r.inv_dir = inv_dir;
    r.neg_origin_inv_dir = -origin * r.inv_dir;
    r.flip_x = __float_as_uint(r.inv_dir.x) >> 31;
    r.flip_y = __float_as_uint(r.inv_dir.y) >> 31;
    r.flip_z = __float_as_uint(r.inv_dir.z) >> 31;
    return r;
}

__device__ __forceinline__ NodeRay node_ray(float3 origin, float3 dir) {
    return node_ray_inv(origin, make_float3(1.0f / slab_dir(dir.x), 1.0f / slab_dir(dir.y), 1.0f / slab_dir(dir.z)));
}

// Where the ray enters and leaves both child boxes of inner node `node` (within
// [0, t_max]; a box is hit when enter <= exit), and the node's child links.
struct ChildSpans {
    float enter_left, exit_left, enter_right, exit_right;
    uint2 links;
};

// A compact node's row as the ray reads it: its lanes swapped when the ray travels down
// the axis (`flip`).
__device__ __forceinline__ float4 row_as_read(float4 row, unsigned int flip) {
    return flip ? make_float4(row.z, row.w, row.x, row.y) : row;
}

__device__ __forceinline__ ChildSpans child_spans(const DeviceNode* __restrict__ node, const NodeRay& r,
                                                  float t_max) {
    const float4* __restrict__ rows = node->rows;
    float4 x, y, z;
    if constexpr (kCompactLayout) {
        x = row_as_read(__ldg(rows), r.flip_x);
        y = row_as_read(__ldg(rows + 1), r.flip_y);
        z = row_as_read(__ldg(rows + 2), r.flip_z);
    } else {
        x = __ldg(rows + r.flip_x);
        y = __ldg(rows + 2 + r.flip_y);
        z = __ldg(rows + 4 + r.flip_z);
    }
    ChildSpans c;
    c.links = __ldg(reinterpret_cast<const uint2*>(&node->links));
    // Lanes x, y: the near planes of the left and right box; z, w: their far planes.
    c.enter_left = slab_enter(planes(x.x, y.x, z.x, r.inv_dir, r.neg_origin_inv_dir));
    c.exit_left = slab_exit(planes(x.z, y.z, z.z, r.inv_dir, r.neg_origin_inv_dir), t_max);
    c.enter_right = slab_enter(planes(x.y, y.y, z.y, r.inv_dir, r.neg_origin_inv_dir));
    c.exit_right = slab_exit(planes(x.w, y.w, z.w, r.inv_dir, r.neg_origin_inv_dir), t_max);
    return c;
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

// Two levels, one walk (docs/path-tracing.md, "Instances"): at a leaf of instances the
// walk enters the leaf's first instance: it pushes the rest of the leaf, notes the
// stack's length (`world_len`: below it the world's entries, above it the bottom
// level's), and goes on down the instance's bottom level with the ray in its space; a
// pop that brings the stack back to `world_len` takes the ray back to the world. One
// loop for both levels keeps a warp's lanes in the same code whichever level each is in;
// a walk within a walk (one loop per level, each with its own stack) ran the 400-tree
// forest 27 % slower than the same triangles flattened. (A marker entry pushed at each
// instance entered, popped on the way out, did what `world_len` does with a store and
// a load more per instance: docs/performance.md.)
#define NOT_IN_INSTANCE 0xffffffffu
// World entries (at most the depth), the rest of a leaf, then the bottom level's
// entries (at most its depth).
#define WALK_STACK (kInstances ? 2 * BLOB_MAX_BVH_DEPTH + 1 : BLOB_MAX_BVH_DEPTH)

// The ray as the walk uses it: in the world, or in the space of the instance whose
// bottom level it is in (`instance`, else NO_HIT), with that instance's material in
// place of its triangles' (`replaced`, else NO_HIT).
struct WalkRay {
    float3 origin, dir;
    NodeRay nodes;
    unsigned int instance, replaced;
};

__device__ __forceinline__ WalkRay world_ray(float3 origin, float3 dir) {
    return WalkRay{origin, dir, node_ray(origin, dir), NO_HIT, NO_HIT};
}

// The world's ray again, when the walk leaves an instance: its inverse direction kept
// from the start (`world_inv`), not divided out again at every instance left.
__device__ __forceinline__ WalkRay back_to_world(float3 origin, float3 dir, float3 world_inv) {
    return WalkRay{origin, dir, node_ray_inv(origin, world_inv), NO_HIT, NO_HIT};
}

// Takes the ray back to the world when the stack is down to `world_len` (the walk has
// left the instance it entered): what every walk checks before it pops.
__device__ __forceinline__ void leave_instance_at(unsigned int stack_len, unsigned int& world_len, WalkRay& w,
                                                  float3 origin, float3 dir, float3 world_inv) {
    if (kInstances && stack_len == world_len) {
        w = back_to_world(origin, dir, world_inv);
        world_len = NOT_IN_INSTANCE;
    }
}

// Enters the first instance of leaf `leaf` (the rest of the leaf pushed as
// `entry(link)`): `w` becomes the ray in its space and `world_len` the stack's length
// below the bottom level's entries; returns its root link.
template <typename Entry, typename Stack>
__device__ __forceinline__ unsigned int enter_instance(unsigned int leaf, float3 origin, float3 dir, WalkRay& w,
                                                       Stack* stack, unsigned int& stack_len, unsigned int& world_len,
                                                       Entry entry) {
    const unsigned int first = leaf & BLOB_PRIM_INDEX_MASK;
    const unsigned int count = ((leaf & BLOB_LEAF_COUNT_MASK) >> BLOB_LEAF_COUNT_SHIFT) + 1u;
    if (count > 1u) {
        const unsigned int rest = (leaf & ~(BLOB_PRIM_INDEX_MASK | BLOB_LEAF_COUNT_MASK)) |
                                  ((count - 2u) << BLOB_LEAF_COUNT_SHIFT) | (first + 1u);
        stack[stack_len++] = entry(rest);
    }
    world_len = stack_len;
    const InstanceRecord* inst = instance_at(first);
    instance_ray(inst, origin, dir, w.origin, w.dir);
    w.nodes = node_ray(w.origin, w.dir);
    w.instance = first;
    w.replaced = kAlpha ? instance_material(first) : NO_HIT;
    return __ldg(&inst->root);
}

// A closest-hit walk's test of leaf link `leaf` (primitives, in the ray's current
// space): a closer hit shrinks `t_closest`, sets `closest` and, inside an instance,
// notes that instance in `instance`.
__device__ __forceinline__ void closest_in_leaf(unsigned int leaf, const WalkRay& w, float& t_closest,
                                                unsigned int& closest, unsigned int& instance) {
    const unsigned int before = closest;
    leaf_hits<false>(leaf, w.origin, w.dir, t_closest, closest, NO_HIT, w.replaced);
    if (kInstances && closest != before) instance = w.instance;
}

// A shadow walk's test of leaf link `leaf`: true when a primitive other than `skip` (a
// light of the world's tree; occluded_binary says why no instance's is skipped) blocks
// the ray in (0, t_max).
__device__ __forceinline__ bool blocked_in_leaf(unsigned int leaf, const WalkRay& w, float t_max, unsigned int skip) {
    float t = t_max;
    unsigned int unused = NO_HIT;
    return leaf_hits<true>(leaf, w.origin, w.dir, t, unused, w.instance == NO_HIT ? skip : NO_HIT, w.replaced);
}

// A closest-hit walk's pop: the nearest pending subtree that can still hold a hit
// closer than `t_closest` goes to `node` (the ray back to the world wherever the stack
// leaves an instance); false when none is left.
__device__ __forceinline__ bool pop_nearer(uint2* stack, unsigned int& stack_len, unsigned int& world_len, WalkRay& w,
                                           float3 origin, float3 dir, float3 world_inv, float t_closest,
                                           unsigned int& node) {
    for (;;) {
        leave_instance_at(stack_len, world_len, w, origin, dir, world_inv);
        if (stack_len == 0) return false;
        const uint2 entry = stack[--stack_len];
        if (__uint_as_float(entry.y) < t_closest) {
            node = entry.x;
            return true;
        }
    }
}

// The closest primitive hit in (0, +inf): one "ray" in the Mrays/s count.
//
// Near child first with an explicit stack (the blob loader refuses trees deeper than
// BLOB_MAX_BVH_DEPTH, so it cannot overflow). A node (DeviceNode, one cache line) holds
// both children's boxes and links, so one visit tests both; each axis is stored in both
// plane orders and the ray reads the row that puts its near planes in lanes x, y and
// far planes in z, w: the slab test needs no min/max to sort planes (the min/max were
// the largest instruction class; docs/performance.md, "Choices in the code"). A stack
// entry keeps its box's entry distance, so a subtree behind a closer hit found
// meanwhile is dropped unvisited (the rest of an instance leaf keeps 0).
__device__ __forceinline__ Hit traverse_binary(float3 origin, float3 dir) {
    static_assert(BLOB_NO_MATERIAL == NO_HIT, "an instance without a material of its own reads as NO_HIT");
    const DeviceNode* __restrict__ nodes = params.nodes;
    WalkRay w = world_ray(origin, dir);
    const float3 world_inv = w.nodes.inv_dir;
    float t_closest = PT_INFINITY;
    unsigned int closest = NO_HIT;
    unsigned int instance = NO_HIT;
    // x: a child link; y: the bits of its box's entry distance.
    uint2 stack[WALK_STACK];
    unsigned int stack_len = 0, world_len = NOT_IN_INSTANCE;
    unsigned int node = params.bvh_root;
    for (;;) {
        if (node & BLOB_LEAF_FLAG) {
            if (holds_instances(node)) {
                node = enter_instance(node, origin, dir, w, stack, stack_len, world_len,
                                      [](unsigned int link) { return make_uint2(link, 0u); });
                continue;
            }
            closest_in_leaf(node, w, t_closest, closest, instance);
        } else {
            const ChildSpans c = child_spans(nodes + node, w.nodes, t_closest);
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
        if (!pop_nearer(stack, stack_len, world_len, w, origin, dir, world_inv, t_closest, node)) break;
    }
    return Hit{t_closest, closest, instance};
}

// True when a primitive other than `skip` lies on the ray in (0, t_max): the
// shadow-ray query, which stops at the first blocker (one "ray"). Same walk as
// traverse, without the entry distances: any blocker will do, so there is no closer
// hit to prune by. `skip` is a light of the world's tree: instances are not lights, so
// none of theirs is skipped.
__device__ __forceinline__ bool occluded_binary(float3 origin, float3 dir, float t_max, unsigned int skip) {
    const DeviceNode* __restrict__ nodes = params.nodes;
    WalkRay w = world_ray(origin, dir);
    const float3 world_inv = w.nodes.inv_dir;
    unsigned int stack[WALK_STACK];
    unsigned int stack_len = 0, world_len = NOT_IN_INSTANCE;
    unsigned int node = params.bvh_root;
    for (;;) {
        if (node & BLOB_LEAF_FLAG) {
            if (holds_instances(node)) {
                node = enter_instance(node, origin, dir, w, stack, stack_len, world_len,
                                      [](unsigned int link) { return link; });
                continue;
            }
            if (blocked_in_leaf(node, w, t_max, skip)) return true;
        } else {
            const ChildSpans c = child_spans(nodes + node, w.nodes, t_max);
            const bool hit_left = c.enter_left <= c.exit_left;
            const bool hit_right = c.enter_right <= c.exit_right;
            if (hit_left && hit_right) stack[stack_len++] = c.links.y;
            if (hit_left || hit_right) {
                node = hit_left ? c.links.x : c.links.y;
                continue;
            }
        }
        leave_instance_at(stack_len, world_len, w, origin, dir, world_inv);
        if (stack_len == 0) return false;
        node = stack[--stack_len];
    }
}

// PT_WIDE_BVH=1 (device_nodes.cuh) walks compressed 8-wide nodes instead of the
// binary ones.
#if PT_WIDE_BVH
#include "traverse_wide.cuh"
#endif

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
