// Primitive shapes: the one place the kernels dispatch on a primitive's kind
// (CPU twin: renderer/src/backend/cpu/shapes/mod.rs). A leaf link and a hit carry a
// primitive reference, `kind << BLOB_PRIM_KIND_SHIFT | index` (docs/blob-format.md),
// where `index` counts within that kind's record section. Each shape's intersection
// and normal live in its own header (shape_sphere.cuh); adding a shape adds a case here.
#pragma once

#include "blob_layout.cuh"
#include "params.cuh"

// Rays start this far from their origin, so a bounce does not hit its own surface.
#define T_MIN 0.001f
#define NO_HIT 0xffffffffu

#include "shape_sphere.cuh"

__device__ __forceinline__ unsigned int prim_kind(unsigned int prim) {
    return (prim & BLOB_PRIM_KIND_MASK) >> BLOB_PRIM_KIND_SHIFT;
}
__device__ __forceinline__ unsigned int prim_index(unsigned int prim) { return prim & BLOB_PRIM_INDEX_MASK; }

// Tests the primitives of leaf link `leaf` against the ray; a closer hit shrinks
// `t_closest` and sets `closest` to its primitive reference.
__device__ __forceinline__ void intersect_leaf(unsigned int leaf, float3 origin, float3 dir, float& t_closest,
                                               unsigned int& closest) {
    const unsigned int kind_bits = leaf & BLOB_PRIM_KIND_MASK;
    const unsigned int first = leaf & BLOB_PRIM_INDEX_MASK;
    const unsigned int end = first + ((leaf & BLOB_LEAF_COUNT_MASK) >> BLOB_LEAF_COUNT_SHIFT) + 1u;
    switch (kind_bits >> BLOB_PRIM_KIND_SHIFT) {
        case BLOB_PRIM_SPHERE: {
            const SphereRecord* __restrict__ spheres = params.spheres;
            for (unsigned int i = first; i < end; ++i) {
                float t;
                if (intersect_sphere(__ldg(&spheres[i].center_radius), origin, dir, t_closest, t)) {
                    t_closest = t;
                    closest = kind_bits | i;
                }
            }
            break;
        }
    }
}

// The unit normal pointing out of primitive `prim` at `point` on its surface.
__device__ __forceinline__ float3 outward_normal(unsigned int prim, float3 point) {
    switch (prim_kind(prim)) {
        case BLOB_PRIM_SPHERE:
        default:
            return sphere_normal(__ldg(&params.spheres[prim_index(prim)].center_radius), point);
    }
}

// The material of primitive `prim`: prim_materials holds every kind's primitives,
// kind after kind, so a kind's first one is at kind_first[kind].
__device__ __forceinline__ const MaterialRecord* prim_material(unsigned int prim) {
    // kind_first is a uint4 (the generated LaunchParams has no plain arrays of four).
    const unsigned int* kind_first = reinterpret_cast<const unsigned int*>(&params.kind_first);
    const unsigned int slot = kind_first[prim_kind(prim)] + prim_index(prim);
    return params.materials + __ldg(&params.prim_materials[slot]);
}
