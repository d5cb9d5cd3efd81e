//! The CUDA backend on a GPU: renders (against the CPU backend's), determinism, sample
//! splits, the kernel cache, the RNG against the spec, furnace tests, and kernel
//! errors. Every test is ignored unless asked for (`--include-ignored`, as
//! tools/gpu-run.sh does): `cargo test` without a GPU counts them as not run; asked
//! for without a driver, they fail.

use crate::gpu_support;

use glam::Vec3;
use gpu_support::{compile, constant_sky_scene, cuda, job, repo_root, require_driver, rtiow_scene, view};
use renderer::backend::RenderJob;
use renderer::backend::cpu::CpuBackend;
use renderer::backend::cpu::rng::{Rng, pcg_hash};
use renderer::backend::cpu::sampler::{Sampler, Sobol, nested_uniform_scramble, sobol, sobol_sample};
use renderer::backend::cuda::{CudaBackend, KernelOptions, KernelSources};
use renderer::backend::{Backend, Tonemap};
use scene_compiler::scene::{MaterialKind, SamplerKind};

/// At most this fraction of the difference between renders with two seeds may
/// separate the GPU's render from the CPU's with the same seed (vs_cpu.rs measures
/// the same at more samples).
const MAX_SAME_SEED_RATIO: f64 = 0.4;

