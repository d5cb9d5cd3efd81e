//! The `renderer` binary, driven as a user would: real files in temp folders,
//! exit codes and messages checked.

mod cpu_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cpu_support::{compile, mixed_scene};

fn renderer(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_renderer")).args(args).current_dir(cwd).output().expect("run renderer")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A temp folder holding the mixed test scene as `scene.ron` (small settings) and `scene.blob`.
fn scene_dir() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut scene = mixed_scene();
    scene.settings.width = 40;
    scene.settings.height = 30;
    scene.settings.spp = 2;
    let ron = dir.path().join("scene.ron");
    std::fs::write(&ron, scene_compiler::scene::to_ron(&scene)).expect("write ron");
    let blob = dir.path().join("scene.blob");
    std::fs::write(&blob, &*compile(&scene)).expect("write blob");
    (dir, ron, blob)
}

fn assert_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

#[test]
fn render_ron_on_the_cpu_writes_a_png_of_the_scene_size_named_after_the_scene() {
    let (dir, ron, _) = scene_dir();
    let out = renderer(&["render", ron.to_str().unwrap_or_default(), "--backend", "cpu"], dir.path());
    assert_exit(&out, 0);
    let image = image::open(dir.path().join("scene.png")).expect("default output scene.png in the cwd");
    assert_eq!((image.width(), image.height()), (40, 30));
    let stdout = text(&out.stdout);
    for needle in [
        "CPU",
        "40x30",
        "2 spp",
        "Msamples/s",
        "Mrays/s",
        "load/parse",
        "BVH build",
        "upload",
        "render",
        "readback",
        "encode",
    ] {
        assert!(stdout.contains(needle), "summary lacks {needle:?}:\n{stdout}");
    }
}

#[test]
fn render_blob_with_flags_and_exr_output() {
    let (dir, _, blob) = scene_dir();
    let out_path = dir.path().join("out.exr");
    let args = [
        "render",
        blob.to_str().unwrap_or_default(),
        "--backend",
        "cpu",
        "-o",
        out_path.to_str().unwrap_or_default(),
    ];
    let out = renderer(
        &[&args[..], &["--width", "24", "--height", "16", "--spp", "3", "--max-depth", "4", "--seed", "9"]]
            .concat(),
        dir.path(),
    );
    assert_exit(&out, 0);
    let image = image::open(&out_path).expect("an EXR").into_rgba32f();
    assert_eq!(image.dimensions(), (24, 16));
    assert!(image.pixels().all(|p| p.0.iter().all(|c| c.is_finite() && *c >= 0.0)));
    assert!(text(&out.stdout).contains("precompiled"), "a blob has no BVH build stage");
}

#[test]
fn png_and_exr_agree_on_the_same_render() {
    let (dir, _, blob) = scene_dir();
    let blob = blob.to_str().unwrap_or_default();
    assert_exit(&renderer(&["render", blob, "--backend", "cpu", "-o", "a.png"], dir.path()), 0);
    assert_exit(&renderer(&["render", blob, "--backend", "cpu", "-o", "a.exr"], dir.path()), 0);
    let png = image::open(dir.path().join("a.png")).expect("png").into_rgba8();
    let exr = image::open(dir.path().join("a.exr")).expect("exr").into_rgba32f();
    for (p, e) in png.pixels().zip(exr.pixels()) {
        for c in 0..3 {
            assert_eq!(p.0[c], (255.99 * e.0[c].sqrt().clamp(0.0, 1.0)) as u8);
        }
    }
}

#[test]
fn a_missing_scene_is_exit_2_naming_the_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    for name in ["nope.ron", "nope.blob"] {
        let out = renderer(&["render", name, "--backend", "cpu"], dir.path());
        assert_exit(&out, 2);
        assert!(text(&out.stderr).contains(name), "stderr does not name {name}: {}", text(&out.stderr));
    }
}

#[test]
fn a_bad_ron_is_exit_1_with_the_compiler_diagnostic() {
    let (dir, ron, _) = scene_dir();
    let source = std::fs::read_to_string(&ron).expect("read ron").replacen("radius: 1.0", "radius: -1.0", 1);
    std::fs::write(&ron, source).expect("write ron");
    let out = renderer(&["render", "scene.ron", "--backend", "cpu"], dir.path());
    assert_exit(&out, 1);
    let stderr = text(&out.stderr);
    assert!(stderr.contains("scene.ron:") && stderr.contains("radius"), "{stderr}");
    assert!(!dir.path().join("scene.png").exists());
}

#[test]
fn a_corrupted_blob_is_exit_1() {
    let (dir, _, blob) = scene_dir();
    let mut bytes = std::fs::read(&blob).expect("read blob");
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&blob, bytes).expect("write blob");
    let out = renderer(&["render", "scene.blob", "--backend", "cpu"], dir.path());
    assert_exit(&out, 1);
    assert!(text(&out.stderr).contains("scene.blob"), "{}", text(&out.stderr));
}

