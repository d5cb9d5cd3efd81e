//! Triangle meshes on the CPU (docs/path-tracing.md, "Intersection", "Robust hits"):
//! the watertight test lets no ray through the shared edges and vertices of a closed
//! icosphere; against closed forms, an icosphere under a point light converges to the
//! sphere's answer as it is subdivided, an emissive mesh furnace gives `Le / (1 - a)`,
//! a closed mesh with the lamp outside is exactly black at scales from 1 to 10^5 and far
//! from the origin, and an emissive mesh is a light (NEE agrees with BSDF sampling).

use std::sync::Arc;

use crate::cpu_support;

use glam::{Vec3, Vec3A};
use renderer::backend::cpu::scene::CpuScene;
use renderer::backend::cpu::traverse::traverse;
use scene_compiler::BlobView;
use scene_compiler::procedural::{Geometry, icosphere};
use scene_compiler::scene::{Light, MaterialKind, Mesh, MeshData, Scene, Sky, Transform};

use cpu_support::{assert_close, compile, estimate, lit_pixels_with_and_without_nee, pinhole, scene};

/// `geometry` placed at `translate`, scaled by `scale`, with material `material`.
fn mesh(geometry: &Geometry, translate: Vec3, scale: f32, material: u32) -> Mesh {
    Mesh {
        file: "procedural.ply".into(),
        material: Some(material),
        transform: Transform { translate, scale: Vec3::splat(scale), ..Transform::default() },
        data: Arc::new(MeshData {
            path: "procedural.ply".into(),
            positions: geometry.positions.clone(),
            triangles: geometry.triangles.clone(),
            ..MeshData::default()
        }),
        ..Mesh::default()
    }
}

fn with_meshes(mut s: Scene, meshes: Vec<Mesh>) -> Scene {
    s.meshes = meshes;
    s
}

/// From inside a closed icosphere, rays through every vertex and every edge's midpoint
/// (and points a hair off them), from the centre and from points near the surface,
/// always hit it: where two or more triangles meet, at least one takes the ray.
#[test]
fn rays_through_shared_edges_and_vertices_never_escape_a_closed_mesh() {
    let ico = icosphere(2, 1.0);
    for (center, scale) in [(Vec3::ZERO, 1.0), (Vec3::new(1e4, -3e3, 0.0), 1.0), (Vec3::ZERO, 1e5)] {
        let grey = MaterialKind::Lambert { albedo: Vec3::splat(0.5) };
        let s = with_meshes(
            scene(pinhole(center, center - Vec3::Z, 40.0), Sky::Constant(Vec3::ZERO), &[grey], &[]),
            vec![mesh(&ico, center, scale, 0)],
        );
        let blob = compile(&s);
        let cpu = CpuScene::from_blob(&BlobView::parse(&blob).expect("valid blob"));
        let world = |p: Vec3| center + p * scale;
        let mut targets: Vec<Vec3> = ico.positions.clone();
        for t in &ico.triangles {
            for k in 0..3 {
                let (a, b) = (ico.positions[t[k] as usize], ico.positions[t[(k + 1) % 3] as usize]);
                targets.push(0.5 * (a + b));
            }
        }
        let origins = [Vec3::ZERO, Vec3::new(0.3, -0.2, 0.1), Vec3::new(0.0, 0.0, 0.9)];
        let mut rays = 0;
        for target in &targets {
            for origin in origins {
                for nudge in [Vec3::ZERO, Vec3::splat(1e-7), Vec3::new(-1e-7, 0.0, 1e-7)] {
                    let (o, to) = (world(origin), world(*target + nudge));
                    let dir = (to - o).normalize();
                    rays += 1;
                    assert!(
                        traverse(&cpu, Vec3A::from(o), Vec3A::from(dir), f32::INFINITY).is_some(),
                        "scale {scale} at {center}: the ray from {o} towards {to} escaped"
                    );
                }
            }
        }
        assert!(rays > 1000);
    }
}

