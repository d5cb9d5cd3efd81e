//! The validated in-memory scene: what the loader produces and the compiler consumes.
//!
//! Every value here has passed validation (finite, in range, names resolved to
//! indices), so later stages never re-check. Field names match the RON format
//! (docs/scene-format.md) so a reader can hold one against the other.

use glam::Vec3;

/// A scene after parsing and validation.
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    pub camera: Camera,
    pub settings: RenderSettings,
    pub sky: Sky,
    pub materials: Vec<Material>,
    pub spheres: Vec<Sphere>,
    /// Axis-aligned boxes the user wrote; terrains add theirs when compiled.
    pub boxes: Vec<Cuboid>,
    pub lights: Vec<Light>,
}

/// A thin-lens camera; `aperture == 0` is a pinhole.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    pub look_from: Vec3,
    pub look_at: Vec3,
    pub up: Vec3,
    pub vfov_deg: f32,
    pub aperture: f32,
    pub focus_dist: f32,
}

/// Render defaults stored with the scene; the renderer's flags override them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RenderSettings {
    pub width: u32,
    pub height: u32,
    pub spp: u32,
    pub max_depth: u32,
    pub seed: u32,
}

/// Radiance seen by rays that leave the scene.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sky {
    /// RTIOW gradient: `lerp(bottom, top, 0.5 * (normalize(dir).y + 1))`.
    Gradient {
        bottom: Vec3,
        top: Vec3,
    },
    Constant(Vec3),
}

/// A named material; spheres refer to it by index into [`Scene::materials`].
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    pub name: String,
    pub kind: MaterialKind,
}

/// The four material kinds a user can write.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MaterialKind {
    Lambert {
        albedo: Vec3,
    },
    Metal {
        albedo: Vec3,
        fuzz: f32,
    },
    Dielectric {
        ior: f32,
    },
    /// An emitter; a non-zero `albedo` also reflects diffusely (a glowing Lambert surface).
    Emissive {
        color: Vec3,
        strength: f32,
        albedo: Vec3,
    },
}

/// A sphere; `material` indexes [`Scene::materials`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    pub center: Vec3,
    pub radius: f32,
    pub material: u32,
}

/// An axis-aligned box (`boxes: [(min: ..., max: ..., material: ...)]`); `min < max`
/// on every axis. Not `Box`, which Rust already means.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cuboid {
    pub min: Vec3,
    pub max: Vec3,
    pub material: u32,
}

/// A light the renderer samples directly (next-event estimation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Light {
    Point { position: Vec3, color: Vec3, intensity: f32 },
    Directional { direction: Vec3, color: Vec3, intensity: f32, angular_radius_deg: f32 },
}
