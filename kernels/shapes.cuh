// Primitive shapes: the one place the kernels dispatch on a primitive's kind
// (CPU twin: renderer/src/backend/cpu/shapes/mod.rs). A leaf link and a hit carry a
// primitive reference, `kind << BLOB_PRIM_KIND_SHIFT | index` (docs/blob-format.md),
// where `index` counts within that kind's record section. Each shape's intersection,
// surface and light sampling live in its own header (shape_sphere.cuh, shape_box.cuh);
// adding a shape adds a hit_prim specialisation and a case in each switch here:
// leaf_hits, surface, sample_towards, pdf_towards, surface_uv. No switch has a default: the blob
// loader refuses kinds it does not know, so none reaches a kernel.
//
// `kMeshes` (features.cuh): whether the module handles triangles. A scene without meshes
// runs a module with no triangle code, whose registers and speed are those of the
// spheres-and-boxes kernels (docs/performance.md, "Choices in the code"). `kAlpha`: the
// any-hit test of alpha-cut surfaces in the leaf loops.
#pragma once

#include "blob_layout.cuh"
#include "params.cuh"
#include "rng.cuh"
#include "textures.cuh"

#define NO_HIT 0xffffffffu

#include "shape_box.cuh"
#include "shape_sphere.cuh"
#include "shape_triangle.cuh"

__device__ __forceinline__ unsigned int prim_kind(unsigned int prim) {
    return (prim & BLOB_PRIM_KIND_MASK) >> BLOB_PRIM_KIND_SHIFT;
}
__device__ __forceinline__ unsigned int prim_index(unsigned int prim) { return prim & BLOB_PRIM_INDEX_MASK; }

// Where a ray leaving `s` towards the side of `w` starts: off the surface along the
// normal by the error bound, so it cannot start on the wrong side (docs/path-tracing.md
// "Robust hits").
__device__ __forceinline__ float3 offset_ray_origin(const Surface& s, float3 w) {
    const float d = dot(fabs3(s.normal), s.error);
    const float3 offset = d * s.normal;
    return s.point + (dot(w, s.normal) < 0.0f ? -offset : offset);
}

// The distance to primitive `i` of kind `kKind` in (0, t_max), written to `t`; false
// on a miss. One specialisation per shape.
template <unsigned int kKind>
__device__ __forceinline__ bool hit_prim(unsigned int i, float3 origin, float3 dir, float t_max, float& t);
template <>
__device__ __forceinline__ bool hit_prim<BLOB_PRIM_SPHERE>(unsigned int i, float3 origin, float3 dir, float t_max,
                                                           float& t) {
    return intersect_sphere(sphere_at(i), origin, dir, t_max, t);
}
template <>
__device__ __forceinline__ bool hit_prim<BLOB_PRIM_TRIANGLE>(unsigned int i, float3 origin, float3 dir, float t_max,
                                                             float& t) {
    // The corners gathered at upload: one record, not the indices and then three vertices.
    const float4* corners = params.triangle_corners + 3 * i;
    const float4 v0 = __ldg(corners), v1 = __ldg(corners + 1), v2 = __ldg(corners + 2);
    float3 b;
    return intersect_triangle(xyz(v0), xyz(v1), xyz(v2), origin, dir, t_max, t, b);
}
template <>
__device__ __forceinline__ bool hit_prim<BLOB_PRIM_BOX>(unsigned int i, float3 origin, float3 dir, float t_max,
                                                        float& t) {
    const BoxRecord* box = box_at(i);
    return intersect_box(__ldg(&box->min), __ldg(&box->max), origin, dir, t_max, t);
}

// Primitives first..end of kind `kKind` against the ray. Closest hit (`kAnyHit` false):
// a closer hit shrinks `t_max` and sets `closest`. Any hit (shadow rays): true at the
// first hit other than `skip`. The loop stays rolled: most leaves hold one primitive,
// and unrolled (by 4, NVRTC's choice) a one-primitive leaf spent more instructions on
// remainder handling than on its test (docs/performance.md, "Choices in the code").
// Whether the ray's hit at `t` on primitive `prim` falls where its material's alpha cuts
// the surface out (defined below, with the materials).
// `replaced`: the material an instance puts in place of the primitive's, or NO_HIT.
__device__ __forceinline__ bool cut_out(unsigned int prim, unsigned int replaced, float3 origin, float3 dir, float t);

