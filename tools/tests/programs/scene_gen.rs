//! scene-gen from a clean checkout: the RTIOW generator reads only the repository's
//! own data (assets/data) and reproduces the committed benchmark scene byte for byte;
//! the city generator writes a heightmap and a scene that load, merge and compile, and
//! reproduces the committed city.

use std::path::Path;
use std::process::Command;

fn repo_root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

#[test]
fn rtiow_from_the_repository_data_is_the_committed_scene() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("rtiow.ron");
    let run = Command::new(env!("CARGO_BIN_EXE_scene-gen"))
        .current_dir(repo_root())
        .args(["rtiow", "-o"])
        .arg(&output)
        .output()
        .expect("scene-gen runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let generated = std::fs::read_to_string(&output).unwrap();
    let committed = std::fs::read_to_string(repo_root().join("assets/scenes/rtiow_final.ron")).unwrap();
    assert!(generated == committed, "scene-gen rtiow no longer writes assets/scenes/rtiow_final.ron");
}

#[test]
fn a_missing_csv_is_an_error_naming_the_file() {
    let run = Command::new(env!("CARGO_BIN_EXE_scene-gen"))
        .args(["rtiow", "--csv", "no/such.csv", "-o", "/dev/null"])
        .output()
        .expect("scene-gen runs");
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("no/such.csv"), "{stderr}");
}

/// Runs `scene-gen terrain` with `args`, writing the scene to `output`.
fn terrain(args: &[&str], output: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_scene-gen"))
        .arg("terrain")
        .args(args)
        .arg("-o")
        .arg(output)
        .output()
        .expect("scene-gen runs")
}

/// The scene `scene-gen terrain` wrote at `ron`, parsed as the renderer would.
fn load(ron: &Path) -> scene_compiler::Scene {
    scene_compiler::scene::load_file(ron).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn terrain_writes_a_city_that_loads_and_merges() {
    let dir = tempfile::tempdir().unwrap();
    let ron = dir.path().join("city.ron");
    let run = terrain(&["--size", "64", "--seed", "3"], &ron);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.contains("city.png") && stdout.contains("raised pixels"), "{stdout}");

    // The PNG: next to the scene, named after it, 8-bit gray.
    let png = dir.path().join("city.png");
    let image = image::open(&png).unwrap();
    assert!(matches!(image, image::DynamicImage::ImageLuma8(_)), "{:?}", image.color());
    let pixels = image.into_luma8();
    assert_eq!(pixels.dimensions(), (64, 64));
    let values = pixels.into_raw();
    assert!(values.contains(&1), "no streets");
    assert!(values.iter().any(|&v| v >= 4), "no buildings");
    assert!(values.iter().all(|&v| (1..=125).contains(&v)), "a value out of range");

    // The scene names the PNG without a folder and reads it.
    let text = std::fs::read_to_string(&ron).unwrap();
    assert!(text.contains("image: \"city.png\""), "{text}");
    let scene = load(&ron);
    assert_eq!(scene.terrains.len(), 1);
    let heights = &scene.terrains[0].heights;
    assert_eq!((heights.width, heights.depth), (64, 64));
    assert_eq!(heights.values, values.iter().map(|&v| u16::from(v)).collect::<Vec<_>>());
    assert_eq!(scene.terrains[0].origin, glam::Vec3::new(-32.0, 0.0, -32.0));

    // Lots and streets are rectangles of one value: merging leaves a few boxes.
    let raised = heights.raised();
    assert_eq!(raised, 64 * 64, "the streets close the ground");
    let boxes = scene_compiler::terrain::columns(&scene.terrains[0]).len();
    assert!(boxes * 10 < raised, "{boxes} boxes from {raised} columns");
    let compiled = scene_compiler::compile_scene(&scene, &Default::default());
    scene_compiler::BlobView::parse(&compiled.blob).expect("the loader accepts the blob");

    // The same seed again: the same bytes; another seed: another city.
    let again = dir.path().join("again.ron");
    assert!(terrain(&["--size", "64", "--seed", "3"], &again).status.success());
    assert_eq!(std::fs::read(dir.path().join("again.png")).unwrap(), std::fs::read(&png).unwrap());
    assert_eq!(std::fs::read_to_string(&again).unwrap().replace("again.png", "city.png"), text);
    let other = dir.path().join("other.ron");
    assert!(terrain(&["--size", "64", "--seed", "4"], &other).status.success());
    assert_ne!(load(&other).terrains[0].heights.values, heights.values);
}

#[test]
fn terrain_of_one_pixel() {
    let dir = tempfile::tempdir().unwrap();
    let ron = dir.path().join("one.ron");
    let run = terrain(&["--size", "1"], &ron);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let scene = load(&ron);
    assert_eq!(scene.terrains[0].heights.values, vec![1]);
    let compiled = scene_compiler::compile_scene(&scene, &Default::default());
    scene_compiler::BlobView::parse(&compiled.blob).expect("the loader accepts the blob");
}

