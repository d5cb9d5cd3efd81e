//! The glTF 2.0 metallic-roughness BSDF (glTF 2.0 spec, Appendix B) with
//! KHR_materials_transmission and KHR_materials_ior: a GGX conductor tinted by the base
//! colour, mixed by `metallic` with a dielectric whose GGX specular layer (exact
//! Fresnel from `ior`) sits over a Lambert base or, by `transmission`, refracts (Walter
//! et al. 2007). The base is weighted by one minus the layer's directional albedo at wo
//! (Cycles' layering; `specular_albedo.rs` says why it is not glTF's 1 − F(wo·h)). Sampling, evaluation and the mixture pdf that MIS needs (CUDA twin:
//! kernels/principled.cuh: the same functions in the same order, prefixed `principled_`
//! where the name is not already `ggx_`; its parameters are `PrincipledParams`).
//!
//! Not here: which side of the surface a path is on (the caller passes `entering` and
//! a normal on wo's side), textures (textures.rs), the legacy one-lobe kinds
//! (scatter.rs).
//!
//! All directions are unit vectors; `eta` is the index of wi's side of a transmission
//! over wo's side. The dielectric Fresnel is exact, not Schlick's, so that a pure glass
//! (metallic 0, transmission 1) is Mitsuba 3's `roughdielectric` with GGX, and the
//! transmission obeys the generalised reciprocity (Veach 1997, 5.2).
//!
//! Energy the single-scattering GGX conductor loses (white furnace, albedo 1, from
//! the quadrature in the tests): the multiple scattering it leaves out (Kulla & Conty
//! 2017, "Revisiting Physically Based Shading at Imageworks"), which a compensation
//! term could add back.
//!
//! | roughness        | 0.25  | 0.5    | 0.75   | 1.0    |
//! |------------------|-------|--------|--------|--------|
//! | normal incidence | 0.4 % | 8.4 %  | 37.3 % | 69.3 % |
//! | 60°              | 1.2 % | 14.3 % | 33.7 % | 54.9 % |

// `!(x > 0.0)` is also true for NaN: every guard here means that.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use std::f32::consts::{FRAC_1_PI, TAU};

use glam::Vec3A;

use super::sampling::onb;
use crate::backend::constants::{
    BUMP_SHADOWING_ALPHA2_PER_TAN2, BUMP_SHADOWING_MIN_COS, PRINCIPLED_DELTA_ROUGHNESS,
};
use crate::backend::specular_albedo::specular_albedo;

/// The glTF metallic-roughness parameters at a hit, textures already applied; all but
/// `ior` in [0, 1].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Principled {
    pub base_color: Vec3A,
    pub metallic: f32,
    pub roughness: f32,
    pub ior: f32,
    pub transmission: f32,
}

/// A sampled direction and what it carries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BsdfSample {
    /// Unit, world space.
    pub wi: Vec3A,
    /// f·|cos θi| / pdf; for a delta lobe its throughput over its selection probability.
    pub weight: Vec3A,
    /// Solid-angle pdf of the whole mixture at wi (what MIS needs); 0 for a delta lobe.
    pub pdf: f32,
    /// wi is on the other side of the surface.
    pub transmitted: bool,
}

/// The unit normals a Principled hit shades with, all on wo's side (docs/path-tracing.md,
/// "Normal maps"): the specular lobes' (the normal map's, bent so that wo's mirror
/// image stays above the surface), the diffuse base's (the map's, not bent) and the
/// surface's smooth normal without the map. Without a normal map all three are one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Normals {
    pub specular: Vec3A,
    pub diffuse: Vec3A,
    pub smooth: Vec3A,
}

impl Normals {
    /// One normal for everything.
    pub fn one(n: Vec3A) -> Normals {
        Normals { specular: n, diffuse: n, smooth: n }
    }

    /// The diffuse and smooth normals through `to_local` (`specular` is left as it is).
    fn local(&self, to_local: impl Fn(Vec3A) -> Vec3A) -> Normals {
        Normals { specular: Vec3A::Z, diffuse: to_local(self.diffuse), smooth: to_local(self.smooth) }
    }
}

/// How much of the light from `wi` a diffuse lobe around a mapped normal `n` keeps on a
/// surface whose smooth normal is `smooth` (Cycles' bump map correction: Conty Estevez,
/// Lecocq and Stein 2019, "A Microfacet-Based Shadowing Function to Solve the Bump
/// Terminator Problem"): the GGX G1 at wi's angle to `smooth` of a roughness that grows
/// with the map's tilt, and 0 where `wi` and `n` lie on opposite sides of `smooth`.
#[inline(always)]
fn bump_shadowing(smooth: Vec3A, n: Vec3A, wi: Vec3A) -> f32 {
    let cos_si = smooth.dot(wi);
    let cos_sn = smooth.dot(n);
    if !(cos_si * cos_sn * n.dot(wi) >= 0.0) {
        return 0.0;
    }
    let (cos_i, cos_d) = (cos_si.abs(), cos_sn.abs());
    if cos_d >= 1.0 || cos_i >= 1.0 {
        return 1.0;
    }
    if cos_i < BUMP_SHADOWING_MIN_COS {
        return 0.0;
    }
    let alpha2 = (BUMP_SHADOWING_ALPHA2_PER_TAN2 * (1.0 / (cos_d * cos_d) - 1.0)).min(1.0);
    1.0 / (1.0 + ggx_lambda(cos_i, alpha2))
}

/// The probabilities of sampling each lobe at one wo (they sum to 1), and the weight of
/// the diffuse base under the specular layer there.
#[derive(Clone, Copy, Debug)]
struct LobePick {
    metal: f32,
    /// The dielectric's GGX lobe: reflection and transmission share its microfacet.
    specular: f32,
    diffuse: f32,
    /// 1 − E(wo), E the specular layer's directional albedo (`specular_albedo.rs`: Cycles'
    /// layering, not glTF's 1 − F(wo·h)).
    base: f32,
}

/// Unpolarised Fresnel reflectance of a dielectric for `cos_i` = cos of the angle
/// of incidence (≥ 0) and `eta` = transmitted index over incident; 1 under total
/// internal reflection.
#[inline(always)]
fn fresnel_dielectric(cos_i: f32, eta: f32) -> f32 {
    let sin2_t = (1.0 - cos_i * cos_i).max(0.0) / (eta * eta);
    if sin2_t >= 1.0 {
        return 1.0;
    }
    let cos_t = (1.0 - sin2_t).sqrt();
    let rs = (cos_i - eta * cos_t) / (cos_i + eta * cos_t);
    let rp = (eta * cos_i - cos_t) / (eta * cos_i + cos_t);
    0.5 * (rs * rs + rp * rp)
}

/// Schlick's Fresnel with F0 = the base colour: glTF's `conductor_fresnel`.
#[inline(always)]
fn fresnel_schlick(f0: Vec3A, cos: f32) -> Vec3A {
    let k = (1.0 - cos).clamp(0.0, 1.0);
    let k5 = (k * k) * (k * k) * k;
    f0 + (Vec3A::ONE - f0) * k5
}

