// Camera rays as warp packets (issue 40, lead 1; PT_CAMERA_PACKETS=1, render.cu): the
// lanes of `packet` walk the binary tree together, one node at a time for all of them.
// Same hits as traverse_binary (each lane runs the same tests on the same nodes, in
// another order); docs/performance.md, "Camera-ray packets", has what it measured.
#pragma once

#include "traverse.cuh"

// The closest hit of each lane's ray, all lanes of `packet` (every one of which must call
// this, with the same `packet`) walking one sequence of nodes: a child is visited when
// any lane's ray enters it before that lane's closest hit, in the order most of the
// lanes that enter both prefer (a warp vote); a lane whose ray misses the node rides
// along inactive. The stack holds the same links in every lane and each lane's own entry
// distance (+inf where its ray misses the box), so a popped subtree is dropped only when
// no lane can find a closer hit in it. Garanzha & Loop 2010 (the warp as the packet), with
// Wald et al.'s masked packet traversal; the binary walk's nodes, leaves and instance
// entries (traverse.cuh).
__device__ __forceinline__ Hit traverse_packet(float3 origin, float3 dir, unsigned int packet) {
    const DeviceNode* __restrict__ nodes = params.nodes;
    const unsigned int missed = __float_as_uint(PT_INFINITY);
    WalkRay w = world_ray(origin, dir);
    const float3 world_inv = w.nodes.inv_dir;
    float t_closest = PT_INFINITY;
    unsigned int closest = NO_HIT;
    unsigned int instance = NO_HIT;
    // x: a child link, the same in every lane; y: the bits of this lane's entry distance.
    uint2 stack[WALK_STACK];
    unsigned int stack_len = 0, world_len = NOT_IN_INSTANCE;
    unsigned int node = params.bvh_root;
    // Whether this lane's ray needs `node`.
    bool active = true;
    for (;;) {
        if (node & BLOB_LEAF_FLAG) {
            if (holds_instances(node)) {
                node = enter_instance(node, origin, dir, w, stack, stack_len, world_len,
                                      [active, missed](unsigned int link) { return make_uint2(link, active ? 0u : missed); });
                continue;
            }
            if (active) closest_in_leaf(node, w, t_closest, closest, instance);
        } else {
            const ChildSpans c = child_spans(nodes + node, w.nodes, t_closest);
            const bool hit_left = active && c.enter_left <= c.exit_left;
            const bool hit_right = active && c.enter_right <= c.exit_right;
            const unsigned int any_left = __ballot_sync(packet, hit_left);
            const unsigned int any_right = __ballot_sync(packet, hit_right);
            if (any_left && any_right) {
                const unsigned int both = __ballot_sync(packet, hit_left && hit_right);
                const unsigned int left_votes =
                    __ballot_sync(packet, hit_left && hit_right && c.enter_left <= c.enter_right);
                const bool left_first = 2u * __popc(left_votes) >= __popc(both);
                stack[stack_len++] = left_first
                                         ? make_uint2(c.links.y, hit_right ? __float_as_uint(c.enter_right) : missed)
                                         : make_uint2(c.links.x, hit_left ? __float_as_uint(c.enter_left) : missed);
                node = left_first ? c.links.x : c.links.y;
                active = left_first ? hit_left : hit_right;
                continue;
            }
            if (any_left || any_right) {
                node = any_left ? c.links.x : c.links.y;
                active = any_left ? hit_left : hit_right;
                continue;
            }
        }
        // Pop the nearest pending subtree that some lane can still find a closer hit in.
        // The stack's length is the same in every lane, so they leave this loop together.
        bool popped = false;
        for (;;) {
            leave_instance_at(stack_len, world_len, w, origin, dir, world_inv);
            if (stack_len == 0) break;
            const uint2 entry = stack[--stack_len];
            const bool needed = __uint_as_float(entry.y) < t_closest;
            if (__any_sync(packet, needed)) {
                node = entry.x;
                active = needed;
                popped = true;
                break;
            }
        }
        if (!popped) break;
    }
    return Hit{t_closest, closest, instance};
}
