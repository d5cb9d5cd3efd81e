//! The `scene-compiler` binary on real files in temp dirs: what it writes, what it
//! prints, and its exit codes (0 success, 1 invalid input, 2 usage or I/O error; 3,
//! device failure, is the renderer's only). Each code it can produce is asserted here.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use scene_compiler::scene;
use tempfile::TempDir;

fn asset(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets").join(rel)
}

/// Runs the binary with `args` and returns its output.
fn run(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scene-compiler"))
        .args(args)
        .output()
        .expect("the scene-compiler binary runs")
}

fn p(s: &str) -> &Path {
    Path::new(s)
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts the exit code, showing both streams when it is wrong.
fn assert_code(out: &Output, code: i32, what: &str) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{what}: exit code\n--- stdout\n{}\n--- stderr\n{}",
        stdout(out),
        stderr(out)
    );
}

/// `build` of `scene` to `dir/<name>` with `extra` flags; returns the blob path.
fn build(dir: &TempDir, scene: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let blob = dir.path().join(name);
    let mut args: Vec<&Path> = vec![p("build"), scene, p("-o"), &blob];
    args.extend(extra.iter().map(|s| p(s)));
    let out = run(&args);
    assert_code(&out, 0, "build");
    assert!(stdout(&out).contains("compiled"), "{}", stdout(&out));
    blob
}

fn inspect_json(blob: &Path) -> serde_json::Value {
    let out = run(&[p("inspect"), p("--json"), blob]);
    assert_code(&out, 0, "inspect --json");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("inspect --json: {e}\n{}", stdout(&out)))
}

#[test]
fn build_writes_the_precompiled_blob_and_verify_and_inspect_accept_it() {
    let dir = TempDir::new().expect("temp dir");
    for stem in ["rtiow_final", "three_spheres", "cornell", "boxes"] {
        let scene_path = asset(&format!("scenes/{stem}.ron"));
        let blob = build(&dir, &scene_path, &format!("{stem}.blob"), &[]);
        let written = std::fs::read(&blob).expect("blob written");
        let golden = std::fs::read(asset(&format!("blobs/{stem}.blob"))).expect("precompiled blob");
        assert!(written == golden, "{stem}: `build` and assets/blobs/{stem}.blob differ");

        let scene = scene::load_file(&scene_path).expect("asset scene loads");
        let (spheres, boxes) = (scene.spheres.len(), scene.boxes.len());
        let out = run(&[p("verify"), &blob]);
        assert_code(&out, 0, "verify");
        let counts = format!("OK ({spheres} spheres, {boxes} boxes, ");
        assert!(stdout(&out).contains(&counts), "verify prints `{counts}`: {}", stdout(&out));

        // Every kind's count, named as its section.
        let json = inspect_json(&blob);
        assert_eq!(json["spheres"].as_u64(), Some(spheres as u64), "{stem}: {json}");
        assert_eq!(json["boxes"].as_u64(), Some(boxes as u64), "{stem}: {json}");
        assert_eq!(json["layout"], "depth-first");
        assert_eq!(json["bytes"].as_u64(), Some(written.len() as u64));
        assert!(json["bvh"]["depth"].as_u64().is_some_and(|d| (1..=64).contains(&d)), "{json}");
    }
}

/// A blob of 16 MB or more is encoded straight into its output file (a mapping of a
/// temporary file beside it, renamed once checked): the same bytes as the library's
/// compile in memory, over a larger blob that was there before, and no file left over.
#[test]
fn a_large_blob_encoded_into_its_file_is_the_compile_in_memory() {
    let dir = TempDir::new().expect("temp dir");
    let spheres: Vec<scene::Sphere> = (0..250_000u32)
        .map(|i| scene::Sphere {
            center: glam::Vec3::new((i % 500) as f32, (i / 500) as f32, (i.wrapping_mul(7919) % 13) as f32),
            radius: 0.3,
            material: 0,
        })
        .collect();
    let ply = scene::write_sphere_file(&spheres, scene::PlyEncoding::BinaryLittleEndian, false);
    std::fs::write(dir.path().join("grid.ply"), ply).expect("sphere file");
    let scene_path = dir.path().join("grid.ron");
    std::fs::write(
        &scene_path,
        r#"Scene(
    camera: (look_from: (250, 250, 900), look_at: (250, 250, 0), vfov_deg: 40),
    materials: { "m": Lambert(albedo: (0.5, 0.5, 0.5)) },
    sphere_files: [(file: "grid.ply", materials: ["m"])],
)"#,
    )
    .expect("scene file");
    let expected = scene_compiler::compile_scene(
        &scene::load_file(&scene_path).expect("the scene loads"),
        &scene_compiler::CompileOptions::default(),
    )
    .blob;
    assert!(expected.len() >= scene_compiler::files::MAPPED_MIN_BYTES, "{} bytes", expected.len());
    let blob = dir.path().join("grid.blob");
    std::fs::write(&blob, vec![7u8; expected.len() + 4096]).expect("an older, larger blob");
    build(&dir, &scene_path, "grid.blob", &[]);
    assert!(std::fs::read(&blob).expect("blob written") == *expected, "the same bytes as in memory");
    assert_eq!(listing(&dir), ["grid.blob", "grid.ply", "grid.ron"], "no temporary file left");
}