/// The GGX (Trowbridge-Reitz) normal distribution at unit `h` (local, h.z > 0).
#[inline(always)]
fn ggx_d(h: Vec3A, alpha2: f32) -> f32 {
    // (x² + y²) + α² z² rather than z² (α² - 1) + 1: near the peak of a narrow lobe the
    // latter loses 1 - z² to rounding.
    let k = h.x * h.x + h.y * h.y + alpha2 * h.z * h.z;
    alpha2 * FRAC_1_PI / (k * k)
}

/// Smith's Λ for GGX at a direction of cosine `cos` to the normal: G1 = 1 / (1 + Λ),
/// and the height-correlated G2 = 1 / (1 + Λo + Λi) (Heitz 2014, "Understanding the
/// Masking-Shadowing Function"). Infinite at a grazing direction, so G is 0 there.
#[inline(always)]
fn ggx_lambda(cos: f32, alpha2: f32) -> f32 {
    let cos2 = cos * cos;
    let tan2 = (1.0 - cos2).max(0.0) / cos2;
    0.5 * ((1.0 + alpha2 * tan2).sqrt() - 1.0)
}

/// A microfacet normal drawn from GGX's distribution of normals visible from `wo`
/// (wo.z > 0), by Dupuy & Benyoub 2023, "Sampling Visible GGX Normals with Spherical
/// Caps": the same density as Heitz 2018 (D_wo = G1 D max(0, wo·h) / cos_o) without
/// building a frame around wo. `None` when rounding leaves no normal above the surface.
#[inline(always)]
fn ggx_sample_vndf(wo: Vec3A, alpha: f32, u1: f32, u2: f32) -> Option<Vec3A> {
    // In the stretched configuration the distribution is the unit hemisphere's.
    let v = Vec3A::new(alpha * wo.x, alpha * wo.y, wo.z).normalize();
    let (sin_phi, cos_phi) = (TAU * u1).sin_cos();
    let z = (1.0 - u2) * (1.0 + v.z) - v.z;
    let sin_theta = (1.0 - z * z).max(0.0).sqrt();
    let c = Vec3A::new(sin_theta * cos_phi + v.x, sin_theta * sin_phi + v.y, z + v.z);
    let h = Vec3A::new(alpha * c.x, alpha * c.y, c.z);
    let len2 = h.length_squared();
    if !(h.z > 0.0 && len2 > 0.0) {
        return None;
    }
    Some(h * (1.0 / len2.sqrt()))
}

/// `wo` mirrored about the unit microfacet normal `h`.
#[inline(always)]
fn reflect(wo: Vec3A, h: Vec3A) -> Vec3A {
    2.0 * wo.dot(h) * h - wo
}

/// `wo` refracted through the unit microfacet normal `h`, `cos_h = wo·h > 0`; `None`
/// under total internal reflection.
#[inline(always)]
fn refract(wo: Vec3A, h: Vec3A, cos_h: f32, eta: f32) -> Option<Vec3A> {
    let sin2_t = (1.0 - cos_h * cos_h).max(0.0) / (eta * eta);
    if sin2_t >= 1.0 {
        return None;
    }
    let cos_t = (1.0 - sin2_t).sqrt();
    Some((cos_h / eta - cos_t) * h - wo / eta)
}

impl Principled {
    /// wi's index over wo's.
    fn eta(&self, entering: bool) -> f32 {
        if entering { self.ior } else { 1.0 / self.ior }
    }

    /// Lobe probabilities from each lobe's albedo estimated at the macro normal: metal by
    /// `metallic` (as glTF mixes it); within the dielectric, the specular lobe by F(n·wo)
    /// plus the transmitted rest, the diffuse by its weight 1 − E(wo) times the base
    /// colour's mean, so that a dark plastic spends its samples on its highlight.
    fn lobe_pick(&self, cos_o: f32, eta: f32) -> LobePick {
        let f = fresnel_dielectric(cos_o, eta);
        let base = 1.0 - specular_albedo(self.roughness, cos_o, eta);
        let t = self.transmission;
        let c = self.base_color;
        let w_specular = f + t * (1.0 - f);
        let w_diffuse = (1.0 - t) * base * ((c.x + c.y + c.z) * (1.0 / 3.0));
        let total = w_specular + w_diffuse;
        // x / x is exactly 1, so no diffuse weight leaves exactly no diffuse pick.
        let specular = if total > 0.0 { w_specular / total } else { 1.0 };
        let dielectric = 1.0 - self.metallic;
        LobePick {
            metal: self.metallic,
            specular: dielectric * specular,
            diffuse: dielectric * (1.0 - specular),
            base,
        }
    }

    /// [`Principled::eval`] in the specular normal's frame (z = n, wo.z > 0); `base` holds
    /// the diffuse and smooth normals in that frame.
    fn eval_local(&self, wo: Vec3A, wi: Vec3A, eta: f32, pick: LobePick, base: &Normals) -> (Vec3A, f32) {
        let (m, t, c) = (self.metallic, self.transmission, self.base_color);
        let delta = self.roughness < PRINCIPLED_DELTA_ROUGHNESS;
        let alpha = self.roughness * self.roughness;
        let alpha2 = alpha * alpha;
        let cos_o = wo.z;
        let cos_i = wi.z;
        // The base sees what the specular layer does not reflect towards wo, around its
        // own normal (the map's, not bent for the specular lobes, as Cycles shades it).
        let cos_d = wi.dot(base.diffuse);
        let (mut f_cos, mut pdf) = if cos_d > 0.0 {
            let shadowing = bump_shadowing(base.smooth, base.diffuse, wi);
            (
                c * ((1.0 - m) * (1.0 - t) * pick.base * FRAC_1_PI * cos_d * shadowing),
                pick.diffuse * cos_d * FRAC_1_PI,
            )
        } else {
            (Vec3A::ZERO, 0.0)
        };
        if cos_i > 0.0 && !delta {
            let h = (wo + wi).normalize();
            let cos_h = wo.dot(h);
            let f = fresnel_dielectric(cos_h, eta);
            let d = ggx_d(h, alpha2);
            let lambda_o = ggx_lambda(cos_o, alpha2);
            let g2 = 1.0 / (1.0 + lambda_o + ggx_lambda(cos_i, alpha2));
            // D G2 / (4 cos_o cos_i), times cos_i.
            let specular_cos = d * g2 / (4.0 * cos_o);
            let tint = m * fresnel_schlick(c, cos_h) + Vec3A::splat((1.0 - m) * f);
            f_cos += tint * specular_cos;
            // The visible-normal density D_wo(h) = G1 D (wo·h) / cos_o (Heitz 2018,
            // eq. 1) through the reflection's Jacobian 1 / (4 wo·h).
            let pdf_reflect = d / ((1.0 + lambda_o) * 4.0 * cos_o);
            let select = f + t * (1.0 - f);
            let p_reflect = if select > 0.0 { f / select } else { 0.0 };
            pdf += (pick.metal + pick.specular * p_reflect) * pdf_reflect;
        } else if cos_i < 0.0 && !delta && t > 0.0 && m < 1.0 {
            // The generalised half vector of a refraction (Walter et al. 2007, eq. 16),
            // on wo's side.
            let sum = wo + eta * wi;
            let len2 = sum.length_squared();
            let h = sum * (1.0 / len2.sqrt()).copysign(sum.z);
            let cos_oh = wo.dot(h);
            let cos_ih = wi.dot(h);
            // A microfacet seen from behind by either direction refracts nothing.
            if len2 > 0.0 && cos_oh > 0.0 && cos_ih < 0.0 {
                let f = fresnel_dielectric(cos_oh, eta);
                let d = ggx_d(h, alpha2);
                let lambda_o = ggx_lambda(cos_o, alpha2);
                let g2 = 1.0 / (1.0 + lambda_o + ggx_lambda(cos_i, alpha2));
                let denom = cos_oh + eta * cos_ih;
                // Walter et al. 2007, eq. 21 times |cos_i|, in radiance mode (divided by
                // eta², as Mitsuba and pbrt transport radiance): eta² cancels.
                let common = d * cos_oh * -cos_ih / (cos_o * denom * denom);
                f_cos += c * ((1.0 - m) * t * (1.0 - f) * g2 * common);
                // D_wo(h) through the refraction's Jacobian eta² |wi·h| / denom² (eq. 17).
                let select = f + t * (1.0 - f);
                let p_refract = t * (1.0 - f) / select;
                pdf += pick.specular * p_refract * common * (eta * eta) / (1.0 + lambda_o);
            }
        }
        if f_cos.is_finite() && pdf.is_finite() { (f_cos, pdf) } else { (Vec3A::ZERO, 0.0) }
    }

