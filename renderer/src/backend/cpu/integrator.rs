//! One camera sample: generate the camera ray, then bounce (traverse, shade, scatter,
//! next-event estimation, Russian roulette) until the path leaves the scene or ends (docs/path-tracing.md).

use std::f32::consts::{FRAC_1_PI, TAU};

use glam::Vec3A;

use super::direct::{Bsdf, direct_light};
use super::lights::Sun;
use super::material::{Lobe, Material};
use super::prims;
use super::principled::Normals;
use super::sampler::Sampler;
use super::scatter::{ScatterRandoms, entering, principled_of, scatter};
use super::scene::CpuScene;
use super::shading;
use super::shapes::{Surface, offset_ray_origin};
use super::traverse::{Hit, traverse};
use crate::backend::constants::{
    DIM_LENS_1, DIM_LENS_2, DIM_NEE_PICK, DIM_NEE_U1, DIM_NEE_U2, DIM_PIXEL_X, DIM_PIXEL_Y, DIM_ROULETTE,
    RR_START_DEPTH, bounce_dim,
};
use crate::camera::CameraFrame;
use crate::denoise::AovSample;
use scene_compiler::blob::layout::{NO_TEXTURE, TEXTURE_SLOT_NORMAL};

/// The camera frame in SIMD lanes.
#[derive(Clone, Copy, Debug)]
pub struct Camera {
    origin: Vec3A,
    lower_left: Vec3A,
    horizontal: Vec3A,
    vertical: Vec3A,
    u: Vec3A,
    v: Vec3A,
    lens_radius: f32,
}

impl From<&CameraFrame> for Camera {
    fn from(c: &CameraFrame) -> Camera {
        Camera {
            origin: c.origin.into(),
            lower_left: c.lower_left.into(),
            horizontal: c.horizontal.into(),
            vertical: c.vertical.into(),
            u: c.u.into(),
            v: c.v.into(),
            lens_radius: c.lens_radius,
        }
    }
}

