//! Scenes built in code for tests, independent of the RON loader.

use glam::Vec3;
use scene_compiler::scene::{Camera, Light, Material, MaterialKind, RenderSettings, Scene, Sky, Sphere};

/// `n` spheres on a jittered grid with all four material kinds and both light kinds.
pub fn test_scene(n: usize) -> Scene {
    let materials = vec![
        Material { name: "ground".into(), kind: MaterialKind::Lambert { albedo: Vec3::splat(0.5) } },
        Material {
            name: "steel".into(),
            kind: MaterialKind::Metal { albedo: Vec3::new(0.7, 0.6, 0.5), fuzz: 0.1 },
        },
        Material { name: "glass".into(), kind: MaterialKind::Dielectric { ior: 1.5 } },
        Material {
            name: "lamp".into(),
            kind: MaterialKind::Emissive {
                color: Vec3::new(1.0, 0.9, 0.8),
                strength: 4.0,
                albedo: Vec3::ZERO,
            },
        },
    ];
    let mut state = 0x9e37_79b9_u32;
    let mut rnd = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state as f32 / u32::MAX as f32
    };
    let side = (n as f32).sqrt().ceil() as usize;
    let spheres = (0..n)
        .map(|i| Sphere {
            center: Vec3::new((i % side) as f32 + rnd() * 0.5, rnd(), (i / side) as f32 + rnd() * 0.5),
            radius: 0.1 + 0.3 * rnd(),
            material: (i % materials.len()) as u32,
        })
        .collect();
    Scene {
        camera: Camera {
            look_from: Vec3::new(13.0, 2.0, 3.0),
            look_at: Vec3::ZERO,
            up: Vec3::Y,
            vfov_deg: 20.0,
            aperture: 0.0,
            focus_dist: 10.0,
        },
        settings: RenderSettings { width: 64, height: 36, spp: 4, max_depth: 8, seed: 7 },
        sky: Sky::Gradient { bottom: Vec3::ONE, top: Vec3::new(0.5, 0.7, 1.0) },
        materials,
        spheres,
        lights: vec![
            Light::Point { position: Vec3::new(0.0, 5.0, 0.0), color: Vec3::ONE, intensity: 10.0 },
            Light::Directional {
                direction: Vec3::new(0.0, -1.0, -1.0),
                color: Vec3::ONE,
                intensity: 2.0,
                angular_radius_deg: 0.5,
            },
        ],
        ..Scene::default()
    }
}
