// One camera sample, docs/path-tracing.md "One sample" (CPU: integrator.rs
// `trace_sample`). The bounce loop is split into start_path / extend_path /
// sample_value so that render.cu can run it either one sample after another
// (trace_sample) or with path regeneration; both make the same draws in the same order.
#pragma once

#include "camera.cuh"
#include "constants.cuh"
#include "denoise_params.cuh"
#include "film.cuh"
#include "lights.cuh"
#include "params.cuh"
#include "rng.cuh"
#include "sampler.cuh"
#include "scatter.cuh"
#include "shading.cuh"
#include "shapes.cuh"
#include "textures.cuh"
#include "traverse.cuh"
#include "vec3.cuh"

// RR_START_DEPTH (constants.cuh): Russian roulette starts once a path has that many
// segments (depth + 1), docs/path-tracing.md.

// A path in flight: the next segment to trace and what the path carries so far.
struct Path {
    float3 origin;
    float3 dir;
    float3 throughput;
    float3 radiance;
    // The sample's random numbers (sampler.cuh): the PCG stream or the Sobol sampler.
    Sampler sampler;
    // Segments traced so far; the spec's loop variable.
    unsigned int depth;
    // The solid-angle pdf of the last bounce's direction; 0 after the camera or a
    // specular bounce, where an emitter counts fully (MIS, docs/path-tracing.md).
    float bsdf_pdf;
    // The surface point the last bounce left from: light pdfs are taken there.
    float3 bounce_point;
    // The product of eta² over the refractions so far (1 without any; kPrincipled only).
    float eta_scale;
    // kAovs only (CPU: integrator.rs, denoise/mod.rs `AovSample`): the albedo and facing
    // shading normal of the first hit that is not a delta lobe, the camera distance of
    // the first hit, and whether the albedo is still to be found.
    float3 aov_albedo;
    float3 aov_normal;
    float aov_depth;
    bool aov_open;
};

// The camera ray of sample `sample_index` of pixel (x, y), with its own sampler.
__device__ __forceinline__ Path start_path(unsigned int x, unsigned int y, unsigned int pixel_index,
                                           unsigned int sample_index, unsigned int seed_hash) {
    Path p;
    p.sampler = sampler_init(pixel_index, sample_index, seed_hash);
    const Ray ray = generate_camera_ray(x, y, p.sampler);
    p.origin = ray.origin;
    p.dir = ray.dir;
    p.throughput = make_float3(1.0f, 1.0f, 1.0f);
    p.radiance = make_float3(0.0f, 0.0f, 0.0f);
    p.depth = 0;
    p.bsdf_pdf = 0.0f;
    p.bounce_point = make_float3(0.0f, 0.0f, 0.0f);
    p.eta_scale = 1.0f;
    if (kAovs) {
        // A sample below AOV_RAY_SAMPLES takes its albedo, normal and depth from its AOV
        // rays (trace_aov_rays): its path records none, and adds zeros (add_sample_aov).
        p.aov_open = sample_index >= AOV_RAY_SAMPLES;
        p.aov_albedo = make_float3(0.0f, 0.0f, 0.0f);
        p.aov_normal = make_float3(0.0f, 0.0f, 0.0f);
        p.aov_depth = p.aov_open ? MISS_DEPTH : 0.0f;
    }
    return p;
}

// A material at a hit, after its textures: what shading reads (CPU: scene.rs
// `Material::textured`).
struct Shade {
    float4 albedo_roughness;
    float4 emission_ior;
    // Principled: metallic, transmission, normal scale, alpha.
    float4 pbr;
    unsigned int kind;
};

