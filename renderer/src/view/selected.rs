//! What the editor has selected: one sphere, box, terrain or mesh, by its index in
//! the scene's list of that kind.

use std::fmt;

use scene_compiler::scene::{Scene, TerrainSurface};

/// One thing of the scene the editor works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selected {
    Sphere(usize),
    /// A box the scene lists; a terrain's columns are boxes only once compiled, and
    /// select their terrain.
    Box(usize),
    Terrain(usize),
    /// A model file placed in the scene; its triangles select it.
    Mesh(usize),
}

impl Selected {
    /// Whether `scene` holds it: an undo or a reload can take it away.
    pub fn exists_in(self, scene: &Scene) -> bool {
        match self {
            Selected::Sphere(i) => i < scene.spheres.len(),
            Selected::Box(i) => i < scene.boxes.len(),
            Selected::Terrain(i) => i < scene.terrains.len(),
            Selected::Mesh(i) => i < scene.meshes.len(),
        }
    }

    /// Its material, when it has a single one of the scene's (a terrain's palette has
    /// several, a mesh without `material` its model's own).
    pub fn material(self, scene: &Scene) -> Option<u32> {
        match self {
            Selected::Sphere(i) => scene.spheres.get(i).map(|s| s.material),
            Selected::Box(i) => scene.boxes.get(i).map(|b| b.material),
            Selected::Terrain(i) => match scene.terrains.get(i)?.surface {
                TerrainSurface::Material(m) => Some(m),
                TerrainSurface::Palette(_) => None,
            },
            Selected::Mesh(i) => scene.meshes.get(i)?.material,
        }
    }

    /// Takes it out of `scene`; false when it is not there.
    pub fn remove_from(self, scene: &mut Scene) -> bool {
        if !self.exists_in(scene) {
            return false;
        }
        match self {
            Selected::Sphere(i) => drop(scene.spheres.remove(i)),
            Selected::Box(i) => drop(scene.boxes.remove(i)),
            Selected::Terrain(i) => drop(scene.terrains.remove(i)),
            Selected::Mesh(i) => drop(scene.meshes.remove(i)),
        }
        true
    }
}

/// The name the outline and the selection editor show: `sphere 3`, `box 0`, `terrain 1`,
/// `mesh 2`.
impl fmt::Display for Selected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Selected::Sphere(i) => write!(f, "sphere {i}"),
            Selected::Box(i) => write!(f, "box {i}"),
            Selected::Terrain(i) => write!(f, "terrain {i}"),
            Selected::Mesh(i) => write!(f, "mesh {i}"),
        }
    }
}
