//! Instances and transforms on the CPU (docs/path-tracing.md, "Instances"): a mesh
//! placed by `instances` hits what the same triangles flattened into the world hit,
//! within a stated float bound, and renders the same image; a mesh placed by transforms
//! that scale per axis and mirror, by `transform` or `instances`, hits and renders what
//! the same triangles placed in the model file do; under rotation, non-uniform scale
//! and mirroring, however a mesh is placed, normals point out of a closed mesh and it
//! holds light in and out; a material that replaces an instance's own shows.

use std::sync::Arc;

use crate::cpu_support;

use glam::{Affine3A, Vec3, Vec3A};
use renderer::backend::cpu::instances::NO_INSTANCE;
use renderer::backend::cpu::prims::{self, Hit};
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
        Transform { translate: Vec3::new(-1.8, 0.8, 0.0), rotate_deg: Vec3::ZERO, scale: Vec3::splat(0.8) },
        Transform {
            translate: Vec3::new(0.0, 0.9, -0.6),
            rotate_deg: Vec3::new(10.0, 30.0, -5.0),
            scale: Vec3::splat(0.9),
        },
        Transform {
            translate: Vec3::new(1.8, 0.8, 0.3),
            rotate_deg: Vec3::new(0.0, 0.0, 45.0),
            scale: Vec3::splat(0.7),
        },
    ]
}

/// Two placements that rotate and scale per axis, the second mirroring (a negative
/// determinant).
fn stretched() -> Vec<Transform> {
    vec![
        Transform {
            translate: Vec3::new(-1.5, 0.9, 0.0),
            rotate_deg: Vec3::new(20.0, -35.0, 10.0),
            scale: Vec3::new(0.5, 1.2, 0.8),
        },
        Transform {
            translate: Vec3::new(1.5, 0.9, -0.3),
            rotate_deg: Vec3::new(-10.0, 40.0, 25.0),
            scale: Vec3::new(0.9, -0.6, 0.7),
        },
    ]
}

/// How a scene places its model.
#[derive(Clone, Copy, Debug)]
enum Placing {
    /// One mesh per placement, by its `transform`: flattened into the world.
    Transform,
    /// One mesh, placed by its `instances`.
    Instances,
    /// One mesh per placement whose model holds the triangles already placed, as a
    /// model file written pre-transformed would.
    PreTransformed,
    /// One mesh per placement whose model is a glTF mesh a node places (an instanced
    /// part of the model).
    GltfNode,
}

/// `geometry` with its normals, as [`data`] gives it, placed by `to_world`: positions
/// through it, normals through its inverse transpose, and where it mirrors each
/// triangle's winding turned, so that the file's front faces stay its front faces
/// (what a modeller writes, and glTF's rule for a mirroring node).
fn pre_transformed(geometry: &Geometry, to_world: Affine3A) -> Arc<MeshData> {
    let normals = to_world.matrix3.inverse().transpose();
    let mirrors = to_world.matrix3.determinant() < 0.0;
    Arc::new(MeshData {
        path: "pre.ply".into(),
        positions: geometry.positions.iter().map(|&p| to_world.transform_point3(p)).collect(),
        normals: geometry
            .positions
            .iter()
            .map(|&p| (normals * Vec3A::from(p.normalize())).normalize().into())
            .collect(),
        triangles: geometry
            .triangles
            .iter()
            .map(|&[a, b, c]| if mirrors { [a, c, b] } else { [a, b, c] })
            .collect(),
        ..MeshData::default()
    })
}

/// `geometry` (with its normals, as [`data`] gives it) in material `material`, placed by
/// `transforms` as `placing` says.
fn meshes(geometry: &Geometry, transforms: &[Transform], placing: Placing, material: u32) -> Vec<Mesh> {
    let model = data(geometry);
    let mesh = |transform: Transform, data: Arc<MeshData>| Mesh {
        file: "m.ply".into(),
        material: Some(material),
        transform,
        data,
        ..Mesh::default()
    };
    match placing {
        Placing::Transform => transforms.iter().map(|&t| mesh(t, Arc::clone(&model))).collect(),
        Placing::Instances => vec![Mesh {
            instances: transforms.iter().map(|&t| t.into()).collect(),
            ..mesh(Transform::default(), model)
        }],
        Placing::PreTransformed => transforms
            .iter()
            .map(|t| mesh(Transform::default(), pre_transformed(geometry, t.matrix())))
            .collect(),
        Placing::GltfNode => {
            transforms.iter().map(|t| placed(geometry, vec![t.matrix()], material)).collect()
        }
    }
}

