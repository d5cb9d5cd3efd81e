// Next-event estimation: picking a light by power and sampling a direction to it
// (docs/path-tracing.md, "Next-event estimation"; CPU twin: backend/cpu/lights.rs).
#pragma once

#include "blob_layout.cuh"
#include "environment.cuh"
#include "params.cuh"
#include "principled.cuh"
#include "sampling.cuh"
#include "shapes.cuh"
#include "textures.cuh"
#include "traverse.cuh"
#include "vec3.cuh"

// The light the alias table picks for `u` in [0, 1).
__device__ __forceinline__ const LightRecord* pick_light(float u) {
    const unsigned int n = params.light_count;
    const float scaled = u * static_cast<float>(n);
    const unsigned int i = min(static_cast<unsigned int>(scaled), n - 1u);
    const LightRecord* light = params.lights + i;
    return scaled - static_cast<float>(i) < __ldg(&light->alias_threshold) ? light
                                                                           : params.lights + __ldg(&light->alias);
}

// What next-event estimation weighs a light sample with: the BSDF at the hit, Lambert
// of `albedo` (kPrincipledBsdf false) or the Principled `p` seen from `wo` (CPU:
// lights.rs `Bsdf`).
struct NeeBsdf {
    float3 albedo;
    PrincipledParams p;
    float3 wo;
    bool entering;
    // The Principled hit's normals (their `specular` is the `n` NEE is given).
    PrincipledNormals normals;
};

// The BSDF times the cosine towards unit `wi` around shading normal `n` (0 where the
// surface does not reflect there), and the pdf of scattering towards `wi` (for MIS).
// The Lambert case is the arithmetic the kernels had before the Principled BSDF, so its
// registers, and RTIOW's speed, are unchanged.
template <bool kPrincipledBsdf>
__device__ __forceinline__ float3 nee_eval(const NeeBsdf& b, float3 n, float3 wi, float& pdf) {
    if (kPrincipledBsdf) return principled_eval(b.p, b.wo, wi, b.normals, b.entering, pdf);
    const float c = fmaxf(dot(n, wi), 0.0f);
    pdf = c * PT_INV_PI;
    return (b.albedo * PT_INV_PI) * c;
}

// The radiance arriving at surface point `p` (shading normal `n` and geometric normal
// `ng`, both on the side the path came from) from one light sample, times the BSDF and
// cosine, over its pdf. Directions, distances and pdfs are taken at `p`; the shadow ray
// starts at `o`, `p` offset to `ng`'s side; a light below the geometric surface is not
// seen. `rays` counts shadow rays.
__device__ __forceinline__ bool any_positive(float3 v) {
    return v.x > 0.0f || v.y > 0.0f || v.z > 0.0f;
}

