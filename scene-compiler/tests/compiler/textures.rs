//! Material textures in a scene: every bad texture is an error at its RON value
//! (missing, unreadable, truncated or absurdly large images, non-finite or negative
//! texels, checker and noise parameters out of range), never a panic; the blob keeps one
//! texture record per textured material and one copy of a shared image.

use std::path::Path;

use scene_compiler::scene;
use scene_compiler::{BlobView, CompileOptions, compile_scene};

/// A scene whose one material has `texture: {texture}`, parsed as `dir/scene.ron`; the
/// texture is on line 4.
fn parse_with(dir: &Path, texture: &str) -> Result<scene::Scene, scene::LoadError> {
    let text = format!(
        r#"Scene(
    camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40),
    materials: {{
        "wood": Lambert(albedo: (1, 1, 1), texture: {texture}),
    }},
    spheres: [(center: (0, 0, 0), radius: 1, material: "wood")],
)"#
    );
    scene::parse(&text, &dir.join("scene.ron").display().to_string())
}

/// A PNG's bytes: `width` x `height` grey pixels.
fn png(width: u32, height: u32) -> Vec<u8> {
    let image = image::GrayImage::from_raw(width, height, vec![200; (width * height) as usize]).unwrap();
    let mut bytes = std::io::Cursor::new(Vec::new());
    image.write_to(&mut bytes, image::ImageFormat::Png).unwrap();
    bytes.into_inner()
}

/// An OpenEXR's bytes holding `texels` in one row.
fn exr(texels: &[[f32; 3]]) -> Vec<u8> {
    let flat: Vec<f32> = texels.iter().flatten().copied().collect();
    let image = image::Rgb32FImage::from_raw(texels.len() as u32, 1, flat).unwrap();
    let mut bytes = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb32F(image).write_to(&mut bytes, image::ImageFormat::OpenExr).unwrap();
    bytes.into_inner()
}

#[test]
fn bad_textures_are_errors_at_their_ron_values() {
    let dir = tempfile::tempdir().unwrap();
    let good = png(4, 2);
    std::fs::write(dir.path().join("truncated.png"), &good[..good.len() / 2]).unwrap();
    std::fs::write(dir.path().join("garbage.png"), b"not an image at all").unwrap();
    // A PNG whose header claims 100 000 x 100 000 pixels (its CRC fixed up): refused
    // from the header, before anything that size is allocated.
    let mut huge = png(1, 1);
    huge[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    huge[20..24].copy_from_slice(&100_000u32.to_be_bytes());
    let crc = crc32(&huge[12..29]);
    huge[29..33].copy_from_slice(&crc.to_be_bytes());
    std::fs::write(dir.path().join("huge.png"), &huge).unwrap();
    std::fs::write(dir.path().join("nan.exr"), exr(&[[0.5, f32::NAN, 0.5], [1.0, 1.0, 1.0]])).unwrap();
    std::fs::write(dir.path().join("negative.exr"), exr(&[[0.5, -1.0, 0.5]])).unwrap();
    let cases = [
        (r#"Image(file: "missing.png")"#, "cannot use texture image `missing.png`"),
        (r#"Image(file: "garbage.png")"#, "not a readable image"),
        (r#"Image(file: "truncated.png")"#, "truncated.png"),
        (r#"Image(file: "huge.png")"#, "100000 x 100000"),
        (r#"Image(file: "nan.exr")"#, "pixel (0, 0)"),
        (r#"Image(file: "negative.exr")"#, "not negative"),
        (r#"Checker(size: 0, even: (1, 1, 1), odd: (0, 0, 0))"#, "`size` of the texture of material `wood`"),
        (r#"Checker(size: 1, even: (1, -1, 1), odd: (0, 0, 0))"#, "`even` of the texture"),
        (r#"Noise(scale: -2)"#, "`scale` of the texture"),
    ];
    for (texture, message) in cases {
        let err = parse_with(dir.path(), texture).expect_err(texture);
        let d = &err.diagnostics()[0];
        assert!(d.message().contains(message), "{texture}: {}", d.message());
        assert_eq!(d.line(), Some(4), "{texture}: the error is at the texture's line");
    }
}

/// CRC-32 (IEEE), for the hand-edited PNG chunk.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

#[test]
fn a_shared_image_is_stored_once_and_each_textured_material_has_a_record() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.png"), png(4, 2)).unwrap();
    let text = r#"Scene(
    camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40),
    materials: {
        "a": Lambert(albedo: (1, 1, 1), texture: Image(file: "t.png")),
        "plain": Lambert(albedo: (0.5, 0.5, 0.5)),
        "b": Metal(albedo: (1, 1, 1), fuzz: 0.1, texture: Image(file: "t.png", wrap: Clamp)),
        "c": Emissive(color: (1, 1, 1), texture: Noise(scale: 2)),
    },
    spheres: [(center: (0, 0, 0), radius: 1, material: "a"), (center: (3, 0, 0), radius: 1, material: "c")],
)"#;
    let parsed = scene::parse(text, &dir.path().join("scene.ron").display().to_string()).unwrap();
    let compiled = compile_scene(&parsed, &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).expect("a textured blob parses");
    let textures: Vec<u32> = view.materials.iter().map(|m| m.texture).collect();
    assert_eq!(textures, [0, u32::MAX, 1, 2]);
    assert_eq!(view.textures.len(), 3);
    // Two materials name t.png: its 4 x 2 texels are stored once, the records share them.
    assert_eq!(view.texels.len(), 8);
    assert_eq!((view.textures[0].image, view.textures[1].image), ([0, 4, 2, 0], [0, 4, 2, 1]));
    assert_eq!(view.noise.len(), 256, "the Perlin table comes with a noise texture");
}
