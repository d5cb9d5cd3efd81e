//! The environment sky: its RON form and errors (at the RON line), images of every
//! accepted format read as linear radiance (8-bit ones decoded from sRGB), and its
//! blob sections: written, validated, and refused when corrupted.

use std::path::Path;

use image::{Rgb, Rgb32FImage, RgbImage};
use scene_compiler::blob::layout::{EnvTexelRecord, HEADER_LEN, LIGHT_ENVIRONMENT, SectionId};
use scene_compiler::procedural_sky::{self, SkyParams};
use scene_compiler::scene::image_file::srgb_to_linear;
use scene_compiler::scene::{self, LoadError, Scene, Sky};
use scene_compiler::{BlobView, CompileOptions, compile_scene};

/// A scene with `sky: Environment(<sky>)` and one sphere.
fn scene_text(sky: &str) -> String {
    format!(
        r#"Scene(
    camera: (look_from: (0, 1, 5), look_at: (0, 0, 0), vfov_deg: 40),
    materials: {{ "grey": Lambert(albedo: (0.5, 0.5, 0.5)) }},
    spheres: [(center: (0, 0, 0), radius: 1, material: "grey")],
    sky: Environment({sky}),
)"#
    )
}

fn parse_in(dir: &Path, sky: &str) -> Result<Scene, LoadError> {
    scene::parse(&scene_text(sky), &dir.join("scene.ron").display().to_string())
}

/// The first diagnostic's message and 1-based line:col.
fn first_error(err: &LoadError) -> (String, usize, usize) {
    let d = &err.diagnostics()[0];
    (d.message().to_owned(), d.line().expect("located"), d.column().expect("located"))
}

fn texels(scene: &Scene) -> (u32, u32, Vec<[f32; 3]>, f32, f32) {
    let Sky::Environment(env) = &scene.sky else { panic!("not an environment: {:?}", scene.sky) };
    (env.data.width, env.data.height, env.data.texels.clone(), env.strength, env.rotation_deg)
}

