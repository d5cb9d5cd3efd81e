//! The GPU and the CPU backend compute the same images (docs/architecture.md, backends;
//! both implement docs/path-tracing.md): the RTIOW scene at 320x180 and 1024 spp, and
//! small scenes of each feature (a thin lens and an emitter, lights, the environment,
//! boxes, meshes, textures, the Principled material). Ignored unless asked for
//! (`--include-ignored`, tools/gpu-run.sh), like every GPU test.
//!
//! Two checks, each a clear signal for a different bug:
//! - Same seed: both backends draw the same random numbers for the same purpose, so
//!   their images differ only where float rounding flips a decision (fast math on the
//!   GPU). A draw-order or formula difference makes them differ by the full noise.
//! - Different seeds: independent estimates of one image. Each pixel's variance comes
//!   from 16 renders of 64 spp; per-pixel z-scores, the mean signed difference and the
//!   mean absolute difference must all be what noise alone gives.

use crate::gpu_support;

use glam::Vec3;
use gpu_support::{compile, cuda, render_chunks, rtiow_scene, view};
use renderer::backend::Backend;
use renderer::backend::cpu::CpuBackend;
use scene_compiler::scene::{Camera, Light, MaterialKind, Scene, Sky, Texture};
use scene_compiler::testing::{pinhole, scene};

/// Renders per backend and seed; each adds `CHUNK_SPP` samples to the film.
const CHUNKS: u32 = 16;
const CHUNK_SPP: u32 = 64;

/// Same seed: the mean absolute difference per channel is at most this fraction of
/// what noise alone gives between independent renders (measured CPU vs CPU: the MAD
/// of independent renders matches that noise to 1%). Paths that float rounding sends
/// elsewhere (mostly chains through glass) stay a small part; a draw-order or formula
/// difference gives a ratio of 1 or more.
const MAX_SAME_SEED_RATIO: f64 = 0.4;
/// Different seeds: |z| beyond this counts as an outlier ...
const Z_OUTLIER: f64 = 5.0;
/// ... and at most this fraction of pixel channels may be one (t-distributed z with
/// ~15-30 degrees of freedom: expected ~0.02%).
const MAX_OUTLIER_FRACTION: f64 = 0.002;
/// Mean z² (1 for normal noise; t with 15 dof gives 1.15).
const MAX_MEAN_Z2: f64 = 1.35;
/// Mean absolute difference at most this factor above noise alone (sqrt(2/π)·σ per pixel).
/// Not 1.25: where one render's pixel holds a single firefly (a sun's caustic through
/// glass, or its highlight in a fuzzy metal: docs/path-tracing.md, "Next-event
/// estimation") the difference is about the estimated σ itself, a ratio of
/// 1/sqrt(2/π) = 1.25 with no disagreement at all; meshes.ron measured 1.32 on an H100
/// (2026-11-26) with its bias 0.5 standard errors, mean z² 0.77 and same-seed
/// difference 1e-6.
const MAX_MAD_RATIO: f64 = 1.5;
/// Standard errors the mean signed difference (a bias) may be from 0.
const MAX_BIAS_SE: f64 = 5.0;
/// Floor of the per-pixel standard deviation, so noiseless pixels (sky) compare by rounding.
const SIGMA_FLOOR: f64 = 1e-4;

