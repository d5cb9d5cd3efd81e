//! What the editor has selected: one sphere, box, terrain or mesh, by its index in
//! the scene's list of that kind, or one instance of an instanced mesh; and [`Thing`],
//! what the editor knows of each kind of list.
//!
//! Every kind implements [`Thing`] once; code that handles "the selection" reaches the
//! kind's implementation through [`with_thing!`], the one match on [`Selected`]. A new
//! editable kind is a variant here, its line in `with_thing!` and [`Selected::KINDS`],
//! and its `impl Thing`. An instance is not an item of a scene list but a placement of
//! its mesh: `with_thing!` gives its mesh, and what differs for an instance (whether it
//! exists, its material, outline and name, its rows, deleting it) is decided here and in
//! `edit.rs` before that.

use std::fmt;

use eframe::egui;
use glam::{Affine3A, Vec3};
use scene_compiler::scene::{Cuboid, Material, Mesh, Scene, Sphere, Terrain, TerrainSurface};

use super::rows::{box_rows, mesh_notes, mesh_rows, sphere_rows, terrain_notes, terrain_rows};

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
    /// Placement `k` of an instanced mesh (`Mesh::placement`: its `instances`, then its
    /// instance file's); its triangles select it.
    Instance {
        mesh: usize,
        k: usize,
    },
}

/// Runs `$body` with `$T` standing for the [`Thing`] type of `$selected`'s kind and
/// `$index` for its index (an instance's: its mesh's).
macro_rules! with_thing {
    ($selected:expr, $T:ident, $index:ident => $body:expr) => {
        match $selected {
            $crate::view::selected::Selected::Sphere($index) => {
                type $T = scene_compiler::scene::Sphere;
                $body
            }
            $crate::view::selected::Selected::Box($index) => {
                type $T = scene_compiler::scene::Cuboid;
                $body
            }
            $crate::view::selected::Selected::Terrain($index) => {
                type $T = scene_compiler::scene::Terrain;
                $body
            }
            $crate::view::selected::Selected::Mesh($index)
            | $crate::view::selected::Selected::Instance { mesh: $index, .. } => {
                type $T = scene_compiler::scene::Mesh;
                $body
            }
        }
    };
}
pub(crate) use with_thing;

/// How the selection is drawn over the render.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outline {
    /// A ring around a sphere.
    Ring { center: Vec3, radius: f32 },
    /// The edges of the box `min..max` placed by `to_world`.
    Box { min: Vec3, max: Vec3, to_world: Affine3A },
}

/// What the editor knows of one kind of thing a scene lists.
pub trait Thing: Clone + Send + 'static {
    /// Its name in the outline and the panel (`sphere 3`).
    const NAME: &'static str;
    /// Its list's heading in the outline.
    const TITLE: &'static str;
    /// The selection of its `index`th.
    fn select(index: usize) -> Selected;
    /// The scene's list of this kind.
    fn list(scene: &Scene) -> &Vec<Self>;
    fn list_mut(scene: &mut Scene) -> &mut Vec<Self>;
    /// Its material, when it has a single one of the scene's (a terrain's palette has
    /// several, a mesh without `material` its model's own).
    fn material(&self) -> Option<u32>;
    /// What the outline shows after its name (a terrain's image, a mesh's file).
    fn source(&self) -> Option<&str> {
        None
    }
    /// Its shape drawn over the render; `None` when it has nothing to draw.
    fn outline(&self) -> Option<Outline>;
    /// Its rows in the selection editor (a grid of two columns); the field changed.
    fn rows(&mut self, ui: &mut egui::Ui, materials: &[Material]) -> Option<&'static str>;
    /// What the selection editor says under its rows.
    fn notes(&self, _ui: &mut egui::Ui) {}
}

impl Selected {
    /// Every kind, as the selection of its entry `i`, in the outline's order.
    pub const KINDS: [fn(usize) -> Selected; 4] =
        [Selected::Sphere, Selected::Box, Selected::Terrain, Selected::Mesh];

    /// Whether `scene` holds it: an undo or a reload can take it away.
    pub fn exists_in(self, scene: &Scene) -> bool {
        if let Selected::Instance { mesh, k } = self {
            return scene.meshes.get(mesh).is_some_and(|m| k < m.instance_count());
        }
        with_thing!(self, T, i => i < T::list(scene).len())
    }

    /// Its material (see [`Thing::material`]); an instance's own, else its mesh's.
    pub fn material(self, scene: &Scene) -> Option<u32> {
        if let Selected::Instance { mesh, k } = self {
            let mesh = scene.meshes.get(mesh).filter(|m| k < m.instance_count())?;
            return mesh.placement(k).1.or(mesh.material);
        }
        with_thing!(self, T, i => T::list(scene).get(i).and_then(T::material))
    }

    /// How it is drawn over the render.
    pub fn outline(self, scene: &Scene) -> Option<Outline> {
        if let Selected::Instance { mesh, k } = self {
            let mesh = scene.meshes.get(mesh).filter(|m| k < m.instance_count())?;
            let (min, max) = model_box(mesh)?;
            return Some(Outline::Box { min, max, to_world: mesh.placement(k).0 });
        }
        with_thing!(self, T, i => T::list(scene).get(i).and_then(T::outline))
    }
}

