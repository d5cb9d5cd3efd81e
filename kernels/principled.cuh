// The glTF 2.0 metallic-roughness BSDF (glTF 2.0 spec, Appendix B) with
// KHR_materials_transmission and KHR_materials_ior: a GGX conductor tinted by the base
// colour, mixed by `metallic` with a dielectric whose GGX specular layer (exact Fresnel
// from `ior`) sits over a Lambert base or, by `transmission`, refracts (Walter et al.
// 2007); the base is weighted by one minus the layer's directional albedo at wo (Cycles'
// layering: specular_albedo.rs). CPU twin: renderer/src/backend/cpu/principled.rs, which holds the tests, the
// energy-loss table and the longer reasons; the functions here are its functions in
// the same order, prefixed `principled_` or `ggx_`, and consume the four random numbers
// the same way.
//
// Not here: which side of the surface a path is on (the caller passes `entering` and a
// normal on wo's side), textures (textures.cuh), the legacy one-lobe kinds (scatter.cuh).
//
// All directions are unit vectors; `eta` is the index of wi's side of a transmission
// over wo's side.
#pragma once

#include "constants.cuh"
#include "sampling.cuh"
#include "specular_albedo.cuh"
#include "vec3.cuh"

// The glTF metallic-roughness parameters at a hit, textures already applied; all but
// `ior` in [0, 1] (the CPU's `Principled`).
struct PrincipledParams {
    float3 base_color;
    float metallic;
    float roughness;
    float ior;
    float transmission;
};

// A sampled direction and what it carries.
struct BsdfSample {
    // Unit, world space.
    float3 wi;
    // f |cos theta_i| / pdf; for a delta lobe its throughput over its selection probability.
    float3 weight;
    // Solid-angle pdf of the whole mixture at wi (what MIS needs); 0 for a delta lobe.
    float pdf;
    // wi is on the other side of the surface.
    bool transmitted;
};

// The unit normals a Principled hit shades with, all on wo's side (principled.rs
// `Normals`): the specular lobes' (the map's, bent), the diffuse base's (the map's) and the
// smooth normal without the map. Without a normal map all three are one.
struct PrincipledNormals {
    float3 specular;
    float3 diffuse;
    float3 smooth;
};

__device__ __forceinline__ PrincipledNormals principled_one_normal(float3 n) {
    PrincipledNormals out;
    out.specular = n;
    out.diffuse = n;
    out.smooth = n;
    return out;
}

// The probabilities of sampling each lobe at one wo (they sum to 1), and the weight of the
// diffuse base under the specular layer there.
struct PrincipledLobePick {
    float metal;
    // The dielectric's GGX lobe: reflection and transmission share its microfacet.
    float specular;
    float diffuse;
    // 1 - E(wo), E the specular layer's directional albedo (specular_albedo.rs).
    float base;
};

// True when `x` is neither NaN nor infinite, tested on the bits as all_finite does.
__device__ __forceinline__ bool principled_finite(float x) {
    return (__float_as_uint(x) & 0x7f800000u) != 0x7f800000u;
}

// Unpolarised Fresnel reflectance of a dielectric for `cos_i` = cos of the angle of
// incidence (>= 0) and `eta` = transmitted index over incident; 1 under total internal
// reflection.
__device__ __forceinline__ float principled_fresnel_dielectric(float cos_i, float eta) {
    const float sin2_t = fmaxf(1.0f - cos_i * cos_i, 0.0f) / (eta * eta);
    if (sin2_t >= 1.0f) return 1.0f;
    const float cos_t = sqrtf(1.0f - sin2_t);
    const float rs = (cos_i - eta * cos_t) / (cos_i + eta * cos_t);
    const float rp = (eta * cos_i - cos_t) / (eta * cos_i + cos_t);
    return 0.5f * (rs * rs + rp * rp);
}