/// A floor, a sun, and an icosphere in material `material` placed by `transforms` as
/// `placing` says.
fn placed_spheres(transforms: &[Transform], placing: Placing, material: u32) -> Scene {
    let materials = [
        MaterialKind::Lambert { albedo: Vec3::splat(0.7) },
        MaterialKind::Lambert { albedo: Vec3::new(0.75, 0.3, 0.2) },
        MaterialKind::Dielectric { ior: 1.5 },
    ];
    let camera = pinhole(Vec3::new(0.0, 2.2, 7.0), Vec3::new(0.0, 0.8, 0.0), 35.0);
    let sky = Sky::Gradient { bottom: Vec3::new(0.35, 0.4, 0.5), top: Vec3::new(0.15, 0.3, 0.6) };
    let mut s = scene(camera, sky, &materials, &[(Vec3::new(0.0, -1000.0, 0.0), 1000.0, 0)]);
    s.meshes = meshes(&icosphere(3, 1.0), transforms, placing, material);
    s.lights = vec![Light::Directional {
        direction: Vec3::new(1.0, -1.5, -0.8),
        color: Vec3::ONE,
        intensity: 2.0,
        angular_radius_deg: 1.0,
    }];
    s
}

/// The scene of [`placements`] in Lambert red: as one instanced mesh (`instanced`) or as
/// three meshes flattened into the world.
fn three_spheres(instanced: bool) -> Scene {
    placed_spheres(&placements(), if instanced { Placing::Instances } else { Placing::Transform }, 1)
}

fn cpu(scene: &Scene) -> CpuScene {
    CpuScene::from_blob(&BlobView::parse(&compile(scene)).expect("valid blob"))
}

/// Rays over the image of a [`placed_spheres`] scene hit the same primitives in `a` and
/// `b` at the same distances with the same normals: distances within 2^-16 of each
/// other (relative), normals within 1e-4, and a hit or a miss, on a mesh or not, the
/// same for every ray but those that pass within that bound of a silhouette (none of
/// this grid); a ray leaving a hit of `a`, either way, does not meet the triangle it
/// left. Returns the hits, and those on the meshes.
fn assert_same_hits(a: &CpuScene, b: &CpuScene, what: &str) -> (usize, usize) {
    let on_mesh = |h: &Hit| h.instance != NO_INSTANCE || prim_parts(h.prim).0 == PrimKind::Triangle as u32;
    let origin = Vec3A::new(0.0, 2.2, 7.0);
    let (mut hits, mut on_meshes) = (0, 0);
    for i in 0..64 {
        for j in 0..36 {
            let target = Vec3A::new(-3.0 + 6.0 * i as f32 / 63.0, -0.2 + 2.4 * j as f32 / 35.0, 0.0);
            let dir = (target - origin).normalize();
            let (ha, hb) = (traverse(a, origin, dir, f32::INFINITY), traverse(b, origin, dir, f32::INFINITY));
            let (Some(ha), Some(hb)) = (ha, hb) else {
                assert_eq!(ha.is_some(), hb.is_some(), "{what}, ray {i},{j}: a hit in one scene only");
                continue;
            };
            hits += 1;
            assert_eq!(on_mesh(&ha), on_mesh(&hb), "{what}, ray {i},{j}: a mesh in one scene only");
            assert!(
                (ha.t - hb.t).abs() <= ha.t * 2f32.powi(-16),
                "{what}, ray {i},{j}: t {} against {}",
                ha.t,
                hb.t
            );
            let (sa, sb) = (prims::hit_surface(a, &ha, origin, dir), prims::hit_surface(b, &hb, origin, dir));
            assert!(sa.world.normal.dot(sb.world.normal) > 1.0 - 1e-4, "{what}, ray {i},{j}: normals differ");
            assert!(
                sa.world.shading.dot(sb.world.shading) > 1.0 - 1e-4,
                "{what}, ray {i},{j}: shading normals differ"
            );
            assert!((sa.world.point - sb.world.point).length() <= 1e-4, "{what}, ray {i},{j}: points differ");
            // The error bound brought back from an instance keeps a ray that leaves the
            // hit, back towards the camera or on into the mesh, off the surface it left.
            for w in [-dir, dir] {
                let o = offset_ray_origin(&sa.world, w);
                let again = traverse(a, o, w, f32::INFINITY);
                assert!(
                    again.is_none_or(|h| h.prim != ha.prim || h.instance != ha.instance || h.t > 1e-3),
                    "{what}, ray {i},{j}: the ray leaving the hit meets its own triangle again"
                );
            }
            on_meshes += usize::from(on_mesh(&ha));
        }
    }
    (hits, on_meshes)
}

