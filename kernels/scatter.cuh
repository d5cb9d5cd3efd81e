// Scattering at a hit and the sky, docs/path-tracing.md "One sample" (CPU: scatter.rs,
// integrator.rs `sky`).
//
// The material record names its kind (BLOB_MATERIAL_*). The CPU matches on it; here
// every lane computes the few candidate directions and selects by kind, so a warp whose
// lanes hit different materials does not serialise over the kinds. Same random
// numbers, same decisions.
#pragma once

#include "blob_layout.cuh"
#include "camera.cuh"
#include "constants.cuh"
#include "environment.cuh"
#include "params.cuh"
#include "principled.cuh"
#include "rng.cuh"
#include "sampler.cuh"
#include "vec3.cuh"

// A uniform direction on the unit sphere (z uniform in [-1, 1]).
__device__ __forceinline__ float3 random_unit_vector(float r1, float r2) {
    const float z = 1.0f - 2.0f * r1;
    float sin_a, cos_a;
    sincosf(PT_TWO_PI * r2, &sin_a, &cos_a);
    const float r = sqrtf(fmaxf(0.0f, 1.0f - z * z));
    return make_float3(r * cos_a, r * sin_a, z);
}

// Mirror reflection of `d` about the unit normal `n`.
__device__ __forceinline__ float3 reflect(float3 d, float3 n) { return d - 2.0f * dot(d, n) * n; }

// Snell refraction of unit `d` through unit `n` (facing against `d`), `c = dot(-d, n)`.
__device__ __forceinline__ float3 refract(float3 d, float3 n, float eta, float c) {
    return eta * (d + c * n) - sqrtf(fabsf(1.0f - eta * eta * (1.0f - c * c))) * n;
}

// What a hit does to the path: a new unit direction and the attenuation, or `absorbed`
// (a pure emitter's ABSORB lobe, or a fuzzy metal reflection below the surface).
struct Bounce {
    float3 dir;
    float3 attenuation;
    bool absorbed;
    // The Lambert lobe: it must leave on the side of the geometric normal.
    bool diffuse;
    // A Principled bounce: it must leave on the side it chose (`transmitted` or not),
    // and `pdf` weighs an emitter it reaches by MIS (0 for a delta lobe).
    bool principled;
    bool transmitted;
    float pdf;
};

// The random numbers drawn at every bounce, whichever lobe uses them.
struct ScatterRandoms {
    // Picks a Principled material's lobe; the RTIOW kinds draw it and leave it.
    float lobe;
    float r1;
    float r2;
    float fresnel;
};

// Draws them for bounce `depth` (docs/path-tracing.md, "One sample"), in the spec's
// order (the independent sampler's stream), each from its own dimension.
__device__ __forceinline__ ScatterRandoms draw_scatter_randoms(Sampler& sampler, unsigned int depth) {
    ScatterRandoms r;
    r.lobe = sample_dim(sampler, bounce_dim(depth, DIM_SCATTER_LOBE));
    r.r1 = sample_dim(sampler, bounce_dim(depth, DIM_SCATTER_R1));
    r.r2 = sample_dim(sampler, bounce_dim(depth, DIM_SCATTER_R2));
    r.fresnel = sample_dim(sampler, bounce_dim(depth, DIM_SCATTER_FRESNEL));
    return r;
}

// Whether an Emissive material whose albedo, after its colour texture, is `albedo`
// scatters (as Lambert) rather than absorbs (docs/path-tracing.md, "One sample"). The
// CPU's `emitter_lobe` (backend/cpu/scene.rs) is the same test on the same albedo.
__device__ __forceinline__ bool emitter_scatters(float3 albedo) { return max_component(albedo) > 0.0f; }