#[test]
fn eight_bit_images_are_decoded_from_srgb_and_float_images_taken_as_stored() {
    let dir = tempfile::tempdir().unwrap();
    RgbImage::from_raw(2, 1, vec![0, 128, 255, 10, 188, 64]).unwrap().save(dir.path().join("s.png")).unwrap();
    let (w, h, t, strength, rotation) = texels(&parse_in(dir.path(), r#"image: "s.png""#).unwrap());
    assert_eq!((w, h, strength, rotation), (2, 1, 1.0, 0.0));
    assert_eq!(t[0][0], 0.0);
    assert!((t[0][1] - 0.215_860_5).abs() < 1e-6, "128 -> {}", t[0][1]);
    assert_eq!(t[0][2], 1.0);
    assert_eq!(t[1][0], (10.0f64 / 255.0 / 12.92) as f32);
    assert_eq!(t[1][1], srgb_to_linear(188.0 / 255.0));
    RgbImage::from_raw(1, 1, vec![128, 128, 128]).unwrap().save(dir.path().join("s.jpg")).unwrap();
    let (_, _, t, ..) = texels(&parse_in(dir.path(), r#"image: "s.jpg", strength: 2.0"#).unwrap());
    assert!((t[0][0] - 0.2159).abs() < 0.02, "JPEG grey 128 -> {}", t[0][0]);

    // Float formats keep values above 1 as they are.
    // Values a Radiance HDR's shared exponent holds exactly (steps of 1/16 below 16).
    let hdr = Rgb32FImage::from_pixel(4, 2, Rgb([3.5, 2.25, 10.0]));
    for name in ["f.exr", "f.hdr"] {
        image::DynamicImage::ImageRgb32F(hdr.clone()).save(dir.path().join(name)).unwrap();
        let sky = format!(r#"image: "{name}", strength: 0.5, rotation_deg: 90"#);
        let (w, h, t, strength, rotation) = texels(&parse_in(dir.path(), &sky).unwrap());
        assert_eq!((w, h, strength, rotation), (4, 2, 0.5, 90.0));
        assert_eq!(t[0], [3.5, 2.25, 10.0], "{name}");
    }
}

#[test]
fn environment_errors_point_at_the_ron_line() {
    let dir = tempfile::tempdir().unwrap();
    let at = |sky: &str| first_error(&parse_in(dir.path(), sky).expect_err("invalid"));
    let line = 5;
    let col = |sky: &str, needle: &str| "    sky: Environment(".len() + sky.find(needle).unwrap() + 1;

    let missing = r#"image: "nope.exr""#;
    let (message, l, c) = at(missing);
    assert!(message.contains("nope.exr") && message.contains("cannot open"), "{message}");
    assert_eq!((l, c), (line, col(missing, "\"nope")));

    std::fs::write(dir.path().join("text.exr"), "not an image").unwrap();
    let (message, l, _) = at(r#"image: "text.exr""#);
    assert!(message.contains("not a readable image"), "{message}");
    assert_eq!(l, line);

    // 16 385 pixels wide: one over the largest side. A black PNG compresses to little.
    RgbImage::new(16_385, 1).save(dir.path().join("wide.png")).unwrap();
    let (message, l, _) = at(r#"image: "wide.png""#);
    assert!(message.contains("16385 x 1 pixels"), "{message}");
    assert_eq!(l, line);

    let mut nan = Rgb32FImage::from_pixel(3, 2, Rgb([1.0, 1.0, 1.0]));
    nan.put_pixel(2, 1, Rgb([1.0, f32::NAN, 1.0]));
    image::DynamicImage::ImageRgb32F(nan).save(dir.path().join("nan.exr")).unwrap();
    let nan_sky = r#"strength: 1, image: "nan.exr""#;
    let (message, l, c) = at(nan_sky);
    assert!(message.contains("pixel (2, 1)") && message.contains("finite"), "{message}");
    assert_eq!((l, c), (line, col(nan_sky, "\"nan")));

    let mut negative = Rgb32FImage::from_pixel(1, 1, Rgb([1.0, 1.0, 1.0]));
    negative.put_pixel(0, 0, Rgb([-1.0, 1.0, 1.0]));
    image::DynamicImage::ImageRgb32F(negative).save(dir.path().join("neg.exr")).unwrap();
    assert!(at(r#"image: "neg.exr""#).0.contains("non-negative"));

    RgbImage::new(2, 1).save(dir.path().join("ok.png")).unwrap();
    let dim = r#"image: "ok.png", strength: -1"#;
    let (message, l, c) = at(dim);
    assert!(message.contains("sky `strength` must be non-negative"), "{message}");
    assert_eq!((l, c), (line, col(dim, "-1")));
    let (message, ..) = at(r#"image: "ok.png", rotation_deg: inf"#);
    assert!(message.contains("sky `rotation_deg` must be a finite number"), "{message}");
}

/// A compiled scene under the procedural sky, and the blob's bytes.
fn sky_blob() -> (Scene, scene_compiler::AlignedBytes) {
    let dir = tempfile::tempdir().unwrap();
    let image = procedural_sky::sky(&SkyParams { width: 32, ..SkyParams::default() });
    procedural_sky::write(&image, &dir.path().join("sky.exr")).unwrap();
    let scene = parse_in(dir.path(), r#"image: "sky.exr", rotation_deg: 30"#).unwrap();
    let blob = compile_scene(&scene, &CompileOptions::default()).blob;
    (scene, blob)
}

#[test]
fn the_blob_holds_the_texels_the_tables_and_the_environment_light() {
    let (scene, blob) = sky_blob();
    let view = BlobView::parse(&blob).expect("valid");
    assert_eq!(view.header.env_size, [32, 16, 0, 0]);
    assert_eq!(view.env_texels.len(), 512);
    assert_eq!(view.env_sampling.len(), 16 + 512);
    let (_, _, texels, ..) = texels(&scene);
    assert!(view.env_texels.iter().zip(&texels).all(|(r, t)| r.rgb_pdf[..3] == t[..]));
    let mean: f64 = view.env_texels.iter().map(|t| f64::from(t.rgb_pdf[3])).sum::<f64>() / 512.0;
    assert!((mean - 1.0).abs() < 1e-5, "densities average {mean}");
    // One light, the environment, picked always.
    assert_eq!(view.lights.len(), 1);
    assert_eq!((view.lights[0].kind, view.env_light_pdf()), (LIGHT_ENVIRONMENT, 1.0));
    let [cos, sin, ..] = view.globals.env_rotation;
    assert!((cos - 30f32.to_radians().cos()).abs() < 1e-6 && (sin - 0.5).abs() < 1e-6);
    // Read back: the texels, strength 1, the rotation.
    let Sky::Environment(back) = view.sky() else { panic!("not an environment") };
    assert_eq!(back.data.texels, texels);
    assert!((back.rotation_deg - 30.0).abs() < 1e-4);
    // The gradient lanes stay zero.
    assert_eq!(view.globals.sky_bottom, [0.0; 4]);
}

/// `blob` with `edit` applied to its bytes and the checksum recomputed.
fn corrupted(blob: &[u8], edit: impl Fn(&mut [u8], &BlobView)) -> Vec<u8> {
    let view = BlobView::parse(blob).expect("valid");
    let mut bytes = blob.to_vec();
    edit(&mut bytes, &view);
    let crc = scene_compiler::blob::crc32(&bytes[HEADER_LEN..]);
    bytes[44..48].copy_from_slice(&crc.to_le_bytes());
    bytes
}

/// Bytes of one texel record.
const TEXEL: usize = std::mem::size_of::<EnvTexelRecord>();

/// An edit of a blob's bytes, given its parsed view.
type Corruption = dyn Fn(&mut [u8], &BlobView);

fn section_offset(view: &BlobView, id: SectionId) -> usize {
    view.header.sections[id as usize].offset as usize
}

#[test]
fn corrupted_environment_sections_are_refused() {
    let (_, blob) = sky_blob();
    let cases: Vec<(&str, Box<Corruption>)> = vec![
        (
            "non-finite texel",
            Box::new(|b, v| {
                let at = section_offset(v, SectionId::EnvTexels) + 5 * TEXEL;
                b[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
            }),
        ),
        (
            "density off",
            Box::new(|b, v| {
                let at = section_offset(v, SectionId::EnvTexels) + 7 * TEXEL + 12;
                b[at..at + 4].copy_from_slice(&100.0f32.to_le_bytes());
            }),
        ),
        (
            "alias out of range",
            Box::new(|b, v| {
                let at = section_offset(v, SectionId::EnvSampling) + 3 * 8 + 4;
                b[at..at + 4].copy_from_slice(&999u32.to_le_bytes());
            }),
        ),
        (
            "row table mass off",
            Box::new(|b, v| {
                // Row 0 (the zenith, lit) passes its cell on to row 8 entirely.
                let at = section_offset(v, SectionId::EnvSampling);
                b[at..at + 4].copy_from_slice(&0.0f32.to_le_bytes());
                b[at + 4..at + 8].copy_from_slice(&8u32.to_le_bytes());
            }),
        ),
        (
            "rotation not unit",
            Box::new(|b, v| {
                let at = section_offset(v, SectionId::Globals) + 112;
                b[at..at + 4].copy_from_slice(&2.0f32.to_le_bytes());
            }),
        ),
        (
            "environment missing from the lights",
            Box::new(|b, v| {
                let at = section_offset(v, SectionId::Lights) + 32;
                b[at..at + 4].copy_from_slice(&0u32.to_le_bytes());
            }),
        ),
    ];
    for (what, edit) in cases {
        let bytes = scene_compiler::AlignedBytes::copy_from(&corrupted(&blob, edit));
        assert!(BlobView::parse(&bytes).is_err(), "{what}: accepted");
    }
}
