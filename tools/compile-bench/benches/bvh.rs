//! BVH build and vEB reorder times over random spheres (`cargo bench --bench bvh`).
//!
//! The target: 1M spheres built in at most 0.6 s on a 2-core machine.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use scene_compiler::bvh::{self, Aabb, BuildOptions};
use scene_compiler::rng::SplitMix64;

/// Bounds of `n` spheres: centers uniform in a cube of side 1000, radii in `[0.1, 1)`.
fn random_spheres(n: usize) -> Vec<Aabb> {
    let mut rng = SplitMix64(0x5eed);
    (0..n)
        .map(|_| {
            let center = rng.next_vec3() * 1000.0;
            Aabb::of_sphere(center, 0.1 + 0.9 * rng.next_f32())
        })
        .collect()
}

fn bench_build(c: &mut Criterion) {
    let opts = BuildOptions::default();
    let mut group = c.benchmark_group("bvh");
    // Builds of 1M take a good fraction of a second: flat sampling gives each of the
    // 10 samples the same few iterations instead of 1, 2, ..., 10.
    group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(8));
    let large = random_spheres(1_000_000);
    group.bench_function("build 1M spheres", |b| b.iter(|| bvh::build(black_box(&large), &opts)));
    let tree = bvh::build(&large, &opts);
    group.bench_function("veb reorder 1M spheres", |b| b.iter(|| bvh::veb::reorder(black_box(&tree))));
    group.finish();

    let small = random_spheres(10_000);
    c.bench_function("bvh/build 10k spheres", |b| b.iter(|| bvh::build(black_box(&small), &opts)));
}

criterion_group!(benches, bench_build);
criterion_main!(benches);