// `dir` is the unit incoming direction, `n` the unit normal facing against it.
// `kind`, `albedo_roughness` and `ior` (emission_ior.w) are the MaterialRecord's.
__device__ __forceinline__ Bounce scatter(unsigned int kind, float4 albedo_roughness, float ior, float3 dir,
                                          float3 n, bool front_face, ScatterRandoms r) {
    const bool lambert = kind == BLOB_MATERIAL_LAMBERT ||
                         (kind == BLOB_MATERIAL_EMISSIVE && emitter_scatters(xyz(albedo_roughness)));
    const bool metal = kind == BLOB_MATERIAL_METAL;
    const bool dielectric = kind == BLOB_MATERIAL_DIELECTRIC;

    // Dielectric: Schlick's Fresnel term or total internal reflection picks the mirror.
    const float eta = front_face ? 1.0f / ior : ior;
    const float c = fminf(dot(-dir, n), 1.0f);
    const float s = sqrtf(1.0f - c * c);
    const float r0_root = (1.0f - eta) / (1.0f + eta);
    const float r0 = r0_root * r0_root;
    const float k = 1.0f - c;
    const float fresnel = r0 + (1.0f - r0) * (k * k) * (k * k) * k;
    const bool refracts = dielectric && !(eta * s > 1.0f || fresnel > r.fresnel);

    // lambert: n + u; metal: mirror + fuzz u; dielectric: mirror or refracted, + 0 u.
    const float3 base = lambert ? n : (refracts ? refract(dir, n, eta, c) : reflect(dir, n));
    const float spread = lambert ? 1.0f : (metal ? albedo_roughness.w : 0.0f);
    const float3 d = base + spread * random_unit_vector(r.r1, r.r2);
    const float len2 = dot(d, d);

    Bounce b;
    // Only an emitter without albedo absorbs for its kind: the blob loader refuses kinds
    // it does not know, and a Principled material is scatter_principled's.
    if (!(lambert || metal || dielectric || kind == BLOB_MATERIAL_EMISSIVE)) __builtin_unreachable();
    b.absorbed = !(lambert || metal || dielectric) || (metal && dot(d, n) <= 0.0f);
    // A lambert sample exactly opposite the normal would give a zero direction.
    b.dir = (lambert && len2 < DEGENERATE_DIR2) ? n : d * rsqrtf(len2);
    // A dielectric's albedo lanes hold 1.
    b.attenuation = xyz(albedo_roughness);
    b.diffuse = lambert;
    b.principled = false;
    b.transmitted = false;
    b.pdf = 0.0f;
    return b;
}

// Whether a ray arriving on the front face of a Principled surface enters its solid:
// only a transmissive surface has an inside (CPU: scatter.rs `entering`).
__device__ __forceinline__ bool principled_entering(const PrincipledParams& p, bool front_face) {
    return front_face || p.transmission <= 0.0f;
}

// A Principled material's bounce (`p` its parameters after textures): the glTF BSDF's
// sample (principled.cuh).
__device__ __forceinline__ Bounce scatter_principled(const PrincipledParams& p, float3 dir, const PrincipledNormals& ns,
                                                     bool front_face, ScatterRandoms r) {
    Bounce b;
    BsdfSample s;
    b.absorbed = !principled_sample(p, -dir, ns, principled_entering(p, front_face), r.lobe, r.r1, r.r2, r.fresnel, s);
    b.dir = s.wi;
    b.attenuation = s.weight;
    b.diffuse = false;
    b.principled = true;
    b.transmitted = s.transmitted;
    b.pdf = s.pdf;
    return b;
}

// Radiance of a ray leaving the scene along unit `dir`: the environment's, or
// lerp(bottom, top, 0.5 (dir.y + 1)).
__device__ __forceinline__ float3 sky(float3 dir) {
    // The environment's code is in the modules with the appearance feature only (path.cuh).
    if (kAppearance && params.env_size.x != 0u) return env_radiance(dir);
    return lerp(xyz(params.sky_bottom), xyz(params.sky_top), 0.5f * (dir.y + 1.0f));
}
