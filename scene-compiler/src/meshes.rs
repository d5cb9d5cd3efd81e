//! Meshes to triangles: the compile step that places each model's triangles in the
//! world with its transform, as terrains become boxes (`crate::terrain`).
//!
//! Each vertex is transformed once and shared by the triangles that name it, so two
//! triangles that share an edge in the file share it bit for bit in the blob: what the
//! watertight intersection needs to let no ray through.
//!
//! A mesh without a scene `material` brings its model's materials: they are appended
//! to the scene's (named `file#name`), after every scene material, in mesh order.

use std::borrow::Cow;

use rayon::prelude::*;

use crate::scene::{Material, Mesh, Scene, Triangle};

/// `scene` with its meshes' triangles appended to its triangles and their models'
/// materials to its materials (the scene itself when it has no meshes); the meshes
/// stay, for what reads the scene back.
pub fn with_triangles(scene: &Scene) -> Cow<'_, Scene> {
    if scene.meshes.is_empty() {
        return Cow::Borrowed(scene);
    }
    let mut expanded = scene.clone();
    for mesh in &scene.meshes {
        let first_material = expanded.materials.len() as u32;
        if mesh.material.is_none() {
            expanded.materials.extend(mesh.data.materials.iter().map(|m| Material {
                name: format!("{}#{}", mesh.file, m.name),
                kind: m.kind,
                texture: m.texture.clone(),
                maps: m.maps.clone(),
            }));
        }
        expanded.triangles.extend(triangles(mesh, first_material));
    }
    Cow::Owned(expanded)
}

/// What a compile should warn about: for each mesh that takes its model's materials,
/// what their mapping dropped (docs/scene-format.md, "Model materials").
pub fn warnings(scene: &Scene) -> Vec<String> {
    let mut out = Vec::new();
    for mesh in scene.meshes.iter().filter(|m| m.material.is_none()) {
        for dropped in &mesh.data.dropped {
            out.push(format!("model `{}`: {dropped} is not supported and was dropped", mesh.file));
        }
    }
    out
}

/// A mesh's triangles in world space, in the file's order. `first_material` is the
/// scene index of its model's first material (used when the mesh names none).
pub fn triangles(mesh: &Mesh, first_material: u32) -> Vec<Triangle> {
    let to_world = mesh.transform.matrix();
    let data = &mesh.data;
    let world: Vec<glam::Vec3> = data.positions.par_iter().map(|&p| to_world.transform_point3(p)).collect();
    // The scale is uniform: normals turn with the rotation, and are made unit again.
    let normals: Vec<glam::Vec3> =
        data.normals.par_iter().map(|&n| to_world.transform_vector3(n).normalize()).collect();
    data.triangles
        .par_iter()
        .enumerate()
        .map(|(n, t)| Triangle {
            v: t.map(|i| world[i as usize]),
            material: mesh.material.unwrap_or_else(|| first_material + data.triangle_materials[n]),
            normals: (!normals.is_empty()).then(|| t.map(|i| normals[i as usize])),
            uvs: (!data.uvs.is_empty()).then(|| t.map(|i| data.uvs[i as usize])),
        })
        .collect()
}
