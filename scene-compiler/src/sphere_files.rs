//! Sphere files to spheres: the compile step that places each PLY point list's spheres
//! in the world with its transform and materials, after the scene's own spheres, as
//! meshes become triangles (`crate::meshes`).
//!
//! An identity transform copies the file's values bit for bit, so a scene whose
//! spheres come from a sphere file compiles to the same blob as the same spheres
//! written in RON (`scene-gen grid --ply` against `scene-gen grid`).

use std::borrow::Cow;

use rayon::prelude::*;

use crate::scene::{Scene, Sphere, SphereList};

/// `scene` with its sphere files' spheres appended to its spheres (the scene itself
/// when it has none); the sphere files stay, for what reads the scene back.
pub fn with_spheres(scene: &Scene) -> Cow<'_, Scene> {
    if scene.sphere_files.is_empty() {
        return Cow::Borrowed(scene);
    }
    let mut expanded = scene.clone();
    let added: usize = scene.sphere_files.iter().map(|l| l.data.spheres.len()).sum();
    expanded.spheres.reserve_exact(added);
    for list in &scene.sphere_files {
        expanded.spheres.par_extend(spheres(list));
    }
    Cow::Owned(expanded)
}

/// A sphere file's spheres in world space, with their scene materials, in file order.
pub fn spheres(list: &SphereList) -> impl IndexedParallelIterator<Item = Sphere> + '_ {
    list.data
        .spheres
        .par_iter()
        .map(|s| Sphere { material: list.materials[s.material as usize], ..list.transform.place(s) })
}
