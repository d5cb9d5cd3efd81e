//! A sample's AOVs (docs/path-tracing.md, "AOVs"; CUDA twin: `trace_aov_ray`,
//! `trace_aov_rays` and `add_sample_aov` in kernels/path.cuh, which render.cu calls for
//! a launch's AOV rays before its paths): the early samples of a pixel take their albedo,
//! normal and depth from [`AOV_RAYS`] first-hit rays of their own, the later ones from
//! their path's first hits, and every sample adds the squared luminance of its radiance.
//!
//! Why rays of their own: the denoiser divides the radiance by the albedo and multiplies
//! the filtered irradiance by it again, so the albedo's error at a pixel that a texture
//! edge crosses stays in the image whatever the filter does. With [`AOV_RAYS`] rays per
//! sample the albedo has that many times more positions in the pixel than the radiance;
//! the radiance's own coverage error goes into the irradiance, which the filter smooths.

use glam::Vec3A;

use super::integrator::{
    Camera, Pixel, Shaded, aov_albedo, generate_camera_ray, shade_hit, sky, trace_sample,
};
use super::rng::pcg_hash;
use super::sampler::Sampler;
use super::scatter::{ScatterRandoms, scatter};
use super::scene::CpuScene;
use super::shapes::offset_ray_origin;
use super::traverse::traverse;
use crate::backend::constants::{AOV_RAY_SAMPLES, AOV_RAYS, AOV_SEED};
use crate::denoise::AovSample;
use crate::denoise::filter::luminance;

/// The seed hash of the AOV rays' sampler, from the frame's `pcg_hash(seed)`.
#[inline(always)]
pub fn aov_seed_hash(seed_hash: u32) -> u32 {
    pcg_hash(seed_hash ^ AOV_SEED)
}

/// One sample of a film with AOVs: its radiance (as [`trace_sample`]'s) and its AOVs.
/// `sampler` is the sample's own (sample `sample_index` of pixel `pixel_index`); the AOV
/// rays, when the sample traces them, draw from samplers of their own, seeded by
/// `aov_seed_hash` ([`aov_seed_hash`]), so the radiance is the same bits as without AOVs.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn trace_sample_with_aovs<S: Sampler>(
    scene: &CpuScene,
    cam: &Camera,
    pixel: Pixel,
    pixel_index: u32,
    sample_index: u32,
    aov_seed_hash: u32,
    max_depth: u32,
    nee: bool,
    sampler: &mut S,
    rays: &mut u64,
) -> (Vec3A, AovSample) {
    let (value, mut aov) = if sample_index < AOV_RAY_SAMPLES {
        let aov =
            trace_aov_rays::<S>(scene, cam, pixel, pixel_index, sample_index, aov_seed_hash, max_depth, rays);
        (trace_sample(scene, cam, pixel, max_depth, nee, sampler, rays, None), aov)
    } else {
        let mut aov = AovSample::MISS;
        (trace_sample(scene, cam, pixel, max_depth, nee, sampler, rays, Some(&mut aov)), aov)
    };
    let l = luminance(value.to_array());
    aov.luminance2 = l * l;
    (value, aov)
}

/// The average albedo, normal and depth of the [`AOV_RAYS`] AOV rays of sample
/// `sample_index` (its `luminance2` is 0): ray `k` is sample
/// `sample_index * AOV_RAYS + k` of the AOV rays' sampler, so that over a pixel's
/// samples they are one sequence (with Sobol points, a net of `samples × AOV_RAYS`
/// positions in the pixel).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn trace_aov_rays<S: Sampler>(
    scene: &CpuScene,
    cam: &Camera,
    pixel: Pixel,
    pixel_index: u32,
    sample_index: u32,
    aov_seed_hash: u32,
    max_depth: u32,
    rays: &mut u64,
) -> AovSample {
    let mut sum = AovSample::default();
    for k in 0..AOV_RAYS {
        let index = sample_index.wrapping_mul(AOV_RAYS).wrapping_add(k);
        let mut sampler = S::start(pixel_index, index, aov_seed_hash);
        sum.add(&trace_aov_ray(scene, cam, pixel, max_depth, &mut sampler, rays));
    }
    sum.scaled(1.0 / AOV_RAYS as f32)
}

/// The AOVs of one camera ray: the depth of its first hit, the albedo and normal of the
/// first hit that is not a delta lobe, mirrors and glass followed as a path follows them
/// (their scatter, with this ray's numbers), with no shading, light or roulette; where
/// the ray escapes, the sky's radiance at most 1. Up to `max_depth` segments, as a path.
#[inline(always)]
fn trace_aov_ray<S: Sampler>(
    scene: &CpuScene,
    cam: &Camera,
    pixel: Pixel,
    max_depth: u32,
    sampler: &mut S,
    rays: &mut u64,
) -> AovSample {
    let mut aov = AovSample::MISS;
    let (mut origin, mut dir) = generate_camera_ray(cam, pixel, sampler);
    for depth in 0..max_depth {
        *rays += 1;
        let Some(hit) = traverse(scene, origin, dir, f32::INFINITY) else {
            aov.albedo = sky(scene, dir).min(Vec3A::ONE).to_array();
            break;
        };
        let mut textured = None;
        let (Shaded { surface, front_face, n, normals, .. }, m) =
            shade_hit(scene, &hit, origin, dir, &mut textured);
        if depth == 0 {
            aov.depth = hit.t;
        }
        if let Some(albedo) = aov_albedo(m) {
            aov.albedo = albedo.to_array();
            aov.normal = normals.diffuse.to_array();
            break;
        }
        let randoms = ScatterRandoms::draw(sampler, depth);
        let Some(bounce) = scatter(m, dir, &normals, front_face, randoms) else {
            break;
        };
        // As the path: a delta bounce that leaves on the wrong side of the surface ends it.
        if bounce.principled && bounce.transmitted == (bounce.dir.dot(n) > 0.0) {
            break;
        }
        origin = offset_ray_origin(&surface, bounce.dir);
        dir = bounce.dir;
    }
    aov
}
