//! Instances on the CPU (docs/path-tracing.md, "Instances"): a mesh placed by
//! `instances` hits what the same triangles flattened into the world hit, within a
//! stated float bound, and renders the same image; under rotation, non-uniform scale
//! and mirroring, normals point out of a closed mesh and its inside holds no light; a
//! material that replaces an instance's own shows.

use std::sync::Arc;

use crate::cpu_support;

use glam::{Affine3A, Quat, Vec3, Vec3A};
use renderer::backend::cpu::instances::NO_INSTANCE;
use renderer::backend::cpu::prims;
use renderer::backend::cpu::scene::CpuScene;
use renderer::backend::cpu::shapes::offset_ray_origin;
use renderer::backend::cpu::traverse::traverse;
use scene_compiler::BlobView;
use scene_compiler::blob::layout::{PrimKind, prim_parts};
use scene_compiler::procedural::{Geometry, icosphere};
use scene_compiler::scene::{InstancedPart, Light, MaterialKind, Mesh, MeshData, Scene, Sky, Transform};

use cpu_support::{compile, job, lit_pixels_with_and_without_nee, pinhole, render, scene};

/// The model's data: `geometry`'s positions and triangles, with its normals.
fn data(geometry: &Geometry) -> Arc<MeshData> {
    Arc::new(MeshData {
        path: "procedural.ply".into(),
        positions: geometry.positions.clone(),
        normals: geometry.positions.iter().map(|p| p.normalize()).collect(),
        triangles: geometry.triangles.clone(),
        ..MeshData::default()
    })
}

/// Three placements with rotations and different scales.
fn placements() -> Vec<Transform> {
    vec![
        Transform { translate: Vec3::new(-1.8, 0.8, 0.0), rotate_deg: Vec3::ZERO, scale: 0.8 },
        Transform {
            translate: Vec3::new(0.0, 0.9, -0.6),
            rotate_deg: Vec3::new(10.0, 30.0, -5.0),
            scale: 0.9,
        },
        Transform { translate: Vec3::new(1.8, 0.8, 0.3), rotate_deg: Vec3::new(0.0, 0.0, 45.0), scale: 0.7 },
    ]
}

/// A floor, a sun, and the model placed by `placements()`: as one instanced mesh
/// (`instanced`) or as three meshes flattened into the world.
fn three_spheres(instanced: bool) -> Scene {
    let materials = [
        MaterialKind::Lambert { albedo: Vec3::splat(0.7) },
        MaterialKind::Lambert { albedo: Vec3::new(0.75, 0.3, 0.2) },
        MaterialKind::Dielectric { ior: 1.5 },
    ];
    let camera = pinhole(Vec3::new(0.0, 2.2, 7.0), Vec3::new(0.0, 0.8, 0.0), 35.0);
    let sky = Sky::Gradient { bottom: Vec3::new(0.35, 0.4, 0.5), top: Vec3::new(0.15, 0.3, 0.6) };
    let mut s = scene(camera, sky, &materials, &[(Vec3::new(0.0, -1000.0, 0.0), 1000.0, 0)]);
    let model = data(&icosphere(3, 1.0));
    s.meshes = if instanced {
        vec![Mesh {
            file: "m.ply".into(),
            material: Some(1),
            instances: placements().into_iter().map(Into::into).collect(),
            data: model,
            ..Mesh::default()
        }]
    } else {
        placements()
            .into_iter()
            .map(|transform| Mesh {
                file: "m.ply".into(),
                material: Some(1),
                transform,
                data: Arc::clone(&model),
                ..Mesh::default()
            })
            .collect()
    };
    s.lights = vec![Light::Directional {
        direction: Vec3::new(1.0, -1.5, -0.8),
        color: Vec3::ONE,
        intensity: 2.0,
        angular_radius_deg: 1.0,
    }];
    s
}

fn cpu(scene: &Scene) -> CpuScene {
    CpuScene::from_blob(&BlobView::parse(&compile(scene)).expect("valid blob"))
}

