//! The sphere shape on the CPU, docs/path-tracing.md "Intersection", "Robust hits"
//! and the sphere light's solid angle (CUDA twin: kernels/shape_sphere.cuh).

use std::f32::consts::TAU;

use glam::{Vec3A, Vec4};
use scene_compiler::blob::layout::SphereRecord;

use super::shape::{CpuShape, LightSample, Surface};
use crate::backend::constants::SPHERE_ERR;
use crate::backend::cpu::sampling::sample_cone;

/// A sphere: center.xyz, radius, in one SIMD register.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    pub center_radius: Vec4,
}

impl Sphere {
    pub fn from_record(r: &SphereRecord) -> Sphere {
        Sphere { center_radius: Vec4::from_array(r.center_radius) }
    }
}

impl CpuShape for Sphere {
    #[inline(always)]
    fn intersect(&self, origin: Vec3A, dir: Vec3A, t_max: f32) -> Option<f32> {
        intersect_sphere(self.center_radius, origin, dir, t_max)
    }

    #[inline(always)]
    fn surface(&self, origin: Vec3A, dir: Vec3A, t: f32) -> Surface {
        sphere_surface(self.center_radius, origin, dir, t)
    }

    /// Uniform in the cone the sphere subtends from `p`.
    #[inline(always)]
    fn sample_towards(&self, p: Vec3A, o: Vec3A, u: [f32; 2]) -> Option<LightSample> {
        let (axis, one_minus_cos) = sphere_cone(self.center_radius, p)?;
        let wi = sample_cone(axis, one_minus_cos, u[0], u[1]);
        Some(LightSample {
            wi,
            t_max: sphere_near_distance(self.center_radius, o, wi),
            inv_pdf: TAU * one_minus_cos,
        })
    }

    #[inline(always)]
    fn pdf_towards(&self, from: Vec3A, _hit: &Surface) -> f32 {
        sphere_solid_angle_pdf(self.center_radius, from)
    }

    /// Longitude and latitude of the outward normal, in the environment's convention.
    #[inline(always)]
    fn uv(&self, hit: &Surface) -> glam::Vec2 {
        sphere_uv(hit.normal)
    }

    /// `u` grows with the azimuth about +y, `v` from the north pole down.
    fn dpduv(&self, hit: &Surface) -> (Vec3A, Vec3A) {
        let n = hit.normal;
        let dpdu = Vec3A::new(-n.z, 0.0, n.x);
        (dpdu, n.cross(dpdu))
    }
}

/// `u = atan2(n.x, -n.z) / 2π` wrapped into [0, 1), `v = acos(n.y) / π` (0 at the
/// north pole): the image's centre column faces +z, its top row is the pole.
#[inline(always)]
pub fn sphere_uv(n: Vec3A) -> glam::Vec2 {
    let u = n.x.atan2(-n.z) * (0.5 * std::f32::consts::FRAC_1_PI);
    let u = if u < 0.0 { u + 1.0 } else { u };
    glam::Vec2::new(u, n.y.clamp(-1.0, 1.0).acos() * std::f32::consts::FRAC_1_PI)
}

/// Ray/sphere distance in `(0, t_max)` with the precise discriminant (Ray Tracing
/// Gems, ch. 7): the textbook `b² - c` loses all precision on the radius-1000 ground.
/// `dir` must be unit length.
#[inline(always)]
pub fn intersect_sphere(center_radius: Vec4, origin: Vec3A, dir: Vec3A, t_max: f32) -> Option<f32> {
    let radius = center_radius.w;
    let oc = Vec3A::from_vec4(center_radius) - origin;
    let b = oc.dot(dir);
    let l = oc - b * dir;
    let disc = radius * radius - l.dot(l);
    if disc < 0.0 {
        return None;
    }
    let h = disc.sqrt();
    let mut t = b - h;
    if t <= 0.0 {
        t = b + h;
    }
    (0.0 < t && t < t_max).then_some(t)
}

/// The hit at distance `t` re-projected onto the sphere, with its error bound and
/// outward normal.
#[inline(always)]
pub fn sphere_surface(center_radius: Vec4, origin: Vec3A, dir: Vec3A, t: f32) -> Surface {
    let center = Vec3A::from_vec4(center_radius);
    let radius = center_radius.w;
    let raw = origin + t * dir - center;
    let local = raw * (radius / raw.length());
    let normal = local / radius;
    Surface {
        point: center + local,
        error: SPHERE_ERR * (center.abs() + local.abs()),
        normal,
        shading: normal,
    }
}

/// `1 - cos θmax` of the cone the sphere subtends seen from `o`, or `None` when `o`
/// is inside it. Written as `sin² / (1 + cos)` so a small, far sphere keeps its digits.
#[inline(always)]
pub fn sphere_cone(center_radius: Vec4, o: Vec3A) -> Option<(Vec3A, f32)> {
    let to = Vec3A::from_vec4(center_radius) - o;
    let dist2 = to.length_squared();
    let radius2 = center_radius.w * center_radius.w;
    if dist2 <= radius2 {
        return None;
    }
    let sin2_max = radius2 / dist2;
    let one_minus_cos = sin2_max / (1.0 + (1.0 - sin2_max).sqrt());
    Some((to / dist2.sqrt(), one_minus_cos))
}

/// The solid-angle density of uniform cone sampling of the sphere from `o`; 0 inside.
#[inline(always)]
pub fn sphere_solid_angle_pdf(center_radius: Vec4, o: Vec3A) -> f32 {
    match sphere_cone(center_radius, o) {
        Some((_, one_minus_cos)) => 1.0 / (TAU * one_minus_cos),
        None => 0.0,
    }
}

/// The distance from `o` along unit `wi` to the sphere's near side; a direction
/// that grazes past the edge (by rounding) gets its closest approach.
#[inline(always)]
pub fn sphere_near_distance(center_radius: Vec4, o: Vec3A, wi: Vec3A) -> f32 {
    let oc = Vec3A::from_vec4(center_radius) - o;
    let b = oc.dot(wi);
    let l = oc - b * wi;
    let disc = center_radius.w * center_radius.w - l.dot(l);
    b - disc.max(0.0).sqrt()
}
