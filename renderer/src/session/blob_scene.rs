//! A [`Scene`] read back from a validated blob, so a session on a `.blob` has a scene
//! to show and edit like one on a `.ron`.
//!
//! The blob keeps what rendering needs, not how it was written: material names become
//! `material0`, `material1`…, and emitters and lights get their radiance as `color`
//! with strength or intensity 1. Compiling the result renders the same image.

use glam::Vec3;
use scene_compiler::BlobView;
use scene_compiler::blob::layout::{LIGHT_POINT, MaterialRecord};
use scene_compiler::scene::{Camera, Light, Material, MaterialKind, RenderSettings, Scene, Sky, Sphere};

/// The scene `view` holds, spheres in their source order.
pub fn decode(view: &BlobView<'_>) -> Scene {
    let g = view.globals;
    let xyz = |v: &[f32; 4]| Vec3::new(v[0], v[1], v[2]);
    let camera = Camera {
        look_from: xyz(&g.camera_from_vfov),
        look_at: xyz(&g.camera_at_aperture),
        up: xyz(&g.camera_up_focus),
        vfov_deg: g.camera_from_vfov[3],
        aperture: g.camera_at_aperture[3],
        focus_dist: g.camera_up_focus[3],
    };
    let [width, height, spp, max_depth] = g.settings;
    let settings = RenderSettings { width, height, spp, max_depth, seed: g.seed_root[0] };
    let (bottom, top) = (xyz(&g.sky_bottom), xyz(&g.sky_top));
    let sky = if bottom == top { Sky::Constant(bottom) } else { Sky::Gradient { bottom, top } };
    let materials = view
        .materials
        .iter()
        .enumerate()
        .map(|(i, m)| Material { name: format!("material{i}"), kind: material_kind(m) })
        .collect();
    // Spheres are stored in BVH leaf order; `sphere_sources` gives each one's place in the file.
    let mut spheres = vec![Sphere { center: Vec3::ZERO, radius: 0.0, material: 0 }; view.spheres.len()];
    for ((record, &material), &source) in
        view.spheres.iter().zip(view.sphere_materials).zip(view.sphere_sources)
    {
        spheres[source as usize] =
            Sphere { center: xyz(&record.center_radius), radius: record.center_radius[3], material };
    }
    let lights = view
        .lights
        .iter()
        .map(|l| {
            let color = xyz(&l.radiance);
            if l.position_kind[3] == LIGHT_POINT {
                Light::Point { position: xyz(&l.position_kind), color, intensity: 1.0 }
            } else {
                // The blob stores the way to the light; the scene the way light travels.
                Light::Directional {
                    direction: -xyz(&l.position_kind),
                    color,
                    intensity: 1.0,
                    angular_radius_deg: l.cone[0].clamp(-1.0, 1.0).acos().to_degrees(),
                }
            }
        })
        .collect();
    Scene { camera, settings, sky, materials, spheres, lights }
}

/// The kind a record's one-hot lobe weights name; no lobe at all is an emitter.
fn material_kind(m: &MaterialRecord) -> MaterialKind {
    let albedo = Vec3::new(m.albedo_fuzz[0], m.albedo_fuzz[1], m.albedo_fuzz[2]);
    let [lambert, metal, dielectric, ior] = m.weights_ior;
    if lambert > 0.0 {
        MaterialKind::Lambert { albedo }
    } else if metal > 0.0 {
        MaterialKind::Metal { albedo, fuzz: m.albedo_fuzz[3] }
    } else if dielectric > 0.0 {
        MaterialKind::Dielectric { ior }
    } else {
        MaterialKind::Emissive {
            color: Vec3::new(m.emission[0], m.emission[1], m.emission[2]),
            strength: 1.0,
        }
    }
}