/// The mean absolute difference over the colour channels of two linear images.
fn mean_abs_diff(a: &[[f32; 4]], b: &[[f32; 4]]) -> f64 {
    assert_eq!(a.len(), b.len());
    let sum: f64 = a.iter().zip(b).flat_map(|(p, q)| (0..3).map(|c| f64::from((p[c] - q[c]).abs()))).sum();
    sum / (3 * a.len()) as f64
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn rtiow_renders_deterministically_and_in_parts() {
    let mut gpu = cuda();
    println!("{}", gpu.device_name());
    for r in gpu.kernel_resources().expect("kernel resources") {
        println!("{r:?}");
    }
    println!("{}", gpu.compile_log());
    let blob = compile(&rtiow_scene());
    let blob = view(&blob);
    gpu.upload(&blob).expect("upload");
    let (w, h) = (160, 90);

    let stats = gpu.render(&job(&blob, w, h, 7, 0, 8)).expect("render");
    assert_eq!(stats.samples, u64::from(w * h * 8));
    assert!(stats.rays >= stats.samples, "every sample traces at least one ray: {stats:?}");
    let whole = gpu.read_linear().expect("read_linear");
    assert_eq!(whole.len(), (w * h) as usize);
    let mean: f32 = whole.iter().map(|p| p[0] + p[1] + p[2]).sum::<f32>() / (3 * w * h) as f32;
    assert!(mean > 0.2 && mean < 1.0, "implausible mean {mean}");

    // The CPU backend draws the same random numbers for the same job, so its image
    // differs from the GPU's only where float rounding sent a path elsewhere: by far
    // less than a render with another seed differs (a wrong pixel, sample or draw
    // order differs by all of it).
    let on_cpu = |seed| {
        let mut cpu = CpuBackend::new();
        cpu.upload(&blob).expect("CPU upload");
        cpu.render(&job(&blob, w, h, seed, 0, 8)).expect("CPU render");
        cpu.read_linear().expect("CPU readback")
    };
    let cpu = on_cpu(7);
    let (same_seed, noise) = (mean_abs_diff(&whole, &cpu), mean_abs_diff(&cpu, &on_cpu(8)));
    println!("mean |GPU - CPU| {same_seed:.5}, between seeds {noise:.5}");
    assert!(same_seed <= MAX_SAME_SEED_RATIO * noise, "GPU vs CPU {same_seed}, seed 7 vs 8 {noise}");

    gpu.render(&job(&blob, w, h, 7, 0, 8)).expect("render again");
    assert_eq!(gpu.read_linear().unwrap(), whole, "the same job gives the same bits");

    gpu.render(&job(&blob, w, h, 7, 0, 3)).expect("first part");
    gpu.render(&job(&blob, w, h, 7, 3, 5)).expect("second part");
    let parts = gpu.read_linear().unwrap();
    for (a, b) in whole.iter().zip(&parts) {
        for c in 0..3 {
            assert!((a[c] - b[c]).abs() <= 1e-5 * a[c].max(1.0), "3 + 5 samples differ from 8: {a:?} {b:?}");
        }
    }
    assert!(gpu.render(&job(&blob, w, h, 7, 4, 1)).is_err(), "sample 4 does not continue a film of 8");

    let rgba = gpu.read_rgba8(Tonemap::STANDARD).expect("read_rgba8");
    assert_eq!(rgba.len(), (w * h * 4) as usize);
    for (p, px) in parts.iter().zip(rgba.chunks_exact(4)) {
        assert_eq!(px[3], 255);
        for c in 0..3 {
            let expected = (255.99 * p[c].sqrt().clamp(0.0, 1.0)) as i32;
            assert!((i32::from(px[c]) - expected).abs() <= 1, "tonemap {} vs {expected}", px[c]);
        }
    }
}

/// A kernel reload rebuilds the device nodes of the loaded scene for the new module:
/// the same job renders the same bits before and after.
#[test]
#[ignore = "needs a CUDA GPU"]
fn kernel_reload_keeps_the_loaded_scene_rendering() {
    let mut gpu = cuda();
    let blob = compile(&rtiow_scene());
    let blob = view(&blob);
    gpu.upload(&blob).expect("upload");
    gpu.render(&job(&blob, 64, 36, 3, 0, 4)).expect("render");
    let before = gpu.read_linear().expect("read_linear");
    gpu.reload_kernels(&repo_root().join("kernels")).expect("reload the kernels");
    gpu.render(&job(&blob, 64, 36, 3, 0, 4)).expect("render after the reload");
    assert_eq!(gpu.read_linear().unwrap(), before);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn device_rng_is_the_spec_rng() {
    let mut gpu = cuda();
    let inputs: Vec<[u32; 4]> =
        [(0, 0, 0), (1, 0, 0), (12345, 7, 42), (u32::MAX, 1023, 99), (640 * 360, 29, 1)]
            .iter()
            .map(|&(pixel, sample, seed)| [pixel, sample, seed, 0])
            .collect();
    let outputs = gpu.probe_rng(&inputs).expect("rng_probe");
    // docs/path-tracing.md by hand: pcg_hash(0).
    assert_eq!(outputs[0][0], 129_708_002);
    for (input, output) in inputs.iter().zip(&outputs) {
        let [pixel, sample, seed, _] = *input;
        let mut rng = Rng::new(pixel, sample, seed);
        let state = pcg_hash(pixel ^ pcg_hash(sample ^ pcg_hash(seed)));
        let expected = [pcg_hash(pixel), state, rng.next_u32(), rng.next_f32().to_bits()];
        assert_eq!(*output, expected, "input {input:?}");
    }
}

/// The device Sobol sampler is the CPU's (`backend::cpu::sampler`) bit for bit: the
/// scrambled sample, the unscrambled point, the index shuffle and the float drawn, at
/// values pinned by the CPU tests (tests/cpu/sobol.rs) and across dimensions and indices.
#[test]
#[ignore = "needs a CUDA GPU"]
fn device_sobol_is_the_cpu_sobol() {
    let mut gpu = cuda();
    let mut inputs: Vec<[u32; 4]> = [(0, 0, 0), (0, 1, 0), (12_345, 7, 42), (921_599, 29, 3)]
        .iter()
        .map(|&(i, d, s)| [i, d, s, 0])
        .collect();
    for index in [1u32, 2, 3, 15, 16, 255, 1 << 20, u32::MAX] {
        for dim in [0u32, 1, 2, 3, 4, 7, 12, 403] {
            inputs.push([index, dim, pcg_hash(index ^ dim), 0]);
        }
    }
    let outputs = gpu.probe_sobol(&inputs).expect("sobol_probe");
    assert_eq!(
        outputs[..4].iter().map(|o| o[0]).collect::<Vec<_>>(),
        [81_127_995, 3_637_146_668, 2_569_575_830, 3_892_426_164],
        "the values tests/cpu/sobol.rs pins"
    );
    for (input, output) in inputs.iter().zip(&outputs) {
        let [index, dim, seed, _] = *input;
        let value = sobol_sample(index, dim, seed);
        let drawn = Sobol { pixel_seed: seed, index }.get(dim);
        let expected =
            [value, sobol(index, dim as usize % 4), nested_uniform_scramble(index, seed), drawn.to_bits()];
        assert_eq!(*output, expected, "input {input:?}");
    }
}

/// A Sobol job renders with the Sobol module and agrees with the CPU's Sobol render (the
/// same points): the module switch per job, and the twins of the sampler.
#[test]
#[ignore = "needs a CUDA GPU"]
fn sobol_job_matches_the_cpu() {
    let mut gpu = cuda();
    let blob = compile(&rtiow_scene());
    let blob = view(&blob);
    gpu.upload(&blob).expect("upload");
    let (w, h) = (160, 90);
    let sobol = |seed| job(&blob, w, h, seed, 0, 8).with_sampler(SamplerKind::Sobol);
    gpu.render(&sobol(7)).expect("Sobol render");
    let on_gpu = gpu.read_linear().expect("read_linear");
    let on_cpu = |job: RenderJob| {
        let mut cpu = CpuBackend::new();
        cpu.upload(&blob).expect("CPU upload");
        cpu.render(&job).expect("CPU render");
        cpu.read_linear().expect("CPU readback")
    };
    let cpu = on_cpu(sobol(7));
    let (same_seed, noise) = (mean_abs_diff(&on_gpu, &cpu), mean_abs_diff(&cpu, &on_cpu(sobol(8))));
    println!("Sobol: mean |GPU - CPU| {same_seed:.5}, between seeds {noise:.5}");
    assert!(same_seed <= MAX_SAME_SEED_RATIO * noise, "GPU vs CPU {same_seed}, seed 7 vs 8 {noise}");
    // Back to the independent sampler: its module again, its image unchanged.
    gpu.render(&job(&blob, w, h, 7, 0, 8)).expect("independent render");
    let independent = gpu.read_linear().expect("read_linear");
    assert_ne!(independent, on_gpu);
    gpu.render(&sobol(7)).expect("Sobol again");
    assert_eq!(gpu.read_linear().unwrap(), on_gpu, "the same Sobol job gives the same bits");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn white_furnace_returns_the_sky() {
    let mut gpu = cuda();
    // Albedo 1 everywhere under a sky of radiance 1: every path carries exactly 1.
    let scene = constant_sky_scene(
        &[
            MaterialKind::Lambert { albedo: Vec3::ONE },
            MaterialKind::Metal { albedo: Vec3::ONE, fuzz: 0.0 },
            MaterialKind::Dielectric { ior: 1.5 },
        ],
        &[
            (Vec3::new(-1.2, 0.0, 0.0), 0.55, 0),
            (Vec3::new(0.0, 0.0, 0.0), 0.55, 1),
            (Vec3::new(1.2, 0.0, 0.0), 0.55, 2),
            (Vec3::new(0.0, 1.1, -0.5), 0.5, 0),
        ],
    );
    let blob = compile(&scene);
    let blob = view(&blob);
    gpu.upload(&blob).expect("upload");
    gpu.render(&job(&blob, 64, 64, 3, 0, 64)).expect("render");
    let image = gpu.read_linear().unwrap();
    let mut sum = 0.0f64;
    for p in &image {
        for &c in &p[..3] {
            // A path cut off at max depth loses its 1: rare, and only ever downwards.
            assert!((0.95..=1.0 + 1e-5).contains(&c), "furnace pixel {p:?}");
            sum += f64::from(c);
        }
    }
    let mean = sum / (3 * image.len()) as f64;
    assert!(mean > 0.999, "furnace mean {mean}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn grey_sphere_reflects_its_albedo() {
    let mut gpu = cuda();
    let scene =
        constant_sky_scene(&[MaterialKind::Lambert { albedo: Vec3::splat(0.5) }], &[(Vec3::ZERO, 1.0, 0)]);
    let blob = compile(&scene);
    let blob = view(&blob);
    gpu.upload(&blob).expect("upload");
    let frame = job(&blob, 33, 33, 5, 0, 16);
    gpu.render(&frame).expect("render");
    let image = gpu.read_linear().unwrap();
    let mut cpu = CpuBackend::new();
    cpu.upload(&blob).expect("cpu upload");
    cpu.render(&frame).expect("cpu render");
    let reference = cpu.read_linear().unwrap();
    // One diffuse bounce off a convex sphere, then Russian roulette with q = 0.5 keeps
    // the sample (weight 2 x 0.5 = 1) or drops it: each sample is 0 or 1. The GPU
    // draws the same random numbers as the CPU, so the centre pixel is the same count
    // of surviving samples out of 16 on both.
    let centre = image[16 * 33 + 16];
    assert_eq!(centre[..3], reference[16 * 33 + 16][..3], "centre pixel, GPU vs CPU");
    assert!(centre[0] > 0.0 && centre[0] < 1.0 && (centre[0] * 16.0).fract() == 0.0, "{centre:?}");
    assert_eq!(image[0][..3], [1.0, 1.0, 1.0], "corner pixel sees the sky");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn second_start_takes_kernels_from_the_cache() {
    require_driver();
    let cache = tempfile::tempdir().unwrap();
    let options = KernelOptions { cache_dir: Some(cache.path().to_path_buf()), ..KernelOptions::default() };
    let first = CudaBackend::with_options(None, options.clone()).expect("first start");
    let second = CudaBackend::with_options(None, options).expect("second start");
    let (a, b) = (first.kernel_compile().unwrap(), second.kernel_compile().unwrap());
    println!("compiled in {:?}, then loaded from the cache in {:?}", a.time, b.time);
    assert!(!a.cached && b.cached, "{a:?} {b:?}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn broken_kernel_folder_is_an_error_at_file_and_line() {
    require_driver();
    let dir = tempfile::tempdir().unwrap();
    let mut broken_line = 0;
    for file in KernelSources::embedded().files {
        let mut lines: Vec<&str> = file.text.lines().collect();
        if file.name == "traverse.cuh" {
            // A stray brace right after `#pragma once`.
            broken_line = lines.iter().position(|l| l.starts_with("#pragma once")).unwrap() + 2;
            lines.insert(broken_line - 1, "}");
        }
        std::fs::write(dir.path().join(&file.name), lines.join("\n")).unwrap();
    }
    let options = KernelOptions { cache_dir: None, ..KernelOptions::default() };
    let error = match CudaBackend::with_options(Some(dir.path()), options) {
        Ok(_) => panic!("a kernel with a stray brace compiled"),
        Err(e) => format!("{e:#}"),
    };
    let location = format!("{}:{broken_line}: error", dir.path().join("traverse.cuh").display());
    assert!(error.contains(&location), "expected `{location}` in:\n{error}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn closed_sphere_with_the_lamp_outside_is_exactly_black_on_the_gpu() {
    let mut gpu = cuda();
    let wall = MaterialKind::Lambert { albedo: Vec3::splat(0.75) };
    let lamp = MaterialKind::Emissive { color: Vec3::ONE, strength: 10.0, albedo: Vec3::ZERO };
    for (center, radius) in
        [(Vec3::ZERO, 1.0f32), (Vec3::ZERO, 1e5), (Vec3::ZERO, 1e6), (Vec3::new(1e4, 0.0, 0.0), 1.0)]
    {
        let mut scene = constant_sky_scene(
            &[wall, lamp],
            &[(center, radius, 0), (center + Vec3::new(0.0, 3.0 * radius, 0.0), radius / 2.0, 1)],
        );
        scene.camera.look_from = center;
        scene.camera.look_at = center + Vec3::new(0.3, -0.2, -1.0) * radius;
        scene.camera.vfov_deg = 70.0;
        let blob = compile(&scene);
        let blob = view(&blob);
        gpu.upload(&blob).expect("upload");
        for nee in [true, false] {
            gpu.render(&job(&blob, 64, 48, 3, 0, 64).with_nee(nee)).expect("render");
            let image = gpu.read_linear().unwrap();
            let lit = image.iter().filter(|p| p[..3].iter().any(|&c| c != 0.0)).count();
            assert_eq!(
                lit, 0,
                "r = {radius} at {center}, nee {nee}: {lit} pixels see light through the wall"
            );
        }
    }
}

/// Issue 35's save-to-frame on the GPU: instances moved in place
/// (`scene_compiler::moves`) reach the device as an update that copies the edited bytes
/// and repacks the nodes they touch. Two moves in a row render bit for bit what the
/// moved blob uploaded whole renders; an update for a blob the GPU does not hold (here
/// another scene) uploads it whole.
#[test]
#[ignore = "needs a CUDA GPU"]
fn moved_instances_sent_as_an_update_render_as_a_full_upload() {
    use scene_compiler::compile_scene;
    use scene_compiler::moves::move_instances;
    let grid = instanced_grid();
    let mut compiled = compile_scene(&grid, &scene_compiler::CompileOptions::default());
    let (w, h) = (96, 64);
    let mut gpu = cuda();
    gpu.upload(&view(&compiled.blob)).expect("upload");
    let mut index = None;
    let mut before = grid.clone();
    for (k, by) in [(9, Vec3::new(0.5, 0.0, 0.7)), (50, Vec3::new(-0.4, -0.2, 0.0))] {
        let mut after = before.clone();
        after.meshes[0].instances[k].transform.translate += by;
        let edit = move_instances(compiled.in_place(&before, &mut index), &after).expect("a move in place");
        gpu.update(&view(&compiled.blob), &edit).expect("update");
        before = after;
        let job = job(&view(&compiled.blob), w, h, 3, 0, 4);
        gpu.render(&job).expect("render after the update");
        let updated = gpu.read_linear().expect("read");
        let mut whole = cuda();
        whole.upload(&view(&compiled.blob)).expect("upload whole");
        whole.render(&job).expect("render after a full upload");
        assert!(updated == whole.read_linear().expect("read"), "move {k}: the same image");

        let mut other = cuda();
        other.upload(&view(&compile(&rtiow_scene()))).expect("another scene");
        other.update(&view(&compiled.blob), &edit).expect("an update it cannot apply");
        other.render(&job).expect("render after the fallback");
        assert!(updated == other.read_linear().expect("read"), "move {k}: the fallback uploads it whole");
    }
}

/// The compact nodes (kernels/device_nodes.cuh; the `compact_nodes` feature of scenes
/// with big meshes, forced here with `PT_COMPACT_NODES=1` on a small one) walk the same
/// tree as the mirrored ones and compute the same plane distances: the same image, bit
/// for bit, through a world of spheres and instances of a mesh, and after a move in
/// place (which repacks the nodes it touched, 64 bytes each).
#[test]
#[ignore = "needs a CUDA GPU"]
fn compact_nodes_render_what_mirrored_nodes_render() {
    use scene_compiler::compile_scene;
    use scene_compiler::moves::move_instances;
    require_driver();
    let options =
        KernelOptions { defines: vec!["PT_COMPACT_NODES=1".to_owned()], ..KernelOptions::default() };
    let mut compact = CudaBackend::with_options(None, options).expect("the backend with compact nodes");
    let mut mirrored = cuda();
    let grid = instanced_grid();
    let mut compiled = compile_scene(&grid, &scene_compiler::CompileOptions::default());
    let render = |blob: &scene_compiler::BlobView<'_>, gpu: &mut CudaBackend| {
        gpu.render(&job(blob, 96, 64, 5, 0, 8)).expect("render");
        gpu.read_linear().expect("read")
    };
    for gpu in [&mut compact, &mut mirrored] {
        gpu.upload(&view(&compiled.blob)).expect("upload");
    }
    let image = render(&view(&compiled.blob), &mut compact);
    assert!(image.iter().any(|p| p[0] != image[0][0]), "the image shows the scene");
    assert!(image == render(&view(&compiled.blob), &mut mirrored), "the same image before the move");

    let mut after = grid.clone();
    after.meshes[0].instances[9].transform.translate += Vec3::new(0.5, 0.0, 0.7);
    let edit = move_instances(compiled.in_place(&grid, &mut None), &after).expect("a move in place");
    for gpu in [&mut compact, &mut mirrored] {
        gpu.update(&view(&compiled.blob), &edit).expect("update");
    }
    let moved = render(&view(&compiled.blob), &mut compact);
    assert!(moved != image, "the move shows");
    assert!(moved == render(&view(&compiled.blob), &mut mirrored), "the same image after the move");
}

/// 64 instances of an icosphere, turned and in rows, on a ground sphere: both levels
/// of the walk.
fn instanced_grid() -> scene_compiler::scene::Scene {
    use scene_compiler::procedural::icosphere;
    use scene_compiler::scene::{Mesh, MeshData, PlacedInstance, Sky, Transform};
    use scene_compiler::testing::{pinhole, scene};
    use std::sync::Arc;
    let camera = pinhole(Vec3::new(-4.0, 5.0, -4.0), Vec3::new(8.0, 0.0, 8.0), 50.0);
    let materials = [
        MaterialKind::Lambert { albedo: Vec3::splat(0.5) },
        MaterialKind::Lambert { albedo: Vec3::new(0.7, 0.4, 0.2) },
    ];
    let sky = Sky::Gradient { bottom: Vec3::ONE, top: Vec3::new(0.5, 0.7, 1.0) };
    let mut grid = scene(camera, sky, &materials, &[(Vec3::new(0.0, -1000.0, 0.0), 1000.0, 0)]);
    let ico = icosphere(2, 1.0);
    let data = MeshData {
        path: "ico.ply".into(),
        positions: ico.positions.clone(),
        triangles: ico.triangles.clone(),
        ..MeshData::default()
    };
    let placed = |i: usize| PlacedInstance {
        transform: Transform {
            translate: Vec3::new(2.0 * (i % 8) as f32, 0.6, 2.0 * (i / 8) as f32),
            rotate_deg: Vec3::new(0.0, 11.0 * i as f32, 0.0),
            scale: Vec3::splat(0.6),
        },
        material: None,
    };
    grid.meshes = vec![Mesh {
        file: "ico.ply".into(),
        material: Some(1),
        instances: (0..64).map(placed).collect(),
        data: Arc::new(data),
        ..Mesh::default()
    }];
    grid
}