/// A Lambert icosphere of radius 1 at the origin under a point light on +z, seen along
/// +z: the pixel at the pole sees a facet whose normal leans from the sphere's by less
/// at every subdivision, and its radiance approaches `albedo / π · I cos / d²` of the
/// sphere's pole.
#[test]
fn an_icosphere_under_a_point_light_converges_to_the_sphere() {
    let (albedo, intensity, light_z) = (0.8f32, 20.0f32, 4.0f32);
    // The pole of the sphere: normal +z, cos 1, distance light_z - 1.
    let sphere =
        f64::from(albedo) / std::f64::consts::PI * f64::from(intensity) / f64::from((light_z - 1.0).powi(2));
    let mut errors = Vec::new();
    for subdivisions in [1, 3, 5] {
        let grey = MaterialKind::Lambert { albedo: Vec3::splat(albedo) };
        let camera = pinhole(Vec3::new(0.0, 0.0, 3.0), Vec3::ZERO, 0.05);
        let mut s = with_meshes(
            scene(camera, Sky::Constant(Vec3::ZERO), &[grey], &[]),
            vec![mesh(&icosphere(subdivisions, 1.0), Vec3::ZERO, 1.0, 0)],
        );
        s.lights = vec![Light::Point { position: Vec3::new(0.0, 0.0, light_z), color: Vec3::ONE, intensity }];
        let (mean, _) = estimate(&s, (1, 1), 16, 2, true, 2);
        errors.push((mean - sphere).abs() / sphere);
    }
    assert!(errors[0] > errors[1] && errors[1] > errors[2], "errors {errors:?} do not shrink");
    assert!(errors[2] < 0.01, "subdivided 5 times, {} off the sphere", errors[2]);
}

/// The same icosphere with its vertices' sphere normals: away from the pole, where a
/// facet leans most from the sphere, the interpolated normals shade it like the sphere
/// (to the facet's distance error), flat shading does not.
#[test]
fn vertex_normals_shade_an_icosphere_like_the_sphere() {
    let (albedo, intensity) = (0.8f32, 20.0f32);
    let light = Vec3::new(0.0, 4.0, 0.0);
    // Seen from the light's side, a point 50° from the pole on the icosphere of radius 1.
    let target = Vec3::new(50f32.to_radians().sin(), 50f32.to_radians().cos(), 0.0);
    let camera = pinhole(target * 3.0, target, 0.05);
    let sphere = {
        let to = light - target;
        f64::from(albedo) / std::f64::consts::PI
            * f64::from(intensity)
            * f64::from(target.dot(to.normalize()))
            / f64::from(to.length_squared())
    };
    let error = |normals: bool| {
        let grey = MaterialKind::Lambert { albedo: Vec3::splat(albedo) };
        let ico = icosphere(2, 1.0);
        let mut m = mesh(&ico, Vec3::ZERO, 1.0, 0);
        if normals {
            let data = Arc::make_mut(&mut m.data);
            data.normals = ico.positions.iter().map(|p| p.normalize()).collect();
        }
        let mut s = with_meshes(scene(camera, Sky::Constant(Vec3::ZERO), &[grey], &[]), vec![m]);
        s.lights = vec![Light::Point { position: light, color: Vec3::ONE, intensity }];
        (estimate(&s, (1, 1), 16, 2, true, 2).0 - sphere).abs() / sphere
    };
    let (flat, smooth) = (error(false), error(true));
    assert!(smooth * 3.0 < flat, "smooth {smooth} against flat {flat} off the sphere");
    assert!(smooth < 0.02, "smooth shading {smooth} off the sphere");
}

/// Inside a closed icosphere at `center` of radius `radius`, camera at its centre.
fn inside_mesh(center: Vec3, radius: f32, materials: &[MaterialKind]) -> Scene {
    let camera = pinhole(center, center + Vec3::new(0.3, -0.2, -1.0) * radius, 70.0);
    with_meshes(
        scene(camera, Sky::Constant(Vec3::ZERO), materials, &[]),
        vec![mesh(&icosphere(2, 1.0), center, radius, 0)],
    )
}

const SCALES: [(Vec3, f32); 4] =
    [(Vec3::ZERO, 1.0), (Vec3::ZERO, 1e3), (Vec3::ZERO, 1e5), (Vec3::new(1e4, -3e3, 0.0), 1.0)];

#[test]
fn emissive_mesh_furnace_sees_le_over_one_minus_albedo_at_every_scale() {
    let (albedo, le) = (0.5f32, 1.0f32);
    let wall = MaterialKind::Emissive { color: Vec3::ONE, strength: le, albedo: Vec3::splat(albedo) };
    let expected = f64::from(le / (1.0 - albedo));
    for (center, radius) in SCALES {
        let s = inside_mesh(center, radius, &[wall]);
        for nee in [true, false] {
            let what = format!("mesh furnace {radius} at {center}, nee {nee}");
            assert_close(&what, estimate(&s, (4, 4), 64, 48, nee, 8), expected);
        }
    }
}

