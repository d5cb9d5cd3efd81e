//! Scattering at a hit: each material kind's lobe (docs/path-tracing.md, "One
//! sample", the `scatter` block; CUDA twin: kernels/scatter.cuh).

use std::f32::consts::TAU;

use glam::Vec3A;

use super::material::{Lobe, Material};
use super::principled::{Normals, Principled};
use super::sampler::Sampler;
use crate::backend::constants::{
    DEGENERATE_DIR2, DIM_SCATTER_FRESNEL, DIM_SCATTER_LOBE, DIM_SCATTER_R1, DIM_SCATTER_R2, bounce_dim,
};

/// The random numbers drawn at every bounce, whichever lobe uses them.
#[derive(Clone, Copy, Debug)]
pub struct ScatterRandoms {
    /// Picks a Principled material's lobe; the RTIOW kinds draw it and leave it, so
    /// their streams, and images, are those of the renderer before it.
    pub lobe: f32,
    pub r1: f32,
    pub r2: f32,
    pub fresnel: f32,
}

impl ScatterRandoms {
    /// Draws them for bounce `depth` (docs/path-tracing.md, "One sample"), in the spec's
    /// order (the independent sampler's stream), each from its own dimension.
    #[inline(always)]
    pub fn draw<S: Sampler>(sampler: &mut S, depth: u32) -> ScatterRandoms {
        ScatterRandoms {
            lobe: sampler.get(bounce_dim(depth, DIM_SCATTER_LOBE)),
            r1: sampler.get(bounce_dim(depth, DIM_SCATTER_R1)),
            r2: sampler.get(bounce_dim(depth, DIM_SCATTER_R2)),
            fresnel: sampler.get(bounce_dim(depth, DIM_SCATTER_FRESNEL)),
        }
    }
}

/// A bounce that continues the path.
#[derive(Clone, Copy, Debug)]
pub struct Bounce {
    pub dir: Vec3A,
    /// The throughput's factor: the BSDF times the cosine over the pdf.
    pub attenuation: Vec3A,
    /// The Lambert lobe: it must leave on the side of the geometric normal.
    pub diffuse: bool,
    /// A Principled bounce: it must leave on the side of the geometric normal it
    /// chose (`transmitted` or not), and `pdf` weighs an emitter it reaches by MIS.
    pub principled: bool,
    /// The direction goes through the surface.
    pub transmitted: bool,
    /// A Principled bounce's solid-angle pdf (the mixture of its lobes); 0 for a delta
    /// lobe, which an emitter it reaches counts fully.
    pub pdf: f32,
}

/// The scattered direction and attenuation; `None` when the path ends here (an
/// emitter without albedo absorbs, and so does a fuzzy metal reflection below the
/// surface).
///
/// `dir` is the unit incoming direction, `normals` the unit normals facing against it
/// (the legacy kinds shade with `normals.specular`).
#[inline(always)]
pub fn scatter(
    m: &Material,
    dir: Vec3A,
    normals: &Normals,
    front_face: bool,
    r: ScatterRandoms,
) -> Option<Bounce> {
    let n = normals.specular;
    let rtiow = |dir, attenuation, diffuse| Bounce {
        dir,
        attenuation,
        diffuse,
        principled: false,
        transmitted: false,
        pdf: 0.0,
    };
    match m.lobe {
        Lobe::Lambert => {
            let d = n + random_unit_vector(r.r1, r.r2);
            // A sample exactly opposite the normal would give a zero direction.
            let dir = if d.length_squared() < DEGENERATE_DIR2 { n } else { d.normalize() };
            Some(rtiow(dir, m.albedo, true))
        }
        Lobe::Metal { fuzz } => {
            let d = reflect(dir, n) + fuzz * random_unit_vector(r.r1, r.r2);
            if d.dot(n) <= 0.0 {
                return None;
            }
            Some(rtiow(d.normalize(), m.albedo, false))
        }
        Lobe::Dielectric { ior } => {
            let eta = if front_face { 1.0 / ior } else { ior };
            let c = (-dir).dot(n).min(1.0);
            let s = (1.0 - c * c).sqrt();
            let r0 = ((1.0 - eta) / (1.0 + eta)).powi(2);
            let fresnel = r0 + (1.0 - r0) * (1.0 - c).powi(5);
            let d =
                if eta * s > 1.0 || fresnel > r.fresnel { reflect(dir, n) } else { refract(dir, n, eta, c) };
            Some(rtiow(d, m.albedo, false))
        }
        Lobe::Absorb => None,
        Lobe::Principled { .. } => {
            let p = principled_of(m);
            let sample = p.sample(-dir, normals, entering(&p, front_face), r.lobe, r.r1, r.r2, r.fresnel)?;
            Some(Bounce {
                dir: sample.wi,
                attenuation: sample.weight,
                diffuse: false,
                principled: true,
                transmitted: sample.transmitted,
                pdf: sample.pdf,
            })
        }
    }
}

/// Whether a ray arriving on the `front_face` side of a Principled surface enters its
/// solid. Only a transmissive surface has an inside: an opaque one is the same seen from
/// either side (a single-sided leaf seen from behind would otherwise reflect the sky by
/// total internal reflection).
#[inline(always)]
pub fn entering(p: &Principled, front_face: bool) -> bool {
    front_face || p.transmission <= 0.0
}

/// A Principled material's BSDF parameters (`m.lobe` is `Lobe::Principled`).
#[inline(always)]
pub fn principled_of(m: &Material) -> Principled {
    let Lobe::Principled { metallic, roughness, ior, transmission } = m.lobe else {
        unreachable!("principled_of a {:?}", m.lobe)
    };
    Principled { base_color: m.albedo, metallic, roughness, ior, transmission }
}

/// A uniform direction on the unit sphere (cylindrical projection: z uniform in [-1, 1]).
#[inline(always)]
pub fn random_unit_vector(r1: f32, r2: f32) -> Vec3A {
    let z = 1.0 - 2.0 * r1;
    let (sin_a, cos_a) = (TAU * r2).sin_cos();
    let r = (1.0 - z * z).max(0.0).sqrt();
    Vec3A::new(r * cos_a, r * sin_a, z)
}

/// Mirror reflection of `d` about the unit normal `n`.
#[inline(always)]
pub fn reflect(d: Vec3A, n: Vec3A) -> Vec3A {
    d - 2.0 * d.dot(n) * n
}

/// Snell refraction of unit `d` through unit `n` (facing against `d`), `c = dot(-d, n)`.
#[inline(always)]
pub fn refract(d: Vec3A, n: Vec3A, eta: f32, c: f32) -> Vec3A {
    eta * (d + c * n) - (1.0 - eta * eta * (1.0 - c * c)).abs().sqrt() * n
}