    /// Samples wi from wo (unit, back along the incoming ray) at unit shading normal `n`
    /// on wo's side; `entering`: wo is outside the solid. `u_lobe` picks the lobe, `(u1,
    /// u2)` the direction, `u_fresnel` reflection or refraction at the microfacet. `None`
    /// when the path ends here (wo below the shading normal, a sample under the horizon,
    /// any degenerate division).
    #[allow(clippy::too_many_arguments)] // the twin of the kernel's, argument for argument
    pub fn sample(
        &self,
        wo: Vec3A,
        normals: &Normals,
        entering: bool,
        u_lobe: f32,
        u1: f32,
        u2: f32,
        u_fresnel: f32,
    ) -> Option<BsdfSample> {
        let n = normals.specular;
        let (t, b) = onb(n);
        let to_local = |w: Vec3A| Vec3A::new(w.dot(t), w.dot(b), w.dot(n));
        let wo_l = to_local(wo);
        if !(wo_l.z > 0.0) {
            return None;
        }
        let to_world = |l: Vec3A| t * l.x + b * l.y + n * l.z;
        let eta = self.eta(entering);
        let pick = self.lobe_pick(wo_l.z, eta);
        let delta = self.roughness < PRINCIPLED_DELTA_ROUGHNESS;
        let alpha = self.roughness * self.roughness;
        let mirror = Vec3A::new(-wo_l.x, -wo_l.y, wo_l.z);

        let wi_l = if u_lobe < pick.metal {
            if delta {
                let weight = fresnel_schlick(self.base_color, wo_l.z);
                return Some(BsdfSample { wi: to_world(mirror), weight, pdf: 0.0, transmitted: false });
            }
            let wi_l = reflect(wo_l, ggx_sample_vndf(wo_l, alpha, u1, u2)?);
            // Below the horizon it would pass for a transmission in eval_local.
            if !(wi_l.z > 0.0) {
                return None;
            }
            wi_l
        } else if 1.0 - u_lobe > pick.diffuse {
            let h = if delta { Vec3A::Z } else { ggx_sample_vndf(wo_l, alpha, u1, u2)? };
            let cos_h = wo_l.dot(h);
            if !(cos_h > 0.0) {
                return None;
            }
            let f = fresnel_dielectric(cos_h, eta);
            // Reflect with probability F / (F + t (1 - F)): F itself for glass, always for
            // an opaque dielectric, whose refraction would carry nothing.
            let select = f + self.transmission * (1.0 - f);
            if !(select > 0.0) {
                return None;
            }
            let reflects = u_fresnel * select < f;
            let wi_l = if reflects { reflect(wo_l, h) } else { refract(wo_l, h, cos_h, eta)? };
            if delta {
                // The lobe's throughput (1 - m) (F or t (1 - F) c / eta²) over its
                // probability pick.specular (F or t (1 - F)) / select.
                let scale = (1.0 - self.metallic) * select / pick.specular;
                let weight =
                    if reflects { Vec3A::splat(scale) } else { self.base_color * (scale / (eta * eta)) };
                let sample = BsdfSample { wi: to_world(wi_l), weight, pdf: 0.0, transmitted: !reflects };
                return if weight.is_finite() { Some(sample) } else { None };
            }
            if (wi_l.z > 0.0) != reflects {
                return None;
            }
            wi_l
        } else {
            // Cosine-weighted about the diffuse normal, built in world space.
            let r = u1.sqrt();
            let (sin_phi, cos_phi) = (TAU * u2).sin_cos();
            let (dt, db) = onb(normals.diffuse);
            let wi = dt * (r * cos_phi) + db * (r * sin_phi) + normals.diffuse * (1.0 - u1).max(0.0).sqrt();
            to_local(wi)
        };

        // Evaluated at wi as `eval` will see it after the round trip through world space:
        // a sharp lobe's pdf moves by 1 % with that rounding at roughness 0.05, and MIS
        // needs the two pdfs to agree.
        let wi = to_world(wi_l);
        let wi_l = to_local(wi);
        let base = normals.local(to_local);
        let (f_cos, pdf) = self.eval_local(wo_l, wi_l, eta, pick, &base);
        let weight = f_cos / pdf;
        if !(pdf > 0.0) || !weight.is_finite() {
            return None;
        }
        // A diffuse sample below the specular normal is still a reflection.
        let transmitted = wi_l.z < 0.0 && wi.dot(normals.diffuse) <= 0.0;
        Some(BsdfSample { wi, weight, pdf, transmitted })
    }

    /// f(wo, wi)·|n·wi| and the mixture pdf of sampling wi, over the non-delta lobes only
    /// (for NEE and MIS); arguments as for [`Principled::sample`].
    pub fn eval(&self, wo: Vec3A, wi: Vec3A, normals: &Normals, entering: bool) -> (Vec3A, f32) {
        let n = normals.specular;
        let (t, b) = onb(n);
        let to_local = |w: Vec3A| Vec3A::new(w.dot(t), w.dot(b), w.dot(n));
        let wo_l = to_local(wo);
        if !(wo_l.z > 0.0) {
            return (Vec3A::ZERO, 0.0);
        }
        let eta = self.eta(entering);
        self.eval_local(wo_l, to_local(wi), eta, self.lobe_pick(wo_l.z, eta), &normals.local(to_local))
    }

