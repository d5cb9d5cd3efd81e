// One camera sample, docs/path-tracing.md "One sample" (CPU: integrator.rs
// `trace_sample`). The bounce loop is split into start_path / extend_path /
// sample_value so that render.cu can run it either one sample after another
// (trace_sample) or with path regeneration; both make the same draws in the same order.
#pragma once

#include "camera.cuh"
#include "constants.cuh"
#include "lights.cuh"
#include "params.cuh"
#include "rng.cuh"
#include "scatter.cuh"
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
    Rng rng;
    // Segments traced so far; the spec's loop variable.
    unsigned int depth;
    // The solid-angle pdf of the last bounce's direction; 0 after the camera or a
    // specular bounce, where an emitter counts fully (MIS, docs/path-tracing.md).
    float bsdf_pdf;
    // The surface point the last bounce left from: light pdfs are taken there.
    float3 bounce_point;
};

// The camera ray of sample `sample_index` of pixel (x, y), with its own random stream.
__device__ __forceinline__ Path start_path(unsigned int x, unsigned int y, unsigned int pixel_index,
                                           unsigned int sample_index, unsigned int seed_hash) {
    Path p;
    p.rng = rng_init(pixel_index, sample_index, seed_hash);
    const Ray ray = generate_camera_ray(x, y, p.rng);
    p.origin = ray.origin;
    p.dir = ray.dir;
    p.throughput = make_float3(1.0f, 1.0f, 1.0f);
    p.radiance = make_float3(0.0f, 0.0f, 0.0f);
    p.depth = 0;
    p.bsdf_pdf = 0.0f;
    p.bounce_point = make_float3(0.0f, 0.0f, 0.0f);
    return p;
}

// A textured material's albedo and emission times its texture at the hit (untouched
// without a texture). A blob without textures has no textures section (a null
// pointer), which skips even the material's texture load.
__device__ __forceinline__ void textured(const MaterialRecord* m, unsigned int prim, const Surface& s,
                                         float4& albedo_roughness, float4& emission_ior) {
    if (!params.textures) return;
    const unsigned int texture = __ldg(&m->texture);
    if (texture == BLOB_NO_TEXTURE) return;
    const float2 uv = surface_uv<true>(prim, s);
    const float3 c = texture_eval(texture, s.point, uv.x, uv.y);
    albedo_roughness = make_float4(albedo_roughness.x * c.x, albedo_roughness.y * c.y, albedo_roughness.z * c.z,
                                   albedo_roughness.w);
    emission_ior = make_float4(emission_ior.x * c.x, emission_ior.y * c.y, emission_ior.z * c.z, emission_ior.w);
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
// `kMeshes` does the same for triangles (shapes.cuh), `kAppearance` for textures and
// the environment sky: the `_appearance` kernels (and `_full`, with the triangle code)
// run every scene with either; carried in the `_meshes` kernels they cost a scene of
// triangles alone 8 % (docs/performance.md, "Choices in the code").
template <bool kNee, bool kMeshes, bool kAppearance>
__device__ __forceinline__ bool extend_path(Path& p, unsigned int& rays) {
    ++rays;
    const Hit hit = traverse<kMeshes>(p.origin, p.dir);
    if (hit.prim == NO_HIT) {
        float weight = 1.0f;
        // MIS: next-event estimation could have drawn this direction (env_rotation_pdf.z,
        // the environment's pick probability, is 0 without one or with NEE off).
        if (kNee && kAppearance && p.bsdf_pdf > 0.0f && params.env_rotation_pdf.z > 0.0f) {
            const float light_pdf = params.env_rotation_pdf.z * env_pdf(p.dir);
            weight = p.bsdf_pdf * p.bsdf_pdf / (p.bsdf_pdf * p.bsdf_pdf + light_pdf * light_pdf);
        }
        p.radiance += p.throughput * sky<kAppearance>(p.dir) * weight;
        return false;
    }
    const Surface s = surface<kMeshes>(hit.prim, p.origin, p.dir, hit.t);
    const bool front_face = dot(p.dir, s.normal) < 0.0f;
    const float3 n = front_face ? s.normal : -s.normal;
    // Scattering and NEE shade with this; `n` decides sides and offsets.
    const float3 ns = front_face ? s.shading : -s.shading;
    const MaterialRecord* __restrict__ m = prim_material(hit.prim);
    float weight = 1.0f;
    if (kNee && p.bsdf_pdf > 0.0f) {
        const float pick_pdf = __ldg(&params.prim_light_pdfs[prim_slot(hit.prim)]);
        if (pick_pdf > 0.0f) {
            const float light_pdf = pick_pdf * pdf_towards<kMeshes>(hit.prim, p.bounce_point, s);
            weight = p.bsdf_pdf * p.bsdf_pdf / (p.bsdf_pdf * p.bsdf_pdf + light_pdf * light_pdf);
        }
    }
    float4 emission_ior = __ldg(&m->emission_ior);
    float4 albedo_roughness = __ldg(&m->albedo_roughness);
    if (kAppearance) textured(m, hit.prim, s, albedo_roughness, emission_ior);
    p.radiance += p.throughput * xyz(emission_ior) * weight;
    const ScatterRandoms r = draw_scatter_randoms(p.rng);
    const Bounce bounce = scatter(__ldg(&m->kind), albedo_roughness, emission_ior.w, p.dir, ns, front_face, r);
    if (bounce.absorbed) return false;
    // Around a shading normal a diffuse direction can point into the surface: the path
    // ends (with ns == n it never does).
    if (bounce.diffuse && dot(bounce.dir, n) <= 0.0f) return false;
    const float3 next_origin = offset_ray_origin(s, bounce.diffuse ? n : bounce.dir);
    p.bsdf_pdf = 0.0f;
    if (kNee && bounce.diffuse) {
        const float u_pick = next_f32(p.rng);
        const float u1 = next_f32(p.rng);
        const float u2 = next_f32(p.rng);
        p.radiance +=
            p.throughput * direct_light<kMeshes, kAppearance>(s.point, next_origin, ns, n, xyz(albedo_roughness), u_pick, u1, u2, rays);
        p.bsdf_pdf = fmaxf(dot(bounce.dir, ns), 0.0f) * PT_INV_PI;
    }
    p.throughput *= bounce.attenuation;
    const float max_throughput = max_component(p.throughput);
    // Nothing more can be added to this path: stopping is unbiased.
    if (max_throughput == 0.0f) return false;
    if (p.depth + 1 >= RR_START_DEPTH) {
        const float q = fminf(max_throughput, 1.0f);
        if (next_f32(p.rng) >= q) return false;
        p.throughput = p.throughput / q;
    }
    p.origin = next_origin;
    p.dir = bounce.dir;
    p.bounce_point = s.point;
    return true;
}

// The finished sample: its radiance, or black when a component is not finite (a NaN
// never poisons a pixel).
__device__ __forceinline__ float3 sample_value(const Path& p) {
    return all_finite(p.radiance) ? p.radiance : make_float3(0.0f, 0.0f, 0.0f);
}

// One whole camera sample, as the CPU's trace_sample.
template <bool kNee, bool kMeshes, bool kAppearance>
__device__ __forceinline__ float3 trace_sample(unsigned int x, unsigned int y, unsigned int pixel_index,
                                               unsigned int sample_index, unsigned int seed_hash,
                                               unsigned int& rays) {
    Path p = start_path(x, y, pixel_index, sample_index, seed_hash);
    while (p.depth < params.max_depth && extend_path<kNee, kMeshes, kAppearance>(p, rays)) ++p.depth;
    return sample_value(p);
}
