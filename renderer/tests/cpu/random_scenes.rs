//! Issue 37's property: a scene whose every value is within the documented ranges
//! (docs/scene-format.md, "Ranges"; `scene_compiler::ranges`) validates, compiles to a
//! blob that passes the full verify, and renders finite, non-negative pixels. Values
//! are drawn over many decades (log-uniform) up to the ranges' ends, from a fixed seed
//! (`rng::SplitMix64`), so a failure names the scene that broke it.
//!
//! Albedos stay in [0, 1]: the ranges let a colour reach 1e9, and an albedo above 1
//! multiplies a path's throughput at every bounce (see README, "What is checked").

use glam::Vec3;
use renderer::backend::cpu::CpuBackend;
use renderer::backend::{Backend, RenderJob};
use scene_compiler::ranges::{self, MAX_COORDINATE, MAX_RADIANCE};
use scene_compiler::rng::SplitMix64;
use scene_compiler::scene::{
    self, Camera, Cuboid, Light, Material, MaterialKind, RenderSettings, Scene, Sky, Sphere,
};
use scene_compiler::{BlobView, CompileOptions, compile_scene};

const SCENES: u64 = 40;

/// Draws of the values a scene holds.
struct Draw(SplitMix64);

impl Draw {
    fn unit(&mut self) -> f32 {
        self.0.next_f32()
    }

    /// Log-uniform in [10^lo, 10^hi].
    fn decades(&mut self, lo: f32, hi: f32) -> f32 {
        10f32.powf(lo + (hi - lo) * self.unit())
    }

    /// A signed value of magnitude up to `max`, over many decades, sometimes 0.
    fn signed(&mut self, max: f32) -> f32 {
        if self.unit() < 0.1 {
            return 0.0;
        }
        let sign = if self.unit() < 0.5 { -1.0 } else { 1.0 };
        sign * self.decades(-3.0, max.log10())
    }

    fn point(&mut self, max: f32) -> Vec3 {
        Vec3::new(self.signed(max), self.signed(max), self.signed(max))
    }

    fn colour(&mut self, max: f32) -> Vec3 {
        let mut c = || if self.unit() < 0.2 { 0.0 } else { self.decades(-3.0, max.log10()) };
        Vec3::new(c(), c(), c())
    }

    /// A colour and strength whose product is within the radiance range.
    fn radiance(&mut self) -> (Vec3, f32) {
        let colour = self.colour(1e4);
        let strength = self.decades(-3.0, 9.0).min(0.999 * MAX_RADIANCE / colour.max_element().max(1.0));
        (colour, strength)
    }

    fn material(&mut self, k: usize) -> Material {
        let albedo = Vec3::new(self.unit(), self.unit(), self.unit());
        let kind = match (self.0.next_u64() % 4) as u32 {
            0 => MaterialKind::Lambert { albedo },
            1 => MaterialKind::Metal { albedo, fuzz: self.unit() },
            2 => MaterialKind::Dielectric { ior: 1.0 + 2.0 * self.unit() },
            _ => {
                let (color, strength) = self.radiance();
                MaterialKind::Emissive { color, strength, albedo }
            }
        };
        Material::new(format!("m{k}"), kind)
    }

    fn camera(&mut self) -> Camera {
        loop {
            let (look_from, look_at, up) =
                (self.point(MAX_COORDINATE), self.point(MAX_COORDINATE), self.point(1e3));
            if ranges::camera_problem(look_from, look_at, up).is_none() {
                return Camera {
                    look_from,
                    look_at,
                    up,
                    vfov_deg: 1.0 + 178.0 * self.unit(),
                    aperture: if self.unit() < 0.5 { 0.0 } else { self.decades(-3.0, 3.0) },
                    focus_dist: self.decades(-3.0, 9.0),
                };
            }
        }
    }

    fn scene(&mut self) -> Scene {
        let materials: Vec<Material> = (0..4).map(|k| self.material(k)).collect();
        let mut pick = || (self.0.next_u64() % 4) as u32;
        let material = pick();
        let spheres = (0..1 + self.0.next_u64() % 8)
            .map(|_| {
                let center = self.point(MAX_COORDINATE / 2.0);
                let room = MAX_COORDINATE - center.abs().max_element();
                Sphere { center, radius: self.decades(-3.0, 8.0).min(room), material }
            })
            .collect();
        let boxes = (0..self.0.next_u64() % 3)
            .map(|_| {
                let min = self.point(MAX_COORDINATE / 2.0);
                let size =
                    Vec3::new(self.decades(-2.0, 8.0), self.decades(-2.0, 8.0), self.decades(-2.0, 8.0));
                Cuboid { min, max: min + size.max(min.abs() * 1e-5), material }
            })
            .collect();
        let lights = (0..self.0.next_u64() % 3)
            .map(|_| {
                let (color, intensity) = self.radiance();
                if self.unit() < 0.5 {
                    Light::Point { position: self.point(MAX_COORDINATE), color, intensity }
                } else {
                    let direction = self.point(1.0) + Vec3::new(0.0, -1.0, 0.0);
                    Light::Directional { direction, color, intensity, angular_radius_deg: 89.0 * self.unit() }
                }
            })
            .collect();
        let sky = match self.0.next_u64() % 3 {
            0 => Sky::Constant(self.colour(MAX_RADIANCE)),
            1 => Sky::Gradient { bottom: self.colour(MAX_RADIANCE), top: self.colour(MAX_RADIANCE) },
            _ => Sky::Constant(Vec3::ZERO),
        };
        let max_depth = 1 + (self.0.next_u64() % 64) as u32;
        let settings = RenderSettings {
            width: 12,
            height: 8,
            spp: 2,
            max_depth,
            seed: self.0.next_u64() as u32,
            ..RenderSettings::DEFAULT
        };
        Scene { camera: self.camera(), settings, sky, materials, spheres, boxes, lights, ..Scene::default() }
    }
}

#[test]
fn random_scenes_within_the_ranges_build_verify_and_render_finite_non_negative_pixels() {
    for seed in 0..SCENES {
        let scene = Draw(SplitMix64(0x3737 + seed)).scene();
        if let Err(e) = scene::check(&scene, "random") {
            panic!("seed {seed}: a scene within the ranges is refused: {e}\n{scene:?}");
        }
        let compiled = compile_scene(&scene, &CompileOptions::default());
        let view = BlobView::parse(&compiled.blob)
            .unwrap_or_else(|e| panic!("seed {seed}: its blob does not verify: {e}\n{scene:?}"));
        let mut backend = CpuBackend::new();
        backend.upload(&view).expect("upload");
        backend.render(&RenderJob::full_frame(&scene.settings, &view.camera())).expect("render");
        let image = backend.read_linear().expect("read back");
        if let Some((i, p)) =
            image.iter().enumerate().find(|(_, p)| !p.iter().all(|x| x.is_finite() && *x >= 0.0))
        {
            panic!("seed {seed}: pixel {i} is {p:?}\n{scene:?}");
        }
    }
}