    /// True when every lobe is delta (no diffuse, roughness under the threshold): the
    /// caller skips next-event estimation.
    pub fn is_delta(&self) -> bool {
        self.roughness < PRINCIPLED_DELTA_ROUGHNESS && (self.metallic >= 1.0 || self.transmission >= 1.0)
    }
}

#[cfg(test)]
mod tests {
    use std::f64::consts::PI;

    use glam::{DVec3, Vec3A};

    use super::*;

    /// PCG32 (O'Neill 2014): deterministic streams without a dependency.
    struct Pcg(u64);

    impl Pcg {
        fn new(seed: u64) -> Pcg {
            let mut rng = Pcg(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            rng.next_u32();
            rng
        }

        fn next_u32(&mut self) -> u32 {
            let old = self.0;
            self.0 = old.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
            xorshifted.rotate_right((old >> 59) as u32)
        }

        /// Uniform in [0, 1), as the renderer's streams (24 bits).
        fn f32(&mut self) -> f32 {
            (self.next_u32() >> 8) as f32 * (1.0 / 16_777_216.0)
        }

        fn unit(&mut self) -> Vec3A {
            let z = 1.0 - 2.0 * self.f32();
            let (s, c) = (TAU * self.f32()).sin_cos();
            let r = (1.0 - z * z).max(0.0).sqrt();
            Vec3A::new(r * c, r * s, z)
        }
    }

    fn material(base_color: f32, metallic: f32, roughness: f32, ior: f32, transmission: f32) -> Principled {
        Principled { base_color: Vec3A::splat(base_color), metallic, roughness, ior, transmission }
    }

    /// The unit direction at polar angle `theta_deg` from +z, azimuth `phi` (radians).
    fn polar(theta_deg: f32, phi: f32) -> Vec3A {
        let (s, c) = theta_deg.to_radians().sin_cos();
        Vec3A::new(s * phi.cos(), s * phi.sin(), c)
    }

    fn sample_with(m: &Principled, wo: Vec3A, n: Vec3A, entering: bool, rng: &mut Pcg) -> Option<BsdfSample> {
        m.sample(wo, &Normals::one(n), entering, rng.f32(), rng.f32(), rng.f32(), rng.f32())
    }

    // ---- Chi-square goodness of fit (after Mitsuba 3's `ChiSquareTest`) ----

    const COS_BINS: usize = 10;
    const PHI_BINS: usize = 20;
    const CHI2_SAMPLES: usize = 500_000;
    /// Simpson sub-intervals per rectangle and dimension, and how often a cell's
    /// rectangles may be quartered, for the expected counts.
    const SIMPSON_STEPS: usize = 8;
    const MAX_SPLITS: u32 = 6;
    /// Mitsuba pools cells expected to receive fewer samples than this.
    const MIN_EXPECTED: f64 = 5.0;

    struct Chi2Case {
        name: String,
        m: Principled,
        wo: Vec3A,
        entering: bool,
    }

    /// Sample counts per (cos θ, φ) cell in the frame z = n; the samples `sample`
    /// rejects fall in none, as the pdf's mass they lack.
    fn observed_counts(case: &Chi2Case, sampled: &Principled, seed: u64) -> Vec<f64> {
        let mut counts = vec![0.0; COS_BINS * PHI_BINS];
        let mut rng = Pcg::new(seed);
        for _ in 0..CHI2_SAMPLES {
            if let Some(s) = sample_with(sampled, case.wo, Vec3A::Z, case.entering, &mut rng) {
                let i = (((s.wi.z + 1.0) * 0.5 * COS_BINS as f32) as usize).min(COS_BINS - 1);
                let phi = s.wi.y.atan2(s.wi.x).rem_euclid(TAU);
                let j = ((phi / TAU * PHI_BINS as f32) as usize).min(PHI_BINS - 1);
                counts[i * PHI_BINS + j] += 1.0;
            }
        }
        counts
    }

    /// Expected counts: `eval`'s pdf integrated over each cell by adaptive Simpson in
    /// (θ, φ) (θ rather than cos θ, so that a lobe at a pole gets its share of nodes),
    /// to a twentieth of the count's own noise.
    fn expected_counts(case: &Chi2Case) -> Vec<f64> {
        let mut expected = Vec::with_capacity(COS_BINS * PHI_BINS);
        for i in 0..COS_BINS {
            let cos_lo = -1.0 + 2.0 * i as f64 / COS_BINS as f64;
            let cos_hi = -1.0 + 2.0 * (i + 1) as f64 / COS_BINS as f64;
            // The pdf jumps at the horizon, a cell edge: the outer nodes stay inside.
            let inset = 1e-6 * (cos_lo.acos() - cos_hi.acos());
            let theta = (cos_hi.acos() + inset, cos_lo.acos() - inset);
            for j in 0..PHI_BINS {
                let phi =
                    (2.0 * PI * j as f64 / PHI_BINS as f64, 2.0 * PI * (j + 1) as f64 / PHI_BINS as f64);
                let whole = simpson_cell(case, theta, phi, SIMPSON_STEPS);
                let tolerance = 0.05 * whole.sqrt() + 1e-3;
                let count = adaptive_cell(case, theta, phi, whole, tolerance, MAX_SPLITS);
                expected.push(count);
            }
        }
        expected
    }

    /// `whole`, Simpson's estimate over a rectangle in (θ, φ), checked against the sum
    /// over its quarters, which are split in turn where they disagree by more than
    /// `tolerance`: the cusps of a transmission lobe get the nodes, the rest does not.
    fn adaptive_cell(
        case: &Chi2Case,
        theta: (f64, f64),
        phi: (f64, f64),
        whole: f64,
        tolerance: f64,
        splits: u32,
    ) -> f64 {
        let (theta_mid, phi_mid) = (0.5 * (theta.0 + theta.1), 0.5 * (phi.0 + phi.1));
        let quarters = [
            ((theta.0, theta_mid), (phi.0, phi_mid)),
            ((theta.0, theta_mid), (phi_mid, phi.1)),
            ((theta_mid, theta.1), (phi.0, phi_mid)),
            ((theta_mid, theta.1), (phi_mid, phi.1)),
        ];
        let parts = quarters.map(|(t, p)| simpson_cell(case, t, p, SIMPSON_STEPS));
        let sum: f64 = parts.iter().sum();
        if splits == 0 || (sum - whole).abs() <= tolerance {
            return sum;
        }
        (0..4)
            .map(|k| adaptive_cell(case, quarters[k].0, quarters[k].1, parts[k], 0.5 * tolerance, splits - 1))
            .sum()
    }