// A textured material's parameters times its textures at the hit (untouched without a
// texture): the colour texture multiplies the albedo (and the RTIOW kinds' emission), a
// Principled's metallic-roughness texture its metallic (B) and roughness (G), its
// emission texture its emission; its normal map bends `ns` in the surface's tangent
// frame. A blob without textures has no textures section (a null pointer), which skips
// even the material's texture load.
//
// `local`: the hit where its primitive's own tests read it (for a hit on instance
// `inst`, its bottom level's space; else `s` itself), which gives the coordinates and the
// tangent frame; the frame is brought to the world through `inst`.
__device__ __forceinline__ void textured(const MaterialRecord* m, unsigned int prim, const Surface& s,
                                         const Surface& local, const InstanceRecord* inst, Shade& sh, float3& ns) {
    if (!params.textures) return;
    const uint4 slots = __ldg(&m->textures);
    if ((slots.x & slots.y & slots.z & slots.w) == BLOB_NO_TEXTURE) return;
    const float2 uv = surface_uv(prim, local);
    const bool principled = kPrincipled && sh.kind == BLOB_MATERIAL_PRINCIPLED;
    if (slots.x != BLOB_NO_TEXTURE) {
        const float4 c = texture_eval4(slots.x, s.point, uv.x, uv.y);
        sh.albedo_roughness = make_float4(sh.albedo_roughness.x * c.x, sh.albedo_roughness.y * c.y,
                                          sh.albedo_roughness.z * c.z, sh.albedo_roughness.w);
        if (principled) {
            sh.pbr.w *= c.w;
        } else {
            sh.emission_ior = make_float4(sh.emission_ior.x * c.x, sh.emission_ior.y * c.y, sh.emission_ior.z * c.z,
                                          sh.emission_ior.w);
        }
    }
    if (!principled) return;
    if (slots.y != BLOB_NO_TEXTURE) {
        const float3 mr = texture_eval(slots.y, s.point, uv.x, uv.y);
        sh.albedo_roughness.w *= mr.y;
        sh.pbr.x *= mr.z;
    }
    if (slots.z != BLOB_NO_TEXTURE) {
        const float3 e = texture_eval(slots.z, s.point, uv.x, uv.y);
        sh.emission_ior = make_float4(sh.emission_ior.x * e.x, sh.emission_ior.y * e.y, sh.emission_ior.z * e.z,
                                      sh.emission_ior.w);
    }
    if (slots.w != BLOB_NO_TEXTURE) {
        float3 dpdu, dpdv;
        surface_dpduv(prim, local, dpdu, dpdv);
        if (kInstances && inst) {
            dpdu = instance_dir_to_world(inst, dpdu);
            dpdv = instance_dir_to_world(inst, dpdv);
        }
        ns = normal_mapped(texture_eval(slots.w, s.point, uv.x, uv.y), sh.pbr.z, ns, dpdu, dpdv);
    }
}

// A Principled material's BSDF parameters.
__device__ __forceinline__ PrincipledParams principled_params(const Shade& sh) {
    PrincipledParams p;
    p.base_color = xyz(sh.albedo_roughness);
    p.metallic = sh.pbr.x;
    p.roughness = sh.albedo_roughness.w;
    p.ior = sh.emission_ior.w;
    p.transmission = sh.pbr.y;
    return p;
}

// The albedo AOV of a material at a hit (CPU: integrator.rs `aov_albedo`): false for a
// delta lobe (a mirror, glass), which the AOVs look through; else `value` is the albedo
// of its diffuse or glossy lobe, or the emission (at most 1) of an emitter that does not
// scatter, whose albedo would be 0.
__device__ __forceinline__ bool aov_albedo(const Shade& sh, bool principled, float3& value) {
    const float3 albedo = xyz(sh.albedo_roughness);
    bool delta;
    value = albedo;
    if (principled) {
        delta = principled_is_delta(principled_params(sh));
    } else if (sh.kind == BLOB_MATERIAL_METAL) {
        delta = sh.albedo_roughness.w <= 0.0f;
    } else if (sh.kind == BLOB_MATERIAL_DIELECTRIC) {
        delta = true;
    } else {
        // Lambert or Emissive: the blob loader refuses kinds it does not know.
        if (sh.kind != BLOB_MATERIAL_LAMBERT && sh.kind != BLOB_MATERIAL_EMISSIVE) __builtin_unreachable();
        delta = false;
        if (sh.kind == BLOB_MATERIAL_EMISSIVE && !emitter_scatters(albedo)) {
            value = fminf3(xyz(sh.emission_ior), 1.0f);
        }
    }
    return !delta;
}

