//! Shared pieces of the GPU tests: skipping without a driver, finding the repo at run
//! time, test scenes, and rendering into linear images.
//!
//! The GPU tests run on a machine without Rust from a bundle (tools/gpu-bundle.sh),
//! where the compile-time CARGO_MANIFEST_DIR does not exist: tools/gpu-run.sh sets
//! RENDERER_REPO_ROOT instead.

use std::path::PathBuf;

use glam::Vec3;
use renderer::backend::cuda::{CudaBackend, probe_driver};
use renderer::backend::{Backend, RenderJob};
use scene_compiler::scene::{MaterialKind, RenderSettings, Scene, Sky};
use scene_compiler::testing::pinhole;
use scene_compiler::{AlignedBytes, BlobView, CompileOptions, compile_scene};

/// The repository root: `$RENDERER_REPO_ROOT`, else the parent of this crate's source folder.
pub fn repo_root() -> PathBuf {
    std::env::var_os("RENDERER_REPO_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".."))
}

/// Why every GPU test is `#[ignore]`d: `cargo test` without a GPU must count them as
/// not run, not as passed. The GPU machine runs them with `--include-ignored`
/// (tools/gpu-run.sh).
pub const NEEDS_GPU: &str = "needs a CUDA GPU";

/// Fails the test, with the reason, when this machine has no usable CUDA driver: a GPU
/// test only runs when asked for (`--ignored`), and then a missing GPU is an error.
pub fn require_driver() {
    if let Err(reason) = probe_driver() {
        panic!("this test {NEEDS_GPU}: {reason:#}");
    }
}

/// The CUDA backend with the embedded kernels (see [`require_driver`]).
pub fn cuda() -> CudaBackend {
    require_driver();
    CudaBackend::new(None)
        .unwrap_or_else(|e| panic!("a CUDA driver is present but the backend did not start: {e:#}"))
}

/// Compiles `scene` into blob bytes (depth-first BVH, default options).
pub fn compile(scene: &Scene) -> AlignedBytes {
    compile_scene(scene, &CompileOptions::default()).blob
}

/// Views compiled bytes.
pub fn view(blob: &AlignedBytes) -> BlobView<'_> {
    BlobView::parse(blob).expect("a freshly compiled blob is valid")
}

/// The job for `samples` samples from `first_sample` at `width × height`, max depth 50.
pub fn job(
    blob: &BlobView<'_>,
    width: u32,
    height: u32,
    seed: u32,
    first_sample: u32,
    samples: u32,
) -> RenderJob {
    let settings = RenderSettings {
        width,
        height,
        spp: first_sample + samples,
        max_depth: 50,
        seed,
        ..RenderSettings::DEFAULT
    };
    RenderJob::new(&settings, &blob.camera(), first_sample..first_sample + samples)
}

/// Renders `chunks` calls of `samples_per_chunk` samples each into a fresh film and
/// returns the linear image after every call (the last one is the full average).
pub fn render_chunks(
    backend: &mut dyn Backend,
    blob: &BlobView<'_>,
    (width, height): (u32, u32),
    seed: u32,
    chunks: u32,
    samples_per_chunk: u32,
) -> Vec<Vec<[f32; 4]>> {
    backend.upload(blob).expect("upload");
    (0..chunks)
        .map(|i| {
            let job = job(blob, width, height, seed, i * samples_per_chunk, samples_per_chunk);
            backend.render(&job).unwrap_or_else(|e| panic!("render on {}: {e:#}", backend.device_name()));
            backend.read_linear().expect("read_linear")
        })
        .collect()
}

/// The RTIOW final scene, assets/scenes/rtiow_final.ron (488 spheres).
pub fn rtiow_scene() -> Scene {
    let path = repo_root().join("assets/scenes/rtiow_final.ron");
    scene_compiler::scene::load_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A scene of `spheres` (`(center, radius, material index)`) under a constant sky of
/// radiance 1, seen from +z.
pub fn constant_sky_scene(materials: &[MaterialKind], spheres: &[(Vec3, f32, u32)]) -> Scene {
    scene_compiler::testing::scene(
        pinhole(Vec3::new(0.0, 0.0, 6.0), Vec3::ZERO, 40.0),
        Sky::Constant(Vec3::ONE),
        materials,
        spheres,
    )
}