    /// CHI2_SAMPLES times the pdf's integral over one cell, Simpson's rule with `steps`
    /// sub-intervals in each of θ and φ.
    fn simpson_cell(case: &Chi2Case, theta: (f64, f64), phi: (f64, f64), steps: usize) -> f64 {
        let weight = |k: usize| {
            if k == 0 || k == steps {
                1.0
            } else if k % 2 == 1 {
                4.0
            } else {
                2.0
            }
        };
        let d_theta = (theta.1 - theta.0) / steps as f64;
        let d_phi = (phi.1 - phi.0) / steps as f64;
        let mut sum = 0.0;
        for a in 0..=steps {
            let (sin_t, cos_t) = (theta.0 + a as f64 * d_theta).sin_cos();
            let mut row = 0.0;
            for b in 0..=steps {
                let (sin_p, cos_p) = (phi.0 + b as f64 * d_phi).sin_cos();
                let wi = DVec3::new(sin_t * cos_p, sin_t * sin_p, cos_t).as_vec3();
                row += weight(b)
                    * case.m.eval(case.wo, Vec3A::from(wi), &Normals::one(Vec3A::Z), case.entering).1 as f64;
            }
            sum += weight(a) * row * sin_t;
        }
        sum * d_theta * d_phi / 9.0 * CHI2_SAMPLES as f64
    }

    /// The p-value of Pearson's statistic, cells expected below MIN_EXPECTED pooled
    /// into one (dropped if the pool is still below it), as Mitsuba does.
    fn chi2_p_value(observed: &[f64], expected: &[f64]) -> f64 {
        let (mut stat, mut cells) = (0.0, 0usize);
        let (mut pool_obs, mut pool_exp) = (0.0, 0.0);
        for (&o, &e) in observed.iter().zip(expected) {
            if e < MIN_EXPECTED {
                pool_obs += o;
                pool_exp += e;
            } else {
                stat += (o - e) * (o - e) / e;
                cells += 1;
            }
        }
        if pool_exp >= MIN_EXPECTED {
            stat += (pool_obs - pool_exp) * (pool_obs - pool_exp) / pool_exp;
            cells += 1;
        } else if pool_obs > 2.0 * MIN_EXPECTED {
            // Many samples where the pdf says almost none: no fit.
            return 0.0;
        }
        gamma_q(0.5 * (cells - 1) as f64, 0.5 * stat)
    }

    /// The regularised upper incomplete gamma function Q(a, x) (Numerical Recipes 6.2:
    /// series below a + 1, Lentz's continued fraction above).
    fn gamma_q(a: f64, x: f64) -> f64 {
        if x <= 0.0 {
            return 1.0;
        }
        let log_prefix = a * x.ln() - x - ln_gamma(a);
        if x < a + 1.0 {
            let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
            for _ in 0..1000 {
                ap += 1.0;
                term *= x / ap;
                sum += term;
                if term.abs() < sum.abs() * 1e-15 {
                    break;
                }
            }
            1.0 - sum * log_prefix.exp()
        } else {
            let tiny = 1e-300;
            let mut b = x + 1.0 - a;
            let mut c = 1.0 / tiny;
            let mut d = 1.0 / b;
            let mut h = d;
            for i in 1..1000 {
                let an = -(i as f64) * (i as f64 - a);
                b += 2.0;
                d = an * d + b;
                d = if d.abs() < tiny { tiny } else { d };
                c = b + an / c;
                c = if c.abs() < tiny { tiny } else { c };
                d = 1.0 / d;
                let delta = d * c;
                h *= delta;
                if (delta - 1.0).abs() < 1e-15 {
                    break;
                }
            }
            log_prefix.exp() * h
        }
    }