/// The name the outline and the selection editor show: `sphere 3`, `box 0`, `terrain 1`,
/// `mesh 2`, `mesh 2 · instance 7`.
impl fmt::Display for Selected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Selected::Instance { mesh, k } = self {
            return write!(f, "mesh {mesh} · instance {k}");
        }
        with_thing!(*self, T, i => write!(f, "{} {i}", T::NAME))
    }
}

/// A mesh's model-space bounding box (its outline; how far its rows' drags move it).
/// One pass over the positions per frame: about a millisecond per million vertices.
pub(super) fn model_box(mesh: &Mesh) -> Option<(Vec3, Vec3)> {
    let positions = &mesh.data.positions;
    Some((positions.iter().copied().reduce(Vec3::min)?, positions.iter().copied().reduce(Vec3::max)?))
}

impl Thing for Sphere {
    const NAME: &'static str = "sphere";
    const TITLE: &'static str = "Spheres";
    fn select(index: usize) -> Selected {
        Selected::Sphere(index)
    }
    fn list(scene: &Scene) -> &Vec<Sphere> {
        &scene.spheres
    }
    fn list_mut(scene: &mut Scene) -> &mut Vec<Sphere> {
        &mut scene.spheres
    }
    fn material(&self) -> Option<u32> {
        Some(self.material)
    }
    fn outline(&self) -> Option<Outline> {
        Some(Outline::Ring { center: self.center, radius: self.radius })
    }
    fn rows(&mut self, ui: &mut egui::Ui, materials: &[Material]) -> Option<&'static str> {
        sphere_rows(ui, self, materials)
    }
}

impl Thing for Cuboid {
    const NAME: &'static str = "box";
    const TITLE: &'static str = "Boxes";
    fn select(index: usize) -> Selected {
        Selected::Box(index)
    }
    fn list(scene: &Scene) -> &Vec<Cuboid> {
        &scene.boxes
    }
    fn list_mut(scene: &mut Scene) -> &mut Vec<Cuboid> {
        &mut scene.boxes
    }
    fn material(&self) -> Option<u32> {
        Some(self.material)
    }
    fn outline(&self) -> Option<Outline> {
        Some(Outline::Box { min: self.min, max: self.max, to_world: Affine3A::IDENTITY })
    }
    fn rows(&mut self, ui: &mut egui::Ui, materials: &[Material]) -> Option<&'static str> {
        box_rows(ui, self, materials)
    }
}

impl Thing for Terrain {
    const NAME: &'static str = "terrain";
    const TITLE: &'static str = "Terrains";
    fn select(index: usize) -> Selected {
        Selected::Terrain(index)
    }
    fn list(scene: &Scene) -> &Vec<Terrain> {
        &scene.terrains
    }
    fn list_mut(scene: &mut Scene) -> &mut Vec<Terrain> {
        &mut scene.terrains
    }
    fn material(&self) -> Option<u32> {
        match self.surface {
            TerrainSurface::Material(m) => Some(m),
            TerrainSurface::Palette(_) => None,
        }
    }
    fn source(&self) -> Option<&str> {
        Some(&self.image)
    }
    /// Its footprint on its origin's plane: its top would need the highest of every
    /// pixel, each frame.
    fn outline(&self) -> Option<Outline> {
        let extent = Vec3::new(self.heights.width as f32, 0.0, self.heights.depth as f32) * self.cell;
        Some(Outline::Box { min: self.origin, max: self.origin + extent, to_world: Affine3A::IDENTITY })
    }
    fn rows(&mut self, ui: &mut egui::Ui, materials: &[Material]) -> Option<&'static str> {
        terrain_rows(ui, self, materials)
    }
    fn notes(&self, ui: &mut egui::Ui) {
        terrain_notes(ui, self);
    }
}

impl Thing for Mesh {
    const NAME: &'static str = "mesh";
    const TITLE: &'static str = "Meshes";
    fn select(index: usize) -> Selected {
        Selected::Mesh(index)
    }
    fn list(scene: &Scene) -> &Vec<Mesh> {
        &scene.meshes
    }
    fn list_mut(scene: &mut Scene) -> &mut Vec<Mesh> {
        &mut scene.meshes
    }
    fn material(&self) -> Option<u32> {
        self.material
    }
    fn source(&self) -> Option<&str> {
        Some(&self.file)
    }
    /// The model-space bounding box placed by its transform; an instanced mesh's
    /// instances are outlined one at a time, when selected.
    fn outline(&self) -> Option<Outline> {
        if self.is_instanced() {
            return None;
        }
        let (min, max) = model_box(self)?;
        Some(Outline::Box { min, max, to_world: self.transform.matrix() })
    }
    fn rows(&mut self, ui: &mut egui::Ui, materials: &[Material]) -> Option<&'static str> {
        mesh_rows(ui, self, materials)
    }
    fn notes(&self, ui: &mut egui::Ui) {
        mesh_notes(ui, self);
    }
}
