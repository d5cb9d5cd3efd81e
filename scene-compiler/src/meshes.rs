//! Meshes to triangles and instances: the compile step that places each model in the
//! world, as terrains become boxes (`crate::terrain`).
//!
//! A mesh placed once (its `transform` alone) is flattened: each vertex is transformed
//! once and shared by the triangles that name it, so two triangles that share an edge in
//! the file share it bit for bit in the blob: what the watertight intersection needs to
//! let no ray through. A mesh with `instances` or an `instance_file`, and each glTF mesh
//! that its file places more than once, becomes a bottom level instead: its triangles
//! once, in its own space, and one [`Instance`] per placement (docs/architecture.md,
//! "Two levels").
//!
//! A mesh without a scene `material` brings its model's materials: they are appended
//! to the scene's (named `file#name`), after every scene material, in mesh order.
//!
//! Triangles whose material has a normal map get vertex tangents (`crate::tangents`:
//! the file's, else MikkTSpace's over the whole model); a mesh without such a
//! triangle computes none.

use std::borrow::Cow;
use std::sync::Arc;

use glam::Affine3A;
use rayon::prelude::*;

use crate::bvh::Aabb;
use crate::scene::{BottomLevel, Instance, Material, Mesh, MeshData, Scene, Triangle, Vertices};
use crate::shapes::{Shape, placed_bounds};
use crate::tangents;

/// `scene` with its meshes' triangles appended to its triangles, their bottom levels
/// and instances to its own (empty) lists, and their models' materials to its materials
/// (the scene itself when it has no meshes); the meshes stay, for what reads the scene
/// back.
pub fn with_triangles(scene: &Scene) -> Cow<'_, Scene> {
    if scene.meshes.is_empty() {
        return Cow::Borrowed(scene);
    }
    let mut expanded = scene.clone();
    // Every placed-once mesh's triangles land in one list: room for all of them at once,
    // so a second model does not move the first one's (hundreds of MB at 5M triangles).
    let flattened = scene.meshes.iter().filter(|m| !m.is_instanced()).map(|m| m.data.triangles.len());
    expanded.triangles.reserve(flattened.sum());
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
        let placements = mesh.placements();
        if !mesh.data.triangles.is_empty() {
            if mesh.is_instanced() {
                let level = bottom_level(mesh, &mesh.data, first_material, &expanded.materials);
                add_instances(&mut expanded, level, &placements);
            } else {
                let to_world = placements[0].0;
                let out = (&mut expanded.triangles, &mut expanded.vertices);
                add_triangles(mesh, &mesh.data, first_material, &expanded.materials, &to_world, out);
            }
        }
        for part in &mesh.data.instanced {
            let level = bottom_level(mesh, &part.geometry, first_material, &expanded.materials);
            let each: Vec<(Affine3A, Option<u32>)> = placements
                .iter()
                .flat_map(|&(outer, material)| {
                    part.placements.iter().map(move |&inner| (outer * inner, material))
                })
                .collect();
            add_instances(&mut expanded, level, &each);
        }
    }
    Cow::Owned(expanded)
}

/// Where [`with_triangles`] puts the meshes' instances (see [`placed_instances`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacedInstances {
    /// Per mesh, its bottom level and its first instance, when its placements
    /// ([`Mesh::placements`]) are its instances one for one (an instanced mesh with
    /// triangles of its own, and no glTF meshes that its file places several times);
    /// `None` for any other mesh.
    pub per_mesh: Vec<Option<(u32, usize)>>,
    /// How many instances lowering makes in all, the glTF meshes' included.
    pub total: usize,
}

/// Where [`with_triangles`] puts each mesh's instances: what lets an edit that moves
/// placements find their instances without lowering the scene again (`crate::moves`).
pub fn placed_instances(scene: &Scene) -> PlacedInstances {
    let (mut levels, mut instances) = (0u32, 0usize);
    let mut out = Vec::with_capacity(scene.meshes.len());
    for mesh in &scene.meshes {
        let placements = mesh.placement_count();
        let own = (mesh.is_instanced() && !mesh.data.triangles.is_empty()).then(|| {
            let at = (levels, instances);
            levels += 1;
            instances += placements;
            at
        });
        for part in &mesh.data.instanced {
            levels += 1;
            instances += placements * part.placements.len();
        }
        out.push(own.filter(|_| mesh.data.instanced.is_empty()));
    }
    PlacedInstances { per_mesh: out, total: instances }
}