/// Instances hit what the same triangles flattened into the world hit
/// ([`assert_same_hits`]).
#[test]
fn instances_hit_what_the_same_triangles_flattened_hit() {
    let (instanced, flat) = (cpu(&three_spheres(true)), cpu(&three_spheres(false)));
    assert_eq!(instanced.instances.len(), 3);
    assert!(flat.instances.is_empty());
    let (hits, on_instances) = assert_same_hits(&instanced, &flat, "instanced against flattened");
    assert!(on_instances > 300 && hits > on_instances, "{on_instances} of {hits} hits on the meshes");
}

/// Two scenes' images agree: in the mean to 0.2 %, and pixel by pixel but for the few
/// paths that one ulp sends another way (a bounce decided by a comparison at the edge
/// of its bound): at least 97 % of the pixels within 1e-3.
fn assert_same_image(a: &Scene, b: &Scene, what: &str) {
    let image = |s: &Scene| {
        let blob = compile(s);
        render(&blob, &job(&blob, 64, 36, 8, 8, 1)).0
    };
    let (a, b) = (image(a), image(b));
    let mean = |img: &[[f32; 4]]| img.iter().map(|p| f64::from(p[0] + p[1] + p[2])).sum::<f64>();
    let (ma, mb) = (mean(&a), mean(&b));
    assert!((ma - mb).abs() <= 2e-3 * mb, "{what}: means {ma} and {mb}");
    let close = a.iter().zip(&b).filter(|(p, q)| (0..3).all(|c| (p[c] - q[c]).abs() <= 1e-3)).count();
    assert!(close * 100 >= a.len() * 97, "{what}: {close} of {} pixels agree", a.len());
}

#[test]
fn instances_render_the_image_of_the_same_triangles_flattened() {
    assert_same_image(&three_spheres(true), &three_spheres(false), "instanced against flattened");
}

/// A model placed by transforms that rotate and scale per axis, one of them mirroring,
/// as `placing` says, hits ([`assert_same_hits`]) and renders in glass (where refraction
/// tells the inside from the outside) what the same triangles placed in its model file
/// do: front faces the file's, normals perpendicular to the stretched surface.
fn assert_stretched_like_the_file(placing: Placing) {
    let what = format!("{placing:?} against pre-transformed");
    let pre = placed_spheres(&stretched(), Placing::PreTransformed, 2);
    let placed = placed_spheres(&stretched(), placing, 2);
    let (hits, on_meshes) = assert_same_hits(&cpu(&placed), &cpu(&pre), &what);
    assert!(on_meshes > 200 && hits > on_meshes, "{what}: {on_meshes} of {hits} hits on the meshes");
    assert_same_image(&placed, &pre, &what);
}

/// Flattened by a mirroring `transform`, a mesh's triangles turn their winding
/// (`meshes.rs`), as instances and glTF's mirroring nodes do: kept, their geometric
/// normals (which decide inside and outside) pointed in and glass refracted the wrong way.
#[test]
fn stretched_and_mirrored_placements_hit_and_render_what_the_triangles_placed_in_the_file_do() {
    for placing in [Placing::Instances, Placing::GltfNode, Placing::Transform] {
        assert_stretched_like_the_file(placing);
    }
}

