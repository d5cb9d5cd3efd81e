//! Clicking a thing: a ray from the lens center through the clicked point, traced by
//! the CPU backend's own closest-hit traversal (so what is picked is what the renderer
//! draws), mapped back to the primitive's index in its kind's list through the blob's
//! `prim_sources` (the blob stores each kind in leaf order).
//!
//! The blob's boxes are the scene's own followed by every terrain's columns, terrain
//! after terrain (`scene_compiler::terrain::with_columns`): a box past the scene's own
//! selects the terrain whose columns it falls among, by the starts the compile
//! reported (`CompiledScene::terrain_starts`). The blob's spheres are the
//! scene's own followed by its sphere files' (`scene_compiler::sphere_files`): those
//! render but are not selectable. The blob's triangles are the scene's own (only a
//! scene read back from a blob has any) followed by every mesh's, mesh after mesh
//! (`scene_compiler::meshes::with_triangles`): a triangle selects its mesh. An
//! instanced mesh's triangles are its bottom level's: a hit on one carries its
//! instance, and the instances come mesh after mesh too, each mesh's in the order
//! `with_triangles` places them ([`MeshInstances`]), so a hit selects the mesh's
//! placement it belongs to (a glTF mesh that the file places several times, in a mesh
//! placed once, selects the mesh).

use glam::{Vec3, Vec3A};
use scene_compiler::blob::layout::{PrimKind, prim_parts};

use super::selected::Selected;
use crate::backend::cpu::instances::NO_INSTANCE;
use crate::backend::cpu::scene::CpuScene;
use crate::backend::cpu::traverse::traverse;
use crate::camera::CameraFrame;
use crate::load::CompiledScene;

/// The CPU copy of one compiled scene, kept for repeated picks.
#[derive(Clone, Debug)]
pub struct Picker {
    scene: CpuScene,
    /// Per terrain, the index of its first column among the blob's boxes.
    terrain_starts: Vec<usize>,
    /// The scene's own spheres: those past them come from sphere files.
    own_spheres: usize,
    /// Per mesh, the index of its first triangle among the blob's triangles.
    mesh_starts: Vec<usize>,
    /// Per mesh, where its instances are among the blob's.
    instances: Vec<MeshInstances>,
}

/// One mesh's instances among the blob's: from `start`, its model's (when it is
/// instanced and has triangles of its own), one per placement, then each glTF part's,
/// its placements within each of the mesh's.
#[derive(Clone, Debug)]
struct MeshInstances {
    start: usize,
    /// Whether the mesh is instanced (its placements are selected one by one); else its
    /// one placement is the mesh.
    instanced: bool,
    placements: usize,
    own: bool,
    /// Per instanced glTF part, how many times the file places it.
    parts: Vec<usize>,
}

impl MeshInstances {
    /// The mesh's placement that the blob's instance `source` (one of this mesh's) is
    /// a copy of.
    fn placement(&self, source: usize) -> Option<usize> {
        let mut offset = source.checked_sub(self.start)?;
        if self.own {
            if offset < self.placements {
                return Some(offset);
            }
            offset -= self.placements;
        }
        for &part in &self.parts {
            if offset < self.placements * part {
                return Some(offset / part);
            }
            offset -= self.placements * part;
        }
        None
    }
}

impl Picker {
    /// Copies what picking needs out of `compiled`.
    pub fn new(compiled: &CompiledScene) -> Picker {
        let scene = &compiled.scene;
        let terrain_starts = compiled.terrain_starts.iter().map(|&start| start as usize).collect();
        let mesh_starts = scene
            .meshes
            .iter()
            .scan(scene.triangles.len(), |next, mesh| {
                let start = *next;
                *next += if mesh.is_instanced() { 0 } else { mesh.data.triangles.len() };
                Some(start)
            })
            .collect();
        let instances = scene
            .meshes
            .iter()
            .scan(0, |next, mesh| {
                let placements = mesh.placement_count();
                let own = mesh.is_instanced() && !mesh.data.triangles.is_empty();
                let parts: Vec<usize> = mesh.data.instanced.iter().map(|p| p.placements.len()).collect();
                let instanced = mesh.is_instanced();
                let span = MeshInstances { start: *next, instanced, placements, own, parts };
                *next += placements * (usize::from(own) + span.parts.iter().sum::<usize>());
                Some(span)
            })
            .collect();
        Picker {
            scene: CpuScene::from_blob(&compiled.view()),
            terrain_starts,
            own_spheres: scene.spheres.len(),
            mesh_starts,
            instances,
        }
    }

