//! Boxes on the CPU against analytic answers: the sun on a box's top face (Lambert,
//! exact irradiance), an emissive box furnace (`Le / (1 - a)`) and a closed box with
//! the lamp outside (exactly black) at scales from 1 to 10^5 and far from the origin,
//! which is what the exact face coordinates of a box hit must hold.

use crate::cpu_support;

use glam::{Vec3, Vec3A};
use renderer::backend::cpu::prims::surface;
use renderer::backend::cpu::scene::CpuScene;
use renderer::backend::cpu::shapes::offset_ray_origin;
use renderer::backend::cpu::traverse::{occluded, traverse};
use scene_compiler::BlobView;
use scene_compiler::scene::{Cuboid, Light, MaterialKind, Scene, Sky};

use cpu_support::{assert_close, compile, estimate, lit_pixels_with_and_without_nee, pinhole, render, scene};

/// `materials` and `boxes` (min, max, material) seen through `camera`, black sky, no spheres.
fn box_scene(
    camera: scene_compiler::scene::Camera,
    materials: &[MaterialKind],
    boxes: &[(Vec3, Vec3, u32)],
) -> Scene {
    let mut s = scene(camera, Sky::Constant(Vec3::ZERO), materials, &[]);
    s.boxes = boxes.iter().map(|&(min, max, material)| Cuboid { min, max, material }).collect();
    s
}

#[test]
fn the_sun_on_a_box_top_is_albedo_over_pi_times_e_cos() {
    let albedo = 0.6f32;
    let grey = MaterialKind::Lambert { albedo: Vec3::splat(albedo) };
    // A wide slab whose top is y = 0.5, seen straight down through a narrow pinhole.
    let camera = pinhole(Vec3::new(0.2, 3.0, 1.0), Vec3::new(0.2, 0.5, 0.1), 0.05);
    let mut s = box_scene(camera, &[grey], &[(Vec3::new(-5.0, -1.0, -5.0), Vec3::new(5.0, 0.5, 5.0), 0)]);
    let travel = Vec3::new(-1.0, -2.0, 0.5);
    s.lights = vec![Light::Directional {
        direction: travel,
        color: Vec3::ONE,
        intensity: 3.0,
        angular_radius_deg: 0.0,
    }];
    let cos = f64::from(-travel.normalize().y);
    let expected = f64::from(albedo) / std::f64::consts::PI * 3.0 * cos;
    assert_close("sun on the top face", estimate(&s, (1, 1), 64, 4, true, 4), expected);
}

/// A closed box around `center` of half-size `half` with the camera inside it.
fn inside_box(center: Vec3, half: f32, materials: &[MaterialKind], extra: &[(Vec3, Vec3, u32)]) -> Scene {
    let camera = pinhole(center, center + Vec3::new(0.3, -0.2, -1.0) * half, 70.0);
    let mut boxes = vec![(center - half, center + half, 0)];
    boxes.extend_from_slice(extra);
    box_scene(camera, materials, &boxes)
}

const SCALES: [(Vec3, f32); 4] =
    [(Vec3::ZERO, 1.0), (Vec3::ZERO, 1e3), (Vec3::ZERO, 1e5), (Vec3::new(1e4, -3e3, 0.0), 1.0)];

#[test]
fn emissive_box_furnace_sees_le_over_one_minus_albedo_at_every_scale() {
    let (albedo, le) = (0.5f32, 1.0f32);
    let wall = MaterialKind::Emissive { color: Vec3::ONE, strength: le, albedo: Vec3::splat(albedo) };
    let expected = f64::from(le / (1.0 - albedo));
    for (center, half) in SCALES {
        let s = inside_box(center, half, &[wall], &[]);
        assert_close(
            &format!("box furnace {half} at {center}"),
            estimate(&s, (4, 4), 64, 48, true, 8),
            expected,
        );
    }
}

#[test]
fn closed_box_with_the_lamp_outside_is_exactly_black_at_every_scale() {
    let wall = MaterialKind::Lambert { albedo: Vec3::splat(0.75) };
    let lamp = MaterialKind::Emissive { color: Vec3::ONE, strength: 10.0, albedo: Vec3::ZERO };
    for (center, half) in SCALES {
        let lamp_box =
            (center + Vec3::new(-half, 2.0 * half, -half), center + Vec3::new(half, 3.0 * half, half), 1);
        let mut s = inside_box(center, half, &[wall, lamp], &[lamp_box]);
        // And a sun and a point light outside: NEE must not see through the walls either.
        s.lights = vec![
            Light::Directional {
                direction: -Vec3::Y,
                color: Vec3::ONE,
                intensity: 5.0,
                angular_radius_deg: 1.0,
            },
            Light::Point { position: center + Vec3::splat(2.0 * half), color: Vec3::ONE, intensity: 1e9 },
        ];
        for (nee, lit) in lit_pixels_with_and_without_nee(&s) {
            assert_eq!(
                lit, 0,
                "half {half} at {center}, nee {nee}: {lit} pixels see light through the walls"
            );
        }
    }
}