// Schlick's Fresnel with F0 = the base colour: glTF's `conductor_fresnel`.
__device__ __forceinline__ float3 principled_fresnel_schlick(float3 f0, float cos) {
    const float k = fminf(fmaxf(1.0f - cos, 0.0f), 1.0f);
    const float k5 = (k * k) * (k * k) * k;
    return f0 + (make_float3(1.0f, 1.0f, 1.0f) - f0) * k5;
}

// The GGX (Trowbridge-Reitz) normal distribution at unit `h` (local, h.z > 0).
__device__ __forceinline__ float ggx_d(float3 h, float alpha2) {
    // (x^2 + y^2) + alpha^2 z^2 rather than z^2 (alpha^2 - 1) + 1: near the peak of a
    // narrow lobe the latter loses 1 - z^2 to rounding.
    const float k = h.x * h.x + h.y * h.y + alpha2 * h.z * h.z;
    return alpha2 * PT_INV_PI / (k * k);
}

// Smith's Lambda for GGX at a direction of cosine `cos` to the normal: G1 = 1 / (1 +
// Lambda), and the height-correlated G2 = 1 / (1 + Lambda_o + Lambda_i) (Heitz 2014,
// "Understanding the Masking-Shadowing Function"). Infinite at a grazing direction, so
// G is 0 there.
__device__ __forceinline__ float ggx_lambda(float cos, float alpha2) {
    const float cos2 = cos * cos;
    const float tan2 = fmaxf(1.0f - cos2, 0.0f) / cos2;
    return 0.5f * (sqrtf(1.0f + alpha2 * tan2) - 1.0f);
}

// A microfacet normal drawn from GGX's distribution of normals visible from `wo` (wo.z >
// 0), by Dupuy & Benyoub 2023, "Sampling Visible GGX Normals with Spherical Caps": the
// same density as Heitz 2018 (D_wo = G1 D max(0, wo.h) / cos_o) without building a frame
// around wo. False when rounding leaves no normal above the surface.
__device__ __forceinline__ bool ggx_sample_vndf(float3 wo, float alpha, float u1, float u2, float3& h) {
    // In the stretched configuration the distribution is the unit hemisphere's.
    const float3 v = normalize(make_float3(alpha * wo.x, alpha * wo.y, wo.z));
    float sin_phi, cos_phi;
    sincosf(PT_TWO_PI * u1, &sin_phi, &cos_phi);
    const float z = (1.0f - u2) * (1.0f + v.z) - v.z;
    const float sin_theta = sqrtf(fmaxf(1.0f - z * z, 0.0f));
    const float3 c = make_float3(sin_theta * cos_phi + v.x, sin_theta * sin_phi + v.y, z + v.z);
    const float3 m = make_float3(alpha * c.x, alpha * c.y, c.z);
    const float len2 = dot(m, m);
    if (!(m.z > 0.0f && len2 > 0.0f)) return false;
    h = m * rsqrtf(len2);
    return true;
}

// `wo` mirrored about the unit microfacet normal `h` (scatter.cuh's `reflect` takes the
// incoming direction instead).
__device__ __forceinline__ float3 principled_reflect(float3 wo, float3 h) { return 2.0f * dot(wo, h) * h - wo; }

// `wo` refracted through the unit microfacet normal `h`, `cos_h = wo.h > 0`; false under
// total internal reflection.
__device__ __forceinline__ bool principled_refract(float3 wo, float3 h, float cos_h, float eta, float3& wi) {
    const float sin2_t = fmaxf(1.0f - cos_h * cos_h, 0.0f) / (eta * eta);
    if (sin2_t >= 1.0f) return false;
    const float cos_t = sqrtf(1.0f - sin2_t);
    wi = (cos_h / eta - cos_t) * h - wo / eta;
    return true;
}