template <bool kPrincipledBsdf>
__device__ __forceinline__ float3 direct_light(float3 p, float3 o, float3 n, float3 ng, const NeeBsdf& bsdf,
                                               float u_pick, float u1, float u2, unsigned int& rays) {
    const LightRecord* light = pick_light(u_pick);
    const float4 vector_cos = __ldg(&light->vector_cos);
    const float4 radiance_pdf = __ldg(&light->radiance_pdf);
    const unsigned int kind = __ldg(&light->kind);
    const float3 zero = make_float3(0.0f, 0.0f, 0.0f);
    // Whether the surface can send light from `wi` the path's way at all: a Lambert
    // surface facing it (the test the kernels always had), any Principled lobe.
    const auto faces = [&](float3 wi) {
        return dot(ng, wi) > 0.0f && (kPrincipledBsdf || dot(n, wi) > 0.0f);
    };
    // The BSDF towards wi. Lambert's is evaluated after the shadow ray (its inputs are
    // few, and an occluded sample skips it); a Principled BSDF's before it, so that its
    // four results, not its twenty-odd inputs, live across the traversal, and a sample
    // it sends nothing towards casts no shadow ray (CPU: lights.rs, the same rays). In
    // straight code per light kind: written with lambdas, the Lambert case ran the
    // Cornell box at half speed.
    float bsdf_pdf = 0.0f;
    float3 fc = zero;
    if (kind == BLOB_LIGHT_POINT) {
        const float3 to = xyz(vector_cos) - p;
        const float dist2 = dot(to, to);
        const float dist = sqrtf(dist2);
        const float3 wi = to / dist;
        if (!faces(wi)) return zero;
        if (kPrincipledBsdf) {
            fc = nee_eval<true>(bsdf, n, wi, bsdf_pdf);
            if (!any_positive(fc)) return zero;
        }
        ++rays;
        if (occluded(o, wi, dist, NO_HIT)) return zero;
        if (!kPrincipledBsdf) fc = nee_eval<false>(bsdf, n, wi, bsdf_pdf);
        return fc * xyz(radiance_pdf) / (dist2 * radiance_pdf.w);
    }
    if (kind == BLOB_LIGHT_DIRECTIONAL) {
        const float3 wi = sample_cone(xyz(vector_cos), 1.0f - vector_cos.w, u1, u2);
        if (!faces(wi)) return zero;
        if (kPrincipledBsdf) {
            fc = nee_eval<true>(bsdf, n, wi, bsdf_pdf);
            if (!any_positive(fc)) return zero;
        }
        ++rays;
        if (occluded(o, wi, PT_INFINITY, NO_HIT)) return zero;
        if (!kPrincipledBsdf) fc = nee_eval<false>(bsdf, n, wi, bsdf_pdf);
        return fc * xyz(radiance_pdf) / radiance_pdf.w;
    }
    if (kind == BLOB_LIGHT_ENVIRONMENT) {
        // A scene with an environment runs kernels with `kAppearance` (path.cuh).
        if (!kAppearance) __builtin_unreachable();
        EnvSample es;
        if (!env_sample(u1, u2, es)) return zero;
        if (!faces(es.wi)) return zero;
        if (kPrincipledBsdf) {
            fc = nee_eval<true>(bsdf, n, es.wi, bsdf_pdf);
            if (!any_positive(fc)) return zero;
        }
        ++rays;
        if (occluded(o, es.wi, PT_INFINITY, NO_HIT)) return zero;
        if (!kPrincipledBsdf) fc = nee_eval<false>(bsdf, n, es.wi, bsdf_pdf);
        const float light_pdf = radiance_pdf.w * es.pdf;
        return fc * env_radiance(es.wi) * (light_pdf / (light_pdf * light_pdf + bsdf_pdf * bsdf_pdf));
    }
    if (kind != BLOB_LIGHT_AREA) __builtin_unreachable();
    // An emissive primitive, which samples itself.
    const unsigned int prim = __ldg(&light->prim);
    LightSample ls;
    if (!sample_towards(prim, p, o, u1, u2, ls)) return zero;
    if (!faces(ls.wi)) return zero;
    if (kPrincipledBsdf) {
        fc = nee_eval<true>(bsdf, n, ls.wi, bsdf_pdf);
        if (!any_positive(fc)) return zero;
    }
    ++rays;
    if (occluded(o, ls.wi, ls.t_max, prim)) return zero;
    const float light_pdf = radiance_pdf.w / ls.inv_pdf;
    float3 radiance = xyz(radiance_pdf);
    if (kAppearance && params.textures) {
        // A textured emitter's radiance at the point the shadow ray reaches.
        const MaterialRecord* m = prim_material(prim);
        const uint4 textures = __ldg(&m->textures);
        // A Principled's emission has its own texture; the RTIOW kinds' colour texture
        // colours their emission.
        const bool principled = kPrincipled && __ldg(&m->kind) == BLOB_MATERIAL_PRINCIPLED;
        const unsigned int texture = principled ? textures.z : textures.x;
        if (texture != BLOB_NO_TEXTURE) {
            const Surface at = surface(prim, o, ls.wi, ls.t_max);
            const float2 uv = surface_uv(prim, at);
            radiance = xyz(__ldg(&m->emission_ior)) * texture_eval(texture, at.point, uv.x, uv.y);
        }
    }
    if (!kPrincipledBsdf) fc = nee_eval<false>(bsdf, n, ls.wi, bsdf_pdf);
    return fc * radiance * (light_pdf / (light_pdf * light_pdf + bsdf_pdf * bsdf_pdf));
}