/// From the centre of a closed box far from the origin, every wall hit's shadow ray to
/// a light outside the box, on the lit side of the wall, meets the box. Before hit
/// points were kept inside their face, rounding put some onto an edge and 22 of these
/// rays in 200 000 left through the neighbouring wall at t = 0.
#[test]
fn shadow_rays_from_the_walls_of_a_far_closed_box_never_escape() {
    let center = Vec3::new(1e4, -3e3, 0.0);
    let wall = MaterialKind::Lambert { albedo: Vec3::splat(0.75) };
    let s = inside_box(center, 1.0, &[wall], &[]);
    let blob = compile(&s);
    let scene = CpuScene::from_blob(&BlobView::parse(&blob).expect("valid blob"));
    let light = Vec3A::from(center + 2.0);
    let mut state = 12345u32;
    let mut uniform = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state as f32 / u32::MAX as f32 - 0.5
    };
    let mut escaped = 0;
    for _ in 0..200_000 {
        let (origin, dir) = (Vec3A::from(center), Vec3A::new(uniform(), uniform(), uniform()).normalize());
        let hit = traverse(&scene, origin, dir, f32::INFINITY).expect("the camera is enclosed");
        let at = surface(&scene, hit.prim, origin, dir, hit.t);
        let facing = if at.normal.dot(dir) > 0.0 { -at.normal } else { at.normal };
        let to_light = light - at.point;
        let wi = to_light.normalize();
        if facing.dot(wi) > 0.0
            && !occluded(&scene, offset_ray_origin(&at, facing), wi, to_light.length(), u32::MAX)
        {
            escaped += 1;
        }
    }
    assert_eq!(escaped, 0, "shadow rays left the closed box");
}

/// A heightmap with one raised column renders exactly as the box a user would write for
/// it: the terrain's corners come from the same floats (`origin + i * cell`).
#[test]
fn a_one_column_heightmap_renders_bit_equal_to_the_single_box() {
    use std::sync::Arc;

    use scene_compiler::scene::{Heightmap, Terrain, TerrainSurface};

    let grey = MaterialKind::Lambert { albedo: Vec3::splat(0.6) };
    let red = MaterialKind::Metal { albedo: Vec3::new(0.8, 0.3, 0.2), fuzz: 0.2 };
    let camera = pinhole(Vec3::new(4.0, 5.0, 9.0), Vec3::new(1.5, 1.0, 1.5), 40.0);
    let ground = (Vec3::new(-10.0, -1.0, -10.0), Vec3::new(10.0, 0.0, 10.0), 0);
    let mut with_box = box_scene(camera, &[grey, red], &[ground]);
    with_box.sky = Sky::Gradient { bottom: Vec3::ONE, top: Vec3::new(0.5, 0.7, 1.0) };
    with_box.lights = vec![Light::Directional {
        direction: Vec3::new(-1.0, -1.5, -0.5),
        color: Vec3::ONE,
        intensity: 2.0,
        angular_radius_deg: 0.5,
    }];
    let mut with_terrain = with_box.clone();

    // Pixel (1, 2) of a 3 x 3 image, value 6, cell 0.75, scale 0.5, origin (0.25, 0, -0.5).
    let (origin, cell, scale) = (Vec3::new(0.25, 0.0, -0.5), 0.75f32, 0.5f32);
    let mut values = vec![0u16; 9];
    values[2 * 3 + 1] = 6;
    let heights = Arc::new(Heightmap { path: "one.png".into(), width: 3, depth: 3, values });
    with_terrain.terrains = vec![Terrain {
        image: "one.png".into(),
        heights,
        origin,
        cell,
        height_scale: scale,
        surface: TerrainSurface::Material(1),
    }];
    with_box.boxes.push(Cuboid {
        min: Vec3::new(origin.x + 1.0 * cell, origin.y, origin.z + 2.0 * cell),
        max: Vec3::new(origin.x + 2.0 * cell, origin.y + 6.0 * scale, origin.z + 3.0 * cell),
        material: 1,
    });

    let render_of = |scene: &Scene| {
        let blob = compile(scene);
        render(&blob, &cpu_support::job(&blob, 48, 32, 4, 8, 5)).0
    };
    let (a, b) = (render_of(&with_box), render_of(&with_terrain));
    let bits = |image: &[[f32; 4]]| image.iter().flatten().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&a), bits(&b));
    assert!(a.iter().any(|p| p[0] != a[0][0]), "the image shows something");
}