// The path's AOVs at a hit: the camera distance of the first hit; the albedo and normal
// of the first that is not a delta lobe.
__device__ __forceinline__ void record_aov(Path& p, const Shade& sh, float3 normal, bool principled, float t) {
    if (p.depth == 0) p.aov_depth = t;
    float3 value;
    if (!aov_albedo(sh, principled, value)) return;
    p.aov_albedo = value;
    p.aov_normal = normal;
    p.aov_open = false;
}

// The surface of `hit`, reached by the ray (origin, dir), in the world; `local` is where
// its primitive's own tests read it, `inst` its instance (null on the world's own
// primitives). A hit on an instance is computed in its bottom level's space and
// brought to the world (instances.cuh).
__device__ __forceinline__ Surface hit_surface(const Hit& hit, float3 origin, float3 dir, Surface& local,
                                               const InstanceRecord*& inst) {
    inst = nullptr;
    if (kInstances && hit.instance != NO_HIT) {
        inst = instance_at(hit.instance);
        float3 o, d;
        instance_ray(inst, origin, dir, o, d);
        local = surface(hit.prim, o, d, hit.t);
        return instance_surface_to_world(inst, local);
    }
    local = surface(hit.prim, origin, dir, hit.t);
    return local;
}

// The material of `hit` on instance `inst` (or null): the instance's, when it replaces
// its triangles', else the primitive's.
__device__ __forceinline__ const MaterialRecord* hit_material(const Hit& hit, const InstanceRecord* inst) {
    const unsigned int replaced = kInstances && inst ? instance_material(hit.instance) : NO_HIT;
    return replaced != NO_HIT ? params.materials + replaced : prim_material(hit.prim);
}

// A hit made ready to shade (CPU: integrator.rs `shade_hit`): its surface, the side the
// ray came from, the material after its textures and the normals that shade.
struct ShadedHit {
    Surface s;
    // The geometric normal facing the ray: it decides sides and offsets.
    float3 n;
    // Scattering and NEE shade with this (a Principled material's: normals.specular).
    float3 ns;
    Shade sh;
    // A Principled material's normals (set only for one).
    PrincipledNormals normals;
    bool front_face;
    bool principled;
};

// The hit `hit` of the ray (origin, dir), unit `dir`, made ready to shade: what
// extend_path does at a hit before it shades, the same steps.
__device__ __forceinline__ ShadedHit shade_hit(const Hit& hit, float3 origin, float3 dir) {
    ShadedHit h;
    Surface local;
    const InstanceRecord* inst;
    h.s = hit_surface(hit, origin, dir, local, inst);
    h.front_face = dot(dir, h.s.normal) < 0.0f;
    h.n = h.front_face ? h.s.normal : -h.s.normal;
    h.ns = h.front_face ? h.s.shading : -h.s.shading;
    const MaterialRecord* __restrict__ m = hit_material(hit, inst);
    h.sh.emission_ior = __ldg(&m->emission_ior);
    h.sh.albedo_roughness = __ldg(&m->albedo_roughness);
    h.sh.kind = __ldg(&m->kind);
    h.sh.pbr = kPrincipled ? __ldg(&m->pbr) : make_float4(0.0f, 0.0f, 1.0f, 1.0f);
    if (kAppearance) textured(m, hit.prim, h.s, local, inst, h.sh, h.ns);
    h.principled = kPrincipled && h.sh.kind == BLOB_MATERIAL_PRINCIPLED;
    if (h.principled) {
        h.normals.smooth = h.front_face ? h.s.shading : -h.s.shading;
        h.normals.diffuse = h.ns;
        h.ns = valid_shading_normal(h.n, -dir, h.ns);
        h.normals.specular = h.ns;
    }
    return h;
}

