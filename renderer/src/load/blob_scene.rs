//! A [`Scene`] read back from a validated blob, so a session on a `.blob` has a scene
//! to show and edit like one on a `.ron`.
//!
//! The blob keeps what rendering needs, not how it was written: material names become
//! `material0`, `material1`…, and emitters and lights get their radiance as `color`
//! with strength or intensity 1. Compiling the result renders the same image.

use glam::Vec3;
use scene_compiler::BlobView;
use scene_compiler::blob::layout::{LIGHT_POINT, MaterialRecord};
use scene_compiler::scene::{Light, Material, MaterialKind, Scene, Sphere};
use scene_compiler::shapes::Shape;

/// The scene `view` holds, spheres in their source order.
pub fn decode(view: &BlobView<'_>) -> Scene {
    let xyz = |v: &[f32; 4]| Vec3::new(v[0], v[1], v[2]);
    let materials = view
        .materials
        .iter()
        .enumerate()
        .map(|(i, m)| Material { name: format!("material{i}"), kind: material_kind(m) })
        .collect();
    let spheres = decode_kind::<Sphere>(view, view.spheres);
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
    Scene { camera: view.camera(), settings: view.settings(), sky: view.sky(), materials, spheres, lights }
}

/// One kind's shapes in their source order: the blob stores them in BVH leaf order, and
/// `prim_sources` gives each one's place in the scene's list.
fn decode_kind<S: Shape + Clone>(view: &BlobView<'_>, records: &[S::Record]) -> Vec<S> {
    let first = view.header.kind_first()[S::KIND as usize] as usize;
    let slots = first..first + records.len();
    let mut shapes: Vec<Option<S>> = vec![None; records.len()];
    for ((record, &material), &source) in
        records.iter().zip(&view.prim_materials[slots.clone()]).zip(&view.prim_sources[slots])
    {
        shapes[source as usize] = Some(S::from_record(record, material));
    }
    // The loader checked that the sources of a kind are a permutation.
    shapes.into_iter().map(|s| s.expect("prim_sources is a permutation")).collect()
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