/// Transforms with rotation, non-uniform scale and a mirror (negative determinant).
fn awkward_transforms(center: Vec3) -> Vec<Transform> {
    let rotate_deg = Vec3::new(23.0, -63.0, 40.0);
    [Vec3::new(1.0, 2.0, 0.5), Vec3::new(-1.0, 1.0, 1.0), Vec3::new(0.7, -1.3, 2.1)]
        .into_iter()
        .map(|scale| Transform { translate: center, rotate_deg, scale })
        .collect()
}

/// A mesh whose model is a glTF mesh placed by `maps` (an instanced part).
fn placed(geometry: &Geometry, maps: Vec<Affine3A>, material: u32) -> Mesh {
    let part = InstancedPart {
        mesh: 0,
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

/// A closed icosphere in material 0 placed by `t` as `placing` says.
fn closed_mesh(t: Transform, placing: Placing) -> Vec<Mesh> {
    meshes(&icosphere(2, 1.0), &[t], placing, 0)
}

/// Under each awkward transform, rays from outside towards the centre of the closed
/// icosphere placed as `placing` says hit it on its front face, with both normals
/// pointing out (the centre on their back side).
fn assert_normals_point_out(placing: Placing) {
    let center = Vec3::new(3.0, -1.0, 2.0);
    let materials = [MaterialKind::Lambert { albedo: Vec3::splat(0.5) }];
    for t in awkward_transforms(center) {
        let mut s = scene(pinhole(Vec3::ZERO, Vec3::Z, 40.0), Sky::Constant(Vec3::ONE), &materials, &[]);
        s.meshes = closed_mesh(t, placing);
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
            assert!(s.normal.dot(d) > 0.0, "{placing:?} {t:?}: ray {k} meets a back face");
            assert!(
                s.normal.dot(outward) > 0.0 && s.shading.dot(outward) > 0.0,
                "{placing:?} {t:?}: normal points in"
            );
            assert!((s.normal.length() - 1.0).abs() < 1e-5);
        }
    }
}

#[test]
fn normals_point_out_of_a_closed_mesh_under_non_uniform_scale_and_mirroring() {
    for placing in [Placing::Instances, Placing::GltfNode, Placing::Transform] {
        assert_normals_point_out(placing);
    }
}

/// A closed icosphere placed by each awkward transform, as `placing` says, with the
/// lamps (an emissive sphere and a point light) inside and the camera outside under a
/// black sky: no light gets out, with or without next-event estimation.
fn assert_holds_a_lamp_inside(placing: Placing) {
    let center = Vec3::new(3.0, -1.0, 2.0);
    let wall = MaterialKind::Lambert { albedo: Vec3::splat(0.75) };
    let lamp = MaterialKind::Emissive { color: Vec3::ONE, strength: 10.0, albedo: Vec3::ZERO };
    for t in awkward_transforms(center) {
        let camera = pinhole(center + Vec3::new(1.0, 2.0, 6.0), center, 40.0);
        // The smallest scale is 0.5: a lamp of radius 0.2 at the centre is inside.
        let mut s = scene(camera, Sky::Constant(Vec3::ZERO), &[wall, lamp], &[(center, 0.2, 1)]);
        s.meshes = closed_mesh(t, placing);
        s.lights = vec![Light::Point { position: center, color: Vec3::ONE, intensity: 1e6 }];
        for (nee, lit) in lit_pixels_with_and_without_nee(&s) {
            assert_eq!(lit, 0, "{placing:?} {t:?}, nee {nee}: {lit} pixels lit outside the mesh");
        }
    }
}

#[test]
fn a_closed_mesh_under_any_transform_holds_a_lamp_inside() {
    for placing in [Placing::Transform, Placing::Instances, Placing::GltfNode] {
        assert_holds_a_lamp_inside(placing);
    }
}

/// The camera inside a closed icosphere placed by each awkward transform, as `placing`
/// says, the lamps (an emissive sphere, a sun, a point light) outside: no light gets
/// in, with or without next-event estimation.
fn assert_keeps_the_lamps_outside_out(placing: Placing) {
    let center = Vec3::new(3.0, -1.0, 2.0);
    let wall = MaterialKind::Lambert { albedo: Vec3::splat(0.75) };
    let lamp = MaterialKind::Emissive { color: Vec3::ONE, strength: 10.0, albedo: Vec3::ZERO };
    for t in awkward_transforms(center) {
        let camera = pinhole(center, center + Vec3::new(0.3, 0.1, 1.0), 90.0);
        let mut s =
            scene(camera, Sky::Constant(Vec3::ONE), &[wall, lamp], &[(center + 6.0 * Vec3::Y, 1.0, 1)]);
        s.meshes = closed_mesh(t, placing);
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
            assert_eq!(lit, 0, "{placing:?} {t:?}, nee {nee}: {lit} pixels lit inside the mesh");
        }
    }
}