template <unsigned int kKind, bool kAnyHit>
__device__ __forceinline__ bool leaf_prims(unsigned int first, unsigned int end, float3 origin, float3 dir,
                                           float& t_max, unsigned int& closest, unsigned int skip,
                                           unsigned int replaced) {
    const unsigned int kind_bits = kKind << BLOB_PRIM_KIND_SHIFT;
#pragma unroll 1
    for (unsigned int i = first; i < end; ++i) {
        float t;
        if (kAnyHit && (kind_bits | i) == skip) continue;
        if (hit_prim<kKind>(i, origin, dir, t_max, t)) {
            // The any-hit test of alpha-cut surfaces, in the kernels with `kAlpha` only.
            if (kAlpha && cut_out(kind_bits | i, replaced, origin, dir, t)) continue;
            if (kAnyHit) return true;
            t_max = t;
            closest = kind_bits | i;
        }
    }
    return false;
}

// The primitives of leaf link `leaf` against the ray, as leaf_prims: the one switch
// over kinds for leaves. A leaf of instances is the traversal's (traverse.cuh).
template <bool kAnyHit>
__device__ __forceinline__ bool leaf_hits(unsigned int leaf, float3 origin, float3 dir, float& t_max,
                                          unsigned int& closest, unsigned int skip, unsigned int replaced = NO_HIT) {
    const unsigned int first = leaf & BLOB_PRIM_INDEX_MASK;
    const unsigned int end = first + ((leaf & BLOB_LEAF_COUNT_MASK) >> BLOB_LEAF_COUNT_SHIFT) + 1u;
    switch ((leaf & BLOB_PRIM_KIND_MASK) >> BLOB_PRIM_KIND_SHIFT) {
        case BLOB_PRIM_SPHERE:
            return leaf_prims<BLOB_PRIM_SPHERE, kAnyHit>(first, end, origin, dir, t_max, closest, skip, replaced);
        case BLOB_PRIM_BOX:
            return leaf_prims<BLOB_PRIM_BOX, kAnyHit>(first, end, origin, dir, t_max, closest, skip, replaced);
        case BLOB_PRIM_TRIANGLE:
            if (!kMeshes) __builtin_unreachable();
            return leaf_prims<BLOB_PRIM_TRIANGLE, kAnyHit>(first, end, origin, dir, t_max, closest, skip, replaced);
    }
    __builtin_unreachable();
}

// The hit of the ray (origin, dir) on primitive `prim` at distance `t`.
__device__ __forceinline__ Surface surface(unsigned int prim, float3 origin, float3 dir, float t) {
    const unsigned int i = prim_index(prim);
    switch (prim_kind(prim)) {
        case BLOB_PRIM_SPHERE:
            return sphere_surface(sphere_at(i), origin, dir, t);
        case BLOB_PRIM_BOX: {
            const BoxRecord* box = box_at(i);
            return box_surface(__ldg(&box->min), __ldg(&box->max), origin, dir, t);
        }
        case BLOB_PRIM_TRIANGLE: {
            if (!kMeshes) __builtin_unreachable();
            // The closest-hit search hit it at `t`, so the test, run again with no bound,
            // gives its barycentrics.
            const TriangleVertices tri = triangle_at(i);
            float t_hit;
            float3 b = make_float3(1.0f / 3.0f, 1.0f / 3.0f, 1.0f / 3.0f);
            intersect_triangle(tri.v0, tri.v1, tri.v2, origin, dir, PT_INFINITY, t_hit, b);
            return triangle_surface(tri, b);
        }
    }
    __builtin_unreachable();
}

// Next-event estimation: a direction from surface point `p` towards emissive primitive
// `prim`, for a shadow ray from `o` (`p` offset off its surface); false when `p` sees
// none of it.
__device__ __forceinline__ bool sample_towards(unsigned int prim, float3 p, float3 o, float u1, float u2,
                                               LightSample& s) {
    const unsigned int i = prim_index(prim);
    switch (prim_kind(prim)) {
        case BLOB_PRIM_SPHERE:
            return sphere_sample(sphere_at(i), p, o, u1, u2, s);
        case BLOB_PRIM_BOX: {
            const BoxRecord* box = box_at(i);
            return box_sample(__ldg(&box->min), __ldg(&box->max), p, o, u1, u2, s);
        }
        case BLOB_PRIM_TRIANGLE: {
            if (!kMeshes) __builtin_unreachable();
            const TriangleVertices tri = triangle_at(i);
            return triangle_sample(tri.v0, tri.v1, tri.v2, p, o, u1, u2, s);
        }
    }
    __builtin_unreachable();
}

// The solid-angle density with which light sampling from `from` picks the direction
// that reaches `hit` on primitive `prim`, given that its light was picked.
__device__ __forceinline__ float pdf_towards(unsigned int prim, float3 from, const Surface& hit) {
    const unsigned int i = prim_index(prim);
    switch (prim_kind(prim)) {
        case BLOB_PRIM_SPHERE:
            return sphere_solid_angle_pdf(sphere_at(i), from);
        case BLOB_PRIM_BOX: {
            const BoxRecord* box = box_at(i);
            return box_pdf_towards(__ldg(&box->min), __ldg(&box->max), from, hit);
        }
        case BLOB_PRIM_TRIANGLE: {
            if (!kMeshes) __builtin_unreachable();
            const TriangleVertices tri = triangle_at(i);
            return triangle_pdf_towards(tri.v0, tri.v1, tri.v2, from, hit);
        }
    }
    __builtin_unreachable();
}