    /// ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9).
    fn ln_gamma(x: f64) -> f64 {
        const G: [f64; 9] = [
            0.999_999_999_999_809_9,
            676.520_368_121_885_1,
            -1_259.139_216_722_402_8,
            771.323_428_777_653_1,
            -176.615_029_162_140_6,
            12.507_343_278_686_905,
            -0.138_571_095_265_720_12,
            9.984_369_578_019_572e-6,
            1.505_632_735_149_311_6e-7,
        ];
        if x < 0.5 {
            return (PI / (PI * x).sin()).ln() - ln_gamma(1.0 - x);
        }
        let x = x - 1.0;
        let t = x + 7.5;
        let sum = G[0] + (1..9).map(|i| G[i] / (x + i as f64)).sum::<f64>();
        0.5 * (2.0 * PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
    }

    fn chi2_cases() -> Vec<Chi2Case> {
        let mut cases = Vec::new();
        let mut add = |name: String, m: Principled, theta: f32, entering: bool| {
            // An azimuth off the bin edges, so no lobe is split symmetrically.
            cases.push(Chi2Case { name: format!("{name} at {theta}°"), m, wo: polar(theta, 0.3), entering });
        };
        for roughness in [0.2, 0.5, 0.9] {
            for theta in [0.0, 30.0, 60.0, 80.0] {
                add(format!("metal r={roughness}"), material(0.8, 1.0, roughness, 1.5, 0.0), theta, true);
            }
        }
        for theta in [0.0, 45.0, 80.0] {
            add("plastic r=0.4".into(), material(0.7, 0.0, 0.4, 1.5, 0.0), theta, true);
        }
        for roughness in [0.3, 0.7] {
            for ior in [1.5, 1.33] {
                for entering in [true, false] {
                    for theta in [20.0, 70.0] {
                        let side = if entering { "entering" } else { "leaving" };
                        let name = format!("glass r={roughness} ior={ior} {side}");
                        add(name, material(1.0, 0.0, roughness, ior, 1.0), theta, entering);
                    }
                }
            }
        }
        for theta in [10.0, 50.0, 75.0] {
            let m = Principled {
                base_color: Vec3A::new(0.9, 0.5, 0.2),
                metallic: 0.5,
                roughness: 0.5,
                ior: 1.5,
                transmission: 0.5,
            };
            add("mixture m=0.5 t=0.5 r=0.5".into(), m, theta, true);
        }
        cases
    }

    #[test]
    fn sample_follows_its_pdf_chi2() {
        let cases = chi2_cases();
        // Šidák: the whole family of tests at significance 0.01.
        let threshold = 1.0 - 0.99f64.powf(1.0 / cases.len() as f64);
        let p_values: Vec<f64> = std::thread::scope(|scope| {
            let handles: Vec<_> = cases
                .iter()
                .enumerate()
                .map(|(k, case)| {
                    scope.spawn(move || {
                        chi2_p_value(&observed_counts(case, &case.m, k as u64 + 1), &expected_counts(case))
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut failed = Vec::new();
        for (case, p) in cases.iter().zip(&p_values) {
            eprintln!("chi2 {:<45} p = {p:.4}", case.name);
            if !(*p > threshold) {
                failed.push(format!("{} (p = {p:.2e})", case.name));
            }
        }
        let min = p_values.iter().cloned().fold(1.0, f64::min);
        eprintln!("chi2: {} cases, min p = {min:.4}, threshold {threshold:.2e}", cases.len());
        assert!(failed.is_empty(), "sampling does not follow the pdf: {failed:?}");
    }

    /// The chi-square test itself has power: a roughness 6 % off is rejected.
    #[test]
    fn chi2_rejects_a_mismatched_pdf() {
        let case = Chi2Case {
            name: "mismatch".into(),
            m: material(1.0, 1.0, 0.47, 1.5, 0.0),
            wo: polar(30.0, 0.3),
            entering: true,
        };
        let sampled = material(1.0, 1.0, 0.5, 1.5, 0.0);
        let p = chi2_p_value(&observed_counts(&case, &sampled, 7), &expected_counts(&case));
        assert!(p < 1e-6, "{} passed with p = {p}", case.name);
    }

    // ---- sample against eval ----

    fn random_material(rng: &mut Pcg) -> Principled {
        let pick = |rng: &mut Pcg| match rng.next_u32() % 3 {
            0 => 0.0,
            1 => 1.0,
            _ => rng.f32(),
        };
        Principled {
            base_color: Vec3A::new(rng.f32(), rng.f32(), rng.f32()),
            metallic: pick(rng),
            roughness: if rng.next_u32().is_multiple_of(5) { 0.0 } else { 0.05 + 0.95 * rng.f32() },
            ior: 1.1 + rng.f32(),
            transmission: pick(rng),
        }
    }

    fn close(a: f32, b: f32, rel: f32) -> bool {
        (a - b).abs() <= rel * a.abs().max(b.abs()) + 1e-6
    }

    #[test]
    fn sample_agrees_with_eval() {
        let mut rng = Pcg::new(11);
        let (mut checked, mut deltas) = (0, 0);
        for _ in 0..200_000 {
            let m = random_material(&mut rng);
            let n = rng.unit();
            let wo = rng.unit();
            let entering = rng.next_u32().is_multiple_of(2);
            let Some(s) = sample_with(&m, wo, n, entering, &mut rng) else { continue };
            assert!(s.weight.is_finite() && s.weight.min_element() >= 0.0, "{m:?} {s:?}");
            assert!((s.wi.length() - 1.0).abs() < 1e-4, "{s:?}");
            assert_eq!(s.transmitted, s.wi.dot(n) < 0.0, "{m:?} {s:?}");
            if s.pdf == 0.0 {
                assert!(m.roughness < PRINCIPLED_DELTA_ROUGHNESS, "{m:?} {s:?}");
                deltas += 1;
                continue;
            }
            let (f_cos, pdf) = m.eval(wo, s.wi, &Normals::one(n), entering);
            assert!(close(pdf, s.pdf, 1e-3), "pdf {pdf} against {} for {m:?}", s.pdf);
            let weight = f_cos / pdf;
            for k in 0..3 {
                assert!(
                    close(weight[k], s.weight[k], 1e-3),
                    "weight {weight} against {} for {m:?}",
                    s.weight
                );
            }
            checked += 1;
        }
        assert!(checked > 50_000 && deltas > 5_000, "{checked} rough, {deltas} delta samples");
    }

    /// The normals of a normal-mapped hit: the diffuse normal tilted off the smooth one by
    /// up to 40°, the specular one tilted again a little, all on wo's side.
    fn mapped_normals(rng: &mut Pcg, wo: Vec3A) -> Normals {
        let smooth = (rng.unit() + wo).normalize();
        let tilt = |rng: &mut Pcg, n: Vec3A, amount: f32| (n + rng.unit() * amount).normalize();
        let diffuse = tilt(rng, smooth, 0.6);
        Normals { specular: tilt(rng, diffuse, 0.1), diffuse, smooth }
    }

    #[test]
    fn sample_agrees_with_eval_with_mapped_normals() {
        let mut rng = Pcg::new(15);
        let mut checked = 0;
        for _ in 0..100_000 {
            let m = Principled { roughness: 0.05 + 0.95 * rng.f32(), ..random_material(&mut rng) };
            let wo = rng.unit();
            let normals = mapped_normals(&mut rng, wo);
            let entering = rng.next_u32().is_multiple_of(2);
            let u = [rng.f32(), rng.f32(), rng.f32(), rng.f32()];
            let Some(s) = m.sample(wo, &normals, entering, u[0], u[1], u[2], u[3]) else { continue };
            assert!(s.weight.is_finite() && s.weight.min_element() >= 0.0, "{m:?} {s:?}");
            let (f_cos, pdf) = m.eval(wo, s.wi, &normals, entering);
            assert!(close(pdf, s.pdf, 1e-3), "pdf {pdf} against {} for {m:?}", s.pdf);
            for k in 0..3 {
                assert!(close(f_cos[k] / pdf, s.weight[k], 1e-3), "{f_cos} / {pdf} against {}", s.weight);
            }
            checked += 1;
        }
        assert!(checked > 40_000, "{checked} samples");
    }

    #[test]
    fn bump_shadowing_softens_only_tilted_maps() {
        let up = Vec3A::Z;
        let tilted = |deg: f32| polar(deg, 0.0);
        // No tilt: no change, whatever the direction.
        for theta in [0.0f32, 60.0, 89.0] {
            assert_eq!(bump_shadowing(up, up, polar(theta, 1.0)), 1.0);
        }
        // Light from behind the smooth surface while the map faces it: none.
        assert_eq!(bump_shadowing(up, tilted(30.0), polar(100.0, 0.0)), 0.0);
        // Less towards grazing light and with more tilt, never more than 1.
        let g = |tilt: f32, theta: f32| bump_shadowing(up, tilted(tilt), polar(theta, 0.0));
        assert!(g(30.0, 80.0) < g(30.0, 40.0) && g(30.0, 40.0) <= 1.0);
        assert!(g(40.0, 70.0) < g(20.0, 70.0));
        assert!(g(30.0, 89.9) < 0.5 && g(30.0, 89.9) > 0.0);
    }

    /// No NaN or infinity anywhere, extreme parameters and random numbers included.
    #[test]
    fn outputs_are_finite() {
        let mut rng = Pcg::new(12);
        let extreme = |rng: &mut Pcg| match rng.next_u32() % 4 {
            0 => 0.0,
            1 => 1.0 - f32::EPSILON / 2.0,
            _ => rng.f32(),
        };
        for _ in 0..200_000 {
            let mut m = random_material(&mut rng);
            m.roughness = [0.0, 1.0, PRINCIPLED_DELTA_ROUGHNESS, m.roughness][rng.next_u32() as usize % 4];
            m.ior = [1.0, 1.0001, m.ior][rng.next_u32() as usize % 3];
            let n = rng.unit();
            // Grazing and below-the-normal directions too.
            let wo = (rng.unit() + n * (rng.f32() - 0.5) * 1e-3).normalize();
            let wi = rng.unit();
            let entering = rng.next_u32().is_multiple_of(2);
            let (f_cos, pdf) = m.eval(wo, wi, &Normals::one(n), entering);
            assert!(f_cos.is_finite() && pdf.is_finite() && pdf >= 0.0, "{m:?} {f_cos} {pdf}");
            let u = [extreme(&mut rng), extreme(&mut rng), extreme(&mut rng), extreme(&mut rng)];
            if let Some(s) = m.sample(wo, &Normals::one(n), entering, u[0], u[1], u[2], u[3]) {
                assert!(s.wi.is_finite() && s.weight.is_finite() && s.pdf.is_finite(), "{m:?} {s:?}");
            }
        }
    }

    // ---- reciprocity ----

    /// The specular lobes are reciprocal; the diffuse base is not (its weight 1 − E(wo)
    /// depends on wo alone, as Cycles' layering does), so it is black here.
    #[test]
    fn specular_reflection_is_reciprocal() {
        let mut rng = Pcg::new(13);
        for _ in 0..50_000 {
            let mut m = random_material(&mut rng);
            m.roughness = m.roughness.max(0.05);
            m.base_color = Vec3A::ZERO;
            let n = rng.unit();
            let (wo, wi) = (rng.unit(), rng.unit());
            let (wo, wi) = (wo * wo.dot(n).signum(), wi * wi.dot(n).signum());
            let entering = rng.next_u32().is_multiple_of(2);
            let forward = m.eval(wo, wi, &Normals::one(n), entering).0 / wi.dot(n);
            let backward = m.eval(wi, wo, &Normals::one(n), entering).0 / wo.dot(n);
            for k in 0..3 {
                assert!(close(forward[k], backward[k], 1e-3), "{forward} against {backward} for {m:?}");
            }
        }
    }

    /// Radiance-mode BTDFs are not symmetric: f(wo, wi) / eta_o² = f(wi, wo) / eta_i²
    /// with eta_x the index on x's side (Veach 1997, eq. 5.14; Walter et al. 2007).
    #[test]
    fn transmission_obeys_generalised_reciprocity() {
        let mut rng = Pcg::new(14);
        let mut checked = 0;
        for _ in 0..50_000 {
            let m = Principled { roughness: 0.05 + 0.95 * rng.f32(), ..random_material(&mut rng) };
            let n = rng.unit();
            let wo = rng.unit();
            let wo = wo * wo.dot(n).signum();
            let entering = rng.next_u32().is_multiple_of(2);
            // Sampled pairs refract; random ones mostly do not (then both sides are 0).
            let wi = match sample_with(&m, wo, n, entering, &mut rng) {
                Some(s) if s.transmitted && !rng.next_u32().is_multiple_of(4) => s.wi,
                _ => -rng.unit().abs().dot(n).signum() * n + rng.unit() * rng.f32(),
            }
            .normalize();
            if !(wi.dot(n) < 0.0) {
                continue;
            }
            let (eta_o, eta_i) = if entering { (1.0, m.ior) } else { (m.ior, 1.0) };
            let forward = m.eval(wo, wi, &Normals::one(n), entering).0 / -wi.dot(n) / (eta_o * eta_o);
            let backward = m.eval(wi, wo, &Normals::one(-n), !entering).0 / wo.dot(n) / (eta_i * eta_i);
            // Where wo grazes the microfacet, the way back is at the edge of total
            // internal reflection: cos θt = sqrt(1 - sin² θt) there keeps few of f32's bits.
            let h = (wo * eta_o + wi * eta_i).normalize();
            let rel = if wo.dot(h).abs() < 0.05 { 3e-2 } else { 1e-3 };
            for k in 0..3 {
                assert!(close(forward[k], backward[k], rel), "{forward} against {backward} for {m:?}");
            }
            checked += (forward.max_element() > 0.0) as usize;
        }
        assert!(checked > 5_000, "{checked} transmitted pairs");
    }

    // ---- furnaces ----

    /// ∫ over h of g(h) dω_h, θ_h mapped through tan θ_h = α tan(π s / 2), which puts
    /// half the nodes inside the lobe's width α, midpoint rule in (s, φ).
    fn integrate_over_normals(alpha: f64, g: impl Fn(DVec3) -> f64) -> f64 {
        const S_STEPS: usize = 2048;
        const PHI_STEPS: usize = 512;
        let mut sum = 0.0;
        for a in 0..S_STEPS {
            let s = (a as f64 + 0.5) / S_STEPS as f64;
            let tan_s = (0.5 * PI * s).tan();
            let theta = (alpha * tan_s).atan();
            let d_theta_ds = alpha * 0.5 * PI * (1.0 + tan_s * tan_s) / (1.0 + alpha * alpha * tan_s * tan_s);
            let (sin_t, cos_t) = theta.sin_cos();
            let mut ring = 0.0;
            for b in 0..PHI_STEPS {
                let phi = 2.0 * PI * (b as f64 + 0.5) / PHI_STEPS as f64;
                ring += g(DVec3::new(sin_t * phi.cos(), sin_t * phi.sin(), cos_t));
            }
            sum += ring * sin_t * d_theta_ds;
        }
        sum * 2.0 * PI / (S_STEPS * PHI_STEPS) as f64
    }

    /// Heitz 2014's "weak white furnace": the visible normals' density integrates to 1,
    /// ∫ D G1(wo) / (4 cos_o) dω_i = ∫ D G1(wo) max(0, wo·h) / cos_o dω_h = 1. Uses the
    /// module's D and Λ.
    #[test]
    fn weak_white_furnace() {
        for roughness in [0.1f32, 0.3, 0.6, 1.0] {
            let alpha2 = roughness.powi(4);
            for theta in [0.0, 45.0, 80.0] {
                let wo = polar(theta, 0.0);
                let g1 = 1.0 / (1.0 + ggx_lambda(wo.z, alpha2) as f64);
                let total = integrate_over_normals((roughness * roughness) as f64, |h| {
                    let d = ggx_d(Vec3A::from(h.as_vec3()), alpha2) as f64;
                    d * g1 * wo.as_dvec3().dot(h).max(0.0) / wo.z as f64
                });
                assert!((total - 1.0).abs() < 2e-3, "roughness {roughness}, {theta}°: {total}");
            }
        }
    }

    /// The directional albedo of a white GGX conductor, ∫ D G2 / (4 cos_o) dω_i over
    /// the upper hemisphere, in f64 with its own D and Λ.
    fn conductor_albedo(roughness: f64, cos_o: f64) -> f64 {
        let alpha2 = roughness.powi(4);
        let wo = DVec3::new((1.0 - cos_o * cos_o).sqrt(), 0.0, cos_o);
        let lambda = |c: f64| 0.5 * ((1.0 + alpha2 * (1.0 - c * c) / (c * c)).sqrt() - 1.0);
        integrate_over_normals(roughness * roughness, |h| {
            let cos_h = wo.dot(h);
            let wi = 2.0 * cos_h * h - wo;
            if cos_h <= 0.0 || wi.z <= 0.0 {
                return 0.0;
            }
            let k = h.x * h.x + h.y * h.y + alpha2 * h.z * h.z;
            let d = alpha2 / (PI * k * k);
            d / (1.0 + lambda(cos_o) + lambda(wi.z)) * cos_h / cos_o
        })
    }

    /// White furnace: the mean weight of sampled directions is the directional albedo.
    #[test]
    fn white_furnace_conductor() {
        let m = |roughness| material(1.0, 1.0, roughness, 1.5, 0.0);
        for (k, roughness) in [0.25f32, 0.5, 0.75, 1.0].into_iter().enumerate() {
            for theta in [0.0f32, 60.0] {
                let expected = conductor_albedo(roughness as f64, theta.to_radians().cos() as f64);
                let mut rng = Pcg::new(20 + k as u64);
                let count = 200_000;
                let wo = polar(theta, 0.0);
                let sum: f64 = (0..count)
                    .filter_map(|_| sample_with(&m(roughness), wo, Vec3A::Z, true, &mut rng))
                    .map(|s| s.weight.x as f64)
                    .sum();
                let estimate = sum / count as f64;
                eprintln!(
                    "furnace roughness {roughness} at {theta}°: albedo {expected:.4} (lost {:.1} %), sampled {estimate:.4}",
                    100.0 * (1.0 - expected)
                );
                assert!((estimate / expected - 1.0).abs() < 0.01, "roughness {roughness}, {theta}°");
            }
        }
    }

    /// The mean sampled weight of a white dielectric (metallic 0, base colour 1) seen
    /// from `theta` degrees.
    fn plastic_albedo(roughness: f32, theta: f32, seed: u64) -> f64 {
        let m = material(1.0, 0.0, roughness, 1.5, 0.0);
        let mut rng = Pcg::new(seed);
        let count = 200_000;
        let wo = polar(theta, 0.0);
        let sum: f64 = (0..count)
            .filter_map(|_| sample_with(&m, wo, Vec3A::Z, true, &mut rng))
            .map(|s| s.weight.x as f64)
            .sum();
        sum / count as f64
    }

    /// A smooth white plastic reflects everything: its mirror takes F(wo), the base
    /// 1 − E(wo) = 1 − F(wo) (to the table's interpolation in cos θo: 0.75 % at 85°).
    /// Rough, it loses what the single-scattering specular lobe loses and never gains
    /// energy.
    #[test]
    fn white_plastic_furnace() {
        for theta in [0.0f32, 45.0, 75.0, 85.0] {
            let smooth = plastic_albedo(0.0, theta, 40);
            assert!((smooth - 1.0).abs() < 1e-2, "smooth plastic at {theta}°: {smooth}");
            for roughness in [0.3f32, 0.6, 1.0] {
                let rough = plastic_albedo(roughness, theta, 41);
                assert!(rough < 1.005 && rough > 0.85, "roughness {roughness} at {theta}°: {rough}");
            }
        }
    }

    // ---- delta lobes ----

    #[test]
    fn smooth_glass_is_mirror_or_snell() {
        let m = Principled { base_color: Vec3A::new(1.0, 0.8, 0.6), ..material(1.0, 0.0, 0.0, 1.5, 1.0) };
        assert!(m.is_delta());
        let n = Vec3A::new(0.3, -0.5, 0.8).normalize();
        let (t, _) = onb(n);
        for (entering, theta) in [(true, 0.0f32), (true, 50.0), (true, 85.0), (false, 30.0), (false, 50.0)] {
            let eta = if entering { 1.5f64 } else { 1.0 / 1.5 };
            let theta = theta.to_radians();
            let wo = (n * theta.cos() + t * theta.sin()).normalize();
            // Exact Fresnel and Snell, in f64.
            let (ci, si) = (theta.cos() as f64, theta.sin() as f64);
            let st = si / eta;
            let (fresnel, refracted) = if st >= 1.0 {
                (1.0, None)
            } else {
                let ct = (1.0 - st * st).sqrt();
                let rs = (ci - eta * ct) / (ci + eta * ct);
                let rp = (eta * ci - ct) / (eta * ci + ct);
                let dir = -n * ct as f32 - t * st as f32;
                (0.5 * (rs * rs + rp * rp), Some(dir))
            };
            let mirror = 2.0 * wo.dot(n) * n - wo;
            let mut rng = Pcg::new(30);
            let count = 100_000;
            let mut reflected = 0;
            for _ in 0..count {
                let s = sample_with(&m, wo, n, entering, &mut rng).expect("smooth glass always scatters");
                assert_eq!(s.pdf, 0.0);
                if s.transmitted {
                    let dir = refracted.expect("no refraction under total internal reflection");
                    assert!((s.wi - dir).length() < 1e-5, "{} against Snell's {dir}", s.wi);
                    let weight = m.base_color / (eta * eta) as f32;
                    assert!((s.weight - weight).abs().max_element() < 1e-5, "{}", s.weight);
                } else {
                    reflected += 1;
                    assert!((s.wi - mirror).length() < 1e-5, "{} against the mirror {mirror}", s.wi);
                    assert!((s.weight - Vec3A::ONE).abs().max_element() < 1e-5, "{}", s.weight);
                }
                assert_eq!(m.eval(wo, s.wi, &Normals::one(n), entering), (Vec3A::ZERO, 0.0));
            }
            let frequency = reflected as f64 / count as f64;
            let sigma = (fresnel * (1.0 - fresnel) / count as f64).sqrt().max(1e-9);
            assert!(
                (frequency - fresnel).abs() <= 5.0 * sigma,
                "reflected {frequency} against F = {fresnel}"
            );
        }
    }

    /// A smooth plastic: a delta coat over a diffuse base that NEE still sees.
    #[test]
    fn smooth_plastic_keeps_its_diffuse_lobe() {
        let m = material(0.5, 0.0, 0.0, 1.5, 0.0);
        assert!(!m.is_delta());
        let wo = polar(40.0, 0.0);
        let mut rng = Pcg::new(31);
        let (mut mirrors, count) = (0, 100_000);
        for _ in 0..count {
            let s = sample_with(&m, wo, Vec3A::Z, true, &mut rng).unwrap();
            if s.pdf == 0.0 {
                mirrors += 1;
                assert!((s.wi - Vec3A::new(-wo.x, -wo.y, wo.z)).length() < 1e-6);
            } else {
                assert!(close(m.eval(wo, s.wi, &Normals::one(Vec3A::Z), true).1, s.pdf, 1e-5));
            }
        }
        // F(40°) = 0.042 of the weight against (1 - F) 0.5 for the base.
        let f = fresnel_dielectric(wo.z, 1.5);
        let expected = f / (f + (1.0 - f) * 0.5);
        let frequency = mirrors as f32 / count as f32;
        assert!((frequency - expected).abs() < 0.005, "{frequency} against {expected}");
        assert!(!material(0.5, 1.0, 0.5, 1.5, 0.0).is_delta());
        assert!(material(0.5, 1.0, 0.01, 1.5, 0.0).is_delta());
    }
}
