//! Meshes to triangles: the compile step that places each model's triangles in the
//! world with its transform, as terrains become boxes (`crate::terrain`).
//!
//! Each vertex is transformed once and shared by the triangles that name it, so two
//! triangles that share an edge in the file share it bit for bit in the blob: what the
//! watertight intersection needs to let no ray through.

use std::borrow::Cow;

use rayon::prelude::*;

use crate::scene::{Mesh, Scene, Triangle};

/// `scene` with its meshes' triangles appended to its triangles (the scene itself when
/// it has no meshes); the meshes stay, for what reads the scene back.
pub fn with_triangles(scene: &Scene) -> Cow<'_, Scene> {
    if scene.meshes.is_empty() {
        return Cow::Borrowed(scene);
    }
    let mut expanded = scene.clone();
    for mesh in &scene.meshes {
        expanded.triangles.extend(triangles(mesh));
    }
    Cow::Owned(expanded)
}

/// A mesh's triangles in world space, in the file's order.
pub fn triangles(mesh: &Mesh) -> Vec<Triangle> {
    let to_world = mesh.transform.matrix();
    let data = &mesh.data;
    let world: Vec<glam::Vec3> = data.positions.par_iter().map(|&p| to_world.transform_point3(p)).collect();
    // The scale is uniform: normals turn with the rotation, and are made unit again.
    let normals: Vec<glam::Vec3> =
        data.normals.par_iter().map(|&n| to_world.transform_vector3(n).normalize()).collect();
    data.triangles
        .par_iter()
        .map(|t| Triangle {
            v: t.map(|i| world[i as usize]),
            material: mesh.material,
            normals: (!normals.is_empty()).then(|| t.map(|i| normals[i as usize])),
        })
        .collect()
}