    /// What is nearest under `(s, t)` of `camera`'s image (`s` left to right, `t` top
    /// to bottom, both in 0..=1), through the lens center.
    pub fn pick(&self, camera: &CameraFrame, s: f32, t: f32) -> Option<Selected> {
        let origin = camera.origin;
        let target = camera.lower_left + s * camera.horizontal + (1.0 - t) * camera.vertical;
        let dir = (target - origin).try_normalize()?;
        self.nearest(origin, dir)
    }

    /// What the ray hits first.
    fn nearest(&self, origin: Vec3, dir: Vec3) -> Option<Selected> {
        let hit = traverse(&self.scene, Vec3A::from(origin), Vec3A::from(dir), f32::INFINITY)?;
        if hit.instance != NO_INSTANCE {
            let slot = self.scene.kind_first[PrimKind::Instance as usize] + hit.instance;
            let source = self.scene.prim_sources[slot as usize] as usize;
            let mesh = self.instances.partition_point(|m| m.start <= source).checked_sub(1)?;
            let k = self.instances[mesh].placement(source)?;
            return Some(if self.instances[mesh].instanced {
                Selected::Instance { mesh, k }
            } else {
                Selected::Mesh(mesh)
            });
        }
        let (kind, index) = prim_parts(hit.prim);
        let slot = self.scene.kind_first[kind as usize] + index;
        let source = self.scene.prim_sources[slot as usize] as usize;
        match PrimKind::from_u32(kind)? {
            PrimKind::Sphere => (source < self.own_spheres).then_some(Selected::Sphere(source)),
            PrimKind::Box => Some(match self.terrain_starts.partition_point(|&start| start <= source) {
                0 => Selected::Box(source),
                after => Selected::Terrain(after - 1),
            }),
            PrimKind::Triangle => match self.mesh_starts.partition_point(|&start| start <= source) {
                0 => None,
                after => Some(Selected::Mesh(after - 1)),
            },
            PrimKind::Instance => unreachable!("a hit names the triangle, and its instance apart"),
        }
    }
}

