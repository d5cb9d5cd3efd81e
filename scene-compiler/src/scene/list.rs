//! What the scene format needs of an item of each list that [`scene_lists!`]
//! (`model/mod.rs`) names besides its serde form: its checks, its references to the
//! scene's materials (which reading resolves by name), how many primitives it makes
//! and whether the file it names was read. `validate.rs`, `model/text.rs` and the schema
//! tests go through every list with this trait, so a new list touches none of them.
//!
//! [`scene_lists!`]: crate::scene_lists

#[cfg(test)]
use std::path::Path;

use glam::Vec3;

use super::checker::Checker;
use super::model::{Cuboid, Mesh, Scene, Sphere, SphereList, Terrain, TerrainSurface};
use super::spans::ValuePath;
use crate::limits;

/// An item of one of the scene's lists of primitives (or of their sources).
pub(crate) trait ListItem: Sized {
    /// Checks the items of `scene`'s list at `path`.
    fn check(c: &mut Checker, path: &ValuePath, items: &[Self], scene: &Scene);

    /// Its references to the scene's materials (indices into `Scene::materials`).
    fn materials_mut(&mut self) -> impl Iterator<Item = &mut u32>;

    /// How many primitives the items make when compiled.
    fn primitives(items: &[Self]) -> usize;

    /// Whether the file it names is not read: loading could not use it, and said so.
    /// How many primitives it makes is then unknown.
    fn unread(&self) -> bool {
        false
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

/// Declares the walks over every list [`scene_lists!`](crate::scene_lists) names as
/// written.
macro_rules! walk_lists {
    (written { $($(#[$doc:meta])* $written:ident: $W:ty,)* } compiled { $($compiled:tt)* }) => {
        /// Calls `f` with every reference of the scene's lists to its materials.
        pub(crate) fn each_material_reference(scene: &mut Scene, mut f: impl FnMut(&mut u32)) {
            $(scene.$written.iter_mut().flat_map(<$W>::materials_mut).for_each(&mut f);)*
        }

        /// Checks every list; returns how many primitives they make, `None` when an item
        /// whose file was not read leaves that unknown.
        pub(crate) fn check_lists(c: &mut Checker, root: &ValuePath, scene: &Scene) -> Option<usize> {
            $(<$W>::check(c, &root.field(stringify!($written)), &scene.$written, scene);)*
            let unread = false $(|| scene.$written.iter().any(<$W>::unread))*;
            (!unread).then(|| 0 $(+ <$W>::primitives(&scene.$written))*)
        }
    };
}

crate::scene_lists!(walk_lists);

impl ListItem for Terrain {
    fn check(c: &mut Checker, path: &ValuePath, items: &[Terrain], _: &Scene) {
        c.terrains(path, items);
    }

    fn materials_mut(&mut self) -> impl Iterator<Item = &mut u32> {
        let (one, bands) = match &mut self.surface {
            TerrainSurface::Material(m) => (Some(m), &mut [][..]),
            TerrainSurface::Palette(bands) => (None, &mut bands[..]),
        };
        one.into_iter().chain(bands.iter_mut().map(|b| &mut b.material))
    }

    /// Its columns before merging.
    fn primitives(items: &[Terrain]) -> usize {
        items.iter().map(|t| t.heights.raised()).sum()
    }

    fn unread(&self) -> bool {
        self.heights.is_unread()
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
    fn check(c: &mut Checker, path: &ValuePath, items: &[Mesh], _: &Scene) {
        c.meshes(path, items);
    }

    fn materials_mut(&mut self) -> impl Iterator<Item = &mut u32> {
        let instances = self.instances.iter_mut().filter_map(|i| i.material.as_mut());
        self.material.as_mut().into_iter().chain(instances)
    }

    /// Its triangles, an instanced model's once, and its instances.
    fn primitives(items: &[Mesh]) -> usize {
        items.iter().map(|m| m.data.stored_triangles() + m.instance_count()).sum()
    }

    fn unread(&self) -> bool {
        self.data.is_unread() || (self.instance_file.is_some() && self.placements.is_unread())
    }

    #[cfg(test)]
    fn examples(folder: &Path) -> Vec<Mesh> {
        use super::model::{MeshData, PlacedInstance, Transform};
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
        let transform = Transform {
            translate: Vec3::new(1.0, 2.0, 3.0),
            rotate_deg: Vec3::new(10.0, 20.0, 30.0),
            scale: Vec3::splat(0.5),
        };
        let instances = vec![
            PlacedInstance {
                // Stretched and mirrored: written per axis.
                transform: Transform {
                    translate: Vec3::new(-2.0, 0.0, 4.0),
                    rotate_deg: Vec3::new(0.0, 30.0, 0.0),
                    scale: Vec3::new(1.5, 0.5, -2.0),
                },
                material: Some(3),
            },
            PlacedInstance {
                transform: Transform { translate: Vec3::new(0.25, 1.0, -1.0), ..Transform::default() },
                material: None,
            },
        ];
        vec![Mesh {
            file: "m.obj".into(),
            material: Some(2),
            transform,
            instances,
            instance_file: Some("i.ply".into()),
            data: Arc::new(data),
            placements: Arc::new(instance_file_example(folder)),
        }]
    }

    #[cfg(test)]
    fn wrong(self) -> Mesh {
        use super::model::{InstanceFileData, PlacedInstance, Transform};
        use std::sync::Arc;
        // The first instance of the file, which is the one reported.
        let placements = InstanceFileData {
            instances: vec![PlacedInstance { transform: nan_transform(), material: Some(9) }],
            ..(*self.placements).clone()
        };
        Mesh {
            transform: nan_transform(),
            material: Some(9),
            // Two axes wrong: each reported at its component.
            instances: vec![PlacedInstance {
                transform: Transform { scale: glam::Vec3::new(f32::NAN, 1.0, 0.0), ..nan_transform() },
                material: Some(9),
            }],
            placements: Arc::new(placements),
            ..self
        }
    }
}

impl ListItem for SphereList {
    fn check(c: &mut Checker, path: &ValuePath, items: &[SphereList], scene: &Scene) {
        c.sphere_files(path, items, scene.spheres.len());
    }

    fn materials_mut(&mut self) -> impl Iterator<Item = &mut u32> {
        self.materials.iter_mut()
    }

    fn primitives(items: &[SphereList]) -> usize {
        items.iter().map(|l| l.data.spheres.len()).sum()
    }

    fn unread(&self) -> bool {
        self.data.is_unread()
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
                scale: Vec3::new(2.0, -2.0, 2.0),
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

/// The instance file `i.ply` that [`Mesh::examples`] names, as read from `folder` (the
/// schema tests write it there, big-endian).
#[cfg(test)]
pub(super) fn instance_file_example(folder: &Path) -> super::model::InstanceFileData {
    use super::model::{InstanceFileData, PlacedInstance, Transform};
    let placed = |translate: Vec3, rotate_deg: Vec3, scale: f32, material: u32| PlacedInstance {
        transform: Transform { translate, rotate_deg, scale: Vec3::splat(scale) },
        material: Some(material),
    };
    InstanceFileData {
        path: folder.join("i.ply"),
        instances: vec![
            placed(Vec3::new(3.0, 0.0, -2.5), Vec3::new(5.0, 90.0, -15.0), 0.75, 1),
            placed(Vec3::new(-6.0, 0.5, 1.0), Vec3::ZERO, 2.0, 3),
        ],
        rewrite: Ok(super::PlyEncoding::BinaryBigEndian),
    }
}

/// A transform whose every value is NaN.
#[cfg(test)]
fn nan_transform() -> super::model::Transform {
    let nan = glam::Vec3::NAN;
    super::model::Transform { translate: nan, rotate_deg: nan, scale: nan }
}

impl ListItem for Sphere {
    fn check(c: &mut Checker, path: &ValuePath, items: &[Sphere], _: &Scene) {
        c.count(path, "spheres", items.len(), limits::MAX_SPHERES);
        c.each(items, |c, i, s| {
            sphere_geometry(c, path, i, s.center, s.radius);
            c.material(&|| path.index(i).field("material"), s.material, "");
        });
    }

    fn materials_mut(&mut self) -> impl Iterator<Item = &mut u32> {
        std::iter::once(&mut self.material)
    }

    fn primitives(items: &[Sphere]) -> usize {
        items.len()
    }

    #[cfg(test)]
    fn examples(_: &Path) -> Vec<Sphere> {
        vec![Sphere { center: Vec3::new(0.0, 1.0, 0.0), radius: 1.0, material: 3 }]
    }

    #[cfg(test)]
    fn wrong(self) -> Sphere {
        Sphere { center: Vec3::NAN, radius: f32::NAN, material: 9 }
    }
}

/// Sphere `i`'s center and radius.
fn sphere_geometry(c: &mut Checker, path: &ValuePath, i: usize, center: Vec3, radius: f32) {
    let field = |name: &'static str| move || path.index(i).field(name);
    let center_ok = c.coordinate3(center, "sphere `center`", &field("center"));
    let radius_ok = c.check(radius, "sphere `radius`", &field("radius"), |r| r > 0.0, "positive").is_none()
        && radius.is_finite();
    if center_ok && radius_ok && crate::ranges::sphere_problem(center, radius).is_some() {
        c.report(&field("radius"), "the sphere reaches past 1e9 from the origin", "out of range")
            .set_hint("coordinates beyond 1e9 lose all precision in 32-bit floats; scale the scene down");
    }
}

impl ListItem for Cuboid {
    fn check(c: &mut Checker, path: &ValuePath, items: &[Cuboid], _: &Scene) {
        c.count(path, "boxes", items.len(), limits::MAX_BOXES);
        c.each(items, |c, i, b| {
            box_geometry(c, path, i, b.min, b.max);
            c.material(&|| path.index(i).field("material"), b.material, "");
        });
    }

    fn materials_mut(&mut self) -> impl Iterator<Item = &mut u32> {
        std::iter::once(&mut self.material)
    }

    fn primitives(items: &[Cuboid]) -> usize {
        items.len()
    }

    #[cfg(test)]
    fn examples(_: &Path) -> Vec<Cuboid> {
        vec![Cuboid { min: Vec3::splat(-1.0), max: Vec3::new(0.5, 0.25, 1e-3), material: 2 }]
    }

    #[cfg(test)]
    fn wrong(self) -> Cuboid {
        Cuboid { min: Vec3::NAN, max: Vec3::NAN, material: 9 }
    }
}

/// Box `i`'s corners: finite, and `min < max` on every axis (a flat box has no inside,
/// and the renderer's robust offsets assume one).
fn box_geometry(c: &mut Checker, path: &ValuePath, i: usize, min: Vec3, max: Vec3) {
    let field = |name: &'static str| move || path.index(i).field(name);
    let finite =
        c.coordinate3(min, "box `min`", &field("min")) & c.coordinate3(max, "box `max`", &field("max"));
    if finite && !min.cmplt(max).all() {
        let axes: Vec<&str> = ["x", "y", "z"]
            .into_iter()
            .enumerate()
            .filter(|&(a, _)| min[a] >= max[a])
            .map(|(_, n)| n)
            .collect();
        let message = format!("box `max` must be above `min` on every axis, not on {}", axes.join(", "));
        c.report(&field("max"), message, "not above `min`")
            .set_hint("a box has a thickness on every axis: make `max` larger than `min`");
    }
}