/// The names of the files in `dir`, sorted.
fn listing(dir: &TempDir) -> Vec<std::ffi::OsString> {
    let mut names: Vec<_> =
        std::fs::read_dir(dir.path()).expect("list").map(|e| e.expect("entry").file_name()).collect();
    names.sort();
    names
}

#[test]
fn a_corrupted_blob_fails_verify_naming_the_file() {
    let dir = TempDir::new().expect("temp dir");
    let blob = dir.path().join("corrupt.blob");
    let mut bytes = std::fs::read(asset("blobs/three_spheres.blob")).expect("precompiled blob");
    let last = bytes.len() - 20;
    bytes[last] ^= 0x40;
    std::fs::write(&blob, &bytes).expect("write corrupted copy");
    let out = run(&[p("verify"), &blob]);
    assert_code(&out, 1, "verify of a corrupted blob");
    let err = stderr(&out);
    assert!(err.contains(&blob.display().to_string()), "the message names the file: {err}");
    assert!(err.contains("checksum"), "the message says what is wrong: {err}");
    assert!(!stdout(&out).contains("OK"));
}

#[test]
fn missing_files_are_io_errors() {
    let dir = TempDir::new().expect("temp dir");
    let missing_blob = dir.path().join("missing.blob");
    let missing_scene = dir.path().join("missing.ron");
    for args in [
        vec![p("verify"), &missing_blob],
        vec![p("inspect"), &missing_blob],
        vec![p("build"), &missing_scene],
    ] {
        let out = run(&args);
        assert_code(&out, 2, &format!("{args:?}"));
        assert!(stderr(&out).contains("missing."), "names the file: {}", stderr(&out));
    }
}

/// Issue 37: a build that fails writes nothing (no blob, no temporary left beside it)
/// and leaves an older blob at the output path as it was; a successful one replaces it
/// whole. A device as the scene or the blob is an I/O error naming it (a link to
/// /dev/zero aborted on a 16 GB allocation).
#[test]
fn a_failed_build_leaves_no_file_and_devices_are_refused() {
    let dir = TempDir::new().expect("temp dir");
    let bad = dir.path().join("bad.ron");
    std::fs::write(&bad, BAD_SCENE).expect("write");
    let blob = dir.path().join("out.blob");
    let out = run(&[p("build"), &bad, p("-o"), &blob]);
    assert_code(&out, 1, "build of a bad scene");
    assert!(!blob.exists(), "a failed build writes no blob");
    std::fs::write(&blob, b"an older blob").expect("write");
    assert_code(&run(&[p("build"), &bad, p("-o"), &blob]), 1, "build of a bad scene");
    assert_eq!(std::fs::read(&blob).expect("read"), b"an older blob", "the older file is untouched");
    let good = build(&dir, &asset("scenes/point_light.ron"), "out.blob", &[]);
    assert_code(&run(&[p("verify"), &good]), 0, "verify of the replaced blob");
    let names = listing(&dir);
    assert_eq!(names.len(), 2, "no temporary left behind: {names:?}");
    #[cfg(unix)]
    for name in ["zero.ron", "zero.blob"] {
        let link = dir.path().join(name);
        std::os::unix::fs::symlink("/dev/zero", &link).expect("symlink");
        let command = if name.ends_with("ron") { "build" } else { "verify" };
        let out = run(&[p(command), &link]);
        assert_code(&out, 2, name);
        assert!(
            stderr(&out).contains("not a regular file") && stderr(&out).contains(name),
            "{}",
            stderr(&out)
        );
    }
}

