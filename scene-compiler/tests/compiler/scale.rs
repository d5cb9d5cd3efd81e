//! A large scene through the whole compiler: the blob stays within the size
//! budget per sphere and loads.

use crate::common;

use glam::Vec3;
use scene_compiler::scene::Sphere;
use scene_compiler::{BlobView, CompileOptions, compile_scene};

/// The bound on blob size per sphere (v6): the sphere record (16 bytes), its material
/// id, source index and light pick probability (12), at most one inner node per sphere
/// of 56 bytes (one 48-byte row per axis and two links), and this scene's quarter of
/// emissive spheres a 48-byte light record each (12 per sphere): 96 bytes, plus the
/// header and the fixed records spread over the spheres. v5 stored each node row twice
/// and needed up to 144.
const MAX_BYTES_PER_SPHERE: f64 = 96.5;

/// `n` spheres from xorshift64: centers uniform in a cube of side 1000, radii in
/// `[0.1, 1)`, materials cycling through the test scene's four.
fn random_spheres(n: usize, material_count: u32) -> Vec<Sphere> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut unit = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..n)
        .map(|i| Sphere {
            center: Vec3::new(unit(), unit(), unit()) * 1000.0,
            radius: 0.1 + 0.9 * unit(),
            material: i as u32 % material_count,
        })
        .collect()
}

#[test]
fn two_hundred_thousand_spheres_fit_the_size_budget_and_load() {
    const N: usize = 200_000;
    let mut scene = common::test_scene(1);
    scene.spheres = random_spheres(N, scene.materials.len() as u32);
    let compiled = compile_scene(&scene, &CompileOptions::default());
    let bytes_per_sphere = compiled.blob.len() as f64 / N as f64;
    eprintln!(
        "{N} spheres: {} bytes, {bytes_per_sphere:.1} bytes/sphere, {} nodes, depth {}",
        compiled.blob.len(),
        compiled.bvh_stats.node_count,
        compiled.bvh_stats.depth
    );
    assert!(
        bytes_per_sphere <= MAX_BYTES_PER_SPHERE,
        "{bytes_per_sphere:.1} bytes per sphere > {MAX_BYTES_PER_SPHERE}"
    );
    let view = BlobView::parse(&compiled.blob).expect("the blob loads");
    assert_eq!(view.records::<Sphere>().len(), N);
    // Inner nodes only: leaves live in their parents' links.
    assert_eq!(view.node_links.len(), compiled.bvh_stats.node_count - compiled.bvh_stats.leaf_count);
    assert!(view.node_links.len() < N);
}