#[test]
#[ignore = "needs a CUDA GPU"]
fn rtiow_gpu_matches_cpu() {
    let mut gpu = cuda();
    compare(&mut gpu, &rtiow_scene(), (320, 180));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn lens_and_emitter_gpu_matches_cpu() {
    let mut gpu = cuda();
    let camera = Camera {
        aperture: 0.3,
        focus_dist: 5.0,
        ..pinhole(Vec3::new(0.0, 1.0, 5.0), Vec3::new(0.0, 0.5, 0.0), 35.0)
    };
    let materials = [
        MaterialKind::Lambert { albedo: Vec3::new(0.6, 0.5, 0.4) },
        MaterialKind::Emissive { color: Vec3::new(1.0, 0.8, 0.6), strength: 4.0, albedo: Vec3::ZERO },
        MaterialKind::Dielectric { ior: 1.5 },
        MaterialKind::Metal { albedo: Vec3::splat(0.8), fuzz: 0.3 },
    ];
    let spheres = [
        (Vec3::new(0.0, -100.0, 0.0), 100.0, 0),
        (Vec3::new(0.0, 2.5, -1.0), 0.7, 1),
        (Vec3::new(-0.8, 0.5, 0.5), 0.5, 2),
        (Vec3::new(0.8, 0.5, -0.5), 0.5, 3),
    ];
    let scene = scene(camera, Sky::Constant(Vec3::splat(0.05)), &materials, &spheres);
    compare(&mut gpu, &scene, (96, 54));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn point_sun_and_several_lamps_gpu_matches_cpu() {
    let mut gpu = cuda();
    let lamp =
        |strength| MaterialKind::Emissive { color: Vec3::new(1.0, 0.7, 0.4), strength, albedo: Vec3::ZERO };
    let materials = [
        MaterialKind::Lambert { albedo: Vec3::splat(0.6) },
        lamp(6.0),
        lamp(1.0),
        MaterialKind::Emissive {
            color: Vec3::new(0.2, 0.1, 0.0),
            strength: 1.0,
            albedo: Vec3::new(0.7, 0.3, 0.2),
        },
        MaterialKind::Metal { albedo: Vec3::splat(0.8), fuzz: 0.1 },
    ];
    let spheres = [
        (Vec3::new(0.0, -1000.0, 0.0), 1000.0, 0),
        (Vec3::new(-1.5, 2.0, -1.0), 0.3, 1),
        (Vec3::new(1.5, 1.5, 0.0), 0.2, 2),
        (Vec3::new(-0.7, 0.5, 0.0), 0.5, 3),
        (Vec3::new(0.7, 0.5, -0.3), 0.5, 4),
    ];
    let camera = pinhole(Vec3::new(0.0, 1.5, 5.0), Vec3::new(0.0, 0.5, 0.0), 40.0);
    let mut scene = scene(camera, Sky::Constant(Vec3::ZERO), &materials, &spheres);
    scene.lights = vec![
        Light::Point { position: Vec3::new(2.0, 3.0, 2.0), color: Vec3::ONE, intensity: 8.0 },
        Light::Directional {
            direction: Vec3::new(-1.0, -2.0, -1.0),
            color: Vec3::new(1.0, 0.9, 0.8),
            intensity: 1.5,
            angular_radius_deg: 2.0,
        },
    ];
    compare(&mut gpu, &scene, (96, 54));
}

/// An environment sky (the procedural sky, turned 25°, its sun a small bright region)
/// with a lamp and a point light beside it, over Lambert, metal and glass: the
/// environment's lookup, sampling and MIS twins agree (docs/path-tracing.md, "Environment").
#[test]
#[ignore = "needs a CUDA GPU"]
fn environment_gpu_matches_cpu() {
    use scene_compiler::procedural_sky::{SkyParams, sky};
    use scene_compiler::scene::{EnvImage, Environment};
    let mut gpu = cuda();
    let image = sky(&SkyParams { width: 128, sun_elevation_deg: 35.0, ..SkyParams::default() });
    let data =
        EnvImage { path: Default::default(), width: image.width, height: image.height, texels: image.texels };
    let env = Environment {
        image: String::new(),
        data: std::sync::Arc::new(data),
        strength: 0.8,
        rotation_deg: 25.0,
    };
    let materials = [
        MaterialKind::Lambert { albedo: Vec3::splat(0.6) },
        MaterialKind::Emissive { color: Vec3::new(1.0, 0.7, 0.4), strength: 5.0, albedo: Vec3::ZERO },
        MaterialKind::Dielectric { ior: 1.5 },
        MaterialKind::Metal { albedo: Vec3::splat(0.8), fuzz: 0.2 },
    ];
    let spheres = [
        (Vec3::new(0.0, -1000.0, 0.0), 1000.0, 0),
        (Vec3::new(-1.5, 1.8, -1.0), 0.25, 1),
        (Vec3::new(-0.7, 0.5, 0.0), 0.5, 2),
        (Vec3::new(0.7, 0.5, -0.3), 0.5, 3),
        (Vec3::new(0.0, 0.4, 1.0), 0.4, 0),
    ];
    let camera = pinhole(Vec3::new(0.0, 1.5, 5.0), Vec3::new(0.0, 0.5, 0.0), 45.0);
    let mut scene = scene(camera, Sky::Environment(env), &materials, &spheres);
    scene.lights =
        vec![Light::Point { position: Vec3::new(2.0, 3.0, 2.0), color: Vec3::ONE, intensity: 4.0 }];
    compare(&mut gpu, &scene, (96, 54));
}

/// The example scene under its committed sky image.
#[test]
#[ignore = "needs a CUDA GPU"]
fn environment_asset_gpu_matches_cpu() {
    let mut gpu = cuda();
    let path = gpu_support::repo_root().join("assets/scenes/environment.ron");
    let scene = scene_compiler::scene::load_file(&path).expect("the environment asset loads");
    compare(&mut gpu, &scene, (96, 54));
}

/// Boxes and spheres in one BVH, lit by a sun: the box intersection twins agree.
#[test]
#[ignore = "needs a CUDA GPU"]
fn boxes_gpu_matches_cpu() {
    let mut gpu = cuda();
    let path = gpu_support::repo_root().join("assets/scenes/boxes.ron");
    let scene = scene_compiler::scene::load_file(&path).expect("the boxes asset loads");
    compare(&mut gpu, &scene, (96, 64));
}

/// Meshes from PLY, OBJ and glTF, one of them emissive: the triangle twins agree.
#[test]
#[ignore = "needs a CUDA GPU"]
fn meshes_gpu_matches_cpu() {
    let mut gpu = cuda();
    let path = gpu_support::repo_root().join("assets/scenes/meshes.ron");
    let scene = scene_compiler::scene::load_file(&path).expect("the meshes asset loads");
    compare(&mut gpu, &scene, (96, 54));
}

/// A room lit only by an emissive box: area-light sampling of boxes, the twins agree.
#[test]
#[ignore = "needs a CUDA GPU"]
fn box_lamp_gpu_matches_cpu() {
    let mut gpu = cuda();
    let path = gpu_support::repo_root().join("assets/scenes/box_lamp.ron");
    let scene = scene_compiler::scene::load_file(&path).expect("the box lamp asset loads");
    compare(&mut gpu, &scene, (96, 72));
}

/// Every texture kind (checker, noise, images on a sphere, a box and a mesh with its own
/// material and texture coordinates): the texture twins agree.
#[test]
#[ignore = "needs a CUDA GPU"]
fn textures_gpu_matches_cpu() {
    let mut gpu = cuda();
    let path = gpu_support::repo_root().join("assets/scenes/textures.ron");
    let scene = scene_compiler::scene::load_file(&path).expect("the textures asset loads");
    compare(&mut gpu, &scene, (96, 54));
}

/// Every Principled feature at once (issue 34), under an environment sky and a point
/// light: metal, plastic, rough and smooth glass spheres, an emitter with an emission
/// texture, a ground mesh with texture coordinates under a normal map and a
/// metallic-roughness texture, a leaf quad cut out by its base colour image's alpha
/// (Mask) and a half-transparent sphere (Blend): the Principled, normal-map and
/// any-hit twins agree.
#[test]
#[ignore = "needs a CUDA GPU"]
fn principled_gpu_matches_cpu() {
    let mut gpu = cuda();
    compare(&mut gpu, &principled_scene(), (96, 54));
}

/// [`principled_scene`] with every image texture moved by its own uv transform (glTF's
/// KHR_texture_transform: offset, rotation and non-uniform scale): the base colour and
/// its alpha in the any-hit test, the metallic-roughness, emission (light sampling too)
/// and normal maps all look up the transformed coordinates alike on both backends.
#[test]
#[ignore = "needs a CUDA GPU"]
fn uv_transformed_textures_gpu_matches_cpu() {
    use glam::Vec2;
    use scene_compiler::scene::UvTransform;
    let mut scene = principled_scene();
    let mut k = 0.0;
    for material in &mut scene.materials {
        let [mr, emission, normal] = material.maps.slots_mut();
        for texture in [&mut material.texture, mr, emission, normal].into_iter().flatten() {
            if let Texture::Image { uv_transform, .. } = texture {
                k += 1.0;
                *uv_transform = UvTransform {
                    offset: Vec2::new(0.3 * k, -0.2),
                    rotation_deg: 25.0 * k,
                    scale: Vec2::new(1.5, 0.75 + 0.25 * k),
                };
            }
        }
    }
    assert_eq!(k, 4.0, "the leaf's colour, the ground's two maps and the lamp's emission");
    let mut gpu = cuda();
    compare(&mut gpu, &scene, (96, 54));
}

/// Instances (docs/path-tracing.md, "Instances"): one icosphere placed by `instances`
/// (rotated, scaled), and a glTF-style part placed by maps that scale unevenly and
/// mirror, one of them with a glass material of its own, over a floor under a sun.
#[test]
#[ignore = "needs a CUDA GPU"]
fn instances_gpu_matches_cpu() {
    use glam::{Affine3A, Quat};
    use scene_compiler::procedural::icosphere;
    use scene_compiler::scene::{InstanceFileData, InstancedPart, Mesh, MeshData, PlacedInstance, Transform};
    use std::sync::Arc;
    let mut gpu = cuda();
    let materials = [
        MaterialKind::Lambert { albedo: Vec3::splat(0.6) },
        MaterialKind::Lambert { albedo: Vec3::new(0.8, 0.3, 0.2) },
        MaterialKind::Metal { albedo: Vec3::splat(0.8), fuzz: 0.2 },
        MaterialKind::Dielectric { ior: 1.5 },
    ];
    let camera = pinhole(Vec3::new(0.0, 1.5, 6.0), Vec3::new(0.0, 0.6, 0.0), 40.0);
    let mut scene = scene(
        camera,
        Sky::Gradient { bottom: Vec3::ONE, top: Vec3::new(0.5, 0.7, 1.0) },
        &materials,
        &[(Vec3::new(0.0, -1000.0, 0.0), 1000.0, 0)],
    );
    let ico = icosphere(2, 1.0);
    let geometry = MeshData {
        path: "ico.ply".into(),
        positions: ico.positions.clone(),
        normals: ico.positions.iter().map(|p| p.normalize()).collect(),
        triangles: ico.triangles.clone(),
        ..MeshData::default()
    };
    let turn = Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.8, 0.2);
    let maps = [
        (Vec3::new(0.6, 1.0, 0.4), -1.2),
        (Vec3::new(-0.5, 0.5, 0.5), 0.0),
        (Vec3::new(0.4, 0.7, -0.6), 1.3),
    ]
    .map(|(scale, x)| Affine3A::from_scale_rotation_translation(scale, turn, Vec3::new(x, 0.7, -0.8)));
    scene.meshes = vec![
        Mesh {
            file: "ico.ply".into(),
            material: Some(1),
            instances: vec![PlacedInstance {
                transform: Transform {
                    translate: Vec3::new(-1.0, 0.5, 1.0),
                    rotate_deg: Vec3::new(0.0, 20.0, 0.0),
                    scale: Vec3::splat(0.5),
                },
                material: Some(2),
            }],
            placements: Arc::new(InstanceFileData {
                path: "i.ply".into(),
                instances: vec![PlacedInstance {
                    transform: Transform {
                        translate: Vec3::new(1.0, 0.5, 1.0),
                        scale: Vec3::splat(0.5),
                        ..Transform::default()
                    },
                    material: Some(3),
                }],
                ..Default::default()
            }),
            data: Arc::new(geometry.clone()),
            ..Mesh::default()
        },
        Mesh {
            file: "ico.glb".into(),
            material: Some(2),
            data: Arc::new(MeshData {
                path: "ico.glb".into(),
                instanced: vec![InstancedPart { mesh: 0, geometry, placements: maps.to_vec() }],
                ..MeshData::default()
            }),
            ..Mesh::default()
        },
    ];
    scene.lights = vec![Light::Directional {
        direction: Vec3::new(-1.0, -2.0, -1.0),
        color: Vec3::ONE,
        intensity: 2.0,
        angular_radius_deg: 2.0,
    }];
    compare(&mut gpu, &scene, (96, 54));
}

/// The scene of [`principled_gpu_matches_cpu`].
fn principled_scene() -> Scene {
    use scene_compiler::procedural_sky::{SkyParams, sky};
    use scene_compiler::scene::{AlphaMode, EnvImage, Environment, Maps, Material, Principled};
    let image = sky(&SkyParams { width: 128, sun_elevation_deg: 35.0, ..SkyParams::default() });
    let data =
        EnvImage { path: Default::default(), width: image.width, height: image.height, texels: image.texels };
    let env = Environment {
        image: String::new(),
        data: std::sync::Arc::new(data),
        strength: 0.8,
        rotation_deg: -30.0,
    };
    let camera = pinhole(Vec3::new(0.0, 1.6, 5.0), Vec3::new(0.0, 0.5, 0.0), 45.0);
    let mut scene = scene(camera, Sky::Environment(env), &[], &[]);
    let p = |base_color: Vec3, metallic: f32, roughness: f32| Principled {
        base_color,
        metallic,
        roughness,
        ..Principled::default()
    };
    let glass = |roughness: f32| Principled { transmission: 1.0, ..p(Vec3::ONE, 0.0, roughness) };
    let material = |name: &str, kind: Principled, texture: Option<Texture>, maps: Maps| Material {
        name: name.into(),
        kind: MaterialKind::Principled(kind),
        texture,
        maps,
    };
    scene.materials = vec![
        material(
            "ground",
            p(Vec3::new(0.6, 0.55, 0.5), 1.0, 1.0),
            None,
            Maps {
                metallic_roughness: Some(image_texture(metallic_roughness_checker())),
                normal: Some(image_texture(ridges_normal_map())),
                ..Maps::default()
            },
        ),
        material("metal", p(Vec3::new(0.955, 0.638, 0.538), 1.0, 0.3), None, Maps::default()),
        material("plastic", p(Vec3::new(0.2, 0.4, 0.8), 0.0, 0.4), None, Maps::default()),
        material("rough glass", glass(0.3), None, Maps::default()),
        material("smooth glass", glass(0.0), None, Maps::default()),
        material(
            "lamp",
            Principled {
                emission: Vec3::new(1.0, 0.8, 0.6),
                emission_strength: 4.0,
                ..p(Vec3::ZERO, 0.0, 0.5)
            },
            None,
            Maps { emission: Some(image_texture(emission_stripes())), ..Maps::default() },
        ),
        material(
            "leaf",
            Principled { alpha_mode: AlphaMode::Mask(0.5), ..p(Vec3::ONE, 0.0, 0.6) },
            Some(image_texture(leaf_with_holes())),
            Maps::default(),
        ),
        material(
            "veil",
            Principled { alpha: 0.4, alpha_mode: AlphaMode::Blend, ..p(Vec3::new(0.9, 0.2, 0.1), 0.0, 0.2) },
            None,
            Maps::default(),
        ),
    ];
    scene.spheres = [
        (Vec3::new(-1.8, 0.5, 0.0), 0.5, 1),
        (Vec3::new(-0.6, 0.5, 0.3), 0.5, 2),
        (Vec3::new(0.6, 0.5, 0.3), 0.5, 3),
        (Vec3::new(1.8, 0.5, 0.0), 0.5, 4),
        (Vec3::new(0.9, 1.9, -1.5), 0.3, 5),
        (Vec3::new(0.0, 0.35, 1.4), 0.35, 7),
    ]
    .map(|(center, radius, material)| scene_compiler::scene::Sphere { center, radius, material })
    .to_vec();
    // The ground, 8 x 8 with its textures repeated twice, and the leaf upright behind
    // the spheres, its shadow towards the camera.
    scene.meshes = vec![
        quad([Vec3::new(-4.0, 0.0, 4.0), Vec3::new(4.0, 0.0, 4.0), Vec3::new(4.0, 0.0, -4.0)], 2.0, 0),
        quad([Vec3::new(-1.6, 0.6, -1.2), Vec3::new(-0.2, 0.6, -1.2), Vec3::new(-0.2, 2.0, -1.6)], 1.0, 6),
    ];
    scene.lights =
        vec![Light::Point { position: Vec3::new(-1.0, 3.5, -3.0), color: Vec3::ONE, intensity: 10.0 }];
    scene
}

/// The parallelogram on corners `a`, `b`, `c` (and `a + c - b`), texture coordinates
/// from 0 to `uv_scale` (u along `a` → `b`, v along `b` → `c`), with `material`.
fn quad([a, b, c]: [Vec3; 3], uv_scale: f32, material: u32) -> scene_compiler::scene::Mesh {
    use glam::Vec2;
    use scene_compiler::scene::{Mesh, MeshData, Transform};
    let uvs = [Vec2::new(0.0, 0.0), Vec2::new(1.0, 0.0), Vec2::new(1.0, 1.0), Vec2::new(0.0, 1.0)];
    Mesh {
        file: "quad.ply".into(),
        material: Some(material),
        transform: Transform::default(),
        data: std::sync::Arc::new(MeshData {
            path: "quad.ply".into(),
            positions: vec![a, b, c, a + c - b],
            uvs: uvs.map(|uv| uv * uv_scale).to_vec(),
            triangles: vec![[0, 1, 2], [0, 2, 3]],
            ..MeshData::default()
        }),
        ..Mesh::default()
    }
}

/// `texels` (`(width, height)`, rows from the top; RGB and alpha) as a repeating image.
fn image_texture((width, height, texels): (u32, u32, Vec<[f32; 4]>)) -> Texture {
    use scene_compiler::scene::{TextureImage, Wrap};
    let image = TextureImage {
        path: "procedural.png".into(),
        width,
        height,
        texels: texels.iter().map(|t| [t[0], t[1], t[2]]).collect(),
        alpha: if texels.iter().all(|t| t[3] == 1.0) {
            Vec::new()
        } else {
            texels.iter().map(|t| t[3]).collect()
        },
    };
    Texture::Image {
        file: "procedural.png".into(),
        image: std::sync::Arc::new(image),
        wrap: Wrap::Repeat,
        uv_transform: Default::default(),
    }
}

/// glTF's channels (G roughness, B metallic) in a 4 x 4 checker: rough dielectric and
/// glossy metal cells.
fn metallic_roughness_checker() -> (u32, u32, Vec<[f32; 4]>) {
    let texels =
        (0..16).map(|i| if (i % 4 + i / 4) % 2 == 0 { [1.0, 0.8, 0.0, 1.0] } else { [1.0, 0.2, 1.0, 1.0] });
    (4, 4, texels.collect())
}

/// A tangent-space normal map of ridges along v, tilting up to 30° towards ±u.
fn ridges_normal_map() -> (u32, u32, Vec<[f32; 4]>) {
    let width = 16;
    let texels = (0..width * width).map(|i| {
        let u = ((i % width) as f32 + 0.5) / width as f32;
        let n = Vec3::new(0.5 * (std::f32::consts::TAU * 4.0 * u).sin(), 0.0, 1.0).normalize();
        [0.5 * n.x + 0.5, 0.5 * n.y + 0.5, 0.5 * n.z + 0.5, 1.0]
    });
    (width, width, texels.collect())
}

/// Eight vertical stripes, white and blue, that multiply the emission.
fn emission_stripes() -> (u32, u32, Vec<[f32; 4]>) {
    let texels = (0..8).map(|i| if i % 2 == 0 { [1.0, 1.0, 1.0, 1.0] } else { [0.2, 0.5, 1.0, 1.0] });
    (8, 1, texels.collect())
}

/// A green 8 x 8 image whose alpha is 0 in a checker of holes (one cell in four).
fn leaf_with_holes() -> (u32, u32, Vec<[f32; 4]>) {
    let texels = (0..64).map(|i| {
        let (x, y) = (i % 8, i / 8);
        let alpha = if x % 2 == 1 && y % 2 == 1 { 0.0 } else { 1.0 };
        [0.2, 0.6, 0.1, alpha]
    });
    (8, 8, texels.collect())
}

/// The Principled reference scene exported by Blender: a metallic-roughness ground under
/// a normal map whose frame comes from the file's tangents (the blob's
/// `triangle_tangents`), an alpha-masked leaf, a copper Suzanne: the Principled and
/// tangent-frame twins agree.
#[test]
#[ignore = "needs a CUDA GPU"]
fn pbr_features_gpu_matches_cpu() {
    let mut gpu = cuda();
    let path = gpu_support::repo_root().join("assets/scenes/reference/pbr_features.ron");
    let scene = scene_compiler::scene::load_file(&path).expect("the pbr_features reference loads");
    compare(&mut gpu, &scene, (64, 48));
}

fn compare(gpu: &mut dyn Backend, scene: &Scene, size: (u32, u32)) {
    let blob = compile(scene);
    let blob = view(&blob);
    let (seed, other_seed) = (11, 12);
    let cpu = Estimate::new(&render_chunks(&mut CpuBackend::new(), &blob, size, seed, CHUNKS, CHUNK_SPP));
    let gpu_same = Estimate::new(&render_chunks(gpu, &blob, size, seed, CHUNKS, CHUNK_SPP));
    let gpu_other = Estimate::new(&render_chunks(gpu, &blob, size, other_seed, CHUNKS, CHUNK_SPP));

    let stats = Agreement::new(&cpu, &gpu_other);
    println!("other seed: {stats:#?}");
    let same_mad = mean_abs_diff(&cpu, &gpu_same);
    let same_ratio: [f64; 3] = std::array::from_fn(|c| same_mad[c] / stats.noise_mad[c]);
    println!("same seed: mean |gpu - cpu| per channel {same_mad:.6?}, {same_ratio:.3?} of noise");

    for (c, ratio) in same_ratio.into_iter().enumerate() {
        assert!(
            ratio <= MAX_SAME_SEED_RATIO,
            "channel {c}: same-seed images differ by {ratio:.2} of the noise: the backends use random numbers differently"
        );
        assert!(
            stats.mad[c] <= MAX_MAD_RATIO * stats.noise_mad[c] + 1e-4,
            "channel {c}: mean |diff| {} vs {} from noise alone",
            stats.mad[c],
            stats.noise_mad[c]
        );
        assert!(
            stats.bias[c].abs() <= MAX_BIAS_SE * stats.bias_se[c] + 1e-5,
            "channel {c}: mean signed difference {} is {:.1} standard errors",
            stats.bias[c],
            stats.bias[c] / stats.bias_se[c]
        );
    }
    assert!(
        stats.outlier_fraction <= MAX_OUTLIER_FRACTION,
        "{:.3}% of pixel channels have |z| > {Z_OUTLIER} (worst {:.1})",
        100.0 * stats.outlier_fraction,
        stats.worst_z
    );
    assert!(stats.mean_z2 <= MAX_MEAN_Z2, "mean z² {} too large", stats.mean_z2);
}

/// A backend's estimate of each pixel channel: the mean of all samples and the
/// variance of that mean, from the spread of the per-chunk means.
struct Estimate {
    mean: Vec<[f64; 3]>,
    var_of_mean: Vec<[f64; 3]>,
}

impl Estimate {
    /// From the film read back after each of `k` equal chunks (cumulative averages).
    fn new(cumulative: &[Vec<[f32; 4]>]) -> Estimate {
        let k = cumulative.len();
        let pixels = cumulative[0].len();
        let mut mean = vec![[0.0; 3]; pixels];
        let mut var_of_mean = vec![[0.0; 3]; pixels];
        for p in 0..pixels {
            for c in 0..3 {
                // Chunk i's own mean: (i + 1) F_i - i F_(i-1).
                let chunk = |i: usize| {
                    let now = (i + 1) as f64 * f64::from(cumulative[i][p][c]);
                    if i == 0 { now } else { now - i as f64 * f64::from(cumulative[i - 1][p][c]) }
                };
                let m = f64::from(cumulative[k - 1][p][c]);
                let sum_sq: f64 = (0..k).map(|i| (chunk(i) - m).powi(2)).sum();
                mean[p][c] = m;
                var_of_mean[p][c] = sum_sq / ((k - 1) * k) as f64;
            }
        }
        Estimate { mean, var_of_mean }
    }
}

fn mean_abs_diff(a: &Estimate, b: &Estimate) -> [f64; 3] {
    let mut sum = [0.0; 3];
    for (x, y) in a.mean.iter().zip(&b.mean) {
        for c in 0..3 {
            sum[c] += (x[c] - y[c]).abs();
        }
    }
    sum.map(|s| s / a.mean.len() as f64)
}

/// How two independent estimates of one image differ, against their noise.
#[derive(Debug)]
struct Agreement {
    /// Mean |a - b| per channel, and what noise alone would give.
    mad: [f64; 3],
    noise_mad: [f64; 3],
    /// Mean signed difference per channel and its standard error.
    bias: [f64; 3],
    bias_se: [f64; 3],
    /// Fraction of pixel channels with |z| > Z_OUTLIER, and the mean z².
    outlier_fraction: f64,
    mean_z2: f64,
    worst_z: f64,
}

impl Agreement {
    fn new(a: &Estimate, b: &Estimate) -> Agreement {
        let n = a.mean.len() as f64;
        let (mut mad, mut noise_mad, mut bias, mut var_sum) = ([0.0; 3], [0.0; 3], [0.0; 3], [0.0; 3]);
        let (mut outliers, mut z2_sum, mut worst_z) = (0usize, 0.0, 0.0f64);
        for p in 0..a.mean.len() {
            for c in 0..3 {
                let d = b.mean[p][c] - a.mean[p][c];
                let var = a.var_of_mean[p][c] + b.var_of_mean[p][c];
                mad[c] += d.abs() / n;
                noise_mad[c] += (2.0 / std::f64::consts::PI).sqrt() * var.sqrt() / n;
                bias[c] += d / n;
                var_sum[c] += var;
                let z = d / (var + SIGMA_FLOOR * SIGMA_FLOOR).sqrt();
                z2_sum += z * z;
                worst_z = worst_z.max(z.abs());
                outliers += usize::from(z.abs() > Z_OUTLIER);
            }
        }
        Agreement {
            mad,
            noise_mad,
            bias,
            bias_se: var_sum.map(|v| v.sqrt() / n),
            outlier_fraction: outliers as f64 / (3.0 * n),
            mean_z2: z2_sum / (3.0 * n),
            worst_z,
        }
    }
}
