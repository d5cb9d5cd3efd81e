//! The GPU's AOVs and denoiser against the CPU's (kernels/denoise.cuh is the twin of
//! renderer/src/denoise/filter.rs): the same film sums denoised on both, and the AOVs
//! of one seed rendered on both. Ignored unless asked for, like every GPU test.

use crate::gpu_support::{self, compile, cuda, job, view};
use renderer::backend::cpu::CpuBackend;
use renderer::backend::{Backend, Tonemap};

fn asset(name: &str) -> scene_compiler::Scene {
    let path = gpu_support::repo_root().join("assets/scenes").join(name);
    scene_compiler::scene::load_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Mean and largest of `|a - b| / (|b| + 0.01)` over every channel.
fn relative_differences(a: &[[f32; 4]], b: &[[f32; 4]]) -> (f64, f64) {
    let (mut sum, mut max, mut n) = (0.0f64, 0.0f64, 0usize);
    for (x, y) in a.iter().zip(b) {
        for c in 0..3 {
            let d = f64::from((x[c] - y[c]).abs()) / (f64::from(y[c].abs()) + 0.01);
            sum += d;
            max = max.max(d);
            n += 1;
        }
    }
    (sum / n as f64, max)
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_gpu_denoises_a_film_as_the_cpu_does() {
    for (name, spp) in [("meshes.ron", 4), ("cornell.ron", 2), ("textures.ron", 8)] {
        let scene = asset(name);
        let blob = compile(&scene);
        let v = view(&blob);
        let mut gpu = cuda();
        gpu.upload(&v).expect("upload");
        gpu.render(&job(&v, 160, 90, 1, 0, spp).with_aovs(true)).expect("GPU render with AOVs");
        let ms = gpu.denoise().expect("GPU denoise");
        let on_gpu = gpu.read_denoised_linear().expect("GPU denoised image");
        let sums = gpu.read_sums().expect("GPU sums");
        assert_eq!(sums.aovs.len(), sums.sums.len(), "the sums carry the AOVs");
        let mut cpu = CpuBackend::new();
        cpu.upload(&v).expect("upload");
        cpu.restore_film(&sums).expect("the GPU's film on the CPU");
        cpu.denoise().expect("CPU denoise");
        let on_cpu = cpu.read_denoised_linear().expect("CPU denoised image");
        let (mean, max) = relative_differences(&on_gpu, &on_cpu);
        eprintln!("{name}: GPU denoise {ms:.3} ms; GPU against CPU: mean {mean:.2e}, max {max:.2e}");
        assert!(
            mean < 1e-4 && max < 1e-2,
            "{name}: the GPU's filter differs: mean {mean:.2e}, max {max:.2e}"
        );
        let rgba = gpu.read_denoised_rgba8(Tonemap::STANDARD).expect("RGBA8 of the denoised image");
        assert_eq!(rgba.len(), on_gpu.len() * 4);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_gpu_records_the_aovs_the_cpu_does() {
    let scene = asset("textures.ron");
    let blob = compile(&scene);
    let v = view(&blob);
    let mut gpu = cuda();
    let mut cpu = CpuBackend::new();
    let mut layers = Vec::new();
    for backend in [&mut gpu as &mut dyn Backend, &mut cpu] {
        backend.upload(&v).expect("upload");
        backend.render(&job(&v, 96, 54, 3, 0, 16).with_aovs(true)).expect("render with AOVs");
        layers.push(backend.read_aovs().expect("AOVs"));
    }
    let (g, c) = (&layers[0], &layers[1]);
    // Same seed, same draws: the layers agree but where float rounding flips a path.
    let differ = |a: &[[f32; 3]], b: &[[f32; 3]]| {
        a.iter().zip(b).filter(|(x, y)| (0..3).any(|i| (x[i] - y[i]).abs() > 1e-3)).count()
    };
    let pixels = g.albedo.len();
    let albedo = differ(&g.albedo, &c.albedo);
    let normal = differ(&g.normal, &c.normal);
    let depth =
        g.depth.iter().zip(&c.depth).filter(|(x, y)| (*x - *y).abs() > 1e-3 * y.abs().max(1.0)).count();
    eprintln!("pixels that differ, of {pixels}: albedo {albedo}, normal {normal}, depth {depth}");
    assert!(albedo * 100 < pixels && normal * 100 < pixels && depth * 100 < pixels);
}
