//! Compile-time benchmarks: the 488-sphere RTIOW scene end to end (parse + BVH +
//! blob; target <= 2 ms on the 2-core dev machine), and the blob loader.

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use scene_compiler::{BlobView, CompileOptions, compile_scene, scene};

fn rtiow_source() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/rtiow_final.ron");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn compile(c: &mut Criterion) {
    let source = rtiow_source();
    let options = CompileOptions::default();
    c.bench_function("rtiow_488/parse", |b| b.iter(|| scene::parse(&source, "rtiow_final.ron").unwrap()));
    let parsed = scene::parse(&source, "rtiow_final.ron").unwrap();
    c.bench_function("rtiow_488/bvh+blob", |b| b.iter(|| compile_scene(&parsed, &options)));
    c.bench_function("rtiow_488/parse+bvh+blob", |b| {
        b.iter(|| compile_scene(&scene::parse(&source, "rtiow_final.ron").unwrap(), &options))
    });
    let compiled = compile_scene(&parsed, &options);
    c.bench_function("rtiow_488/load+validate", |b| b.iter(|| BlobView::parse(&compiled.blob).unwrap().spheres.len()));
}

criterion_group!(benches, compile);
criterion_main!(benches);