/// Where `center` appears in `camera`'s image: `(s, t)` as in [`Picker::pick`], and a
/// sphere of `radius` there as a fraction of the image width; `None` behind the camera.
pub fn project(camera: &CameraFrame, center: Vec3, radius: f32) -> Option<(f32, f32, f32)> {
    // u × v is the frame's w, which points from the scene back to the eye.
    let forward = -camera.u.cross(camera.v);
    let to_point = center - camera.origin;
    let depth = to_point.dot(forward);
    let corner = camera.lower_left - camera.origin;
    let plane = corner.dot(forward);
    if depth <= 1e-4 || plane <= 0.0 {
        return None;
    }
    let on_plane = to_point * (plane / depth) - corner;
    let s = on_plane.dot(camera.horizontal) / camera.horizontal.length_squared();
    let t = 1.0 - on_plane.dot(camera.vertical) / camera.vertical.length_squared();
    Some((s, t, radius * plane / depth / camera.horizontal.length()))
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    use scene_compiler::CompileOptions;
    use scene_compiler::scene::{
        self, Cuboid, Heightmap, Scene, Sphere, SphereList, SphereListData, Terrain, TerrainSurface,
    };

    use super::*;
    use crate::backend::cpu::shapes::sphere::intersect_sphere;

    fn three_spheres() -> Scene {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/scenes/three_spheres.ron");
        scene::load_file(Path::new(path)).expect("asset scene loads")
    }

    fn picker(scene: &Scene) -> Picker {
        Picker::new(&CompiledScene::from_scene(scene.clone(), &CompileOptions::default()))
    }

    #[test]
    fn picks_the_sphere_in_the_middle_of_three_spheres() {
        let scene = three_spheres();
        let picker = picker(&scene);
        let camera = CameraFrame::new(&scene.camera, 400, 300);
        // The camera looks at look_at; the sphere nearest to it along the view is hit.
        let picked = picker.pick(&camera, 0.5, 0.5).expect("the center pixel hits a sphere");
        let toward = (scene.camera.look_at - scene.camera.look_from).normalize();
        let expected = scene
            .spheres
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                let center_radius = s.center.extend(s.radius);
                intersect_sphere(center_radius, scene.camera.look_from.into(), toward.into(), f32::INFINITY)
                    .map(|t| (t, i))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, i)| i);
        let Selected::Sphere(index) = picked else { panic!("{picked:?} is not a sphere") };
        assert_eq!(Some(index), expected);
        assert_eq!(picker.nearest(Vec3::new(0.0, 5.0, 0.0), Vec3::Y), None, "a ray to the sky hits nothing");
        let (s, t, _) = project(&camera, scene.spheres[index].center, 0.5).expect("in front of the camera");
        assert_eq!(picker.pick(&camera, s, t), Some(picked), "a sphere's projected center picks it");
    }

    /// A terrain of `width` x 1 columns of heights `values` standing at `origin`.
    fn terrain_row(origin: Vec3, values: Vec<u16>) -> Terrain {
        let width = values.len() as u32;
        let heights = Arc::new(Heightmap { path: PathBuf::from("row.png"), width, depth: 1, values });
        Terrain {
            image: "row.png".into(),
            heights,
            origin,
            cell: 1.0,
            height_scale: 0.5,
            surface: TerrainSurface::Material(0),
        }
    }

    #[test]
    fn picks_spheres_boxes_and_the_terrain_a_column_belongs_to() {
        // In a row across the view, left to right: a sphere, two boxes, two terrains;
        // terrain 0 has three columns of distinct heights, so three boxes precede terrain 1's.
        let mut scene = three_spheres();
        scene.camera.look_from = Vec3::new(0.0, 6.0, 14.0);
        scene.camera.look_at = Vec3::ZERO;
        scene.camera.vfov_deg = 60.0;
        scene.camera.aperture = 0.0;
        scene.spheres = vec![Sphere { center: Vec3::new(-6.0, 1.0, 0.0), radius: 1.0, material: 0 }];
        let cube =
            |x: f32| Cuboid { min: Vec3::new(x, 0.0, -0.5), max: Vec3::new(x + 1.0, 1.0, 0.5), material: 0 };
        scene.boxes = vec![cube(-4.0), cube(-2.0)];
        scene.terrains = vec![
            terrain_row(Vec3::new(0.0, 0.0, -0.5), vec![2, 3, 4]),
            terrain_row(Vec3::new(4.0, 0.0, -0.5), vec![2]),
        ];
        let picker = picker(&scene);
        let camera = CameraFrame::new(&scene.camera, 400, 300);
        let pick_point = |p: Vec3| {
            let (s, t, _) = project(&camera, p, 0.0).expect("in front of the camera");
            picker.pick(&camera, s, t)
        };
        assert_eq!(pick_point(Vec3::new(-6.0, 1.0, 0.0)), Some(Selected::Sphere(0)));
        assert_eq!(pick_point(Vec3::new(-3.5, 0.5, 0.0)), Some(Selected::Box(0)));
        assert_eq!(pick_point(Vec3::new(-1.5, 0.5, 0.0)), Some(Selected::Box(1)));
        for x in [0.5, 1.5, 2.5] {
            assert_eq!(pick_point(Vec3::new(x, 0.5, 0.0)), Some(Selected::Terrain(0)), "column at x {x}");
        }
        assert_eq!(pick_point(Vec3::new(4.5, 0.5, 0.0)), Some(Selected::Terrain(1)));
    }

    #[test]
    fn a_meshs_triangles_pick_the_mesh() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/scenes/meshes.ron");
        let scene = scene::load_file(Path::new(path)).expect("asset scene loads");
        let picker = picker(&scene);
        let camera = CameraFrame::new(&scene.camera, 480, 270);
        // The first three meshes are icospheres in a row, each centred on its translation.
        for (i, mesh) in scene.meshes.iter().enumerate().take(3) {
            let (s, t, _) = project(&camera, mesh.transform.translate, 0.0).expect("in front of the camera");
            assert_eq!(picker.pick(&camera, s, t), Some(Selected::Mesh(i)), "mesh {i}");
        }
    }

    #[test]
    fn an_instances_triangles_pick_that_instance_and_a_plain_meshs_pick_the_mesh() {
        use scene_compiler::procedural::icosphere;
        use scene_compiler::scene::{InstanceFileData, Mesh, MeshData, PlacedInstance, Transform};
        let mut scene = three_spheres();
        scene.spheres.clear();
        scene.camera.look_from = Vec3::new(0.0, 0.0, 12.0);
        scene.camera.look_at = Vec3::ZERO;
        scene.camera.aperture = 0.0;
        let ico = icosphere(2, 1.0);
        let data = Arc::new(MeshData {
            path: PathBuf::from("ico.ply"),
            positions: ico.positions,
            triangles: ico.triangles,
            ..MeshData::default()
        });
        let at = |x: f32, y: f32| Transform { translate: Vec3::new(x, y, 0.0), ..Transform::default() };
        let plain = Mesh {
            file: "ico.ply".into(),
            material: Some(0),
            transform: at(0.0, 3.0),
            data: data.clone(),
            ..Mesh::default()
        };
        let instanced = Mesh {
            file: "ico.ply".into(),
            material: Some(0),
            instances: vec![at(-3.0, 0.0).into(), at(0.0, 0.0).into()],
            instance_file: Some("i.ply".into()),
            placements: Arc::new(InstanceFileData {
                path: PathBuf::from("i.ply"),
                instances: vec![PlacedInstance { transform: at(3.0, 0.0), material: None }],
                ..Default::default()
            }),
            data,
            ..Mesh::default()
        };
        scene.meshes = vec![plain, instanced];
        let picker = picker(&scene);
        let camera = CameraFrame::new(&scene.camera, 400, 300);
        let pick_point = |p: Vec3| {
            let (s, t, _) = project(&camera, p, 0.0).expect("in front of the camera");
            picker.pick(&camera, s, t)
        };
        assert_eq!(pick_point(Vec3::new(0.0, 3.0, 0.0)), Some(Selected::Mesh(0)));
        for (k, x) in [-3.0, 0.0, 3.0].into_iter().enumerate() {
            assert_eq!(pick_point(Vec3::new(x, 0.0, 0.0)), Some(Selected::Instance { mesh: 1, k }), "x {x}");
        }
    }

    /// A mesh's instances among the blob's: its model's, one per placement, then each
    /// glTF part's, the part's placements within each of the mesh's.
    #[test]
    fn a_blob_instance_maps_to_the_placement_it_copies() {
        let span = MeshInstances { start: 10, instanced: true, placements: 3, own: true, parts: vec![2, 1] };
        let placements: Vec<Option<usize>> = (8..24).map(|source| span.placement(source)).collect();
        let own = [0, 1, 2].map(Some);
        let first_part = [0, 0, 1, 1, 2, 2].map(Some);
        let second_part = [0, 1, 2].map(Some);
        let want: Vec<Option<usize>> = [None, None]
            .into_iter()
            .chain(own)
            .chain(first_part)
            .chain(second_part)
            .chain([None, None])
            .collect();
        assert_eq!(placements, want);
    }

    #[test]
    fn a_sphere_files_spheres_render_but_are_not_picked() {
        let mut scene = three_spheres();
        let (own, from_file) = (scene.spheres[0], scene.spheres[1]);
        scene.spheres = vec![own, from_file];
        let camera = CameraFrame::new(&scene.camera, 400, 300);
        let (s, t, _) = project(&camera, from_file.center, 0.0).expect("in front of the camera");
        assert_eq!(picker(&scene).pick(&camera, s, t), Some(Selected::Sphere(1)), "as the scene's own");
        scene.spheres = vec![own];
        scene.sphere_files = vec![SphereList {
            file: "s.ply".into(),
            materials: vec![from_file.material],
            transform: Default::default(),
            data: Arc::new(SphereListData {
                path: PathBuf::from("s.ply"),
                spheres: vec![Sphere { material: 0, ..from_file }],
                has_material: false,
            }),
        }];
        assert_eq!(picker(&scene).pick(&camera, s, t), None, "from a sphere file");
    }
}