// One iteration of the spec's bounce loop at depth `p.depth` (the caller checks
// max_depth and increments it): traverse, shade, scatter, next-event estimation,
// Russian roulette. False when the path ended here. `rays` counts closest-hit and
// shadow queries.
//
// `kNee` compiles next-event estimation and MIS in (render_lit) or out (render): a
// scene without lights runs a kernel with none of that code, whose registers and
// local memory are those of the plain path tracer (compiled in and skipped at run time,
// the light code slowed RTIOW by a tenth: docs/performance.md, "Choices in the code").
// The scene features (features.cuh: kMeshes, kAppearance, kPrincipled, kAlpha, kSuns) do the
// same per module: a scene runs a module compiled with exactly the features it uses
// (carried where they were not used, textures cost a scene of triangles alone 8 %:
// docs/performance.md, "Choices in the code").
//
// extend_path_at takes the segment's closest hit `hit` from its caller (render.cu's
// packets and sorted bounces trace it their own way); extend_path traces it.
template <bool kNee>
__device__ __forceinline__ bool extend_path_at(Path& p, const Hit& hit, unsigned int& rays) {
    if (hit.prim == NO_HIT) {
        float weight = 1.0f;
        // MIS: next-event estimation could have drawn this direction (env_rotation_pdf.z,
        // the environment's pick probability, is 0 without one or with NEE off).
        if (kNee && kAppearance && p.bsdf_pdf > 0.0f && params.env_rotation_pdf.z > 0.0f) {
            const float light_pdf = params.env_rotation_pdf.z * env_pdf(p.dir);
            weight = p.bsdf_pdf * p.bsdf_pdf / (p.bsdf_pdf * p.bsdf_pdf + light_pdf * light_pdf);
        }
        const float3 sky_radiance = sky(p.dir);
        if (kAovs && p.aov_open) {
            p.aov_albedo = fminf3(sky_radiance, 1.0f);
            p.aov_open = false;
        }
        p.radiance += p.throughput * sky_radiance * weight;
        // A sun that NEE could have drawn along this direction is NEE's.
        if (kSuns && (!kNee || p.bsdf_pdf == 0.0f)) {
            for (unsigned int i = 0; i < params.sun_count; ++i) {
                const float4 sun = params.sun_towards_cos[i];
                if (dot(p.dir, make_float3(sun.x, sun.y, sun.z)) >= sun.w) {
                    const float4 l = params.sun_radiance[i];
                    p.radiance += p.throughput * make_float3(l.x, l.y, l.z);
                }
            }
        }
        return false;
    }
    // The steps of shade_hit (which the AOV rays call), written out here so that the
    // path loop compiles to the code it did before AOV rays.
    Surface local;
    const InstanceRecord* inst;
    const Surface s = hit_surface(hit, p.origin, p.dir, local, inst);
    const bool front_face = dot(p.dir, s.normal) < 0.0f;
    const float3 n = front_face ? s.normal : -s.normal;
    // Scattering and NEE shade with this; `n` decides sides and offsets.
    float3 ns = front_face ? s.shading : -s.shading;
    const MaterialRecord* __restrict__ m = hit_material(hit, inst);
    float weight = 1.0f;
    if (kNee && p.bsdf_pdf > 0.0f) {
        // Null when no primitive is a light.
        const float pick_pdf = params.prim_light_pdfs ? __ldg(&params.prim_light_pdfs[prim_slot(hit.prim)]) : 0.0f;
        if (pick_pdf > 0.0f) {
            const float light_pdf = pick_pdf * pdf_towards(hit.prim, p.bounce_point, s);
            weight = p.bsdf_pdf * p.bsdf_pdf / (p.bsdf_pdf * p.bsdf_pdf + light_pdf * light_pdf);
        }
    }
    Shade sh;
    sh.emission_ior = __ldg(&m->emission_ior);
    sh.albedo_roughness = __ldg(&m->albedo_roughness);
    sh.kind = __ldg(&m->kind);
    sh.pbr = kPrincipled ? __ldg(&m->pbr) : make_float4(0.0f, 0.0f, 1.0f, 1.0f);
    if (kAppearance) textured(m, hit.prim, s, local, inst, sh, ns);
    const bool principled = kPrincipled && sh.kind == BLOB_MATERIAL_PRINCIPLED;
    PrincipledNormals normals;
    if (principled) {
        normals.smooth = front_face ? s.shading : -s.shading;
        normals.diffuse = ns;
        ns = valid_shading_normal(n, -p.dir, ns);
        normals.specular = ns;
    }
    if (kAovs && p.aov_open) record_aov(p, sh, principled ? normals.diffuse : ns, principled, hit.t);
    p.radiance += p.throughput * xyz(sh.emission_ior) * weight;
    const ScatterRandoms r = draw_scatter_randoms(p.sampler, p.depth);
    const Bounce bounce = principled ? scatter_principled(principled_params(sh), p.dir, normals, front_face, r)
                                     : scatter(sh.kind, sh.albedo_roughness, sh.emission_ior.w, p.dir, ns, front_face, r);
    // A Principled hit's next-event estimation does not depend on the scattered direction:
    // it runs even when that direction ends the path (a rough lobe's sample below the
    // horizon), or those hits would lose their direct light (CPU: integrator.rs). Lights
    // are sampled on the side the path came from.
    if (kNee && principled && !principled_is_delta(principled_params(sh))) {
        const float u_pick = sample_dim(p.sampler, bounce_dim(p.depth, DIM_NEE_PICK));
        const float u1 = sample_dim(p.sampler, bounce_dim(p.depth, DIM_NEE_U1));
        const float u2 = sample_dim(p.sampler, bounce_dim(p.depth, DIM_NEE_U2));
        NeeBsdf nb;
        nb.p = principled_params(sh);
        nb.wo = -p.dir;
        nb.entering = principled_entering(nb.p, front_face);
        nb.normals = normals;
        p.radiance +=
            p.throughput * direct_light<true>(s.point, offset_ray_origin(s, n), ns, n, nb, u_pick, u1, u2, rays);
    }
    if (bounce.absorbed) return false;
    // Around a shading normal a direction can leave on the wrong side of the surface (a
    // reflection into it, a refraction out of it): the path ends, so no light leaks
    // through (with ns == n a diffuse bounce never does).
    if (bounce.diffuse && dot(bounce.dir, n) <= 0.0f) return false;
    if (kPrincipled && bounce.principled && bounce.transmitted == (dot(bounce.dir, n) > 0.0f)) return false;
    const float3 next_origin = offset_ray_origin(s, bounce.diffuse ? n : bounce.dir);
    p.bsdf_pdf = 0.0f;
    if (kNee && bounce.diffuse) {
        const float u_pick = sample_dim(p.sampler, bounce_dim(p.depth, DIM_NEE_PICK));
        const float u1 = sample_dim(p.sampler, bounce_dim(p.depth, DIM_NEE_U1));
        const float u2 = sample_dim(p.sampler, bounce_dim(p.depth, DIM_NEE_U2));
        NeeBsdf nb;
        nb.albedo = xyz(sh.albedo_roughness);
        p.radiance += p.throughput * direct_light<false>(s.point, next_origin, ns, n, nb, u_pick, u1, u2, rays);
        p.bsdf_pdf = fmaxf(dot(bounce.dir, ns), 0.0f) * PT_INV_PI;
    }
    // A refracted bounce reaches emitters NEE, on the near side, could not have drawn:
    // they count fully (bsdf_pdf 0).
    if (kNee && kPrincipled && bounce.principled && !bounce.transmitted) p.bsdf_pdf = bounce.pdf;
    p.throughput *= bounce.attenuation;
    const float max_throughput = max_component(p.throughput);
    // Nothing more can be added to this path: stopping is unbiased.
    if (max_throughput == 0.0f) return false;
    if (kPrincipled && bounce.transmitted) {
        const float ior = sh.emission_ior.w;
        const float eta = front_face ? ior : 1.0f / ior;
        p.eta_scale *= eta * eta;
    }
    if (p.depth + 1 >= RR_START_DEPTH) {
        // Roulette on the throughput without the 1 / eta² of refractions (pbrt-v4's
        // `etaScale`; CPU: integrator.rs).
        const float q = fminf(kPrincipled ? max_throughput * p.eta_scale : max_throughput, 1.0f);
        if (sample_dim(p.sampler, bounce_dim(p.depth, DIM_ROULETTE)) >= q) return false;
        p.throughput = p.throughput / q;
    }
    p.origin = next_origin;
    p.dir = bounce.dir;
    p.bounce_point = s.point;
    return true;
}

