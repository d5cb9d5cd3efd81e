//! Scenes built in code for tests, independent of the RON loader.

use glam::Vec3;
use scene_compiler::scene::{Light, MaterialKind, RenderSettings, Scene, Sky};
use scene_compiler::testing::{self, pinhole};

/// `n` spheres on a jittered grid with all four material kinds and both light kinds.
pub fn test_scene(n: usize) -> Scene {
    let materials = [
        MaterialKind::Lambert { albedo: Vec3::splat(0.5) },
        MaterialKind::Metal { albedo: Vec3::new(0.7, 0.6, 0.5), fuzz: 0.1 },
        MaterialKind::Dielectric { ior: 1.5 },
        MaterialKind::Emissive { color: Vec3::new(1.0, 0.9, 0.8), strength: 4.0, albedo: Vec3::ZERO },
    ];
    // xorshift32, not `rng::SplitMix64`: these exact spheres matter, as
    // `bvh::recompiling_an_edit_reuses_refits_or_rebuilds_the_bvh` compares a refitted
    // blob's sphere order with a fresh build's, which agree for some scenes only.
    let mut state = 0x9e37_79b9_u32;
    let mut rnd = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state as f32 / u32::MAX as f32
    };
    let side = (n as f32).sqrt().ceil() as usize;
    let spheres: Vec<(Vec3, f32, u32)> = (0..n)
        .map(|i| {
            let center = Vec3::new((i % side) as f32 + rnd() * 0.5, rnd(), (i / side) as f32 + rnd() * 0.5);
            (center, 0.1 + 0.3 * rnd(), (i % materials.len()) as u32)
        })
        .collect();
    let mut camera = pinhole(Vec3::new(13.0, 2.0, 3.0), Vec3::ZERO, 20.0);
    camera.focus_dist = 10.0;
    let sky = Sky::Gradient { bottom: Vec3::ONE, top: Vec3::new(0.5, 0.7, 1.0) };
    let mut scene = testing::scene(camera, sky, &materials, &spheres);
    scene.settings =
        RenderSettings { width: 64, height: 36, spp: 4, max_depth: 8, seed: 7, ..RenderSettings::DEFAULT };
    scene.lights = vec![
        Light::Point { position: Vec3::new(0.0, 5.0, 0.0), color: Vec3::ONE, intensity: 10.0 },
        Light::Directional {
            direction: Vec3::new(0.0, -1.0, -1.0),
            color: Vec3::ONE,
            intensity: 2.0,
            angular_radius_deg: 0.5,
        },
    ];
    scene
}
