// Closest-hit and shadow queries over compressed 8-wide nodes (WideNodeRecord,
// scene-compiler/src/bvh/wide.rs builds them from the blob's binary tree): each node
// holds its children's boxes quantized to 8 bits against its own frame, so one visit
// reads 64 bytes of boxes (three 32-byte sectors with the links) and tests eight
// children, where the binary walk reads a 128-byte node per two children (Ylitie,
// Karras & Laine, "Efficient Incoherent Ray Traversal on GPUs Through Compressed Wide
// BVHs", HPG 2017). traverse.cuh picks this walk or the binary one.
#pragma once

#include "blob_layout.cuh"
#include "params.cuh"
#include "shapes.cuh"
#include "wide_node.cuh"

// Included by traverse.cuh after the binary walk, whose ray (`WalkRay`), instance
// steps (`enter_instance`, `leave_instance_at`), leaf tests (`closest_in_leaf`,
// `blocked_in_leaf`) and pop (`pop_nearer`) it shares.

// A wide node's child slot with no child, and a key that sorts after every hit.
#define WIDE_MISS 0xffffffffu

// Byte `i` (0..7, a compile-time constant once unrolled) of a pair of lanes as a float:
// the byte is placed in the mantissa of 2^23 and 2^23 subtracted, two full-rate
// instructions where an integer-to-float conversion is a quarter-rate one.
__device__ __forceinline__ float quantized(uint2 lanes, int i) {
    const unsigned int word = i < 4 ? lanes.x : lanes.y;
    const unsigned int selector = (unsigned int)(i & 3) | 0x7550u;
    return __uint_as_float(__byte_perm(word, 0x4b000000u, selector)) - 8388608.0f;
}

// The ray's slab test against the eight children of node `n`: for each child whose box
// it enters before `t_max`, a key `bits(entry distance) with its low three bits
// replaced by the slot`, else WIDE_MISS. Entry distances are >= 0, so keys order as
// the distances do (truncating three mantissa bits only rounds an entry distance
// down, which never drops a box that holds a closer hit). Returns the node's child count.
__device__ __forceinline__ unsigned int wide_child_keys(const WideNodeRecord* __restrict__ n, float3 origin,
                                                float3 inv_dir, float t_max, unsigned int keys[8]) {
    const float4 head = __ldg(reinterpret_cast<const float4*>(n));
    const uint4 q0 = __ldg(&n->lo_x_y);
    const uint4 q1 = __ldg(&n->lo_z_hi_x);
    const uint4 q2 = __ldg(&n->hi_y_z);
    const unsigned int meta = __float_as_uint(head.w);
    const unsigned int count = meta >> 24;
    // Per axis: the child planes are origin + q * 2^(e - 127), so the ray's distance to
    // the plane of byte q is q * (scale * inv_dir) + (origin - ray origin) * inv_dir.
    const float3 step = make_float3(__uint_as_float((meta & 0xffu) << 23) * inv_dir.x,
                                    __uint_as_float(((meta >> 8) & 0xffu) << 23) * inv_dir.y,
                                    __uint_as_float(((meta >> 16) & 0xffu) << 23) * inv_dir.z);
    const float3 base = make_float3((head.x - origin.x) * inv_dir.x, (head.y - origin.y) * inv_dir.y,
                                    (head.z - origin.z) * inv_dir.z);
    // A ray travelling down an axis meets the high planes first: swap the rows.
    const bool nx = __float_as_uint(inv_dir.x) >> 31, ny = __float_as_uint(inv_dir.y) >> 31,
               nz = __float_as_uint(inv_dir.z) >> 31;
    const uint2 lo_x = make_uint2(q0.x, q0.y), lo_y = make_uint2(q0.z, q0.w), lo_z = make_uint2(q1.x, q1.y);
    const uint2 hi_x = make_uint2(q1.z, q1.w), hi_y = make_uint2(q2.x, q2.y), hi_z = make_uint2(q2.z, q2.w);
    const uint2 near_x = nx ? hi_x : lo_x, far_x = nx ? lo_x : hi_x;
    const uint2 near_y = ny ? hi_y : lo_y, far_y = ny ? lo_y : hi_y;
    const uint2 near_z = nz ? hi_z : lo_z, far_z = nz ? lo_z : hi_z;
    // The collapse fills nodes unevenly (4.4 children on average on the 1M grid), so
    // the upper four slots are skipped when the node has no child there.
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        if (i == 4 && count <= 4) {
            keys[4] = keys[5] = keys[6] = keys[7] = WIDE_MISS;
            break;
        }
        // fmaxf/fminf drop a NaN plane (0 * inf from an axis-parallel ray), which only
        // makes the test conservative, as in the binary walk (traverse.cuh).
        const float enter = fmaxf(fmaxf(fmaf(quantized(near_x, i), step.x, base.x),
                                        fmaf(quantized(near_y, i), step.y, base.y)),
                                  fmaxf(fmaf(quantized(near_z, i), step.z, base.z), 0.0f));
        const float exit = fminf(fminf(fmaf(quantized(far_x, i), step.x, base.x),
                                       fmaf(quantized(far_y, i), step.y, base.y)),
                                 fminf(fmaf(quantized(far_z, i), step.z, base.z), t_max));
        keys[i] = (i < (int)count && enter <= exit) ? ((__float_as_uint(enter) & ~7u) | (unsigned int)i) : WIDE_MISS;
    }
    return count;
}

