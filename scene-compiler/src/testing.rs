//! Deterministic inputs for tests and benchmarks: a camera and a scene builder (their
//! random numbers come from [`crate::rng`]). Nothing in the compiler uses them; they
//! are in the library so that this crate's tests, the renderer's and the benchmarks
//! (`tools/compile-bench`) share one copy instead of each writing its own.

use glam::Vec3;

use crate::scene::{Camera, Material, MaterialKind, RenderSettings, Scene, Sky, Sphere};

/// A pinhole camera at `look_from` looking at `look_at`, y up, focused on `look_at`.
pub fn pinhole(look_from: Vec3, look_at: Vec3, vfov_deg: f32) -> Camera {
    Camera {
        look_from,
        look_at,
        up: Vec3::Y,
        vfov_deg,
        aperture: 0.0,
        focus_dist: (look_at - look_from).length(),
    }
}

/// A scene of `spheres` as `(center, radius, material index)` and `materials` (named
/// `m0`, `m1`, ...) seen through `camera`, at 64 x 48 pixels, 16 spp, depth 16, seed 7;
/// no boxes, terrains or lights (callers add what they test).
pub fn scene(camera: Camera, sky: Sky, materials: &[MaterialKind], spheres: &[(Vec3, f32, u32)]) -> Scene {
    Scene {
        camera,
        settings: RenderSettings {
            width: 64,
            height: 48,
            spp: 16,
            max_depth: 16,
            seed: 7,
            ..RenderSettings::DEFAULT
        },
        sky,
        materials: materials
            .iter()
            .enumerate()
            .map(|(i, &kind)| Material::new(format!("m{i}"), kind))
            .collect(),
        spheres: spheres
            .iter()
            .map(|&(center, radius, material)| Sphere { center, radius, material })
            .collect(),
        ..Scene::default()
    }
}