/// Rays over the image of [`three_spheres`] hit the same primitives at the same
/// distances with the same normals, instanced or flattened: distances within 2^-16 of
/// each other (relative), normals within 1e-4, and a hit or a miss the same for every
/// ray but those that pass within that bound of a silhouette (none of this grid); a
/// ray leaving an instance's hit, either way, does not meet the triangle it left.
#[test]
fn instances_hit_what_the_same_triangles_flattened_hit() {
    let (instanced, flat) = (cpu(&three_spheres(true)), cpu(&three_spheres(false)));
    assert_eq!(instanced.instances.len(), 3);
    assert!(flat.instances.is_empty());
    let origin = Vec3A::new(0.0, 2.2, 7.0);
    let (mut hits, mut on_instances) = (0, 0);
    for i in 0..64 {
        for j in 0..36 {
            let target = Vec3A::new(-3.0 + 6.0 * i as f32 / 63.0, -0.2 + 2.4 * j as f32 / 35.0, 0.0);
            let dir = (target - origin).normalize();
            let a = traverse(&instanced, origin, dir, f32::INFINITY);
            let b = traverse(&flat, origin, dir, f32::INFINITY);
            let (Some(a), Some(b)) = (a, b) else {
                assert_eq!(a.is_some(), b.is_some(), "ray {i},{j}: a hit in one scene only");
                continue;
            };
            hits += 1;
            let on_triangle = prim_parts(b.prim).0 == PrimKind::Triangle as u32;
            assert_eq!(a.instance != NO_INSTANCE, on_triangle, "ray {i},{j}: a mesh in one scene only");
            assert!((a.t - b.t).abs() <= a.t * 2f32.powi(-16), "ray {i},{j}: t {} against {}", a.t, b.t);
            let (sa, sb) =
                (prims::hit_surface(&instanced, &a, origin, dir), prims::hit_surface(&flat, &b, origin, dir));
            assert!(sa.world.normal.dot(sb.world.normal) > 1.0 - 1e-4, "ray {i},{j}: normals differ");
            assert!(
                sa.world.shading.dot(sb.world.shading) > 1.0 - 1e-4,
                "ray {i},{j}: shading normals differ"
            );
            assert!((sa.world.point - sb.world.point).length() <= 1e-4, "ray {i},{j}: points differ");
            // The error bound brought back from the instance keeps a ray that leaves the
            // hit, back towards the camera or on into the mesh, off the surface it left.
            for w in [-dir, dir] {
                let o = offset_ray_origin(&sa.world, w);
                let again = traverse(&instanced, o, w, f32::INFINITY);
                assert!(
                    again.is_none_or(|h| h.prim != a.prim || h.instance != a.instance || h.t > 1e-3),
                    "ray {i},{j}: the ray leaving the hit meets its own triangle again"
                );
            }
            on_instances += usize::from(a.instance != NO_INSTANCE);
        }
    }
    assert!(on_instances > 300 && hits > on_instances, "{on_instances} of {hits} hits on the meshes");
}

/// The two scenes' images agree: in the mean to 0.2 %, and pixel by pixel but for
/// the few paths that one ulp sends another way (a bounce decided by a comparison at
/// the edge of its bound): at least 97 % of the pixels within 1e-3.
#[test]
fn instances_render_the_image_of_the_same_triangles_flattened() {
    let image = |s: &Scene| {
        let blob = compile(s);
        render(&blob, &job(&blob, 64, 36, 8, 8, 1)).0
    };
    let (a, b) = (image(&three_spheres(true)), image(&three_spheres(false)));
    let mean = |img: &[[f32; 4]]| img.iter().map(|p| f64::from(p[0] + p[1] + p[2])).sum::<f64>();
    let (ma, mb) = (mean(&a), mean(&b));
    assert!((ma - mb).abs() <= 2e-3 * mb, "means {ma} and {mb}");
    let close = a.iter().zip(&b).filter(|(p, q)| (0..3).all(|c| (p[c] - q[c]).abs() <= 1e-3)).count();
    assert!(close * 100 >= a.len() * 97, "{close} of {} pixels agree", a.len());
}