#[test]
fn closed_mesh_with_the_lamp_outside_is_exactly_black_at_every_scale() {
    let wall = MaterialKind::Lambert { albedo: Vec3::splat(0.75) };
    let lamp = MaterialKind::Emissive { color: Vec3::ONE, strength: 10.0, albedo: Vec3::ZERO };
    for (center, radius) in SCALES {
        let mut s = inside_mesh(center, radius, &[wall, lamp]);
        // An emissive mesh outside (a light for NEE), a sun and a point light.
        s.meshes.push(mesh(&icosphere(1, 1.0), center + Vec3::new(0.0, 3.0 * radius, 0.0), radius / 2.0, 1));
        s.lights = vec![
            Light::Directional {
                direction: -Vec3::Y,
                color: Vec3::ONE,
                intensity: 5.0,
                angular_radius_deg: 1.0,
            },
            Light::Point { position: center + Vec3::splat(2.0 * radius), color: Vec3::ONE, intensity: 1e9 },
        ];
        for (nee, lit) in lit_pixels_with_and_without_nee(&s) {
            assert_eq!(
                lit, 0,
                "radius {radius} at {center}, nee {nee}: {lit} pixels see light through the mesh"
            );
        }
    }
}

/// A Lambert plane under an emissive quad (two triangles): next-event estimation samples
/// the triangles by area and agrees with BSDF sampling alone, with far less noise.
#[test]
fn an_emissive_quad_is_a_light_nee_agrees_with_bsdf_sampling() {
    let grey = MaterialKind::Lambert { albedo: Vec3::splat(0.5) };
    let lamp = MaterialKind::Emissive { color: Vec3::ONE, strength: 4.0, albedo: Vec3::ZERO };
    let quad = Geometry {
        normals: Vec::new(),
        positions: vec![
            Vec3::new(-0.5, 0.0, -0.5),
            Vec3::new(0.5, 0.0, -0.5),
            Vec3::new(0.5, 0.0, 0.5),
            Vec3::new(-0.5, 0.0, 0.5),
        ],
        triangles: vec![[0, 2, 1], [0, 3, 2]],
    };
    let target = Vec3::new(0.7, 0.0, 0.2);
    let camera = pinhole(target + Vec3::new(0.0, 1.0, 4.0), target, 0.05);
    let s = with_meshes(
        scene(camera, Sky::Constant(Vec3::ZERO), &[grey, lamp], &[(Vec3::new(0.0, -1000.0, 0.0), 1000.0, 0)]),
        vec![mesh(&quad, Vec3::new(0.0, 1.5, 0.0), 1.0, 1)],
    );
    let (nee, nee_se) = estimate(&s, (1, 1), 512, 4, true, 16);
    let (bsdf, bsdf_se) = estimate(&s, (1, 1), 8192, 4, false, 16);
    let (_, bsdf_se_equal) = estimate(&s, (1, 1), 512, 4, false, 16);
    assert!(bsdf > 0.0, "the quad lights the plane");
    let tolerance = 5.0 * (nee_se * nee_se + bsdf_se * bsdf_se).sqrt();
    assert!((nee - bsdf).abs() <= tolerance, "NEE {nee} ± {nee_se}, BSDF only {bsdf} ± {bsdf_se}");
    assert!(nee_se * 4.0 < bsdf_se_equal, "NEE s.e. {nee_se} against {bsdf_se_equal} at equal samples");
}

/// A Lambert quad (two triangles) under a uniform sky of radiance 1, nothing else:
/// every path from it reaches the sky, so it shows its albedo.
#[test]
fn a_lambert_quad_under_a_uniform_sky_shows_its_albedo() {
    let albedo = 0.6f32;
    let grey = MaterialKind::Lambert { albedo: Vec3::splat(albedo) };
    let quad = Geometry {
        normals: Vec::new(),
        positions: vec![
            Vec3::new(-1.0, 0.0, -1.0),
            Vec3::new(1.0, 0.0, -1.0),
            Vec3::new(1.0, 0.0, 1.0),
            Vec3::new(-1.0, 0.0, 1.0),
        ],
        triangles: vec![[0, 2, 1], [0, 3, 2]],
    };
    let camera = pinhole(Vec3::new(0.3, 2.0, 0.5), Vec3::new(0.1, 0.0, 0.05), 20.0);
    let s = with_meshes(
        scene(camera, Sky::Constant(Vec3::ONE), &[grey], &[]),
        vec![mesh(&quad, Vec3::ZERO, 1.0, 0)],
    );
    assert_close("quad under the sky", estimate(&s, (4, 4), 64, 8, false, 8), f64::from(albedo));
}
