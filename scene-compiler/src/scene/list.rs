//! What the scene format needs of an item of each list that [`scene_lists!`]
//! (`shapes/mod.rs`) names: its file form, its checks (of a file's item, and of one in
//! memory), how many primitives it makes and its RON text. `validate.rs`, `write.rs`
//! and the schema tests go through every list with this trait, so a new list touches
//! none of them. Spheres and boxes implement it next to their shape
//! (`shapes/sphere.rs`, `shapes/cuboid.rs`); the lists that read files (terrains,
//! meshes, sphere files), whose checks share helpers with the rest of validation,
//! implement it here.
//!
//! [`scene_lists!`]: crate::scene_lists

use std::collections::HashMap;
use std::path::Path;

pub(crate) use super::schema::{SceneFile, V3};
pub(crate) use super::spans::ValuePath;
pub(crate) use super::validate::Checker;
pub(crate) use super::write::{material_name, v3};
use super::{
    model::{Material, Mesh, Scene, SphereList, Terrain},
    schema::{MeshFile, SphereListFile, TerrainFile},
    write,
};

/// An item of one of the scene's lists of primitives (or of their sources).
pub(crate) trait ListItem: Sized {
    /// The item as a scene file writes it.
    type File: serde::de::DeserializeOwned + std::fmt::Debug;

    /// Checks a file's items, reporting at `path` (the list), and lowers those that pass.
    fn lower(c: &mut Checker, path: &ValuePath, items: &[Self::File], file: &Lowering) -> Vec<Self>;

    /// The same checks on items in memory (an editor's edit) of `scene`.
    fn check_model(c: &mut Checker, path: &ValuePath, items: &[Self], scene: &Scene);

    /// How many primitives the items make when compiled.
    fn primitives(items: &[Self]) -> usize;

    /// How many primitives a file's items make, from those that `lower` kept; `None`
    /// when some item was dropped and how many it makes is unknown (it has its own
    /// message: the empty-scene check, which adds these up, then stays quiet).
    fn primitives_written(written: &[Self::File], lowered: &[Self]) -> Option<usize> {
        (written.len() == lowered.len()).then(|| Self::primitives(lowered))
    }

    /// Writes one item: a line (or block) of the list at the second indent level.
    fn write(out: &mut String, item: &Self, materials: &[Material]);

    /// Items with every written value away from its default, naming materials 0 to 3;
    /// the files they read are in `folder` (or, when it has none, made up). The schema
    /// tests (`scene/reflect.rs`) write them, read them back and validate them.
    #[cfg(test)]
    fn examples(folder: &Path) -> Vec<Self>;

    /// The item with every value that is checked wrong (NaN, material 9): validation
    /// reports each one, at a path written in the text.
    #[cfg(test)]
    fn wrong(self) -> Self;
}

/// What lowering a file's item may need besides the item.
pub(crate) struct Lowering<'a> {
    pub file: &'a SceneFile,
    /// Each material's index, by name.
    pub materials: &'a HashMap<&'a str, u32>,
    /// The scene file's folder, which the files it names are relative to.
    pub folder: &'a Path,
}

impl ListItem for Terrain {
    type File = TerrainFile;

    fn lower(c: &mut Checker, path: &ValuePath, items: &[TerrainFile], file: &Lowering) -> Vec<Terrain> {
        c.terrains(path, items, file.materials, file.folder)
    }

    fn check_model(c: &mut Checker, path: &ValuePath, items: &[Terrain], scene: &Scene) {
        c.model_terrains(path, items, scene.materials.len());
    }

    /// Its columns before merging.
    fn primitives(items: &[Terrain]) -> usize {
        items.iter().map(|t| t.heights.raised()).sum()
    }

    fn write(out: &mut String, item: &Terrain, materials: &[Material]) {
        write::terrain(out, item, materials);
    }

    #[cfg(test)]
    fn examples(folder: &Path) -> Vec<Terrain> {
        use super::model::{Band, Heightmap, TerrainSurface};
        use glam::Vec3;
        use std::sync::Arc;
        let heights =
            Arc::new(Heightmap { path: folder.join("h.png"), width: 2, depth: 2, values: vec![0, 1, 2, 3] });
        let terrain = |origin, surface| Terrain {
            image: "h.png".into(),
            heights: heights.clone(),
            origin,
            cell: 0.5,
            height_scale: 2.0,
            surface,
        };
        let bands = vec![Band { from: 0.0, material: 0 }, Band { from: 2.5, material: 1 }];
        vec![
            terrain(Vec3::new(1.0, 2.0, 3.0), TerrainSurface::Material(1)),
            terrain(Vec3::new(-4.0, 0.0, 0.0), TerrainSurface::Palette(bands)),
        ]
    }