// How much of the light from `wi` a diffuse lobe around a mapped normal `n` keeps on a
// surface whose smooth normal is `smooth` (Cycles' bump map correction; principled.rs
// `bump_shadowing` says more).
__device__ __forceinline__ float principled_bump_shadowing(float3 smooth, float3 n, float3 wi) {
    const float cos_si = dot(smooth, wi);
    const float cos_sn = dot(smooth, n);
    if (!(cos_si * cos_sn * dot(n, wi) >= 0.0f)) return 0.0f;
    const float cos_i = fabsf(cos_si), cos_d = fabsf(cos_sn);
    if (cos_d >= 1.0f || cos_i >= 1.0f) return 1.0f;
    if (cos_i < BUMP_SHADOWING_MIN_COS) return 0.0f;
    const float alpha2 = fminf(BUMP_SHADOWING_ALPHA2_PER_TAN2 * (1.0f / (cos_d * cos_d) - 1.0f), 1.0f);
    return 1.0f / (1.0f + ggx_lambda(cos_i, alpha2));
}

// Trilinear interpolation of SPECULAR_ALBEDO_S, each coordinate clamped to [0, 1]
// (specular_albedo.rs `lookup`, operation for operation).
__device__ __forceinline__ float principled_layer_s(float x, float y, float z) {
    const float last = (float)(SPECULAR_ALBEDO_POINTS - 1);
    const float px = fminf(fmaxf(x, 0.0f), 1.0f) * last;
    const float py = fminf(fmaxf(y, 0.0f), 1.0f) * last;
    const float pz = fminf(fmaxf(z, 0.0f), 1.0f) * last;
    const int ix = min((int)px, SPECULAR_ALBEDO_POINTS - 2);
    const int iy = min((int)py, SPECULAR_ALBEDO_POINTS - 2);
    const int iz = min((int)pz, SPECULAR_ALBEDO_POINTS - 2);
    const float fx = px - (float)ix, fy = py - (float)iy, fz = pz - (float)iz;
    // Two planes of four texels each, in straight code: an indexed array would live in
    // local memory.
    const float* lo = SPECULAR_ALBEDO_S + (iz * SPECULAR_ALBEDO_POINTS + iy) * SPECULAR_ALBEDO_POINTS + ix;
    const float* hi = lo + SPECULAR_ALBEDO_POINTS * SPECULAR_ALBEDO_POINTS;
    const int row = SPECULAR_ALBEDO_POINTS;
    const float lo0 = __ldg(lo) + (__ldg(lo + 1) - __ldg(lo)) * fx;
    const float lo1 = __ldg(lo + row) + (__ldg(lo + row + 1) - __ldg(lo + row)) * fx;
    const float hi0 = __ldg(hi) + (__ldg(hi + 1) - __ldg(hi)) * fx;
    const float hi1 = __ldg(hi + row) + (__ldg(hi + row + 1) - __ldg(hi + row)) * fx;
    const float plane_lo = lo0 + (lo1 - lo0) * fy;
    const float plane_hi = hi0 + (hi1 - hi0) * fy;
    return plane_lo + (plane_hi - plane_lo) * fz;
}

// The specular layer's directional albedo at cos_o for `eta` either way round
// (specular_albedo.rs `specular_albedo`).
__device__ __forceinline__ float principled_specular_albedo(float roughness, float cos_o, float eta) {
    const float r = (eta - 1.0f) / (eta + 1.0f);
    const float f0 = r * r;
    return f0 + (1.0f - f0) * principled_layer_s(roughness, cos_o, sqrtf(fabsf(r)));
}

// wi's index over wo's.
__device__ __forceinline__ float principled_eta(const PrincipledParams& m, bool entering) {
    return entering ? m.ior : 1.0f / m.ior;
}