/// Two semantic errors, each on its own line: a negative radius and an unknown material.
const BAD_SCENE: &str = r#"Scene(
    camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40),
    materials: {
        "red": Lambert(albedo: (0.8, 0.1, 0.1)),
    },
    spheres: [
        (center: (0, 0, 0), radius: -0.5, material: "red"),
        (center: (2, 0, 0), radius: 1, material: "blue"),
    ],
)
"#;

/// `path:line:col` of the only occurrence of `needle` in `BAD_SCENE`.
fn location(path: &Path, needle: &str) -> String {
    assert_eq!(BAD_SCENE.matches(needle).count(), 1, "`{needle}` occurs once");
    let at = BAD_SCENE.find(needle).unwrap_or(0);
    let line_start = BAD_SCENE[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = BAD_SCENE[..at].matches('\n').count() + 1;
    format!("{}:{line}:{}", path.display(), at - line_start + 1)
}

#[test]
fn a_bad_scene_reports_every_error_with_its_location() {
    let dir = TempDir::new().expect("temp dir");
    let scene_path = dir.path().join("bad.ron");
    std::fs::write(&scene_path, BAD_SCENE).expect("write scene");
    let blob = dir.path().join("bad.blob");
    let out = run(&[p("build"), &scene_path, p("-o"), &blob]);
    assert_code(&out, 1, "build of an invalid scene");
    let err = stderr(&out);
    for needle in ["-0.5", "\"blue\""] {
        let at = location(&scene_path, needle);
        assert!(err.contains(&at), "`{needle}` is reported at {at}:\n{err}");
    }
    assert!(err.contains("radius") && err.contains("blue"), "{err}");
    assert!(!blob.exists(), "no blob is written for an invalid scene");
}

#[test]
fn veb_layout_is_recorded_and_reported() {
    let dir = TempDir::new().expect("temp dir");
    let blob = build(&dir, &asset("scenes/rtiow_final.ron"), "veb.blob", &["--layout", "veb"]);
    let json = inspect_json(&blob);
    assert_eq!(json["layout"], "veb", "{json}");
    assert_eq!(json["spheres"].as_u64(), Some(488));
    let depth_first = inspect_json(&asset("blobs/rtiow_final.blob"));
    assert_eq!(json["nodes"], depth_first["nodes"], "same tree, other order");
    assert_eq!(json["bvh"]["depth"], depth_first["bvh"]["depth"]);
    let out = run(&[p("verify"), &blob]);
    assert_code(&out, 0, "verify of a vEB blob");
}

#[test]
fn out_of_range_flags_are_usage_errors() {
    let dir = TempDir::new().expect("temp dir");
    let blob = dir.path().join("x.blob");
    let scene_path = asset("scenes/three_spheres.ron");
    for flags in [["--bins", "1"], ["--bins", "257"], ["--max-leaf", "0"], ["--layout", "bfs"]] {
        let mut args: Vec<&Path> = vec![p("build"), &scene_path, p("-o"), &blob];
        args.extend(flags.iter().map(|s| p(s)));
        let out = run(&args);
        assert_code(&out, 2, &format!("{flags:?}"));
        assert!(stderr(&out).contains(flags[0]), "names the flag: {}", stderr(&out));
        assert!(!blob.exists(), "{flags:?}: nothing written");
    }
}

#[test]
fn unknown_flags_and_subcommands_are_usage_errors() {
    let scene_path = asset("scenes/three_spheres.ron");
    for args in [
        vec![p("build"), &scene_path, p("--frobnicate")],
        vec![p("--frobnicate")],
        vec![p("verify")],
        vec![p("compile"), &scene_path],
        vec![],
    ] {
        let out = run(&args);
        assert_code(&out, 2, &format!("{args:?}"));
        assert!(stderr(&out).contains("error:"), "{args:?}: says what is wrong: {}", stderr(&out));
    }
}

#[test]
fn help_states_the_exit_codes() {
    for args in [vec![p("--help")], vec![p("build"), p("--help")], vec![p("verify"), p("--help")]] {
        let out = run(&args);
        assert_code(&out, 0, &format!("{args:?}"));
        let help = stdout(&out);
        for line in [
            "0  success",
            "1  invalid input: a scene with errors",
            "2  usage or I/O error",
            "3  device failure: the renderer's only; scene-compiler never exits with it",
        ] {
            assert!(help.contains(line), "{args:?}: no `{line}` in:\n{help}");
        }
    }
}