/// Placed once or written placed in the model file (`Placing::PreTransformed`), the
/// stretched triangles meet a shadow ray that grazes out past a shared edge just ahead
/// of its origin: a hit that the f32 error bound alone rejected (2 of 768 pixels saw the
/// point light outside), and that the f64 decision keeps.
#[test]
fn a_closed_mesh_under_any_transform_keeps_the_lamps_outside_out() {
    for placing in [Placing::Instances, Placing::GltfNode, Placing::Transform, Placing::PreTransformed] {
        assert_keeps_the_lamps_outside_out(placing);
    }
}

/// A quad of two triangles, facing down (its front faces towards -y), `size` wide.
fn quad_facing_down(size: f32) -> Geometry {
    let h = size / 2.0;
    Geometry {
        normals: Vec::new(),
        positions: vec![
            Vec3::new(-h, 0.0, -h),
            Vec3::new(h, 0.0, -h),
            Vec3::new(h, 0.0, h),
            Vec3::new(-h, 0.0, h),
        ],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
    }
}

/// An emissive instance is no light (the light table names the world's primitives; a
/// bottom level's triangles have slots of their own in the per-primitive rows, with pick
/// probability 0), so next-event estimation never draws it and a path that reaches it
/// counts its emission fully, beside a world whose emissive quad is a light: the plane
/// under the instance comes out the same with NEE and without.
#[test]
fn an_emissive_instance_is_no_light_and_nee_agrees_with_bsdf_sampling() {
    let grey = MaterialKind::Lambert { albedo: Vec3::splat(0.5) };
    let lamp = MaterialKind::Emissive { color: Vec3::ONE, strength: 4.0, albedo: Vec3::ZERO };
    let target = Vec3::new(0.2, 0.0, 0.1);
    let camera = pinhole(target + Vec3::new(0.0, 1.0, 4.0), target, 0.05);
    let mut s =
        scene(camera, Sky::Constant(Vec3::ZERO), &[grey, lamp], &[(Vec3::new(0.0, -1000.0, 0.0), 1000.0, 0)]);
    let quad = |size: f32, translate: Vec3, placing: Placing| {
        let placement = Transform { translate, ..Transform::default() };
        meshes(&quad_facing_down(size), &[placement], placing, 1)
    };
    // The world's lamp: small, so that a hit on the instance weighted with its light pdf
    // (the slot of the same index in the world) would count for almost nothing.
    s.meshes = [
        quad(0.1, Vec3::new(3.0, 1.0, 0.0), Placing::Transform),
        quad(1.0, Vec3::new(0.0, 1.5, 0.0), Placing::Instances),
    ]
    .concat();
    let cpu = cpu(&s);
    assert!(!cpu.instances.is_empty(), "the second quad is an instance");
    let (nee, nee_se) = cpu_support::estimate(&s, (1, 1), 512, 4, true, 16);
    let (bsdf, bsdf_se) = cpu_support::estimate(&s, (1, 1), 4096, 4, false, 16);
    assert!(bsdf > 0.0, "the quads light the plane");
    let tolerance = 5.0 * (nee_se * nee_se + bsdf_se * bsdf_se).sqrt();
    assert!((nee - bsdf).abs() <= tolerance, "NEE {nee} ± {nee_se}, BSDF only {bsdf} ± {bsdf_se}");
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