#[test]
fn terrain_sizes_out_of_range_and_unwritable_outputs_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    for (args, expect) in [
        (&["--size", "0"][..], "at least 1"),
        (&["--size", "16385"][..], "too large"),
        (&["--size", "8"][..], "no/such/folder/city.png"),
    ] {
        let output = if expect.starts_with("no/") {
            dir.path().join("no/such/folder/city.ron")
        } else {
            dir.path().join("x.ron")
        };
        let run = terrain(args, &output);
        assert!(!run.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(stderr.contains(expect), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn terrain_512_seed_1_is_the_committed_city() {
    let dir = tempfile::tempdir().unwrap();
    let ron = dir.path().join("city.ron");
    let run = terrain(&["--size", "512", "--seed", "1"], &ron);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let committed = repo_root().join("assets/scenes");
    assert!(
        std::fs::read(&ron).unwrap() == std::fs::read(committed.join("city.ron")).unwrap(),
        "scene-gen terrain --size 512 --seed 1 no longer writes assets/scenes/city.ron"
    );
    assert!(
        std::fs::read(dir.path().join("city.png")).unwrap()
            == std::fs::read(committed.join("city.png")).unwrap(),
        "scene-gen terrain --size 512 --seed 1 no longer writes assets/scenes/city.png"
    );
}

/// `scene-gen sky` writes EXR and HDR images that load as an environment (a sun far
/// brighter than the sky above a darker ground), reproduces the committed example
/// sky, and refuses an unknown extension.
#[test]
fn sky_writes_images_that_load_as_an_environment_and_the_committed_sky() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["sky.exr", "sky.hdr"] {
        let run = Command::new(env!("CARGO_BIN_EXE_scene-gen"))
            .args(["sky", "--width", "64", "-o"])
            .arg(dir.path().join(name))
            .output()
            .expect("scene-gen runs");
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let text = format!(
            "Scene(camera: (look_from: (0, 1, 5), look_at: (0, 0, 0), vfov_deg: 40), \
             materials: {{ \"m\": Lambert(albedo: (0.5, 0.5, 0.5)) }}, \
             spheres: [(center: (0, 0, 0), radius: 1, material: \"m\")], sky: Environment(image: \"{name}\"))"
        );
        let origin = dir.path().join("scene.ron").display().to_string();
        let scene = scene_compiler::scene::parse(&text, &origin).unwrap_or_else(|e| panic!("{e}"));
        let scene_compiler::scene::Sky::Environment(env) = &scene.sky else { panic!("not an environment") };
        assert_eq!((env.data.width, env.data.height), (64, 32));
        let brightest = env.data.texels.iter().map(|t| t[0]).fold(0.0f32, f32::max);
        let top = env.data.texels[0][2];
        let bottom = env.data.texels[env.data.texels.len() - 1][0];
        assert!(brightest > 10.0 * top && top > bottom, "sun {brightest}, zenith {top}, ground {bottom}");
    }
    let committed = repo_root().join("assets/scenes/skies/late_afternoon.hdr");
    let output = dir.path().join("late_afternoon.hdr");
    let run = Command::new(env!("CARGO_BIN_EXE_scene-gen"))
        .args(["sky", "--width", "128", "-o"])
        .arg(&output)
        .output()
        .expect("scene-gen runs");
    assert!(run.status.success());
    assert!(std::fs::read(&output).unwrap() == std::fs::read(committed).unwrap(), "not the committed sky");
    let run = Command::new(env!("CARGO_BIN_EXE_scene-gen"))
        .args(["sky", "-o"])
        .arg(dir.path().join("sky.png"))
        .output()
        .expect("scene-gen runs");
    assert!(!run.status.success());
    assert!(String::from_utf8_lossy(&run.stderr).contains(".exr or .hdr"));
}

/// Runs `scene-gen grid` with `args`, writing the scene to `output`.
fn grid(args: &[&str], output: &Path) {
    let run = Command::new(env!("CARGO_BIN_EXE_scene-gen"))
        .arg("grid")
        .args(args)
        .arg("-o")
        .arg(output)
        .output()
        .expect("scene-gen runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
}

/// `grid --ply` writes the same spheres as a PLY point list beside a small scene that
/// names it: the two forms compile to the same blob, byte for byte.
#[test]
fn grid_as_a_ply_point_list_compiles_to_the_blob_of_the_ron_form() {
    use scene_compiler::{CompileOptions, compile_scene};
    let dir = tempfile::tempdir().unwrap();
    let (ron, ply_scene) = (dir.path().join("grid.ron"), dir.path().join("points.ron"));
    grid(&["--count", "5000", "--seed", "3"], &ron);
    grid(&["--count", "5000", "--seed", "3", "--ply"], &ply_scene);

    let text = std::fs::read_to_string(&ply_scene).unwrap();
    assert!(
        text.contains(
            r#"sphere_files: [
        (file: "points.ply", materials: ["matte_red", "matte_white", "gold", "mirror", "glass"]),"#
        ),
        "{text}"
    );
    assert!(!text.contains("center:"), "no sphere written in the RON:\n{text}");
    let ply = std::fs::read(dir.path().join("points.ply")).unwrap();
    assert!(ply.starts_with(b"ply\nformat binary_little_endian 1.0\n"));
    assert!(ply.len() < 5000 * 18 + 512, "{} bytes", ply.len());

    let (from_ron, from_ply) = (load(&ron), load(&ply_scene));
    assert_eq!((from_ron.spheres.len(), from_ply.spheres.len()), (5000, 0));
    assert_eq!(from_ply.sphere_files[0].data.spheres.len(), 5000);
    let options = CompileOptions::default();
    let (a, b) = (compile_scene(&from_ron, &options), compile_scene(&from_ply, &options));
    assert!(a.blob[..] == b.blob[..], "the two forms compile to different blobs");
}

#[test]
fn grid_ply_refuses_an_output_named_like_its_point_list() {
    let dir = tempfile::tempdir().unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_scene-gen"))
        .args(["grid", "--count", "10", "--ply", "-o"])
        .arg(dir.path().join("grid.ply"))
        .output()
        .expect("scene-gen runs");
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("grid.ply") && stderr.contains("next to it"), "{stderr}");
}