/// Maps with rotation, non-uniform scale and a mirror (negative determinant).
fn awkward_maps(center: Vec3) -> Vec<Affine3A> {
    let turn = Quat::from_euler(glam::EulerRot::XYZ, 0.4, -1.1, 0.7);
    [Vec3::new(1.0, 2.0, 0.5), Vec3::new(-1.0, 1.0, 1.0), Vec3::new(0.7, -1.3, 2.1)]
        .into_iter()
        .map(|scale| Affine3A::from_scale_rotation_translation(scale, turn, center))
        .collect()
}

/// A mesh whose model is a glTF mesh placed by `maps` (an instanced part).
fn placed(geometry: &Geometry, maps: Vec<Affine3A>, material: u32) -> Mesh {
    let part = InstancedPart {
        geometry: MeshData {
            positions: geometry.positions.clone(),
            triangles: geometry.triangles.clone(),
            normals: geometry.positions.iter().map(|p| p.normalize()).collect(),
            ..MeshData::default()
        },
        placements: maps,
    };
    Mesh {
        file: "m.glb".into(),
        material: Some(material),
        data: Arc::new(MeshData { path: "m.glb".into(), instanced: vec![part], ..MeshData::default() }),
        ..Mesh::default()
    }
}

/// Under each awkward map, rays from outside towards the placed icosphere's centre hit
/// it on its front face, with both normals pointing out (the centre on their back side).
#[test]
fn normals_point_out_of_a_closed_mesh_under_non_uniform_scale_and_mirroring() {
    let center = Vec3::new(3.0, -1.0, 2.0);
    for map in awkward_maps(center) {
        let materials = [MaterialKind::Lambert { albedo: Vec3::splat(0.5) }];
        let mut s = scene(pinhole(Vec3::ZERO, Vec3::Z, 40.0), Sky::Constant(Vec3::ONE), &materials, &[]);
        s.meshes = vec![placed(&icosphere(2, 1.0), vec![map], 0)];
        let cpu = cpu(&s);
        for k in 0..200 {
            // Directions spread over the sphere (a Fibonacci lattice).
            let z = 1.0 - 2.0 * (k as f32 + 0.5) / 200.0;
            let phi = k as f32 * 2.399_963;
            let d = Vec3A::new((1.0 - z * z).sqrt() * phi.cos(), (1.0 - z * z).sqrt() * phi.sin(), z);
            let origin = Vec3A::from(center) + 10.0 * d;
            let hit = traverse(&cpu, origin, -d, f32::INFINITY).expect("the ray meets the mesh");
            let s = prims::hit_surface(&cpu, &hit, origin, -d).world;
            let outward = s.point - Vec3A::from(center);
            // The ray travels along -d: a front face's normal points back along d.
            assert!(s.normal.dot(d) > 0.0, "map {map:?}: ray {k} meets a back face");
            assert!(
                s.normal.dot(outward) > 0.0 && s.shading.dot(outward) > 0.0,
                "map {map:?}: normal points in"
            );
            assert!((s.normal.length() - 1.0).abs() < 1e-5);
        }
    }
}

/// The camera inside a closed icosphere placed by each awkward map, the lamps (an
/// emissive sphere, a sun, a point light) outside: no light gets in, with or without
/// next-event estimation.
#[test]
fn a_closed_instanced_mesh_under_any_map_holds_no_light() {
    let center = Vec3::new(3.0, -1.0, 2.0);
    let wall = MaterialKind::Lambert { albedo: Vec3::splat(0.75) };
    let lamp = MaterialKind::Emissive { color: Vec3::ONE, strength: 10.0, albedo: Vec3::ZERO };
    for map in awkward_maps(center) {
        let camera = pinhole(center, center + Vec3::new(0.3, 0.1, 1.0), 90.0);
        let mut s =
            scene(camera, Sky::Constant(Vec3::ONE), &[wall, lamp], &[(center + 6.0 * Vec3::Y, 1.0, 1)]);
        s.meshes = vec![placed(&icosphere(2, 1.0), vec![map], 0)];
        s.lights = vec![
            Light::Directional {
                direction: -Vec3::Y,
                color: Vec3::ONE,
                intensity: 5.0,
                angular_radius_deg: 1.0,
            },
            Light::Point { position: center + Vec3::splat(5.0), color: Vec3::ONE, intensity: 1e6 },
        ];
        for (nee, lit) in lit_pixels_with_and_without_nee(&s) {
            assert_eq!(lit, 0, "map {map:?}, nee {nee}: {lit} pixels lit inside the mesh");
        }
    }
}