template <bool kNee>
__device__ __forceinline__ bool extend_path(Path& p, unsigned int& rays) {
    ++rays;
    return extend_path_at<kNee>(p, traverse(p.origin, p.dir), rays);
}

// The finished sample: its radiance, or black when a component is not finite (a NaN
// never poisons a pixel).
__device__ __forceinline__ float3 sample_value(const Path& p) {
    return all_finite(p.radiance) ? p.radiance : make_float3(0.0f, 0.0f, 0.0f);
}

// Adds a finished sample's AOVs (its `value` from sample_value) to a pixel's sums: the
// squared luminance, and the albedo, normal and depth its path recorded (zeros for a
// sample whose AOV rays add them: start_path).
__device__ __forceinline__ void add_sample_aov(AovSum& s, const Path& p, float3 value) {
    const float l = LUMINANCE_R * value.x + LUMINANCE_G * value.y + LUMINANCE_B * value.z;
    s.albedo_depth.x += p.aov_albedo.x;
    s.albedo_depth.y += p.aov_albedo.y;
    s.albedo_depth.z += p.aov_albedo.z;
    s.albedo_depth.w += p.aov_depth;
    s.normal_l2.x += p.aov_normal.x;
    s.normal_l2.y += p.aov_normal.y;
    s.normal_l2.z += p.aov_normal.z;
    s.normal_l2.w += l * l;
}