// Lobe probabilities from each lobe's albedo estimated at the macro normal (principled.rs
// `lobe_pick`).
__device__ __forceinline__ PrincipledLobePick principled_lobe_pick(const PrincipledParams& m, float cos_o, float eta) {
    const float f = principled_fresnel_dielectric(cos_o, eta);
    const float base = 1.0f - principled_specular_albedo(m.roughness, cos_o, eta);
    const float t = m.transmission;
    const float3 c = m.base_color;
    const float w_specular = f + t * (1.0f - f);
    const float w_diffuse = (1.0f - t) * base * ((c.x + c.y + c.z) * (1.0f / 3.0f));
    const float total = w_specular + w_diffuse;
    // x / x is exactly 1, so no diffuse weight leaves exactly no diffuse pick.
    const float specular = total > 0.0f ? w_specular / total : 1.0f;
    const float dielectric = 1.0f - m.metallic;
    PrincipledLobePick pick;
    pick.metal = m.metallic;
    pick.specular = dielectric * specular;
    pick.diffuse = dielectric * (1.0f - specular);
    pick.base = base;
    return pick;
}

// principled_eval in the specular normal's frame (z = n, wo.z > 0); `d` and `sm` are the
// diffuse and smooth normals in that frame.
__device__ __forceinline__ float3 principled_eval_local(const PrincipledParams& mat, float3 wo, float3 wi, float eta,
                                                        PrincipledLobePick pick, float3 d, float3 sm, float& pdf) {
    const float m = mat.metallic;
    const float t = mat.transmission;
    const float3 c = mat.base_color;
    const bool delta = mat.roughness < PRINCIPLED_DELTA_ROUGHNESS;
    const float alpha = mat.roughness * mat.roughness;
    const float alpha2 = alpha * alpha;
    const float cos_o = wo.z;
    const float cos_i = wi.z;
    float3 f_cos = make_float3(0.0f, 0.0f, 0.0f);
    pdf = 0.0f;
    // The base sees what the specular layer does not reflect towards wo, around its own
    // normal (the map's, not bent for the specular lobes, as Cycles shades it).
    const float cos_d = dot(wi, d);
    if (cos_d > 0.0f) {
        const float shadowing = principled_bump_shadowing(sm, d, wi);
        f_cos = c * ((1.0f - m) * (1.0f - t) * pick.base * PT_INV_PI * cos_d * shadowing);
        pdf = pick.diffuse * cos_d * PT_INV_PI;
    }
    if (cos_i > 0.0f && !delta) {
        const float3 h = normalize(wo + wi);
        const float cos_h = dot(wo, h);
        const float f = principled_fresnel_dielectric(cos_h, eta);
        const float dd = ggx_d(h, alpha2);
        const float lambda_o = ggx_lambda(cos_o, alpha2);
        const float g2 = 1.0f / (1.0f + lambda_o + ggx_lambda(cos_i, alpha2));
        // D G2 / (4 cos_o cos_i), times cos_i.
        const float specular_cos = dd * g2 / (4.0f * cos_o);
        const float3 tint = m * principled_fresnel_schlick(c, cos_h) +
                            make_float3((1.0f - m) * f, (1.0f - m) * f, (1.0f - m) * f);
        f_cos += tint * specular_cos;
        // The visible-normal density D_wo(h) = G1 D (wo.h) / cos_o (Heitz 2018, eq. 1)
        // through the reflection's Jacobian 1 / (4 wo.h).
        const float pdf_reflect = dd / ((1.0f + lambda_o) * 4.0f * cos_o);
        const float select = f + t * (1.0f - f);
        const float p_reflect = select > 0.0f ? f / select : 0.0f;
        pdf += (pick.metal + pick.specular * p_reflect) * pdf_reflect;
    } else if (cos_i < 0.0f && !delta && t > 0.0f && m < 1.0f) {
        // The generalised half vector of a refraction (Walter et al. 2007, eq. 16), on
        // wo's side.
        const float3 sum = wo + eta * wi;
        const float len2 = dot(sum, sum);
        const float3 h = sum * copysignf(rsqrtf(len2), sum.z);
        const float cos_oh = dot(wo, h);
        const float cos_ih = dot(wi, h);
        // A microfacet seen from behind by either direction refracts nothing.
        if (len2 > 0.0f && cos_oh > 0.0f && cos_ih < 0.0f) {
            const float f = principled_fresnel_dielectric(cos_oh, eta);
            const float dd = ggx_d(h, alpha2);
            const float lambda_o = ggx_lambda(cos_o, alpha2);
            const float g2 = 1.0f / (1.0f + lambda_o + ggx_lambda(cos_i, alpha2));
            const float denom = cos_oh + eta * cos_ih;
            // Walter et al. 2007, eq. 21 times |cos_i|, in radiance mode (divided by eta^2, as
            // Mitsuba and pbrt transport radiance): eta^2 cancels.
            const float common = dd * cos_oh * -cos_ih / (cos_o * denom * denom);
            f_cos += c * ((1.0f - m) * t * (1.0f - f) * g2 * common);
            // D_wo(h) through the refraction's Jacobian eta^2 |wi.h| / denom^2 (eq. 17).
            const float select = f + t * (1.0f - f);
            const float p_refract = t * (1.0f - f) / select;
            pdf += pick.specular * p_refract * common * (eta * eta) / (1.0f + lambda_o);
        }
    }
    if (!(all_finite(f_cos) && principled_finite(pdf))) {
        f_cos = make_float3(0.0f, 0.0f, 0.0f);
        pdf = 0.0f;
    }
    return f_cos;
}

