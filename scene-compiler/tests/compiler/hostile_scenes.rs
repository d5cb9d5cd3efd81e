//! Issue 37's scene-level cases (`../shared/hostile/`, rebuilt here in code): texel
//! caps checked from image headers before decoding (P6), and values at the edge of
//! f32 that the builder wrote into blobs its own `verify` refused (W2). Each is an
//! error at its source location, or a scene whose blob verifies.

use std::path::Path;

use scene_compiler::blob::BlobView;
use scene_compiler::procedural::{Format, icosphere, write};
use scene_compiler::scene::{self, PlyEncoding, Sphere};
use scene_compiler::{CompileOptions, compile_scene};

use super::hostile_models::put;

/// A PNG that is only a header: an 8-bit grey image of `width` x `height` whose pixel
/// data is junk. Reading its size works; decoding it fails, so a test that gets a size
/// error from it knows the image was refused before it was decoded.
fn png_header_only(width: u32, height: u32) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = |kind: &[u8; 4], data: &[u8]| {
        png.extend((data.len() as u32).to_be_bytes());
        let mut body = kind.to_vec();
        body.extend(data);
        png.extend(&body);
        png.extend(crc32fast::hash(&body).to_be_bytes());
    };
    let mut ihdr = width.to_be_bytes().to_vec();
    ihdr.extend(height.to_be_bytes());
    ihdr.extend([8, 0, 0, 0, 0]); // 8 bits, grey, deflate, adaptive filter, no interlace
    chunk(b"IHDR", &ihdr);
    chunk(b"IDAT", &[0x78, 0x01, 0xff, 0xff]);
    chunk(b"IEND", &[]);
    png
}

/// A 1 x 1 PNG that decodes.
fn tiny_png(dir: &Path, name: &str) {
    image::GrayImage::from_pixel(1, 1, image::Luma([200])).save(dir.join(name)).expect("png");
}

/// `body` (the scene's fields after the camera) parsed as `dir/s.ron`; the camera is line 2.
fn parse(dir: &Path, body: &str) -> Result<scene::Scene, scene::LoadError> {
    let text =
        format!("Scene(\n    camera: (look_from: (0, 1, 6), look_at: (0, 0, 0), vfov_deg: 40),\n{body}\n)");
    scene::parse(&text, &dir.join("s.ron").display().to_string())
}

/// The one diagnostic of a refused scene: (line, message).
fn refused(dir: &Path, body: &str) -> (Option<usize>, String) {
    let err = parse(dir, body).map(|_| ()).expect_err(body);
    let d = &err.diagnostics()[0];
    (d.line(), d.message().to_owned())
}

/// P6: two images of 2^26 texels each, 2^27 against the limit of 2^26 for all images
/// together. The second image is refused from its header (its pixel data is junk, so a
/// decode would fail differently), at its material's `file`, saying how much the
/// others use; an image two materials share counts once.
#[test]
fn p6_texels_past_the_scene_limit_are_refused_from_the_header() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    tiny_png(dir, "small.png");
    put(dir, "big.png", png_header_only(8192, 8192));
    let body = r#"    materials: {
        "a": Lambert(albedo: (1, 1, 1), texture: Image(file: "small.png")),
        "b": Lambert(albedo: (1, 1, 1), texture: Image(file: "big.png")),
    },
    spheres: [(center: (0, 1, 0), radius: 1, material: "a"), (center: (2, 1, 0), radius: 1, material: "b")],"#;
    let (line, message) = refused(dir, body);
    assert_eq!(line, Some(5), "{message}");
    for wanted in ["`big.png`", "8192 x 8192", "at most 67108863 pixels", "have 1 of the 67108864 texels"] {
        assert!(message.contains(wanted), "`{wanted}` in: {message}");
    }
    let shared = r#"    materials: {
        "a": Lambert(albedo: (1, 1, 1), texture: Image(file: "small.png")),
        "b": Metal(albedo: (1, 1, 1), fuzz: 0, texture: Image(file: "small.png")),
    },
    spheres: [(center: (0, 1, 0), radius: 1, material: "a"), (center: (2, 1, 0), radius: 1, material: "b")],"#;
    let scene = parse(dir, shared).map_err(|e| e.to_string()).expect("one image, two materials");
    let images: Vec<_> = scene.materials.iter().filter_map(|m| m.texture.as_ref()).collect();
    match (images[0], images[1]) {
        (scene::Texture::Image { image: a, .. }, scene::Texture::Image { image: b, .. }) => {
            assert!(std::sync::Arc::ptr_eq(a, b), "read once, shared");
        }
        other => panic!("two image textures, found {other:?}"),
    }
}