/// Appends `level` to the scene's bottom levels and one instance of it per placement.
/// An instance's box is its level's box placed: the level's octant boxes placed
/// instead (tighter under rotation) left the 400-tree forest's frame unchanged (38.7
/// against 38.7 ms, H100), so the simpler box stays.
fn add_instances(scene: &mut Scene, level: BottomLevel, placements: &[(Affine3A, Option<u32>)]) {
    let vertices = &level.vertices.records;
    let bounds = level.triangles.iter().fold(Aabb::EMPTY, |b, t| b.union(t.bounds(vertices)));
    let index = scene.bottom_levels.len() as u32;
    scene.bottom_levels.push(level);
    let placed = placements.par_iter().map(|&(to_world, material)| Instance {
        to_world,
        bottom_level: index,
        material,
        bounds: placed_bounds(&bounds, &to_world),
    });
    scene.instances.par_extend(placed);
}

/// A mesh's `geometry` (its model's, or one of its instanced parts) in its own space.
fn bottom_level(
    mesh: &Mesh,
    geometry: &MeshData,
    first_material: u32,
    materials: &[Material],
) -> BottomLevel {
    let (mut triangles, mut vertices) = (Vec::new(), Vertices::default());
    add_triangles(
        mesh,
        geometry,
        first_material,
        materials,
        &Affine3A::IDENTITY,
        (&mut triangles, &mut vertices),
    );
    BottomLevel { triangles: Arc::new(triangles), vertices: Arc::new(vertices) }
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

/// Appends to `out` `geometry`'s triangles (a mesh's model, or one of its instanced
/// parts) and their vertices, placed by `to_world`, in the file's order. Written
/// straight into `out`'s storage on all cores: at 5M triangles a vector of their own,
/// copied into the scene's, cost half of this step on the 2-core dev machine.
/// `first_material` is the scene index of the model's
/// first material (used when the mesh names none); `materials` the scene's, its
/// model's among them, which say which triangles are normal-mapped. The transform may
/// scale unevenly or mirror: normals go through its inverse transpose.
fn add_triangles(
    mesh: &Mesh,
    geometry: &MeshData,
    first_material: u32,
    materials: &[Material],
    to_world: &Affine3A,
    (out, vertices): (&mut Vec<Triangle>, &mut Vertices),
) {
    let data = geometry;
    // A model without materials of its own, in a mesh without one, is placed only by
    // instances that each name one (validation): its triangles' own is never seen.
    let material = |n: usize| {
        mesh.material.unwrap_or_else(|| data.triangle_materials.get(n).map_or(0, |m| first_material + m))
    };
    let normal_mapped = |n: usize| materials[material(n) as usize].maps.normal.is_some();
    let tangents = if (0..data.triangles.len()).any(normal_mapped) { tangents::of_mesh(data) } else { None };
    let first = if *to_world == Affine3A::IDENTITY {
        vertices.append(&data.positions, &data.normals, &data.uvs)
    } else {
        let world: Vec<glam::Vec3> =
            data.positions.par_iter().map(|&p| to_world.transform_point3(p)).collect();
        let normal_matrix = to_world.matrix3.inverse().transpose();
        let normals: Vec<glam::Vec3> = data
            .normals
            .par_iter()
            .map(|&n| (normal_matrix * glam::Vec3A::from(n)).normalize().into())
            .collect();
        vertices.append(&world, &normals, &data.uvs)
    };
    // A mirroring map turns each triangle's winding, so that the file's front faces stay
    // its front faces (the geometric normal decides inside and outside), as a glTF node's
    // mirror does (`scene/mesh_file.rs`) and an instance's normal map keeps them.
    let mirrors = to_world.matrix3.determinant() < 0.0;
    let wind = |[a, b, c]: [u32; 3]| if mirrors { [a, c, b] } else { [a, b, c] };
    let triangles = data.triangles.par_iter().enumerate().map(|(n, &t)| Triangle {
        v: wind(t).map(|i| first + i),
        material: material(n),
        tangents: tangents
            .as_ref()
            .filter(|_| normal_mapped(n))
            .map(|all| Box::new(wind([0, 1, 2]).map(|k| tangents::to_world(all[n][k as usize], to_world)))),
    });
    out.par_extend(triangles);
}
