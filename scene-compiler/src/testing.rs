//! Deterministic inputs for tests and benchmarks: a random number generator and a
//! scene builder. Nothing in the compiler uses them; they are in the library so that
//! this crate's tests, the renderer's and the benchmarks (`tools/compile-bench`)
//! share one copy instead of each writing its own.

use glam::Vec3;

use crate::scene::{Camera, Material, MaterialKind, RenderSettings, Scene, Sky, Sphere};

/// splitmix64 (Steele et al. 2014): a tiny generator whose stream depends on the seed
/// alone, so every run sees the same spheres, without a dependency on `rand`.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`, from the top 24 bits (every value exact in an f32).
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in the unit cube `[0, 1)³`, x drawn first.
    pub fn next_vec3(&mut self) -> Vec3 {
        let x = self.next_f32();
        let y = self.next_f32();
        Vec3::new(x, y, self.next_f32())
    }
}

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