// Adds the ended path `p`'s sample to a pixel's sums: its value (sample_value) to `sum`,
// its AOVs to `aov`.
__device__ __forceinline__ void add_sample(const Path& p, float3& sum, AovSum& aov) {
    const float3 value = sample_value(p);
    sum += value;
    if (kAovs) add_sample_aov(aov, p, value);
}

// The AOVs of one camera ray (CPU: aov.rs `trace_aov_ray`): the depth of its first hit,
// the albedo and normal of the first hit that is not a delta lobe, mirrors and glass
// followed as a path follows them (their scatter, with this ray's numbers), with no
// shading, light or roulette; where the ray escapes, the sky's radiance at most 1. Up
// to max_depth segments, as a path. Adds them to the sums `albedo`, `normal`, `depth`.
__device__ __forceinline__ void trace_aov_ray(unsigned int x, unsigned int y, Sampler& sampler, float3& albedo,
                                              float3& normal, float& depth, unsigned int& rays) {
    Ray ray = generate_camera_ray(x, y, sampler);
    float3 a = make_float3(0.0f, 0.0f, 0.0f);
    float3 nrm = make_float3(0.0f, 0.0f, 0.0f);
    float t = MISS_DEPTH;
    for (unsigned int d = 0; d < params.max_depth; ++d) {
        ++rays;
        const Hit hit = traverse(ray.origin, ray.dir);
        if (hit.prim == NO_HIT) {
            a = fminf3(sky(ray.dir), 1.0f);
            break;
        }
        const ShadedHit h = shade_hit(hit, ray.origin, ray.dir);
        if (d == 0) t = hit.t;
        float3 value;
        if (aov_albedo(h.sh, h.principled, value)) {
            a = value;
            nrm = h.principled ? h.normals.diffuse : h.ns;
            break;
        }
        const ScatterRandoms r = draw_scatter_randoms(sampler, d);
        const Bounce bounce = h.principled ? scatter_principled(principled_params(h.sh), ray.dir, h.normals,
                                                                h.front_face, r)
                                           : scatter(h.sh.kind, h.sh.albedo_roughness, h.sh.emission_ior.w, ray.dir,
                                                     h.ns, h.front_face, r);
        if (bounce.absorbed) break;
        // As the path: a delta bounce that leaves on the wrong side of the surface ends it.
        if (kPrincipled && bounce.principled && bounce.transmitted == (dot(bounce.dir, h.n) > 0.0f)) break;
        ray.origin = offset_ray_origin(h.s, bounce.dir);
        ray.dir = bounce.dir;
    }
    albedo += a;
    normal += nrm;
    depth += t;
}

