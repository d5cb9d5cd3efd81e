//! Next-event estimation: one light sample from a surface point, weighed by the BSDF
//! there and the light's pdf (docs/path-tracing.md, "Next-event estimation"; CUDA twin:
//! kernels/lights.cuh).

use std::f32::consts::FRAC_1_PI;

use glam::Vec3A;

use super::lights::{LightShape, pick_light};
use super::prims;
use super::principled::{Normals, Principled};
use super::sampling::sample_cone;
use super::scene::CpuScene;
use super::traverse::occluded;

/// What next-event estimation weighs a light sample with: the BSDF at the hit.
#[derive(Clone, Copy, Debug)]
pub enum Bsdf {
    /// A Lambert surface of this albedo.
    Lambert(Vec3A),
    /// A Principled surface seen from `wo` (`entering`: from outside its solid), shaded
    /// with `normals` (whose `specular` is the `n` NEE is given).
    Principled { bsdf: Principled, wo: Vec3A, entering: bool, normals: Normals },
}

impl Bsdf {
    /// The BSDF times the cosine towards unit `wi` around shading normal `n`, and the
    /// solid-angle pdf with which scattering would have picked `wi` (for MIS); zero
    /// where the surface does not reflect towards `wi`.
    #[inline(always)]
    pub fn eval(&self, n: Vec3A, wi: Vec3A) -> (Vec3A, f32) {
        match *self {
            Bsdf::Lambert(albedo) => {
                let c = n.dot(wi).max(0.0);
                (albedo * FRAC_1_PI * c, c * FRAC_1_PI)
            }
            Bsdf::Principled { bsdf, wo, entering, normals } => bsdf.eval(wo, wi, &normals, entering),
        }
    }
}

/// The radiance arriving at surface point `p` (shading normal `n` and geometric normal
/// `ng`, both on the side the path came from) from one light sample, times the BSDF and
/// cosine, over its pdf. Directions, distances and pdfs are taken at `p`; the shadow ray
/// starts at `o`, `p` offset to `ng`'s side; a light below the geometric surface is not
/// seen. `rays` counts shadow rays.
#[allow(clippy::too_many_arguments)] // the twin of the kernel's, argument for argument
#[inline(always)]
pub fn direct_light(
    scene: &CpuScene,
    p: Vec3A,
    o: Vec3A,
    n: Vec3A,
    ng: Vec3A,
    bsdf: &Bsdf,
    u: [f32; 3],
    rays: &mut u64,
) -> Vec3A {
    let light = pick_light(&scene.lights, u[0]);
    // Whether the surface can send light from `wi` the path's way at all: a Lambert
    // surface facing it, any Principled lobe (the BSDF itself is evaluated after the
    // shadow ray, as the kernels do to keep fewer registers live across it).
    let principled = matches!(bsdf, Bsdf::Principled { .. });
    let faces = |wi: Vec3A| ng.dot(wi) > 0.0 && (principled || n.dot(wi) > 0.0);
    // The BSDF towards wi and its pdf, if the light is seen: a Principled BSDF that sends
    // nothing towards wi casts no shadow ray (the kernels evaluate it first to keep fewer
    // registers live across the traversal, and skip the ray then; same rays here).
    let mut seen = |wi: Vec3A, t_max: f32, skip: u32| {
        if !faces(wi) {
            return None;
        }
        let (fc, pdf) = bsdf.eval(n, wi);
        if principled && fc == Vec3A::ZERO {
            return None;
        }
        *rays += 1;
        if occluded(scene, o, wi, t_max, skip) { None } else { Some((fc, pdf)) }
    };
    match light.shape {
        LightShape::Point { position } => {
            let to = position - p;
            let dist2 = to.length_squared();
            let dist = dist2.sqrt();
            let wi = to / dist;
            let Some((fc, _)) = seen(wi, dist, u32::MAX) else { return Vec3A::ZERO };
            fc * light.radiance / (dist2 * light.pdf)
        }
        LightShape::Directional { towards, one_minus_cos } => {
            let wi = sample_cone(towards, one_minus_cos, u[1], u[2]);
            let Some((fc, _)) = seen(wi, f32::INFINITY, u32::MAX) else { return Vec3A::ZERO };
            fc * light.radiance / light.pdf
        }
        LightShape::Area { prim } => {
            let Some(sample) = prims::sample_towards(scene, prim, p, o, [u[1], u[2]]) else {
                return Vec3A::ZERO;
            };
            let Some((fc, bsdf_pdf)) = seen(sample.wi, sample.t_max, prim) else { return Vec3A::ZERO };
            let light_pdf = light.pdf / sample.inv_pdf;
            // A textured emitter's radiance at the point the shadow ray reaches.
            let m = prims::material(scene, prim);
            let radiance = if m.textured {
                let at = prims::surface(scene, prim, o, sample.wi, sample.t_max);
                m.textured(&scene.textures, at.point, prims::uv(scene, prim, &at)).emission
            } else {
                light.radiance
            };
            fc * radiance * (light_pdf / (light_pdf * light_pdf + bsdf_pdf * bsdf_pdf))
        }
        LightShape::Environment => {
            let env = scene.env.as_ref().expect("BlobView::parse refuses an environment light without one");
            let Some(sample) = env.sample(u[1], u[2]) else {
                return Vec3A::ZERO;
            };
            let Some((fc, bsdf_pdf)) = seen(sample.wi, f32::INFINITY, u32::MAX) else { return Vec3A::ZERO };
            let light_pdf = light.pdf * sample.pdf;
            fc * env.radiance(sample.wi) * (light_pdf / (light_pdf * light_pdf + bsdf_pdf * bsdf_pdf))
        }
    }
}