// The texture coordinates of `hit` on primitive `prim` (docs/path-tracing.md, "Textures").
__device__ __forceinline__ float2 surface_uv(unsigned int prim, const Surface& hit) {
    const unsigned int i = prim_index(prim);
    switch (prim_kind(prim)) {
        case BLOB_PRIM_SPHERE:
            return sphere_uv(hit.normal);
        case BLOB_PRIM_BOX: {
            const BoxRecord* box = box_at(i);
            return box_uv(__ldg(&box->min), __ldg(&box->max), hit);
        }
        case BLOB_PRIM_TRIANGLE: {
            if (!kMeshes) __builtin_unreachable();
            return triangle_uv(triangle_at(i), hit.point);
        }
    }
    __builtin_unreachable();
}

// The directions in which surface_uv's u and v grow at `hit` on primitive `prim`, not
// normalised: a normal map's tangent frame (CPU: `CpuShape::dpduv`).
__device__ __forceinline__ void surface_dpduv(unsigned int prim, const Surface& hit, float3& dpdu, float3& dpdv) {
    const unsigned int i = prim_index(prim);
    switch (prim_kind(prim)) {
        case BLOB_PRIM_SPHERE: {
            const float3 n = hit.normal;
            dpdu = make_float3(-n.z, 0.0f, n.x);
            dpdv = cross(n, dpdu);
            return;
        }
        case BLOB_PRIM_BOX: {
            const float3 n = fabs3(hit.normal);
            dpdu = n.x > 0.5f ? make_float3(0.0f, 0.0f, 1.0f) : make_float3(1.0f, 0.0f, 0.0f);
            dpdv = n.y > 0.5f ? make_float3(0.0f, 0.0f, 1.0f) : make_float3(0.0f, -1.0f, 0.0f);
            return;
        }
        case BLOB_PRIM_TRIANGLE: {
            if (!kMeshes) __builtin_unreachable();
            triangle_dpduv(triangle_at(i), i, hit, dpdu, dpdv);
            return;
        }
    }
    __builtin_unreachable();
}

// The slot of primitive `prim` in the per-primitive sections: every kind's primitives,
// kind after kind, so a kind's first one is at kind_first[kind].
__device__ __forceinline__ unsigned int prim_slot(unsigned int prim) {
    // kind_first has PrimKind::USED lanes (a uint4 for four: the generated LaunchParams
    // has no plain arrays of four), one per kind value a validated blob's references hold.
    static_assert(sizeof(LaunchParams::kind_first) == BLOB_PRIM_KINDS_USED * sizeof(unsigned int), "kind_first drift");
    const unsigned int* kind_first = reinterpret_cast<const unsigned int*>(&params.kind_first);
    return kind_first[prim_kind(prim)] + prim_index(prim);
}

// The material of primitive `prim`.
__device__ __forceinline__ const MaterialRecord* prim_material(unsigned int prim) {
    return params.materials + __ldg(&params.prim_materials[prim_slot(prim)]);
}

// Alpha-cut surfaces (docs/path-tracing.md, "Alpha"): the hit is cut out where the
// material's alpha (its `alpha` times its colour texture's) is below the cutoff (Mask),
// or below a number the ray hashes to (Blend: transparent with probability 1 - alpha).
__device__ __forceinline__ bool cut_out(unsigned int prim, unsigned int replaced, float3 origin, float3 dir,
                                        float t) {
    const MaterialRecord* m = replaced != NO_HIT ? params.materials + replaced : prim_material(prim);
    const unsigned int mode = __ldg(&m->alpha_mode);
    if (mode == BLOB_ALPHA_OPAQUE) return false;
    // The blob loader refuses alpha modes it does not know.
    if (mode != BLOB_ALPHA_MASK && mode != BLOB_ALPHA_BLEND) __builtin_unreachable();
    const float threshold = mode == BLOB_ALPHA_MASK ? __ldg(&m->alpha_cutoff) : ray_hash(origin, dir, prim);
    float alpha = __ldg(&m->pbr).w;
    const unsigned int colour = __ldg(&m->textures).x;
    if (colour != BLOB_NO_TEXTURE) {
        const Surface hit = surface(prim, origin, dir, t);
        const float2 uv = surface_uv(prim, hit);
        alpha *= texture_eval4(colour, hit.point, uv.x, uv.y).w;
    }
    return alpha < threshold;
}
