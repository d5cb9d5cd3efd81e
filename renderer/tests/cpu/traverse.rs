//! The BVH traversal finds exactly what testing every sphere finds.

use crate::cpu_support;

use glam::{Vec3, Vec3A};
use renderer::backend::cpu::instances::NO_INSTANCE;
use renderer::backend::cpu::rng::Rng;
use renderer::backend::cpu::scene::CpuScene;
use renderer::backend::cpu::shapes::sphere::intersect_sphere;
use renderer::backend::cpu::traverse::{Hit, traverse};
use scene_compiler::blob::NodeLayout;
use scene_compiler::blob::layout::{PrimKind, prim_ref};
use scene_compiler::scene::{MaterialKind, Sky};
use scene_compiler::{BlobView, CompileOptions, compile_scene};

use cpu_support::{mixed_scene, pinhole, scene};

/// The closest hit over all spheres, in index order (ties keep the first, like a leaf).
fn brute_force(s: &CpuScene, origin: Vec3A, dir: Vec3A) -> Option<Hit> {
    let mut best: Option<Hit> = None;
    for (i, &sphere) in s.shapes.spheres.iter().enumerate() {
        let t_max = best.map_or(f32::INFINITY, |h| h.t);
        if let Some(t) = intersect_sphere(sphere.center_radius, origin, dir, t_max) {
            best = Some(Hit { t, prim: prim_ref(PrimKind::Sphere, i as u32), instance: NO_INSTANCE });
        }
    }
    best
}

fn random_unit(rng: &mut Rng) -> Vec3A {
    loop {
        let v = Vec3A::new(rng.next_f32(), rng.next_f32(), rng.next_f32()) * 2.0 - 1.0;
        if (1e-4..=1.0).contains(&v.length_squared()) {
            return v.normalize();
        }
    }
}

fn check_against_brute_force(s: &CpuScene, origins: impl Fn(&mut Rng) -> Vec3A) {
    let mut rng = Rng::new(1, 2, 3);
    let mut hits = 0;
    for _ in 0..20_000 {
        let origin = origins(&mut rng);
        let dir = random_unit(&mut rng);
        let (got, want) = (traverse(s, origin, dir, f32::INFINITY), brute_force(s, origin, dir));
        match (got, want) {
            (Some(g), Some(w)) => {
                hits += 1;
                // Two spheres can share a distance only in a tie; then either is right.
                assert!(g.prim == w.prim || g.t == w.t, "ray {origin} {dir}: {g:?} != {w:?}");
            }
            (None, None) => {}
            _ => panic!("ray {origin} {dir}: traversal {got:?}, brute force {want:?}"),
        }
    }
    assert!(hits > 2_000, "only {hits} rays hit: the test would prove little");
}

#[test]
fn traversal_equals_brute_force_in_both_node_layouts() {
    let scene = mixed_scene();
    for layout in [NodeLayout::DepthFirst, NodeLayout::VanEmdeBoas] {
        let compiled = compile_scene(&scene, &CompileOptions { layout, ..CompileOptions::default() });
        let view = BlobView::parse(&compiled.blob).expect("valid blob");
        let s = CpuScene::from_blob(&view);
        // From outside the scene, and from among the spheres.
        check_against_brute_force(&s, |rng| random_unit(rng) * 12.0 + Vec3A::new(0.0, 2.0, 0.0));
        check_against_brute_force(&s, |rng| {
            Vec3A::new(rng.next_f32() * 8.0 - 4.0, 0.01 + rng.next_f32(), rng.next_f32() * 6.0 - 3.0)
        });
    }
}

#[test]
fn a_single_sphere_scene_is_a_root_leaf() {
    let m = [MaterialKind::Lambert { albedo: Vec3::ONE }];
    let one =
        scene(pinhole(Vec3::Z, Vec3::ZERO, 40.0), Sky::Constant(Vec3::ONE), &m, &[(Vec3::ZERO, 1.0, 0)]);
    let compiled = compile_scene(&one, &CompileOptions::default());
    let s = CpuScene::from_blob(&BlobView::parse(&compiled.blob).expect("valid blob"));
    let hit = traverse(&s, Vec3A::new(0.0, 0.0, 5.0), -Vec3A::Z, f32::INFINITY).expect("hits the sphere");
    assert!((hit.t - 4.0).abs() < 1e-6);
    // From inside, the far side; a t_max before it, nothing.
    let inside = traverse(&s, Vec3A::ZERO, Vec3A::X, f32::INFINITY).expect("hits from inside");
    assert!((inside.t - 1.0).abs() < 1e-6);
    assert_eq!(traverse(&s, Vec3A::ZERO, Vec3A::X, 0.5), None);
}

#[test]
fn the_precise_discriminant_hits_the_huge_ground_sphere() {
    // The RTIOW ground: radius 1000, top at y = 0. Grazing rays from camera height
    // must hit where an f64 solution says; `b² - c` in f32 is off by metres here.
    let center_radius = glam::Vec4::new(0.0, -1000.0, -1.0, 1000.0);
    let origin = Vec3A::new(13.0, 2.0, 3.0);
    for slope in [-0.3f32, -0.15, -0.1] {
        let dir = Vec3A::new(-1.0, slope, -0.2).normalize();
        let t = intersect_sphere(center_radius, origin, dir, f32::INFINITY).expect("hits the ground");
        let (o, d, c) = (origin.as_dvec3(), dir.as_dvec3(), glam::DVec3::new(0.0, -1000.0, -1.0));
        let b = (c - o).dot(d);
        let exact = b - (1000.0f64.powi(2) - (c - o - b * d).length_squared()).sqrt();
        assert!((f64::from(t) - exact).abs() < 1e-3 * exact, "slope {slope}: t = {t}, exact {exact}");
    }
}