// The seed hash of the AOV rays' sampler, from the frame's pcg_hash(seed) (CPU: aov.rs
// `aov_seed_hash`): a sampler of their own, so the beauty draws what it draws without
// AOVs.
__device__ __forceinline__ unsigned int aov_seed_hash(unsigned int seed_hash) { return pcg_hash(seed_hash ^ AOV_SEED); }

// Adds the AOVs of sample `sample_index`, a sample below AOV_RAY_SAMPLES, to a pixel's
// sums (CPU: aov.rs `trace_aov_rays`): the average of AOV_RAYS AOV rays, ray k sample
// `sample_index * AOV_RAYS + k` of the AOV rays' sampler (one sequence over the pixel's
// samples; with Sobol points a net of samples x AOV_RAYS positions in the pixel).
__device__ __forceinline__ void trace_aov_rays(AovSum& s, unsigned int x, unsigned int y, unsigned int pixel_index,
                                               unsigned int sample_index, unsigned int aov_seed, unsigned int& rays) {
    float3 albedo = make_float3(0.0f, 0.0f, 0.0f);
    float3 normal = make_float3(0.0f, 0.0f, 0.0f);
    float depth = 0.0f;
    for (unsigned int k = 0; k < AOV_RAYS; ++k) {
        Sampler sampler = sampler_init(pixel_index, sample_index * AOV_RAYS + k, aov_seed);
        trace_aov_ray(x, y, sampler, albedo, normal, depth, rays);
    }
    const float inv = 1.0f / (float)AOV_RAYS;
    s.albedo_depth.x += albedo.x * inv;
    s.albedo_depth.y += albedo.y * inv;
    s.albedo_depth.z += albedo.z * inv;
    s.albedo_depth.w += depth * inv;
    s.normal_l2.x += normal.x * inv;
    s.normal_l2.y += normal.y * inv;
    s.normal_l2.z += normal.z * inv;
}

// The AOV rays of the samples `first_sample .. first_sample + samples` of a pixel that
// are below AOV_RAY_SAMPLES: all lanes of a warp trace them together, before their paths.
// Not inlined (it runs once per pixel and launch): its registers are allocated apart
// from the path loop's, which compiles as it did without AOV rays.
__device__ __noinline__ void trace_pixel_aov_rays(AovSum& s, unsigned int x, unsigned int y,
                                                     unsigned int pixel_index, unsigned int first_sample,
                                                     unsigned int samples, unsigned int seed_hash,
                                                     unsigned int& rays) {
    const unsigned int aov_seed = aov_seed_hash(seed_hash);
    const unsigned int end = first_sample + samples < AOV_RAY_SAMPLES ? first_sample + samples : AOV_RAY_SAMPLES;
    for (unsigned int i = first_sample; i < end; ++i) trace_aov_rays(s, x, y, pixel_index, i, aov_seed, rays);
}

// One whole camera sample, as the CPU's trace_sample.
template <bool kNee>
__device__ __forceinline__ float3 trace_sample(unsigned int x, unsigned int y, unsigned int pixel_index,
                                               unsigned int sample_index, unsigned int seed_hash,
                                               unsigned int& rays, AovSum& aov) {
    Path p = start_path(x, y, pixel_index, sample_index, seed_hash);
    while (p.depth < params.max_depth && extend_path<kNee>(p, rays)) ++p.depth;
    const float3 value = sample_value(p);
    if (kAovs) add_sample_aov(aov, p, value);
    return value;
}