    #[cfg(test)]
    fn wrong(self) -> Terrain {
        use super::model::{Band, TerrainSurface};
        let surface = match self.surface {
            TerrainSurface::Material(_) => TerrainSurface::Material(9),
            TerrainSurface::Palette(_) => TerrainSurface::Palette(vec![Band { from: f32::NAN, material: 9 }]),
        };
        let nan = f32::NAN;
        Terrain { origin: glam::Vec3::NAN, cell: nan, height_scale: nan, surface, ..self }
    }
}

impl ListItem for Mesh {
    type File = MeshFile;

    fn lower(c: &mut Checker, path: &ValuePath, items: &[MeshFile], file: &Lowering) -> Vec<Mesh> {
        c.meshes(path, items, file.materials, file.folder)
    }

    fn check_model(c: &mut Checker, path: &ValuePath, items: &[Mesh], scene: &Scene) {
        c.model_meshes(path, items, scene.materials.len());
    }

    fn primitives(items: &[Mesh]) -> usize {
        items.iter().map(|m| m.data.triangles.len()).sum()
    }

    fn write(out: &mut String, item: &Mesh, materials: &[Material]) {
        write::mesh(out, item, materials);
    }

    #[cfg(test)]
    fn examples(folder: &Path) -> Vec<Mesh> {
        use super::model::{MeshData, Transform};
        use glam::Vec3;
        use std::sync::Arc;
        // As read from m.obj (the folder of the wrong values has none).
        let data = super::mesh_file::read_within(&folder.join("m.obj"), crate::limits::MAX_TRIANGLES)
            .unwrap_or_else(|_| MeshData {
                path: folder.join("m.obj"),
                positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
                triangles: vec![[0, 1, 2]],
                ..MeshData::default()
            });
        vec![Mesh {
            file: "m.obj".into(),
            material: Some(2),
            transform: Transform {
                translate: Vec3::new(1.0, 2.0, 3.0),
                rotate_deg: Vec3::new(10.0, 20.0, 30.0),
                scale: 0.5,
            },
            data: Arc::new(data),
        }]
    }

    #[cfg(test)]
    fn wrong(self) -> Mesh {
        Mesh { transform: nan_transform(), material: Some(9), ..self }
    }
}

impl ListItem for SphereList {
    type File = SphereListFile;

    fn lower(
        c: &mut Checker,
        path: &ValuePath,
        items: &[SphereListFile],
        file: &Lowering,
    ) -> Vec<SphereList> {
        c.sphere_files(path, items, file.file.spheres.len(), file.materials, file.folder)
    }

    fn check_model(c: &mut Checker, path: &ValuePath, items: &[SphereList], scene: &Scene) {
        c.model_sphere_files(path, items, scene);
    }

    fn primitives(items: &[SphereList]) -> usize {
        items.iter().map(|l| l.data.spheres.len()).sum()
    }

    fn write(out: &mut String, item: &SphereList, materials: &[Material]) {
        write::sphere_list(out, item, materials);
    }

    #[cfg(test)]
    fn examples(folder: &Path) -> Vec<SphereList> {
        use super::model::{Sphere, SphereListData, Transform};
        use glam::Vec3;
        use std::sync::Arc;
        vec![SphereList {
            file: "s.ply".into(),
            materials: vec![1, 3],
            transform: Transform {
                translate: Vec3::new(-1.0, 0.5, 2.0),
                rotate_deg: Vec3::new(0.0, 45.0, 0.0),
                scale: 2.0,
            },
            data: Arc::new(SphereListData {
                path: folder.join("s.ply"),
                spheres: vec![
                    Sphere { center: Vec3::new(0.0, 1.0, 2.0), radius: 0.5, material: 1 },
                    Sphere { center: Vec3::new(-3.0, 0.25, 1.0), radius: 0.125, material: 0 },
                ],
                has_material: true,
            }),
        }]
    }

    #[cfg(test)]
    fn wrong(self) -> SphereList {
        SphereList { transform: nan_transform(), materials: vec![9, 10], ..self }
    }
}

/// A transform whose every value is NaN.
#[cfg(test)]
fn nan_transform() -> super::model::Transform {
    let nan = glam::Vec3::NAN;
    super::model::Transform { translate: nan, rotate_deg: nan, scale: f32::NAN }
}