// Samples wi from wo (unit, back along the incoming ray) at unit shading normals `ns` on
// wo's side; `entering`: wo is outside the solid. `u_lobe` picks the lobe, (u1, u2) the
// direction, `u_fresnel` reflection or refraction at the microfacet. False when the path
// ends here (wo below the shading normal, a sample under the horizon, any degenerate
// division).
__device__ __forceinline__ bool principled_sample(const PrincipledParams& mat, float3 wo, const PrincipledNormals& ns,
                                                  bool entering, float u_lobe, float u1, float u2, float u_fresnel,
                                                  BsdfSample& out) {
    const float3 n = ns.specular;
    float3 t, b;
    onb(n, t, b);
    const float3 wo_l = make_float3(dot(wo, t), dot(wo, b), dot(wo, n));
    if (!(wo_l.z > 0.0f)) return false;
    const float eta = principled_eta(mat, entering);
    const PrincipledLobePick pick = principled_lobe_pick(mat, wo_l.z, eta);
    const bool delta = mat.roughness < PRINCIPLED_DELTA_ROUGHNESS;
    const float alpha = mat.roughness * mat.roughness;
    const float3 mirror = make_float3(-wo_l.x, -wo_l.y, wo_l.z);

    float3 wi_l;
    if (u_lobe < pick.metal) {
        if (delta) {
            out.wi = t * mirror.x + b * mirror.y + n * mirror.z;
            out.weight = principled_fresnel_schlick(mat.base_color, wo_l.z);
            out.pdf = 0.0f;
            out.transmitted = false;
            return true;
        }
        float3 h;
        if (!ggx_sample_vndf(wo_l, alpha, u1, u2, h)) return false;
        wi_l = principled_reflect(wo_l, h);
        // Below the horizon it would pass for a transmission in principled_eval_local.
        if (!(wi_l.z > 0.0f)) return false;
    } else if (1.0f - u_lobe > pick.diffuse) {
        float3 h = make_float3(0.0f, 0.0f, 1.0f);
        if (!delta && !ggx_sample_vndf(wo_l, alpha, u1, u2, h)) return false;
        const float cos_h = dot(wo_l, h);
        if (!(cos_h > 0.0f)) return false;
        const float f = principled_fresnel_dielectric(cos_h, eta);
        // Reflect with probability F / (F + t (1 - F)): F itself for glass, always for an
        // opaque dielectric, whose refraction would carry nothing.
        const float select = f + mat.transmission * (1.0f - f);
        if (!(select > 0.0f)) return false;
        const bool reflects = u_fresnel * select < f;
        if (reflects) {
            wi_l = principled_reflect(wo_l, h);
        } else if (!principled_refract(wo_l, h, cos_h, eta, wi_l)) {
            return false;
        }
        if (delta) {
            // The lobe's throughput (1 - m) (F or t (1 - F) c / eta^2) over its
            // probability pick.specular (F or t (1 - F)) / select.
            const float scale = (1.0f - mat.metallic) * select / pick.specular;
            out.weight = reflects ? make_float3(scale, scale, scale) : mat.base_color * (scale / (eta * eta));
            out.wi = t * wi_l.x + b * wi_l.y + n * wi_l.z;
            out.pdf = 0.0f;
            out.transmitted = !reflects;
            return all_finite(out.weight);
        }
        if ((wi_l.z > 0.0f) != reflects) return false;
    } else {
        // Cosine-weighted about the diffuse normal, built in world space.
        const float r = sqrtf(u1);
        float sin_phi, cos_phi;
        sincosf(PT_TWO_PI * u2, &sin_phi, &cos_phi);
        float3 dt, db;
        onb(ns.diffuse, dt, db);
        const float3 w = dt * (r * cos_phi) + db * (r * sin_phi) + ns.diffuse * sqrtf(fmaxf(1.0f - u1, 0.0f));
        wi_l = make_float3(dot(w, t), dot(w, b), dot(w, n));
    }

    // Evaluated at wi as principled_eval will see it after the round trip through world
    // space, so that MIS's two pdfs agree.
    const float3 wi = t * wi_l.x + b * wi_l.y + n * wi_l.z;
    wi_l = make_float3(dot(wi, t), dot(wi, b), dot(wi, n));
    const float3 d_l = make_float3(dot(ns.diffuse, t), dot(ns.diffuse, b), dot(ns.diffuse, n));
    const float3 s_l = make_float3(dot(ns.smooth, t), dot(ns.smooth, b), dot(ns.smooth, n));
    float pdf;
    const float3 f_cos = principled_eval_local(mat, wo_l, wi_l, eta, pick, d_l, s_l, pdf);
    const float3 weight = f_cos / pdf;
    if (!(pdf > 0.0f) || !all_finite(weight)) return false;
    out.wi = wi;
    out.weight = weight;
    out.pdf = pdf;
    // A diffuse sample below the specular normal is still a reflection.
    out.transmitted = wi_l.z < 0.0f && dot(wi, ns.diffuse) <= 0.0f;
    return true;
}

