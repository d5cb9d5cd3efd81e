//! Next-event estimation: picking a light by power and sampling a direction to it
//! (docs/path-tracing.md, "Next-event estimation"; CUDA twin: kernels/lights.cuh).

use std::f32::consts::{FRAC_1_PI, TAU};

use glam::{Vec3A, Vec4};
use scene_compiler::blob::layout::{LIGHT_DIRECTIONAL, LIGHT_POINT, LightRecord, PRIM_INDEX_MASK};

use super::scene::CpuScene;
use super::shapes::sphere::{sphere_cone, sphere_near_distance};
use super::traverse::occluded;

/// What a light is, with the parameters its sampling needs.
#[derive(Clone, Copy, Debug)]
pub enum LightShape {
    Point {
        position: Vec3A,
    },
    /// `towards`: the unit direction to the light; `one_minus_cos` of its disc's radius.
    Directional {
        towards: Vec3A,
        one_minus_cos: f32,
    },
    /// A primitive reference (an emissive sphere).
    Sphere {
        prim: u32,
    },
}

/// A light of the blob's table.
#[derive(Clone, Copy, Debug)]
pub struct Light {
    pub shape: LightShape,
    /// Intensity (point), irradiance (directional) or radiance (sphere).
    pub radiance: Vec3A,
    /// The probability of picking this light.
    pub pdf: f32,
    pub alias_threshold: f32,
    pub alias: u32,
}

impl Light {
    pub fn from_record(r: &LightRecord) -> Light {
        let [x, y, z, cos] = r.vector_cos;
        let vector = Vec3A::new(x, y, z);
        let shape = match r.kind {
            LIGHT_POINT => LightShape::Point { position: vector },
            LIGHT_DIRECTIONAL => LightShape::Directional { towards: vector, one_minus_cos: 1.0 - cos },
            // The loader accepts no other kind.
            _ => LightShape::Sphere { prim: r.prim },
        };
        Light {
            shape,
            radiance: Vec3A::from_vec4(Vec4::from_array(r.radiance_pdf)),
            pdf: r.radiance_pdf[3],
            alias_threshold: r.alias_threshold,
            alias: r.alias,
        }
    }
}

/// The light the alias table picks for `u` in [0, 1).
#[inline(always)]
pub fn pick_light(lights: &[Light], u: f32) -> &Light {
    let n = lights.len();
    let scaled = u * n as f32;
    let i = (scaled as usize).min(n - 1);
    let light = &lights[i];
    if scaled - (i as f32) < light.alias_threshold { light } else { &lights[light.alias as usize] }
}

/// The radiance arriving at surface point `p` (a Lambert surface with normal `n`) from
/// one light sample, times the BSDF and cosine, over its pdf. Directions, distances
/// and pdfs are taken at `p`; the shadow ray starts at `o`, `p` offset to `n`'s side.
/// `rays` counts shadow rays.
#[inline(always)]
pub fn direct_light(
    scene: &CpuScene,
    p: Vec3A,
    o: Vec3A,
    n: Vec3A,
    albedo: Vec3A,
    u: [f32; 3],
    rays: &mut u64,
) -> Vec3A {
    let light = pick_light(&scene.lights, u[0]);
    let f = albedo * FRAC_1_PI;
    match light.shape {
        LightShape::Point { position } => {
            let to = position - p;
            let dist2 = to.length_squared();
            let dist = dist2.sqrt();
            let wi = to / dist;
            let c = n.dot(wi);
            if c <= 0.0 {
                return Vec3A::ZERO;
            }
            *rays += 1;
            if occluded(scene, o, wi, dist, u32::MAX) {
                return Vec3A::ZERO;
            }
            f * c * light.radiance / (dist2 * light.pdf)
        }
        LightShape::Directional { towards, one_minus_cos } => {
            let wi = sample_cone(towards, one_minus_cos, u[1], u[2]);
            let c = n.dot(wi);
            if c <= 0.0 {
                return Vec3A::ZERO;
            }
            *rays += 1;
            if occluded(scene, o, wi, f32::INFINITY, u32::MAX) {
                return Vec3A::ZERO;
            }
            f * c * light.radiance / light.pdf
        }
        LightShape::Sphere { prim } => {
            let sphere = scene.shapes.spheres[(prim & PRIM_INDEX_MASK) as usize];
            let Some((axis, one_minus_cos)) = sphere_cone(sphere, p) else {
                return Vec3A::ZERO;
            };
            let wi = sample_cone(axis, one_minus_cos, u[1], u[2]);
            let c = n.dot(wi);
            if c <= 0.0 {
                return Vec3A::ZERO;
            }
            *rays += 1;
            if occluded(scene, o, wi, sphere_near_distance(sphere, o, wi), prim) {
                return Vec3A::ZERO;
            }
            let light_pdf = light.pdf / (TAU * one_minus_cos);
            let bsdf_pdf = c * FRAC_1_PI;
            f * c * light.radiance * (light_pdf / (light_pdf * light_pdf + bsdf_pdf * bsdf_pdf))
        }
    }
}

/// A direction uniform in solid angle within the cone of `1 - cos θmax =
/// one_minus_cos` around unit `axis`.
#[inline(always)]
pub fn sample_cone(axis: Vec3A, one_minus_cos: f32, u1: f32, u2: f32) -> Vec3A {
    let cos_theta = 1.0 - u1 * one_minus_cos;
    let sin_theta = ((1.0 - cos_theta) * (1.0 + cos_theta)).max(0.0).sqrt();
    let (sin_phi, cos_phi) = (TAU * u2).sin_cos();
    let (t, b) = onb(axis);
    t * (sin_theta * cos_phi) + b * (sin_theta * sin_phi) + axis * cos_theta
}

/// Two unit vectors completing unit `n` to an orthonormal basis, without a branch on
/// a near-zero component (Duff et al. 2017, "Building an Orthonormal Basis, Revisited").
#[inline(always)]
pub fn onb(n: Vec3A) -> (Vec3A, Vec3A) {
    let sign = 1.0f32.copysign(n.z);
    let a = -1.0 / (sign + n.z);
    let b = n.x * n.y * a;
    (Vec3A::new(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x), Vec3A::new(b, sign + n.y * n.y * a, -n.y))
}