/// Pixel `(x, y)` (y = 0 the top row) of a `width × height` image.
#[derive(Clone, Copy, Debug)]
pub struct Pixel {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

/// A jittered thin-lens ray through `pixel`: origin and unit direction. Draws its four
/// random numbers even for a pinhole, so every stream stays aligned with the kernels'.
#[inline(always)]
pub fn generate_camera_ray<S: Sampler>(cam: &Camera, pixel: Pixel, sampler: &mut S) -> (Vec3A, Vec3A) {
    let jx = sampler.get(DIM_PIXEL_X);
    let jy = sampler.get(DIM_PIXEL_Y);
    let l1 = sampler.get(DIM_LENS_1);
    let l2 = sampler.get(DIM_LENS_2);
    let s = (pixel.x as f32 + jx) / pixel.width as f32;
    let t = 1.0 - (pixel.y as f32 + jy) / pixel.height as f32;
    // A pinhole's offset is exactly zero; skipping the sin/cos changes no bit.
    let offset = if cam.lens_radius > 0.0 {
        let r = cam.lens_radius * l1.sqrt();
        let (sin_phi, cos_phi) = (TAU * l2).sin_cos();
        cam.u * (r * cos_phi) + cam.v * (r * sin_phi)
    } else {
        Vec3A::ZERO
    };
    let dir = (cam.lower_left + s * cam.horizontal + t * cam.vertical - cam.origin - offset).normalize();
    (cam.origin + offset, dir)
}

/// Radiance of one camera sample, `(0, 0, 0)` when any component is not finite (a NaN
/// never poisons a pixel). `rays` counts closest-hit and shadow queries. `nee`: sample
/// the lights at diffuse hits, combined with BSDF sampling by MIS (ignored when the
/// scene has no light with power). `sampler` gives each use its dimension
/// (`backend::constants`, `DIM_*`), in the spec's order. `aov`: where to record the
/// AOVs of the path's own first hits, albedo, normal and depth (`None` for a film
/// without AOVs, and for a sample whose AOVs come from rays of their own: [`super::aov`]).
/// Its `luminance2` is the caller's.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn trace_sample<S: Sampler>(
    scene: &CpuScene,
    cam: &Camera,
    pixel: Pixel,
    max_depth: u32,
    nee: bool,
    sampler: &mut S,
    rays: &mut u64,
    mut aov: Option<&mut AovSample>,
) -> Vec3A {
    let nee = nee && !scene.lights.is_empty();
    if let Some(a) = aov.as_deref_mut() {
        *a = AovSample::MISS;
    }
    // Set until the AOVs' albedo and normal are recorded (at the first hit that is not
    // a delta lobe, or where the path leaves the scene).
    let mut aov_open = aov.is_some();
    let (mut origin, mut dir) = generate_camera_ray(cam, pixel, sampler);
    let mut throughput = Vec3A::ONE;
    let mut radiance = Vec3A::ZERO;
    // The solid-angle pdf of the last bounce's direction; 0 after the camera or a
    // specular bounce, where an emitter counts fully.
    let mut bsdf_pdf = 0.0f32;
    // The surface point the last bounce left from: light pdfs are taken there.
    let mut bounce_point = Vec3A::ZERO;
    // The product of eta² over the refractions so far (1 without any).
    let mut eta_scale = 1.0f32;
    for depth in 0..max_depth {
        *rays += 1;
        let Some(hit) = traverse(scene, origin, dir, f32::INFINITY) else {
            let mut weight = 1.0;
            if let Some(env) = &scene.env
                && nee
                && bsdf_pdf > 0.0
                && env.pick_pdf > 0.0
            {
                // MIS: next-event estimation could have drawn this direction.
                let light_pdf = env.pick_pdf * env.pdf(dir);
                weight = bsdf_pdf * bsdf_pdf / (bsdf_pdf * bsdf_pdf + light_pdf * light_pdf);
            }
            let sky_radiance = sky(scene, dir);
            if aov_open && let Some(a) = aov.as_deref_mut() {
                a.albedo = sky_radiance.min(Vec3A::ONE).to_array();
            }
            radiance += throughput * sky_radiance * weight;
            // A sun that NEE could have drawn along this direction is NEE's.
            if !nee || bsdf_pdf == 0.0 {
                radiance += throughput * Sun::seen(&scene.suns, dir);
            }
            break;
        };
        let mut textured = None;
        let (Shaded { surface, front_face, n, normals, principled }, m) =
            shade_hit(scene, &hit, origin, dir, &mut textured);
        if aov_open && let Some(a) = aov.as_deref_mut() {
            if depth == 0 {
                a.depth = hit.t;
            }
            if let Some(albedo) = aov_albedo(m) {
                a.albedo = albedo.to_array();
                a.normal = normals.diffuse.to_array();
                aov_open = false;
            }
        }
        let ns = normals.specular;
        let mut weight = 1.0;
        if nee && bsdf_pdf > 0.0 {
            // None when no primitive is a light (the blob then has no such section).
            let pick_pdf = scene.prim_light_pdfs.get(prims::slot(scene, hit.prim)).copied().unwrap_or(0.0);
            if pick_pdf > 0.0 {
                let light_pdf = pick_pdf * prims::pdf_towards(scene, hit.prim, bounce_point, &surface);
                weight = bsdf_pdf * bsdf_pdf / (bsdf_pdf * bsdf_pdf + light_pdf * light_pdf);
            }
        }
        radiance += throughput * m.emission * weight;
        let randoms = ScatterRandoms::draw(sampler, depth);
        let bounce = scatter(m, dir, &normals, front_face, randoms);
        // A Principled hit's next-event estimation does not depend on the scattered
        // direction: it runs even when that direction ends the path (a rough lobe's
        // sample below the horizon), or those hits would lose their direct light. Lights
        // are sampled on the side the path came from.
        if nee && principled && !principled_of(m).is_delta() {
            let u = nee_randoms(sampler, depth);
            let p = principled_of(m);
            let bsdf = Bsdf::Principled { bsdf: p, wo: -dir, entering: entering(&p, front_face), normals };
            let o = offset_ray_origin(&surface, n);
            radiance += throughput * direct_light(scene, surface.point, o, ns, n, &bsdf, u, rays);
        }
        let Some(bounce) = bounce else {
            break;
        };
        // Around a shading normal a direction can leave on the wrong side of the surface
        // (a reflection into it, a refraction out of it): the path ends, so no light
        // leaks through (with `ns == n` a diffuse bounce never does).
        if (bounce.diffuse && bounce.dir.dot(n) <= 0.0)
            || (bounce.principled && bounce.transmitted == (bounce.dir.dot(n) > 0.0))
        {
            break;
        }
        let next_origin = offset_ray_origin(&surface, if bounce.diffuse { n } else { bounce.dir });
        bsdf_pdf = 0.0;
        if nee && bounce.diffuse {
            let u = nee_randoms(sampler, depth);
            let bsdf = Bsdf::Lambert(m.albedo);
            radiance += throughput * direct_light(scene, surface.point, next_origin, ns, n, &bsdf, u, rays);
            bsdf_pdf = bounce.dir.dot(ns).max(0.0) * FRAC_1_PI;
        }
        // A refracted bounce reaches emitters NEE, on the near side, could not have drawn:
        // they count fully (bsdf_pdf 0).
        if nee && bounce.principled && !bounce.transmitted {
            bsdf_pdf = bounce.pdf;
        }
        throughput *= bounce.attenuation;
        let max_throughput = throughput.max_element();
        // Nothing more can be added to this path: stopping is unbiased.
        if max_throughput == 0.0 {
            break;
        }
        if bounce.transmitted
            && let Lobe::Principled { ior, .. } = m.lobe
        {
            let eta = if front_face { ior } else { 1.0 / ior };
            eta_scale *= eta * eta;
        }
        if depth + 1 >= RR_START_DEPTH {
            // Roulette on the throughput without the 1 / eta² of refractions (pbrt-v4's
            // `etaScale`): radiance entering glass is divided by 2.25 and multiplied back
            // on the way out, and a path inside should not die for that.
            let q = (max_throughput * eta_scale).min(1.0);
            if sampler.get(bounce_dim(depth, DIM_ROULETTE)) >= q {
                break;
            }
            throughput /= q;
        }
        origin = next_origin;
        dir = bounce.dir;
        bounce_point = surface.point;
    }
    if radiance.is_finite() { radiance } else { Vec3A::ZERO }
}