// f(wo, wi) |n.wi|, and in `pdf` the mixture pdf of sampling wi, over the non-delta lobes
// only (for NEE and MIS); arguments as for principled_sample.
__device__ __forceinline__ float3 principled_eval(const PrincipledParams& mat, float3 wo, float3 wi,
                                                  const PrincipledNormals& ns, bool entering, float& pdf) {
    const float3 n = ns.specular;
    float3 t, b;
    onb(n, t, b);
    const float3 wo_l = make_float3(dot(wo, t), dot(wo, b), dot(wo, n));
    if (!(wo_l.z > 0.0f)) {
        pdf = 0.0f;
        return make_float3(0.0f, 0.0f, 0.0f);
    }
    const float3 wi_l = make_float3(dot(wi, t), dot(wi, b), dot(wi, n));
    const float eta = principled_eta(mat, entering);
    const float3 d_l = make_float3(dot(ns.diffuse, t), dot(ns.diffuse, b), dot(ns.diffuse, n));
    const float3 s_l = make_float3(dot(ns.smooth, t), dot(ns.smooth, b), dot(ns.smooth, n));
    return principled_eval_local(mat, wo_l, wi_l, eta, principled_lobe_pick(mat, wo_l.z, eta), d_l, s_l, pdf);
}

// True when every lobe is delta (no diffuse, roughness under the threshold): the caller
// skips next-event estimation.
__device__ __forceinline__ bool principled_is_delta(const PrincipledParams& mat) {
    return mat.roughness < PRINCIPLED_DELTA_ROUGHNESS && (mat.metallic >= 1.0f || mat.transmission >= 1.0f);
}
