//! Scattering at a hit: the branchless material's lobe choice and the three lobes
//! (docs/path-tracing.md, "One sample", the `scatter` block).

use std::f32::consts::TAU;

use glam::Vec3A;

use super::scene::Material;

/// The four random numbers drawn at every bounce, whichever lobe uses them.
#[derive(Clone, Copy, Debug)]
pub struct ScatterRandoms {
    pub lobe: f32,
    pub r1: f32,
    pub r2: f32,
    pub fresnel: f32,
}

/// A bounce that continues the path.
#[derive(Clone, Copy, Debug)]
pub struct Bounce {
    pub dir: Vec3A,
    pub attenuation: Vec3A,
    /// The Lambert lobe: the one next-event estimation applies to.
    pub diffuse: bool,
}

/// The scattered direction and attenuation; `None` when the path ends here (a pure
/// emitter's ABSORB lobe, or a fuzzy metal reflection below the surface).
///
/// `dir` is the unit incoming direction, `n` the unit normal facing against it.
#[inline(always)]
pub fn scatter(m: &Material, dir: Vec3A, n: Vec3A, front_face: bool, r: ScatterRandoms) -> Option<Bounce> {
    if r.lobe < m.lambert_below {
        let d = n + random_unit_vector(r.r1, r.r2);
        // A sample exactly opposite the normal would give a zero direction.
        let dir = if d.length_squared() < 1e-12 { n } else { d.normalize() };
        Some(Bounce { dir, attenuation: m.albedo, diffuse: true })
    } else if r.lobe < m.metal_below {
        let d = reflect(dir, n) + m.fuzz * random_unit_vector(r.r1, r.r2);
        if d.dot(n) <= 0.0 {
            return None;
        }
        Some(Bounce { dir: d.normalize(), attenuation: m.albedo, diffuse: false })
    } else if r.lobe < m.dielectric_below {
        let eta = if front_face { 1.0 / m.ior } else { m.ior };
        let c = (-dir).dot(n).min(1.0);
        let s = (1.0 - c * c).sqrt();
        let r0 = ((1.0 - eta) / (1.0 + eta)).powi(2);
        let fresnel = r0 + (1.0 - r0) * (1.0 - c).powi(5);
        let d = if eta * s > 1.0 || fresnel > r.fresnel { reflect(dir, n) } else { refract(dir, n, eta, c) };
        Some(Bounce { dir: d, attenuation: Vec3A::ONE, diffuse: false })
    } else {
        None
    }
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