/// An instance file's material replaces the model's own where that instance is seen,
/// and only there.
#[test]
fn an_instance_material_replaces_the_model_material() {
    let materials = [
        MaterialKind::Lambert { albedo: Vec3::new(1.0, 0.0, 0.0) },
        MaterialKind::Emissive { color: Vec3::new(0.0, 0.0, 1.0), strength: 1.0, albedo: Vec3::ZERO },
    ];
    let mut s =
        scene(pinhole(Vec3::new(0.0, 0.0, 6.0), Vec3::ZERO, 40.0), Sky::Constant(Vec3::ONE), &materials, &[]);
    s.meshes = vec![Mesh {
        file: "m.ply".into(),
        material: Some(0),
        instances: vec![
            Transform { translate: Vec3::new(-1.5, 0.0, 0.0), ..Transform::default() }.into(),
            scene_compiler::scene::PlacedInstance {
                transform: Transform { translate: Vec3::new(0.0, 2.5, 0.0), ..Transform::default() },
                material: Some(1),
            },
        ],
        data: data(&icosphere(2, 1.0)),
        placements: Arc::new(scene_compiler::scene::InstanceFileData {
            path: "i.ply".into(),
            instances: vec![scene_compiler::scene::PlacedInstance {
                transform: Transform { translate: Vec3::new(1.5, 0.0, 0.0), ..Transform::default() },
                material: Some(1),
            }],
            ..Default::default()
        }),
        ..Mesh::default()
    }];
    let cpu = cpu(&s);
    let origin = Vec3A::new(0.0, 0.0, 6.0);
    // The RON instance without a material, the one with, the instance file's.
    for (at, expected) in
        [(Vec3A::new(-1.5, 0.0, 0.0), 0), (Vec3A::new(0.0, 2.5, 0.0), 1), (Vec3A::X * 1.5, 1)]
    {
        let dir = (at - origin).normalize();
        let hit = traverse(&cpu, origin, dir, f32::INFINITY).expect("hits the instance");
        let m = prims::hit_material(&cpu, &hit);
        assert_eq!(m.emission.z > 0.0, expected == 1, "the instance at {at}");
    }
}

/// A `.blob` with instances read back (as a session on it does) has its bottom levels
/// and instances again, and compiles (an edit of it) to a scene with the same triangles
/// and instances that hits what the blob hits.
#[test]
fn a_blob_with_instances_reads_back_and_compiles_again() {
    use renderer::load::{CompiledScene, load};
    use scene_compiler::CompileOptions;
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("three.blob");
    std::fs::write(&path, &*compile(&three_spheres(true))).expect("write blob");
    let options = CompileOptions::default();
    let read = load(&path, &options).expect("the blob loads");
    assert_eq!(read.scene.instances.len(), 3);
    assert_eq!(read.scene.bottom_levels.len(), 1);
    let again = CompiledScene::from_scene(read.scene.clone(), &options);
    let (a, b) = (read.view(), again.view());
    for kind in [PrimKind::Triangle, PrimKind::Instance, PrimKind::Sphere] {
        assert_eq!(a.header.prim_count(kind), b.header.prim_count(kind), "{}", kind.name());
    }
    let (a, b) = (CpuScene::from_blob(&a), CpuScene::from_blob(&b));
    let origin = Vec3A::new(0.0, 2.2, 7.0);
    for x in [-1.8, 0.0, 1.8, 3.0] {
        let dir = (Vec3A::new(x, 0.8, 0.0) - origin).normalize();
        let (ha, hb) = (traverse(&a, origin, dir, f32::INFINITY), traverse(&b, origin, dir, f32::INFINITY));
        assert_eq!(ha.map(|h| h.t), hb.map(|h| h.t), "towards x = {x}");
    }
}