/// What shading reads at a hit: the surface, which side the ray came from, the normals.
#[derive(Clone, Copy, Debug)]
pub struct Shaded {
    pub surface: Surface,
    pub front_face: bool,
    /// The geometric normal facing the ray: it decides sides and offsets.
    pub n: Vec3A,
    /// The normals that shade, after a normal map, facing the ray (`specular` is the one
    /// scattering and next-event estimation take; `diffuse` the AOVs' normal).
    pub normals: Normals,
    pub principled: bool,
}

/// The hit `hit` of the ray `(origin, dir)` (unit `dir`) made ready to shade: its
/// surface, normals and material after its textures. A textured material is copied into
/// `textured`; an untextured hit (every hit of most scenes) keeps the scene's reference
/// (docs/performance.md, "Choices in the code").
#[inline(always)]
pub fn shade_hit<'a>(
    scene: &'a CpuScene,
    hit: &Hit,
    origin: Vec3A,
    dir: Vec3A,
    textured: &'a mut Option<Material>,
) -> (Shaded, &'a Material) {
    let hit_surface = prims::hit_surface(scene, hit, origin, dir);
    let surface = hit_surface.world;
    let front_face = dir.dot(surface.normal) < 0.0;
    let n = if front_face { surface.normal } else { -surface.normal };
    // Scattering and NEE shade with this; `n` decides sides and offsets.
    let mut ns = if front_face { surface.shading } else { -surface.shading };
    let untextured = prims::hit_material(scene, hit);
    let m: &Material = if untextured.textured {
        let uv = prims::uv(scene, hit.prim, &hit_surface.local);
        let m = textured.insert(untextured.textured(&scene.textures, surface.point, uv));
        let normal_map = m.textures[TEXTURE_SLOT_NORMAL];
        if normal_map != NO_TEXTURE {
            let (dpdu, dpdv) = prims::hit_dpduv(scene, hit, &hit_surface);
            let texel = scene.textures.eval(normal_map, surface.point, uv);
            ns = shading::normal_mapped(texel, m.normal_scale, ns, dpdu, dpdv);
        }
        m
    } else {
        untextured
    };
    let principled = matches!(m.lobe, Lobe::Principled { .. });
    let normals = if principled {
        let smooth = if front_face { surface.shading } else { -surface.shading };
        let specular = shading::valid_shading_normal(n, -dir, ns);
        Normals { specular, diffuse: ns, smooth }
    } else {
        Normals::one(ns)
    };
    (Shaded { surface, front_face, n, normals, principled }, m)
}

/// The albedo AOV of a material at a hit, `None` for a delta lobe (a mirror, glass),
/// which the AOVs look through: the albedo of a diffuse or glossy lobe, the emission
/// (at most 1) of an emitter that does not scatter, whose albedo would be 0 and would
/// make its light vanish when the denoiser divides by it and multiplies back.
#[inline(always)]
pub fn aov_albedo(m: &Material) -> Option<Vec3A> {
    match m.lobe {
        Lobe::Lambert => Some(m.albedo),
        Lobe::Metal { fuzz } => (fuzz > 0.0).then_some(m.albedo),
        Lobe::Dielectric { .. } => None,
        Lobe::Absorb => Some(m.emission.min(Vec3A::ONE)),
        Lobe::Principled { .. } => (!principled_of(m).is_delta()).then_some(m.albedo),
    }
}

/// Next-event estimation's `u_pick, u1, u2` at bounce `depth`, drawn in that order.
#[inline(always)]
fn nee_randoms<S: Sampler>(sampler: &mut S, depth: u32) -> [f32; 3] {
    let u_pick = sampler.get(bounce_dim(depth, DIM_NEE_PICK));
    let u1 = sampler.get(bounce_dim(depth, DIM_NEE_U1));
    let u2 = sampler.get(bounce_dim(depth, DIM_NEE_U2));
    [u_pick, u1, u2]
}

/// Radiance of a ray leaving the scene along unit `dir`: the environment's, or
/// `lerp(bottom, top, 0.5 * (dir.y + 1))`.
#[inline(always)]
pub fn sky(scene: &CpuScene, dir: Vec3A) -> Vec3A {
    match &scene.env {
        Some(env) => env.radiance(dir),
        None => scene.sky_bottom.lerp(scene.sky_top, 0.5 * (dir.y + 1.0)),
    }
}
