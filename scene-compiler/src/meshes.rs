//! Meshes to triangles: the compile step that places each model's triangles in the
//! world with its transform, as terrains become boxes (`crate::terrain`).
//!
//! Each vertex is transformed once and shared by the triangles that name it, so two
//! triangles that share an edge in the file share it bit for bit in the blob: what the
//! watertight intersection needs to let no ray through.
//!
//! A mesh without a scene `material` brings its model's materials: they are appended
//! to the scene's (named `file#name`), after every scene material, in mesh order.
//!
//! Triangles whose material has a normal map get vertex tangents (`crate::tangents`:
//! the file's, else MikkTSpace's over the whole model); a mesh without such a
//! triangle computes none.

use std::borrow::Cow;

use rayon::prelude::*;

use crate::scene::{Material, Mesh, Scene, Triangle};
use crate::tangents;

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
        expanded.triangles.extend(triangles(mesh, first_material, &expanded.materials));
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
/// scene index of its model's first material (used when the mesh names none);
/// `materials` the scene's, its model's among them, which say which triangles are
/// normal-mapped.
pub fn triangles(mesh: &Mesh, first_material: u32, materials: &[Material]) -> Vec<Triangle> {
    let to_world = mesh.transform.matrix();
    let data = &mesh.data;
    let material = |n: usize| mesh.material.unwrap_or_else(|| first_material + data.triangle_materials[n]);
    let normal_mapped = |n: usize| materials[material(n) as usize].maps.normal.is_some();
    let tangents = if (0..data.triangles.len()).any(normal_mapped) { tangents::of_mesh(data) } else { None };
    let world: Vec<glam::Vec3> = data.positions.par_iter().map(|&p| to_world.transform_point3(p)).collect();
    // The scale is uniform: normals turn with the rotation, and are made unit again.
    let normals: Vec<glam::Vec3> =
        data.normals.par_iter().map(|&n| to_world.transform_vector3(n).normalize()).collect();
    data.triangles
        .par_iter()
        .enumerate()
        .map(|(n, t)| Triangle {
            v: t.map(|i| world[i as usize]),
            material: material(n),
            normals: (!normals.is_empty()).then(|| t.map(|i| normals[i as usize])),
            uvs: (!data.uvs.is_empty()).then(|| t.map(|i| data.uvs[i as usize])),
            tangents: tangents
                .as_ref()
                .filter(|_| normal_mapped(n))
                .map(|all| Box::new(all[n].map(|t| tangents::to_world(t, &to_world)))),
        })
        .collect()
}
