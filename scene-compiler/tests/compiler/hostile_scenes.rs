//! Issue 37's scene-level cases (`../shared/hostile/`, rebuilt here in code): texel
//! caps checked from image headers before decoding (P6), and values at the edge of
//! f32 that the builder wrote into blobs its own `verify` refused (W2). Each is an
//! error at its source location, or a scene whose blob verifies.

use std::path::Path;

use scene_compiler::scene;

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
