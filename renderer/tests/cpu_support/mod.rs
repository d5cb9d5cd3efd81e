//! Scenes built in code and one-call CPU renders, shared by the CPU and CLI tests.
//!
//! Scenes are built as `scene_compiler::Scene` values and compiled in memory, so
//! the tests do not depend on asset files; [`blocks`] alone reads them (the reference
//! scenes and the block means other renderers made of them). Each test binary uses a
//! different subset of these helpers, hence the `dead_code` allowance.
#![allow(dead_code)]

pub mod blocks;

use glam::Vec3;
use renderer::backend::cpu::CpuBackend;
use renderer::backend::{Backend, FrameStats, RenderJob};
use scene_compiler::scene::{MaterialKind, RenderSettings, Sky};
pub use scene_compiler::testing::{pinhole, scene};
use scene_compiler::{AlignedBytes, BlobView, CompileOptions, Scene, compile_scene};

/// A small scene with every material kind and a gradient sky, for properties that
/// must hold on any scene (determinism, traversal).
pub fn mixed_scene() -> Scene {
    let materials = [
        MaterialKind::Lambert { albedo: Vec3::new(0.5, 0.5, 0.5) },
        MaterialKind::Lambert { albedo: Vec3::new(0.8, 0.3, 0.2) },
        MaterialKind::Metal { albedo: Vec3::new(0.7, 0.6, 0.5), fuzz: 0.2 },
        MaterialKind::Dielectric { ior: 1.5 },
        MaterialKind::Emissive { color: Vec3::new(1.0, 0.9, 0.7), strength: 4.0, albedo: Vec3::ZERO },
    ];
    let mut spheres = vec![
        (Vec3::new(0.0, -1000.0, 0.0), 1000.0, 0),
        (Vec3::new(0.0, 1.0, 0.0), 1.0, 3),
        (Vec3::new(-2.2, 1.0, 0.0), 1.0, 1),
        (Vec3::new(2.2, 1.0, 0.0), 1.0, 2),
        (Vec3::new(0.0, 3.0, -2.0), 0.5, 4),
    ];
    // A grid of small spheres so the BVH has some depth.
    for i in 0..8 {
        for j in 0..6 {
            let center = Vec3::new(-4.0 + i as f32, 0.2, -3.0 + j as f32 + 0.3 * (i % 2) as f32);
            spheres.push((center, 0.2, (i + j) % 4));
        }
    }
    let sky = Sky::Gradient { bottom: Vec3::ONE, top: Vec3::new(0.5, 0.7, 1.0) };
    scene(pinhole(Vec3::new(6.0, 2.5, 5.0), Vec3::new(0.0, 0.8, 0.0), 35.0), sky, &materials, &spheres)
}

/// A temp folder holding [`mixed_scene`] at `width` x `height` and `spp` as
/// `scene.ron`, and compiled as `scene.blob`, for the programs' tests.
pub fn mixed_scene_dir(width: u32, height: u32, spp: u32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut scene = mixed_scene();
    scene.settings = RenderSettings { width, height, spp, ..scene.settings };
    std::fs::write(dir.path().join("scene.ron"), scene_compiler::scene::to_ron(&scene)).expect("write ron");
    std::fs::write(dir.path().join("scene.blob"), &*compile(&scene)).expect("write blob");
    dir
}

/// The blob of `scene`, compiled with the default options.
pub fn compile(scene: &Scene) -> AlignedBytes {
    compile_scene(scene, &CompileOptions::default()).blob
}

/// A CPU backend with `blob` uploaded.
pub fn cpu_backend(blob: &AlignedBytes) -> CpuBackend {
    let view = BlobView::parse(blob).expect("a freshly compiled blob is valid");
    let mut backend = CpuBackend::new();
    backend.upload(&view).expect("CPU upload cannot fail");
    backend
}

/// The job for `blob` at `width × height`, `samples` from sample 0.
pub fn job(
    blob: &AlignedBytes,
    width: u32,
    height: u32,
    samples: u32,
    max_depth: u32,
    seed: u32,
) -> RenderJob {
    let view = BlobView::parse(blob).expect("a freshly compiled blob is valid");
    let settings = RenderSettings { width, height, spp: samples, max_depth, seed, ..RenderSettings::DEFAULT };
    RenderJob::full_frame(&settings, &view.camera())
}

/// Renders `job` on a fresh CPU backend; returns the linear image and the stats.
pub fn render(blob: &AlignedBytes, job: &RenderJob) -> (Vec<[f32; 4]>, FrameStats) {
    let mut backend = cpu_backend(blob);
    let stats = backend.render(job).expect("CPU render");
    (backend.read_linear().expect("CPU readback"), stats)
}

/// How many pixels of a small render of `scene` (32x24, 32 spp, depth 16, seed 3)
/// receive any light at all, with next-event estimation on and off: what a closed
/// enclosure with the light outside must keep at zero.
pub fn lit_pixels_with_and_without_nee(scene: &Scene) -> [(bool, usize); 2] {
    let blob = compile(scene);
    let view = BlobView::parse(&blob).expect("a freshly compiled blob is valid");
    [true, false].map(|nee| {
        let settings = RenderSettings {
            width: 32,
            height: 24,
            spp: 32,
            max_depth: 16,
            seed: 3,
            ..RenderSettings::DEFAULT
        };
        let job = RenderJob::full_frame(&settings, &view.camera()).with_nee(nee);
        let (image, _) = render(&blob, &job);
        (nee, image.iter().filter(|p| p[..3].iter().any(|&c| c != 0.0)).count())
    })
}

/// Mean and standard error of the average pixel value (channel 0) over `batches`
/// renders of `spp` samples each, seeds 1..=batches.
pub fn estimate(
    scene: &Scene,
    size: (u32, u32),
    spp: u32,
    max_depth: u32,
    nee: bool,
    batches: u32,
) -> (f64, f64) {
    let blob = compile(scene);
    let view = BlobView::parse(&blob).expect("valid blob");
    let means: Vec<f64> = (1..=batches)
        .map(|seed| {
            let settings = RenderSettings {
                width: size.0,
                height: size.1,
                spp,
                max_depth,
                seed,
                ..RenderSettings::DEFAULT
            };
            let job = RenderJob::full_frame(&settings, &view.camera()).with_nee(nee);
            let (image, _) = render(&blob, &job);
            image.iter().map(|p| f64::from(p[0])).sum::<f64>() / image.len() as f64
        })
        .collect();
    let n = f64::from(batches);
    let mean = means.iter().sum::<f64>() / n;
    let variance = means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (variance / n).sqrt())
}

/// Asserts an estimate is within 5 standard errors (and a 1e-4 relative margin) of `expected`.
pub fn assert_close(what: &str, (mean, se): (f64, f64), expected: f64) {
    let tolerance = 5.0 * se + 1e-4 * expected;
    assert!(
        (mean - expected).abs() <= tolerance,
        "{what}: {mean} ± {se} (1 s.e.), expected {expected} (tolerance {tolerance})"
    );
}