#[test]
fn an_unwritable_output_is_exit_2() {
    let (dir, _, _) = scene_dir();
    let out = renderer(
        &["render", "scene.blob", "--backend", "cpu", "--spp", "1", "-o", "no/such/dir/x.png"],
        dir.path(),
    );
    assert_exit(&out, 2);
    assert!(text(&out.stderr).contains("x.png"), "{}", text(&out.stderr));
}

#[test]
fn an_unknown_output_extension_is_exit_2_before_rendering() {
    let (dir, ron, _) = scene_dir();
    let out = renderer(
        &["render", ron.to_str().unwrap_or_default(), "--backend", "cpu", "-o", "out.jpg"],
        dir.path(),
    );
    assert_exit(&out, 2);
    let stderr = text(&out.stderr);
    assert!(stderr.contains("out.jpg") && stderr.contains(".png"), "{stderr}");
    assert!(text(&out.stdout).is_empty(), "nothing was rendered");
}

#[test]
fn unknown_scene_extension_and_bad_flags_are_exit_2() {
    let (dir, _, _) = scene_dir();
    std::fs::write(dir.path().join("scene.txt"), "hello").expect("write");
    let out = renderer(&["render", "scene.txt"], dir.path());
    assert_exit(&out, 2);
    assert!(text(&out.stderr).contains("scene.txt"));
    assert_exit(&renderer(&["render", "scene.ron", "--spp", "0"], dir.path()), 2);
    assert_exit(&renderer(&["render", "scene.ron", "--backend", "tpu"], dir.path()), 2);
    assert_exit(&renderer(&["paint", "scene.ron"], dir.path()), 2);
}

#[test]
fn backend_cuda_without_a_driver_is_exit_3_with_a_clear_message() {
    let (dir, ron, _) = scene_dir();
    let out = renderer(&["render", ron.to_str().unwrap_or_default(), "--backend", "cuda"], dir.path());
    if out.status.success() {
        eprintln!("a CUDA driver is present here: the no-driver path is not exercised");
        return;
    }
    assert_exit(&out, 3);
    let stderr = text(&out.stderr);
    assert!(stderr.contains("CUDA") && !stderr.contains("panicked"), "{stderr}");
}

#[test]
fn backend_auto_falls_back_to_the_cpu_with_one_line() {
    let (dir, ron, _) = scene_dir();
    let out = renderer(&["render", ron.to_str().unwrap_or_default()], dir.path());
    assert_exit(&out, 0);
    if text(&out.stdout).contains("CPU") {
        let stderr = text(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "one line explains the fallback: {stderr}");
        assert!(stderr.contains("CPU"), "{stderr}");
    }
}

#[test]
fn bench_json_has_every_field() {
    let (dir, ron, _) = scene_dir();
    let args = [
        "bench",
        ron.to_str().unwrap_or_default(),
        "--backend",
        "cpu",
        "--frames",
        "3",
        "--warmup",
        "1",
        "--json",
    ];
    let out = renderer(&args, dir.path());
    assert_exit(&out, 0);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is one JSON object");
    for field in [
        "scene",
        "device",
        "width",
        "height",
        "spp",
        "max_depth",
        "seed",
        "frames",
        "warmup",
        "median_ms",
        "min_ms",
        "max_ms",
        "msamples_per_s",
        "mrays_per_s",
        "samples_per_frame",
        "rays_per_frame",
        "frame_ms",
    ] {
        assert!(report.get(field).is_some(), "no {field} in {report}");
    }
    assert_eq!(report["width"], 40);
    assert_eq!(report["spp"], 2);
    assert_eq!(report["samples_per_frame"], 40 * 30 * 2);
    assert_eq!(report["frame_ms"].as_array().map(Vec::len), Some(3));
    let (min, median, max) =
        (report["min_ms"].as_f64(), report["median_ms"].as_f64(), report["max_ms"].as_f64());
    assert!(min <= median && median <= max, "{report}");
    assert!(report["mrays_per_s"].as_f64().is_some_and(|v| v > 0.0));
}

#[test]
fn bench_text_report() {
    let (dir, _, blob) = scene_dir();
    let out = renderer(
        &["bench", blob.to_str().unwrap_or_default(), "--backend", "cpu", "--frames", "2", "--warmup", "0"],
        dir.path(),
    );
    assert_exit(&out, 0);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("median") && stdout.contains("Mrays/s"), "{stdout}");
}

#[test]
fn help_documents_exit_codes_and_backends() {
    let out = renderer(&["render", "--help"], Path::new("."));
    assert_exit(&out, 0);
    let help = text(&out.stdout);
    for needle in ["Exit codes", "--backend", "--spp", "--kernels", "--output", ".exr", "3  device failure"] {
        assert!(help.contains(needle), "render --help lacks {needle:?}");
    }
}
