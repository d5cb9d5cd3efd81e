//! Injected CUDA faults (`RENDERER_FAULTS`, docs/faults.md) and the device-memory
//! check, on a GPU: every stage's failure is an error naming the GPU and the stage;
//! `render` and `bench` exit 3 with it; with several GPUs a GPU that fails mid-render
//! is named and the others finish its samples; a scene that cannot fit in the free
//! memory (an injected figure) is refused before any upload with both sizes.
//!
//! The CLI tests run the renderer binary: `$RENDERER_REPO_ROOT/bin/renderer` in the
//! bundle (tools/gpu-run.sh), else the one cargo built beside this test.

use crate::gpu_support;

use std::path::PathBuf;
use std::process::{Command, Output};

use gpu_support::{compile, cuda, repo_root, require_driver, rtiow_scene, view};
use renderer::backend::cuda::probe_driver;
use renderer::backend::{Backend, FilmLayers, FilmSize, RenderJob, Tonemap};
use renderer::fault::Faults;
use scene_compiler::scene::RenderSettings;

const SETTINGS: RenderSettings =
    RenderSettings { width: 160, height: 90, spp: 16, max_depth: 16, seed: 5, ..RenderSettings::DEFAULT };

fn plan(text: &str) -> Faults {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e:#}"))
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_injected_fault_names_the_gpu_and_the_stage() {
    let blob = compile(&rtiow_scene());
    let view = view(&blob);
    let job = RenderJob::full_frame(&SETTINGS, &view.camera());
    let mut gpu = cuda();
    let label = gpu.label();
    assert!(label.starts_with("GPU 0 · "), "{label}");

    gpu.set_faults(plan("upload:1"));
    let error = format!("{:#}", gpu.upload(&view).expect_err("upload #1 fails"));
    assert!(error.starts_with(&format!("{label}: uploading the scene: upload #1 failed")), "{error}");
    gpu.upload(&view).expect("the second upload works");

    gpu.set_faults(plan("launch:2"));
    gpu.render(&job.with_samples(0..8)).expect("launch #1");
    let error = format!("{:#}", gpu.render(&job.with_samples(8..16)).expect_err("launch #2 fails"));
    assert!(error.starts_with(&format!("{label}: rendering: launch #2 failed")), "{error}");

    for (read, stage) in [
        (0, "reading the image back"),
        (1, "reading the linear image back"),
        (2, "reading the film's sums back"),
    ] {
        gpu.set_faults(plan("readback:1"));
        gpu.render(&job).expect("render");
        let error = match read {
            0 => gpu.read_rgba8(Tonemap::STANDARD).map(drop),
            1 => gpu.read_linear().map(drop),
            _ => gpu.read_sums().map(drop),
        };
        let error = format!("{:#}", error.expect_err("readback #1 fails"));
        assert!(error.starts_with(&format!("{label}: {stage}: readback #1 failed")), "{error}");
    }
    gpu.set_faults(plan("launch:1@7"));
    gpu.render(&job).expect("a fault for GPU 7 leaves GPU 0 alone");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_memory_check_refuses_what_does_not_fit_with_both_sizes() {
    let blob = compile(&rtiow_scene());
    let view = view(&blob);
    let mut gpu = cuda();
    let film = |width, height, layers| FilmSize { width, height, layers };
    let beauty = |width, height| film(width, height, FilmLayers::Beauty);
    gpu.check_memory(&view, beauty(1920, 1080)).expect("RTIOW at 1080p fits in a real GPU's free memory");
    let (free, total) = gpu.memory_info().expect("cuMemGetInfo");
    assert!(free > 0 && free <= total, "{free} of {total}");

    gpu.set_faults(plan("free-memory:1000"));
    let error = format!("{:#}", gpu.check_memory(&view, beauty(1920, 1080)).expect_err("1000 bytes free"));
    assert!(error.contains(&format!("the scene does not fit on {}", gpu.label())), "{error}");
    assert!(error.contains("1920x1080 film 39.6 MiB") && error.contains("but 1000 B is free"), "{error}");

    // 4 GiB free: a 16384x16384 film (5 GiB) does not fit, 4096x4096 does.
    gpu.set_faults(plan("free-memory:4294967296"));
    assert!(gpu.check_memory(&view, beauty(16_384, 16_384)).is_err());
    gpu.check_memory(&view, beauty(4096, 4096)).expect("fits in 4 GiB");
    // 8192x8192: the image alone (1.3 GiB) fits, with AOVs and the denoiser (8.5 GiB) not.
    gpu.check_memory(&view, beauty(8192, 8192)).expect("fits in 4 GiB");
    let error = gpu.check_memory(&view, film(8192, 8192, FilmLayers::Denoised)).expect_err("8.5 GiB");
    assert!(format!("{error:#}").contains("8192x8192 film 8.5 GiB"), "{error:#}");
}

/// The renderer binary: the bundle's, or cargo's.
fn renderer_bin() -> PathBuf {
    let bundled = repo_root().join("bin/renderer");
    if bundled.exists() {
        return bundled;
    }
    match option_env!("CARGO_BIN_EXE_renderer") {
        Some(path) => PathBuf::from(path),
        None => panic!("no renderer binary: build it (feature `cli`) or run from the bundle"),
    }
}

/// `renderer <args>` on the RTIOW scene at 160x90, 16 spp, with the fault plan `faults`.
fn run(command: &str, extra: &[&str], faults: &str, dir: &std::path::Path) -> Output {
    let scene = repo_root().join("assets/scenes/rtiow_final.ron");
    let scene = scene.to_str().expect("a UTF-8 path");
    let args =
        [&[command, scene, "--backend", "cuda", "--width", "160", "--height", "90", "--spp", "16"], extra]
            .concat();
    let mut cmd = Command::new(renderer_bin());
    cmd.args(&args).current_dir(dir);
    if !faults.is_empty() {
        cmd.env("RENDERER_FAULTS", faults);
    }
    cmd.output().expect("run renderer")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn render_and_bench_exit_3_naming_the_gpu_and_the_stage() {
    require_driver();
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    for (faults, stage) in [
        ("upload:1", "uploading the scene: upload #1 failed"),
        ("batch:4,launch:2", "rendering: launch #2 failed"),
        ("readback:1", "reading the image back: readback #1 failed"),
        ("free-memory:1000", "the scene does not fit on GPU 0"),
    ] {
        let out = run("render", &["-o", "f.png"], faults, dir);
        assert_eq!(out.status.code(), Some(3), "{faults}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("GPU 0 · ") && stderr(&out).contains(stage),
            "{faults}: {}",
            stderr(&out)
        );
        assert!(!dir.join("f.png").exists());
    }
    let out = run("bench", &["--frames", "3", "--warmup", "1"], "launch:3", dir);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("GPU 0 · ") && stderr(&out).contains("launch #3 failed"),
        "{}",
        stderr(&out)
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_checkpointed_gpu_render_resumes_within_the_shard_bound() {
    require_driver();
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    let whole = run("render", &["-o", "whole.exr"], "", dir);
    assert!(whole.status.success(), "{}", stderr(&whole));
    let args = ["-o", "r.exr", "--checkpoint", "r.ckpt.exr"];
    let out = run("render", &args, "batch:2,signal:TERM@7", dir);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let out = run("render", &[&args[..], &["--resume", "r.ckpt.exr"]].concat(), "", dir);
    assert!(out.status.success(), "{}", stderr(&out));
    let read = |name: &str| image::open(dir.join(name)).expect("exr").into_rgba32f().into_raw();
    let (a, b) = (read("r.exr"), read("whole.exr"));
    // One GPU film continued from its own f32 sums: the same additions in the same order.
    let bound = f64::from(16 + 16 + 1) * 2f64.powi(-24);
    for (x, y) in a.iter().zip(&b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        assert!((x - y).abs() <= bound * x.max(y), "{x} vs {y}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn with_several_gpus_a_failing_gpu_is_named_and_the_others_finish() {
    require_driver();
    let count = probe_driver().unwrap_or(0);
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    if count < 2 {
        // One GPU: its failure is the render's.
        let out = run("render", &["--gpus", "all", "-o", "m.png"], "launch:1@0", dir);
        assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
        eprintln!("one GPU here: the failover to other GPUs is not exercised");
        return;
    }
    let whole = run("render", &["--gpus", "0", "-o", "one.exr"], "", dir);
    assert!(whole.status.success(), "{}", stderr(&whole));
    // GPU 1 fails its second launch (a progress batch) or its first read-back.
    for faults in ["batch:4,launch:2@1", "batch:4,readback:1@1"] {
        let out = run("render", &["--gpus", "all", "-o", "m.exr"], faults, dir);
        assert!(out.status.success(), "{faults}: {}", stderr(&out));
        assert!(stderr(&out).contains("warning: GPU 1 · "), "{faults}: {}", stderr(&out));
        assert!(stderr(&out).contains("were rendered on the other GPUs"), "{}", stderr(&out));
        let read = |name: &str| image::open(dir.join(name)).expect("exr").into_rgba32f().into_raw();
        let bound = f64::from(16 + 16 + 1) * 2f64.powi(-24);
        for (x, y) in read("m.exr").iter().zip(&read("one.exr")) {
            let (x, y) = (f64::from(*x), f64::from(*y));
            assert!((x - y).abs() <= bound * x.max(y), "{faults}: {x} vs {y}");
        }
    }
    // Every GPU fails: exit 3, each named.
    let out = run("render", &["--gpus", "all", "-o", "x.png"], "launch:1", dir);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("every device failed"), "{}", stderr(&out));
}
