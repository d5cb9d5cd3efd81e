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

/// A texture is an optional field like any other: `None` leaves it out, `Some(...)`
/// is the texture written plainly.
#[test]
fn a_texture_may_be_written_none_or_some() {
    let dir = tempfile::tempdir().unwrap();
    let none = parse_with(dir.path(), "None").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(none.materials[0].texture, None);
    let some = parse_with(dir.path(), "Some(Noise(scale: 2))").unwrap_or_else(|e| panic!("{e}"));
    let plain = parse_with(dir.path(), "Noise(scale: 2)").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(some, plain);
    assert_eq!(plain.materials[0].texture, Some(scene::Texture::Noise { scale: 2.0 }));
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
    std::fs::write(dir.path().join("good.png"), &good).unwrap();
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
        (r#"Image(file: "good.png", uv_transform: (offset: (0, NaN)))"#, "`offset` of the `uv_transform`"),
        (
            r#"Image(file: "good.png", uv_transform: (rotation_deg: inf))"#,
            "`rotation_deg` of the `uv_transform`",
        ),
        (r#"Image(file: "good.png", uv_transform: (scale: (-inf, 1)))"#, "`scale` of the `uv_transform`"),
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
    let textures: Vec<u32> = view.materials.iter().map(|m| m.textures[0]).collect();
    assert_eq!(textures, [0, u32::MAX, 1, 2]);
    assert_eq!(view.textures.len(), 3);
    // Two materials name t.png: its 4 x 2 texels are stored once, the records share them.
    assert_eq!(view.texels.len(), 8);
    assert_eq!((view.textures[0].image, view.textures[1].image), ([0, 4, 2, 0], [0, 4, 2, 1]));
    assert_eq!(view.noise.len(), 256, "the Perlin table comes with a noise texture");
}

/// A good scene of `parse_with` in `dir` with `texture`, whose files are there.
fn good_scene(dir: &Path, texture: &str) -> scene::Scene {
    parse_with(dir, texture).unwrap_or_else(|e| panic!("{texture}: {e}"))
}

/// The messages `scene::check` gives an in-memory scene (each after its value's path).
fn check_messages(scene: &scene::Scene) -> Vec<String> {
    match scene::check(scene, "scene.ron (edited)") {
        Ok(()) => Vec::new(),
        Err(e) => e.diagnostics().iter().map(|d| d.message().to_owned()).collect(),
    }
}

#[test]
fn an_edited_texture_is_checked_like_a_files() {
    use glam::Vec3;
    use scene::{MaterialKind, Texture, TextureImage, Wrap};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.png"), png(4, 2)).unwrap();
    let good = good_scene(dir.path(), "Checker(size: 1, even: (1, 1, 1), odd: (0, 0, 0))");
    assert_eq!(check_messages(&good), Vec::<String>::new());
    let checker = |size: f32, even: Vec3, odd: Vec3| Texture::Checker { size, even, odd };
    let (one, zero) = (Vec3::ONE, Vec3::ZERO);
    let image = good_scene(dir.path(), r#"Image(file: "t.png")"#).materials[0].texture.clone().unwrap();
    let Texture::Image { image: texels, .. } = &image else { unreachable!() };
    let short = TextureImage { texels: texels.texels[..7].to_vec(), ..(**texels).clone() };
    let cases = [
        (
            checker(0.0, one, zero),
            "materials[0].texture.size: `size` of the texture of material `wood` must be above 0",
        ),
        (checker(-1.0, one, zero), "`size` of the texture of material `wood` must be above 0, found -1"),
        (checker(f32::NAN, one, zero), "`size` of the texture of material `wood` must be a finite number"),
        (
            checker(f32::INFINITY, one, zero),
            "`size` of the texture of material `wood` must be a finite number",
        ),
        (
            checker(1.0, Vec3::new(1.0, -0.5, 1.0), zero),
            "materials[0].texture.even[1]: `even` of the texture",
        ),
        (
            checker(1.0, Vec3::new(f32::NAN, 1.0, 1.0), zero),
            "`even` of the texture of material `wood` must be a finite",
        ),
        (
            checker(1.0, one, Vec3::new(0.0, 0.0, f32::INFINITY)),
            "materials[0].texture.odd[2]: `odd` of the texture",
        ),
        (
            checker(1.0, one, Vec3::new(0.0, 0.0, -1.0)),
            "`odd` of the texture of material `wood` must be non-negative",
        ),
        (
            Texture::Noise { scale: 0.0 },
            "materials[0].texture.scale: `scale` of the texture of material `wood` must be above 0",
        ),
        (
            Texture::Noise { scale: -4.0 },
            "`scale` of the texture of material `wood` must be above 0, found -4",
        ),
        (
            Texture::Noise { scale: f32::NAN },
            "`scale` of the texture of material `wood` must be a finite number",
        ),
        (
            Texture::Noise { scale: f32::INFINITY },
            "`scale` of the texture of material `wood` must be a finite number",
        ),
        (
            Texture::image_to_read("t.png", Wrap::Repeat, Default::default()),
            "materials[0].texture.file: `file` of the texture of material `wood` (`t.png`) was not read",
        ),
        (
            Texture::Image {
                file: "t.png".into(),
                image: std::sync::Arc::new(short),
                wrap: Wrap::Clamp,
                uv_transform: Default::default(),
            },
            "(`t.png`) is 4 x 2 pixels with 7 texels",
        ),
    ];
    for (texture, message) in cases {
        let mut edited = good.clone();
        edited.materials[0].texture = Some(texture.clone());
        let messages = check_messages(&edited);
        assert!(messages.len() == 1 && messages[0].contains(message), "{texture:?}: {messages:#?}");
    }
    // Every bad number at once: one message each.
    let mut edited = good.clone();
    edited.materials[0].texture = Some(checker(f32::NAN, Vec3::splat(-1.0), Vec3::splat(f32::NAN)));
    assert_eq!(check_messages(&edited).len(), 7, "{:#?}", check_messages(&edited));
    // A file cannot put a texture on a Dielectric; an edit is told it cannot either.
    let mut edited = good.clone();
    edited.materials[0].kind = MaterialKind::Dielectric { ior: 1.5 };
    let messages = check_messages(&edited);
    assert!(
        messages.len() == 1
            && messages[0]
                .contains("materials[0].texture: material `wood` is a Dielectric, which takes no texture"),
        "{messages:#?}"
    );
    // The texture itself checks out with good parameters and a read image.
    let mut edited = good.clone();
    edited.materials[0].texture = Some(image);
    assert_eq!(check_messages(&edited), Vec::<String>::new());
}

#[test]
fn an_edit_naming_another_image_reads_it_or_gives_the_compilers_message() {
    use scene::{Texture, Wrap};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.png"), png(4, 2)).unwrap();
    std::fs::write(dir.path().join("garbage.png"), b"not an image at all").unwrap();
    let good = good_scene(dir.path(), r#"Image(file: "t.png")"#);
    for (file, compiled) in [
        ("missing.png", "cannot use texture image `missing.png`: cannot open"),
        ("garbage.png", "not a readable image"),
    ] {
        let mut edited = good.clone();
        edited.materials[0].texture = Some(Texture::image_to_read(file, Wrap::Repeat, Default::default()));
        let error = scene::read_inputs(&mut edited, dir.path(), "scene.ron (edited)").expect_err(file);
        let message = error.diagnostics()[0].message();
        // The message a scene file naming the image gets, at the value's path.
        let from_file = parse_with(dir.path(), &format!("Image(file: {file:?})")).expect_err(file);
        assert!(message.contains(compiled), "{message}");
        assert_eq!(message, format!("materials[0].texture.file: {}", from_file.diagnostics()[0].message()));
        assert_eq!(error.diagnostics()[0].hint(), from_file.diagnostics()[0].hint());
        assert_eq!(error.origin(), "scene.ron (edited)");
    }
    // Images already read are left alone; one not read yet is read from the folder.
    let mut same = good.clone();
    scene::read_inputs(&mut same, Path::new("elsewhere"), "x").expect("nothing to read");
    assert_eq!(same, good);
}

/// The blob's texture record and texels of material 0 of `scene`, after writing it as
/// RON, reading that back from `dir` and compiling it.
fn compiled_texture(
    dir: &Path,
    scene: &scene::Scene,
) -> (scene_compiler::blob::layout::TextureRecord, Vec<[f32; 4]>) {
    let text = scene::to_ron(scene);
    let path = dir.join("saved.ron");
    std::fs::write(&path, &text).unwrap();
    let read_back = scene::load_file(&path).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(&read_back, scene, "the saved scene reads back equal");
    let compiled = compile_scene(&read_back, &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).expect("a textured blob parses");
    (view.textures[view.materials[0].textures[0] as usize], view.texels.to_vec())
}

#[test]
fn edited_checker_colours_and_a_swapped_image_reach_the_blob_through_the_saved_file() {
    use glam::Vec3;
    use scene::{Texture, Wrap};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.png"), png(4, 2)).unwrap();
    // Another image: 3 x 1 pixels, black, white and black (sRGB 0 and 255 decode exactly).
    let other = image::GrayImage::from_raw(3, 1, vec![0, 255, 0]).unwrap();
    other.save(dir.path().join("other.png")).unwrap();

    let mut scene = good_scene(dir.path(), "Checker(size: 1, even: (1, 1, 1), odd: (0, 0, 0))");
    let (before, _) = compiled_texture(dir.path(), &scene);
    assert_eq!((before.a, before.b), ([1.0, 1.0, 1.0, 1.0], [0.0; 4]));
    scene.materials[0].texture =
        Some(Texture::Checker { size: 0.5, even: Vec3::new(0.25, 0.5, 0.75), odd: Vec3::new(0.1, 0.2, 0.3) });
    scene::check(&scene, "edited").expect("a good edit");
    let (after, _) = compiled_texture(dir.path(), &scene);
    assert_eq!((after.a, after.b), ([0.25, 0.5, 0.75, 0.5], [0.1, 0.2, 0.3, 0.0]));

    // Swap the image: named, read as the compiler reads it, saved, compiled.
    scene.materials[0].texture = Some(Texture::image_to_read("other.png", Wrap::Clamp, Default::default()));
    scene::read_inputs(&mut scene, dir.path(), "edited").expect("other.png reads");
    scene::check(&scene, "edited").expect("a good edit");
    let (record, texels) = compiled_texture(dir.path(), &scene);
    assert_eq!(record.image[1..], [3, 1, scene_compiler::blob::layout::WRAP_CLAMP]);
    let first = record.image[0] as usize;
    // An image without an alpha channel is opaque: alpha 1 in the texels' w lane.
    assert_eq!(texels[first..first + 3], [[0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0]]);
}

/// An image's `uv_transform` reads into the model (sub-fields left out take the
/// identity's), is written back with only the sub-fields that differ and reads back
/// equal, and reaches the blob as the rows of T R S (R = [[cos, sin], [-sin, cos]], as
/// glTF's KHR_texture_transform README writes it): an untransformed image's rows are the
/// identity.
#[test]
fn a_uv_transform_round_trips_and_reaches_the_blob_as_its_rows() {
    use glam::Vec2;
    use scene::{Texture, UvTransform};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.png"), png(4, 2)).unwrap();
    let full =
        r#"Image(file: "t.png", uv_transform: (offset: (0.5, -0.25), rotation_deg: 90, scale: (4, 2)))"#;
    let scene = good_scene(dir.path(), full);
    let Some(Texture::Image { uv_transform, .. }) = &scene.materials[0].texture else {
        panic!("an image: {:?}", scene.materials[0].texture)
    };
    let want = UvTransform { offset: Vec2::new(0.5, -0.25), rotation_deg: 90.0, scale: Vec2::new(4.0, 2.0) };
    assert_eq!(*uv_transform, want);
    let text = scene::to_ron(&scene);
    assert!(
        text.contains("uv_transform: (offset: (0.5, -0.25), rotation_deg: 90.0, scale: (4.0, 2.0))"),
        "{text}"
    );
    let (record, _) = compiled_texture(dir.path(), &scene);
    // cos 90 = 0, sin 90 = 1: u' = 2 v + 0.5, v' = -4 u - 0.25.
    assert_eq!((record.a, record.b), ([0.0, 2.0, 0.5, 0.0], [-4.0, 0.0, -0.25, 0.0]));

    let only_scale =
        good_scene(dir.path(), r#"Image(file: "t.png", uv_transform: UvTransform(scale: (4, 4)))"#);
    let text = scene::to_ron(&only_scale);
    assert!(text.contains(r#"Image(file: "t.png", uv_transform: (scale: (4.0, 4.0)))"#), "{text}");
    let (record, _) = compiled_texture(dir.path(), &only_scale);
    assert_eq!((record.a, record.b), ([4.0, 0.0, 0.0, 0.0], [0.0, 4.0, 0.0, 0.0]));

    let rotated = good_scene(dir.path(), r#"Image(file: "t.png", uv_transform: (rotation_deg: 30))"#);
    let (record, _) = compiled_texture(dir.path(), &rotated);
    let (sin, cos) = 30f64.to_radians().sin_cos();
    let want = [[cos as f32, sin as f32, 0.0, 0.0], [-sin as f32, cos as f32, 0.0, 0.0]];
    assert_eq!([record.a, record.b], want, "rows rounded once from f64");

    let plain = good_scene(dir.path(), r#"Image(file: "t.png")"#);
    assert!(!scene::to_ron(&plain).contains("uv_transform"), "the identity is not written");
    let (record, _) = compiled_texture(dir.path(), &plain);
    assert_eq!((record.a, record.b), ([1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]));
}

/// An in-memory scene (an editor's) with a non-finite uv transform is refused at the
/// value, as a file's is.
#[test]
fn an_edited_uv_transform_is_checked_like_a_files() {
    use scene::{Texture, UvTransform};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.png"), png(4, 2)).unwrap();
    let mut scene = good_scene(dir.path(), r#"Image(file: "t.png")"#);
    let Some(Texture::Image { uv_transform, .. }) = &mut scene.materials[0].texture else { unreachable!() };
    *uv_transform = UvTransform { rotation_deg: f32::NAN, ..UvTransform::IDENTITY };
    let messages = check_messages(&scene);
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(messages[0].contains("`rotation_deg` of the `uv_transform`"), "{messages:?}");
}