/// W2: values at the edge of f32 that `build` wrote into blobs its own `verify` then
/// refused (or, for the sky, that rendered inf). Each is refused at its value's line.
#[test]
fn w2_values_past_the_ranges_are_refused_where_they_are_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    write(&icosphere(1, 1.0), Format::Glb, &dir.join("ico.glb")).expect("model");
    let ground = r#"    materials: { "m": Lambert(albedo: (0.8, 0.3, 0.2)) },
    spheres: [(center: (0, -100, 0), radius: 99, material: "m")],"#;
    let mesh = |transform: &str| {
        format!("{ground}\n    meshes: [(file: \"ico.glb\", material: \"m\", transform: ({transform}))],")
    };
    let spheres = |line: &str| {
        format!("    materials: {{ \"m\": Lambert(albedo: (0.8, 0.3, 0.2)) }},\n    spheres: [{line}],")
    };
    put(
        dir,
        "far.ply",
        scene::write_sphere_file(
            &[Sphere { center: glam::Vec3::new(3.4e38, 0.0, 0.0), radius: 0.5, material: 0 }],
            PlyEncoding::BinaryLittleEndian,
            false,
        ),
    );
    let cases = [
        ("translate 3e38", mesh("translate: (3e38, 3e38, 3e38)"), "`translate` must be between -1e9 and 1e9"),
        ("scale 1e30", mesh("scale: 1e30"), "`scale` must be between 1e-6 and 1e6"),
        ("scale 1e-30", mesh("scale: 1e-30"), "`scale` must be between 1e-6 and 1e6"),
        (
            "light colour 3.4e38",
            format!(
                "{ground}\n    lights: [Directional(direction: (1, -1.5, -0.8), color: (3.4028235e38, 1, 1), intensity: 2)],"
            ),
            "light `color` must be at most 1e9",
        ),
        (
            "light colour times intensity",
            format!("{ground}\n    lights: [Point(position: (0, 5, 0), color: (1e9, 1, 1), intensity: 2)],"),
            "light `color` times `intensity` is 2000000000",
        ),
        (
            "sphere centre 3.4e38",
            spheres(
                r#"(center: (0, 0, 0), radius: 1, material: "m"), (center: (3.4028235e38, 0, 0), radius: 0.6, material: "m")"#,
            ),
            "sphere `center` must be between -1e9 and 1e9",
        ),
        (
            "sphere reaching past 1e9",
            spheres(r#"(center: (9e8, 0, 0), radius: 2e8, material: "m")"#),
            "the sphere reaches past 1e9",
        ),
        (
            "sphere-file centre 3.4e38",
            r#"    materials: { "m": Lambert(albedo: (0.8, 0.3, 0.2)) },
    sphere_files: [(file: "far.ply", materials: ["m"])],"#
                .to_owned(),
            "vertex 0 of sphere file `far.ply`, placed by this `transform`, is unusable",
        ),
        (
            "sky 3e38",
            format!("{ground}\n    sky: Constant((3e38, 3e38, 3e38)),"),
            "sky colour must be at most 1e9",
        ),
        (
            "emission",
            r#"    materials: { "m": Emissive(color: (1e6, 1, 1), strength: 1e6) },
    spheres: [(center: (0, -100, 0), radius: 99, material: "m")],"#
                .to_owned(),
            "`color` times `strength` of material `m` is 1000000000000",
        ),
    ];
    for (name, body, wanted) in cases {
        let (line, message) = refused(dir, &body);
        assert!(message.contains(wanted), "{name}: `{wanted}` in: {message}");
        assert!(line.is_some_and(|l| l >= 3), "{name}: at its line, not {line:?}: {message}");
    }
}

/// The other side of W2: scenes at the edges of the ranges validate, and their blobs
/// pass the full verify.
#[test]
fn w2_scenes_at_the_edges_of_the_ranges_compile_to_valid_blobs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    write(&icosphere(1, 1.0), Format::Glb, &dir.join("ico.glb")).expect("model");
    let body = r#"    materials: {
        "m": Lambert(albedo: (0.8, 0.3, 0.2)),
        "lamp": Emissive(color: (1e3, 1e3, 1e3), strength: 1e6),
    },
    spheres: [(center: (9e8, 0, 0), radius: 1e8, material: "lamp"), (center: (0, -100, 0), radius: 99, material: "m")],
    boxes: [(min: (-1e9, -1e9, -1e9), max: (-9.9e8, -9.9e8, -9.9e8), material: "m")],
    meshes: [
        (file: "ico.glb", material: "lamp", transform: (scale: 1e-6)),
        (file: "ico.glb", material: "m", transform: (scale: 1e6, translate: (0, 1e8, 0))),
    ],
    lights: [Point(position: (1e9, 1e9, -1e9), color: (1e9, 1e9, 1e9), intensity: 1)],
    sky: Gradient(bottom: (1e9, 0, 0), top: (0, 0, 1e9)),"#;
    let scene = parse(dir, body).map_err(|e| e.to_string()).expect("within the ranges");
    compiles_to_a_valid_blob(&scene, "edges of the ranges");
}

/// Compiles `scene` and checks the blob with the full verify: every scene that
/// validates must compile to a blob that verifies.
pub(crate) fn compiles_to_a_valid_blob(scene: &scene::Scene, what: &str) {
    let compiled = compile_scene(scene, &CompileOptions::default());
    if let Err(e) = BlobView::parse(&compiled.blob) {
        panic!("{what}: the blob of a valid scene does not verify: {e}");
    }
}
