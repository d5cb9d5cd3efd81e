//! What the scene format needs of an item of each list that [`scene_lists!`]
//! (`model.rs`) names: its file form, its checks (of a file's item, and of one in
//! memory) and how many primitives it makes. `validate.rs` and the schema tests go
//! through every list with this trait, so a new list touches neither.
//!
//! [`scene_lists!`]: crate::scene_lists

use std::collections::HashMap;
use std::path::Path;

use glam::Vec3;
use serde::Deserialize;
use smol_str::SmolStr;

use super::schema::{SceneFile, V3};
use super::spans::ValuePath;
use super::validate::Checker;
use super::{
    model::{Cuboid, Mesh, Scene, Sphere, SphereList, Terrain},
    schema::{MeshFile, SphereListFile, TerrainFile},
};
use crate::limits;

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

/// `(center: (x, y, z), radius: r, material: "name")`.
#[derive(Debug, Deserialize)]
#[serde(rename = "Sphere", deny_unknown_fields)]
pub(crate) struct SphereFile {
    pub center: V3,
    pub radius: f32,
    pub material: SmolStr,
}

impl ListItem for Sphere {
    type File = SphereFile;

    fn lower(c: &mut Checker, path: &ValuePath, items: &[SphereFile], file: &Lowering) -> Vec<Sphere> {
        c.count(path, "spheres", items.len(), limits::MAX_SPHERES);
        c.each(items, |c, i, s| {
            let center_ok = sphere_geometry(c, path, i, s.center, s.radius);
            let material = c.material(&|| path.index(i).field("material"), &s.material, file.materials)?;
            center_ok.then(|| Sphere { center: Vec3::from_array(s.center), radius: s.radius, material })
        })
    }

    fn check_model(c: &mut Checker, path: &ValuePath, items: &[Sphere], scene: &Scene) {
        c.count(path, "spheres", items.len(), limits::MAX_SPHERES);
        for (i, s) in items.iter().enumerate() {
            sphere_geometry(c, path, i, s.center.to_array(), s.radius);
            c.material_index(&|| path.index(i).field("material"), s.material, scene.materials.len());
        }
    }

    fn primitives(items: &[Sphere]) -> usize {
        items.len()
    }

    /// Every sphere written is one, whether or not it passed its checks.
    fn primitives_written(written: &[SphereFile], _: &[Sphere]) -> Option<usize> {
        Some(written.len())
    }

    #[cfg(test)]
    fn examples(_: &std::path::Path) -> Vec<Sphere> {
        vec![Sphere { center: Vec3::new(0.0, 1.0, 0.0), radius: 1.0, material: 3 }]
    }

    #[cfg(test)]
    fn wrong(self) -> Sphere {
        Sphere { center: Vec3::NAN, radius: f32::NAN, material: 9 }
    }
}

/// Sphere `i`'s center and radius; true when the center is usable.
fn sphere_geometry(c: &mut Checker, path: &ValuePath, i: usize, center: V3, radius: f32) -> bool {
    let field = |name: &'static str| move || path.index(i).field(name);
    let center_ok = c.coordinate3(center, "sphere `center`", &field("center"));
    let radius_ok = c.check(radius, "sphere `radius`", &field("radius"), |r| r > 0.0, "positive").is_none()
        && radius.is_finite();
    if center_ok
        && radius_ok
        && crate::ranges::sphere_problem(glam::Vec3::from_array(center), radius).is_some()
    {
        c.report(&field("radius"), "the sphere reaches past 1e9 from the origin", "out of range")
            .set_hint("coordinates beyond 1e9 lose all precision in 32-bit floats; scale the scene down");
    }
    center_ok
}

/// `(min: (x, y, z), max: (x, y, z), material: "name")`: an axis-aligned box.
#[derive(Debug, Deserialize)]
#[serde(rename = "Box", deny_unknown_fields)]
pub(crate) struct BoxFile {
    pub min: V3,
    pub max: V3,
    pub material: SmolStr,
}

impl ListItem for Cuboid {
    type File = BoxFile;

    fn lower(c: &mut Checker, path: &ValuePath, items: &[BoxFile], file: &Lowering) -> Vec<Cuboid> {
        c.count(path, "boxes", items.len(), limits::MAX_BOXES);
        c.each(items, |c, i, b| {
            let geometry_ok = box_geometry(c, path, i, b.min, b.max);
            let material = c.material(&|| path.index(i).field("material"), &b.material, file.materials)?;
            geometry_ok.then(|| Cuboid {
                min: Vec3::from_array(b.min),
                max: Vec3::from_array(b.max),
                material,
            })
        })
    }

    fn check_model(c: &mut Checker, path: &ValuePath, items: &[Cuboid], scene: &Scene) {
        c.count(path, "boxes", items.len(), limits::MAX_BOXES);
        for (i, b) in items.iter().enumerate() {
            box_geometry(c, path, i, b.min.to_array(), b.max.to_array());
            c.material_index(&|| path.index(i).field("material"), b.material, scene.materials.len());
        }
    }

    fn primitives(items: &[Cuboid]) -> usize {
        items.len()
    }

    /// Every box written is one, whether or not it passed its checks.
    fn primitives_written(written: &[BoxFile], _: &[Cuboid]) -> Option<usize> {
        Some(written.len())
    }

    #[cfg(test)]
    fn examples(_: &std::path::Path) -> Vec<Cuboid> {
        vec![Cuboid { min: Vec3::splat(-1.0), max: Vec3::new(0.5, 0.25, 1e-3), material: 2 }]
    }

    #[cfg(test)]
    fn wrong(self) -> Cuboid {
        Cuboid { min: Vec3::NAN, max: Vec3::NAN, material: 9 }
    }
}

/// Box `i`'s corners: finite, and `min < max` on every axis (a flat box has no inside,
/// and the renderer's robust offsets assume one). True when usable.
fn box_geometry(c: &mut Checker, path: &ValuePath, i: usize, min: V3, max: V3) -> bool {
    let field = |name: &'static str| move || path.index(i).field(name);
    let finite =
        c.coordinate3(min, "box `min`", &field("min")) & c.coordinate3(max, "box `max`", &field("max"));
    if finite && !Vec3::from_array(min).cmplt(Vec3::from_array(max)).all() {
        let axes: Vec<&str> = ["x", "y", "z"]
            .into_iter()
            .enumerate()
            .filter(|&(a, _)| min[a] >= max[a])
            .map(|(_, n)| n)
            .collect();
        let message = format!("box `max` must be above `min` on every axis, not on {}", axes.join(", "));
        c.report(&field("max"), message, "not above `min`")
            .set_hint("a box has a thickness on every axis: make `max` larger than `min`");
        return false;
    }
    finite
}
