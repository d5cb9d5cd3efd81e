//! The `renderer` binary, driven as a user would: real files in temp folders,
//! exit codes and messages checked.

use crate::{bin_support, cpu_support};

use std::path::{Path, PathBuf};

use bin_support::{assert_exit, renderer, text};
use cpu_support::mixed_scene_dir;

/// A temp folder holding the mixed test scene as `scene.ron` (small settings) and `scene.blob`.
fn scene_dir() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = mixed_scene_dir(40, 30, 2);
    let (ron, blob) = (dir.path().join("scene.ron"), dir.path().join("scene.blob"));
    (dir, ron, blob)
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
fn gpus_without_a_driver_is_exit_3_and_with_the_cpu_backend_exit_2() {
    let (dir, ron, _) = scene_dir();
    let ron = ron.to_str().unwrap_or_default();
    for command in ["render", "bench"] {
        let out = renderer(&[command, ron, "--gpus", "all", "--backend", "cpu"], dir.path());
        assert_exit(&out, 2);
        assert!(text(&out.stderr).contains("--gpus"), "{}", text(&out.stderr));
        for bad in ["", "0,0", "one"] {
            assert_exit(&renderer(&[command, ron, "--gpus", bad], dir.path()), 2);
        }
    }
    let out = renderer(&["render", ron, "--gpus", "all"], dir.path());
    if out.status.success() {
        eprintln!("a CUDA driver is present here: the no-driver path of --gpus is not exercised");
        return;
    }
    assert_exit(&out, 3);
    let stderr = text(&out.stderr);
    assert!(stderr.contains("--gpus") && stderr.contains("CUDA") && !stderr.contains("panicked"), "{stderr}");
}

#[test]
fn view_and_watch_say_they_render_on_one_gpu() {
    for command in ["view", "watch"] {
        let out = renderer(&[command, "--help"], Path::new("."));
        assert_exit(&out, 0);
        assert!(text(&out.stdout).contains("one GPU"), "{command} --help: {}", text(&out.stdout));
    }
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

#[test]
fn the_output_path_is_checked_before_the_scene_is_even_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    // The scene does not exist either: the output's error comes first, so it was checked first.
    let out = renderer(&["render", "missing.ron", "-o", "no/such/dir/x.png"], dir.path());
    assert_exit(&out, 2);
    let stderr = text(&out.stderr);
    assert!(stderr.contains("the folder `no/such/dir` does not exist"), "{stderr}");
    let out = renderer(&["render", "missing.ron", "-o", "."], dir.path());
    assert_exit(&out, 2);
}

#[test]
fn a_failed_write_keeps_the_previous_image() {
    let (dir, ron, _) = scene_dir();
    let target = dir.path().join("keep.png");
    std::fs::write(&target, b"the previous image").expect("write");
    let mut permissions = std::fs::metadata(&target).expect("meta").permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&target, permissions).expect("chmod");
    let out = renderer(
        &["render", ron.to_str().unwrap_or_default(), "--backend", "cpu", "-o", "keep.png"],
        dir.path(),
    );
    assert_exit(&out, 2);
    assert!(text(&out.stderr).contains("read-only"), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&target).expect("still there"), b"the previous image");
}

#[test]
fn width_or_height_alone_keeps_the_scene_aspect_ratio() {
    let (dir, ron, _) = scene_dir(); // 40x30
    let ron = ron.to_str().unwrap_or_default();
    for (flag, value, expected) in [("--width", "80", (80, 60)), ("--height", "15", (20, 15))] {
        let out = renderer(&["render", ron, "--backend", "cpu", flag, value, "-o", "a.png"], dir.path());
        assert_exit(&out, 0);
        let image = image::open(dir.path().join("a.png")).expect("png");
        assert_eq!((image.width(), image.height()), expected, "{flag} {value}");
    }
}

#[test]
fn the_stages_add_up_to_the_total() {
    let (dir, ron, _) = scene_dir();
    let out = renderer(&["render", ron.to_str().unwrap_or_default(), "--backend", "cpu"], dir.path());
    assert_exit(&out, 0);
    let stdout = text(&out.stdout);
    let millis = |line: &str| -> f64 {
        let value = line.split_whitespace().rev().nth(1).expect("a value before `ms`");
        value.parse().unwrap_or_else(|_| panic!("not a number in {line:?}"))
    };
    let total_line = stdout.lines().find(|l| l.trim_start().starts_with("total")).expect("total line");
    let total: f64 = total_line.split_whitespace().nth(1).expect("value").parse().expect("ms");
    // Top-level stages are indented by two spaces; their parts by four.
    let stages: Vec<&str> = stdout
        .lines()
        .skip_while(|l| *l != "stages")
        .skip(1)
        .filter(|l| !l.starts_with("    ") && l.ends_with(" ms"))
        .collect();
    for name in ["load/parse", "compile", "backend init", "upload", "render", "readback", "encode", "other"] {
        assert!(stages.iter().any(|l| l.trim_start().starts_with(name)), "no `{name}` in:\n{stdout}");
    }
    let sum: f64 = stages.iter().map(|l| millis(l)).sum();
    // Each figure is rounded to 0.01 ms (or 1 ms above 100 ms).
    assert!(
        (sum - total).abs() <= 0.01 * stages.len() as f64 + 1.0,
        "stages sum to {sum} ms, total {total} ms:\n{stdout}"
    );
}

#[test]
fn an_image_given_as_a_blob_is_named_for_what_it_is() {
    let (dir, ron, _) = scene_dir();
    let out = renderer(
        &["render", ron.to_str().unwrap_or_default(), "--backend", "cpu", "-o", "x.png"],
        dir.path(),
    );
    assert_exit(&out, 0);
    std::fs::rename(dir.path().join("x.png"), dir.path().join("x.blob")).expect("rename");
    let out = renderer(&["render", "x.blob", "--backend", "cpu"], dir.path());
    assert_exit(&out, 1);
    let stderr = text(&out.stderr);
    assert!(stderr.contains("not a scene blob: this is a PNG image"), "{stderr}");
}

/// The README's usage block of each command lists exactly the flags its `--help` has.
#[test]
fn readme_usage_matches_help() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md")).expect("README");
    let flags = |text: &str| -> std::collections::BTreeSet<String> {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .filter(|w| w.starts_with("--") && w.len() > 2)
            .map(str::to_owned)
            .collect()
    };
    for command in ["render", "bench", "merge", "view", "watch"] {
        // The usage block: the line `renderer <command> <...` and its indented continuation lines.
        let start = readme
            .lines()
            .position(|l| l.starts_with(&format!("renderer {command} ")) && l.contains('<'))
            .unwrap_or_else(|| panic!("no usage line for `renderer {command}` in the README"));
        let block: Vec<&str> = readme
            .lines()
            .skip(start)
            .enumerate()
            .take_while(|(i, l)| *i == 0 || l.starts_with("   "))
            .map(|(_, l)| l)
            .collect();
        let documented = flags(&block.join("\n"));
        let out = renderer(&[command, "--help"], Path::new("."));
        assert_exit(&out, 0);
        let mut in_help = flags(&text(&out.stdout));
        in_help.remove("--help");
        // Words inside help sentences that are not flags of this command.
        in_help.retain(|f| {
            text(&out.stdout).contains(&format!("  {f}")) || text(&out.stdout).contains(&format!(", {f}"))
        });
        assert_eq!(documented, in_help, "README usage of `renderer {command}` vs its --help");
    }
}
