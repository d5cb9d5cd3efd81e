// Scattering at a hit and the sky, docs/path-tracing.md "One sample" (CPU: scatter.rs,
// integrator.rs `sky`).
//
// The material is the blob's branchless form: lobe weights instead of a type tag. The
// CPU picks the lobe with if/else; here every lane computes the few candidate
// directions and selects, so a warp whose lanes hit different materials does not
// serialise over three branches. Same random numbers, same decisions.
#pragma once

#include "blob_layout.cuh"
#include "camera.cuh"
#include "params.cuh"
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
    // The Lambert lobe: the one next-event estimation applies to.
    bool diffuse;
};

// The four random numbers drawn at every bounce, whichever lobe uses them.
struct ScatterRandoms {
    float lobe;
    float r1;
    float r2;
    float fresnel;
};

// `dir` is the unit incoming direction, `n` the unit normal facing against it.
// albedo_fuzz and weights_ior are the MaterialRecord lanes.
__device__ __forceinline__ Bounce scatter(float4 albedo_fuzz, float4 weights_ior, float3 dir, float3 n,
                                          bool front_face, ScatterRandoms r) {
    // Cumulative thresholds summed in the spec's order (wl, wl + wm, wl + wm + wd).
    const float metal_below = weights_ior.x + weights_ior.y;
    const float dielectric_below = metal_below + weights_ior.z;
    const bool lambert = r.lobe < weights_ior.x;
    const bool metal = !lambert && r.lobe < metal_below;
    const bool dielectric = !lambert && !metal && r.lobe < dielectric_below;

    // Dielectric: Schlick's Fresnel term or total internal reflection picks the mirror.
    const float ior = weights_ior.w;
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
    const float spread = lambert ? 1.0f : (metal ? albedo_fuzz.w : 0.0f);
    const float3 d = base + spread * random_unit_vector(r.r1, r.r2);
    const float len2 = dot(d, d);

    Bounce b;
    b.absorbed = !(lambert || metal || dielectric) || (metal && dot(d, n) <= 0.0f);
    // A lambert sample exactly opposite the normal would give a zero direction.
    b.dir = (lambert && len2 < 1e-12f) ? n : d * rsqrtf(len2);
    b.attenuation = dielectric ? make_float3(1.0f, 1.0f, 1.0f) : xyz(albedo_fuzz);
    b.diffuse = lambert;
    return b;
}

// Radiance of a ray leaving the scene: lerp(bottom, top, 0.5 (dir.y + 1)), `dir` unit.
__device__ __forceinline__ float3 sky(float3 dir) {
    return lerp(xyz(params.sky_bottom), xyz(params.sky_top), 0.5f * (dir.y + 1.0f));
}