// Child `slot`'s link: read from the node just visited, so from L1.
__device__ __forceinline__ unsigned int wide_link(const WideNodeRecord* __restrict__ n, unsigned int slot) {
    const unsigned int* links = slot < 4 ? reinterpret_cast<const unsigned int*>(&n->links_lo)
                                         : reinterpret_cast<const unsigned int*>(&n->links_hi);
    return __ldg(links + (slot & 3u));
}

__device__ __forceinline__ void sort2(unsigned int& a, unsigned int& b) {
    const unsigned int lo = min(a, b);
    b = max(a, b);
    a = lo;
}

// The first four keys in increasing order (five comparators).
__device__ __forceinline__ void sort4(unsigned int k[8]) {
    sort2(k[0], k[1]); sort2(k[2], k[3]);
    sort2(k[0], k[2]); sort2(k[1], k[3]);
    sort2(k[1], k[2]);
}

// The keys in increasing order: the 19-comparator network for eight (Knuth, TAOCP
// vol. 3, 5.3.4), on registers (an indexed array would live in local memory).
__device__ __forceinline__ void sort8(unsigned int k[8]) {
    sort2(k[0], k[2]); sort2(k[1], k[3]); sort2(k[4], k[6]); sort2(k[5], k[7]);
    sort2(k[0], k[4]); sort2(k[1], k[5]); sort2(k[2], k[6]); sort2(k[3], k[7]);
    sort2(k[0], k[1]); sort2(k[2], k[3]); sort2(k[4], k[5]); sort2(k[6], k[7]);
    sort2(k[2], k[4]); sort2(k[3], k[5]);
    sort2(k[1], k[4]); sort2(k[3], k[6]);
    sort2(k[1], k[2]); sort2(k[3], k[4]); sort2(k[5], k[6]);
}

// The closest hit, nearest child first, through both levels as traverse_binary walks
// them (a leaf of instances enters its first, `world_len` brings the ray back). The
// stack holds (link, entry-distance bits); a node pushes at most count - 1 entries and
// the builder bounds the sum of count - 1 along every root-to-leaf path of each tree
// by BLOB_MAX_BVH_DEPTH, so WALK_STACK (a world path, the rest of a leaf, a bottom
// path) cannot overflow. A bottom level's wide root has its binary root's index
// (wide.rs, collapse_levels), so an instance's root link serves both walks.
__device__ __forceinline__ Hit traverse_wide(float3 origin, float3 dir) {
    const WideNodeRecord* __restrict__ nodes = reinterpret_cast<const WideNodeRecord*>(params.nodes);
    WalkRay w = world_ray(origin, dir);
    const float3 world_inv = w.nodes.inv_dir;
    float t_closest = PT_INFINITY;
    unsigned int closest = NO_HIT;
    unsigned int instance = NO_HIT;
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
            const WideNodeRecord* n = nodes + node;
            unsigned int k[8];
            // A node of four children or fewer has misses in the upper slots already.
            if (wide_child_keys(n, w.origin, w.nodes.inv_dir, t_closest, k) <= 4) {
                sort4(k);
            } else {
                sort8(k);
            }
            if (k[0] != WIDE_MISS) {
                // Farthest first, so the nearest pending child is on top.
#pragma unroll
                for (int i = 7; i >= 1; --i) {
                    if (k[i] != WIDE_MISS) stack[stack_len++] = make_uint2(wide_link(n, k[i] & 7u), k[i] & ~7u);
                }
                node = wide_link(n, k[0] & 7u);
                continue;
            }
        }
        if (!pop_nearer(stack, stack_len, world_len, w, origin, dir, world_inv, t_closest, node)) break;
    }
    return Hit{t_closest, closest, instance};
}

// Any blocker other than `skip` in (0, t_max): no order is needed, so hit children are
// pushed as they come. `skip` is a light of the world's tree (occluded_binary says why
// no instance's is skipped).
__device__ __forceinline__ bool occluded_wide(float3 origin, float3 dir, float t_max, unsigned int skip) {
    const WideNodeRecord* __restrict__ nodes = reinterpret_cast<const WideNodeRecord*>(params.nodes);
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
            const WideNodeRecord* n = nodes + node;
            unsigned int k[8];
            wide_child_keys(n, w.origin, w.nodes.inv_dir, t_max, k);
            bool descend = false;
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                if (k[i] == WIDE_MISS) continue;
                const unsigned int link = wide_link(n, i);
                if (descend) {
                    stack[stack_len++] = link;
                } else {
                    node = link;
                    descend = true;
                }
            }
            if (descend) continue;
        }
        leave_instance_at(stack_len, world_len, w, origin, dir, world_inv);
        if (stack_len == 0) return false;
        node = stack[--stack_len];
    }
}
