//! Heightmap terrains: the RON form and its errors (at the RON line), images of every
//! accepted kind read into the right values, and the compiled columns: merged, every
//! pixel covered once, in a blob whose BVH the loader accepts.

use std::path::{Path, PathBuf};

use glam::Vec3;
use image::{GrayImage, ImageBuffer, Luma, Rgb, RgbImage};
use scene_compiler::scene::{self, Cuboid, LoadError, Scene, TerrainSurface};
use scene_compiler::terrain::columns;
use scene_compiler::{BlobView, CompileOptions, compile_scene};

/// A scene with one terrain `Heightmap(<terrain>)` and nothing else, in `dir`.
fn scene_text(terrain: &str) -> String {
    format!(
        r#"Scene(
    camera: (look_from: (0, 20, 30), look_at: (0, 0, 0), vfov_deg: 40),
    materials: {{ "street": Lambert(albedo: (0.3, 0.3, 0.3)), "brick": Lambert(albedo: (0.6, 0.3, 0.2)) }},
    terrains: [
        Heightmap({terrain}),
    ],
)"#
    )
}

/// Parses [`scene_text`] as the file `dir/scene.ron`, so images are found in `dir`.
fn parse_in(dir: &Path, terrain: &str) -> Result<Scene, LoadError> {
    let origin = dir.join("scene.ron");
    scene::parse(&scene_text(terrain), &origin.display().to_string())
}

fn gray(dir: &Path, name: &str, width: u32, depth: u32, values: &[u8]) -> PathBuf {
    let path = dir.join(name);
    GrayImage::from_raw(width, depth, values.to_vec()).expect("pixel count").save(&path).expect("write PNG");
    path
}

/// The first diagnostic's message and 1-based line:col.
fn first_error(err: &LoadError) -> (String, usize, usize) {
    let d = &err.diagnostics()[0];
    (d.message().to_owned(), d.line().expect("located"), d.column().expect("located"))
}

#[test]
fn a_terrain_reads_its_image_next_to_the_scene_and_writes_back_the_same() {
    let dir = tempfile::tempdir().unwrap();
    gray(dir.path(), "h.png", 3, 2, &[0, 1, 2, 3, 4, 5]);
    let terrain = r#"image: "h.png", origin: (1, 2, 3), cell: 0.5, height_scale: 2, material: "brick""#;
    let scene = parse_in(dir.path(), terrain).expect("valid");
    let t = &scene.terrains[0];
    assert_eq!((t.heights.width, t.heights.depth, t.heights.values.clone()), (3, 2, vec![0, 1, 2, 3, 4, 5]));
    assert_eq!((t.origin, t.cell, t.height_scale), (Vec3::new(1.0, 2.0, 3.0), 0.5, 2.0));
    assert_eq!(t.surface, TerrainSurface::Material(1));
    assert_eq!(t.heights.path, dir.path().join("h.png"));

    let text = scene::to_ron(&scene);
    let again =
        scene::parse(&text, &dir.path().join("again.ron").display().to_string()).expect("written text");
    assert_eq!(again, scene);
    assert_eq!(scene::to_ron(&again), text, "stable form");
}

#[test]
fn pixels_become_columns_on_the_origin_cell_and_scale() {
    let dir = tempfile::tempdir().unwrap();
    // One raised pixel at (x, z) = (1, 0) of a 2 x 1 image.
    gray(dir.path(), "one.png", 2, 1, &[0, 5]);
    let scene = parse_in(
        dir.path(),
        r#"image: "one.png", origin: (10, -1, 20), cell: 2, height_scale: 0.5, material: "brick""#,
    )
    .expect("valid");
    let boxes = columns(&scene.terrains[0]);
    assert_eq!(
        boxes,
        [Cuboid { min: Vec3::new(12.0, -1.0, 20.0), max: Vec3::new(14.0, 1.5, 22.0), material: 1 }]
    );
}

#[test]
fn one_pixel_non_square_sixteen_bit_and_colour_images_read_their_values() {
    let dir = tempfile::tempdir().unwrap();
    gray(dir.path(), "dot.png", 1, 1, &[9]);
    let dot = parse_in(dir.path(), r#"image: "dot.png", material: "brick""#).expect("1 pixel");
    assert_eq!(columns(&dot.terrains[0]).len(), 1);

    gray(dir.path(), "strip.png", 5, 2, &[1, 1, 1, 1, 1, 1, 1, 1, 1, 2]);
    let strip = parse_in(dir.path(), r#"image: "strip.png", material: "brick""#).expect("non-square");
    assert_eq!((strip.terrains[0].heights.width, strip.terrains[0].heights.depth), (5, 2));
    // The 1s merge into a 5 x 1 row and a 4 x 1 row; the 2 stands alone.
    assert_eq!(columns(&strip.terrains[0]).len(), 3);

    let deep: ImageBuffer<Luma<u16>, Vec<u16>> = ImageBuffer::from_raw(2, 1, vec![1000, 65535]).unwrap();
    deep.save(dir.path().join("deep.png")).unwrap();
    let deep =
        parse_in(dir.path(), r#"image: "deep.png", height_scale: 0.001, material: "brick""#).expect("16-bit");
    assert_eq!(deep.terrains[0].heights.values, [1000, 65535], "16-bit values as stored");
    let tallest = columns(&deep.terrains[0]).iter().map(|b| b.max.y).fold(0.0, f32::max);
    assert_eq!(tallest, 65535.0 * 0.001);

    // Pure red, green and white: luma is their Rec. 709 weighted sum.
    let colour: RgbImage =
        ImageBuffer::from_fn(3, 1, |x, _| Rgb([[255, 0, 0], [0, 255, 0], [255, 255, 255]][x as usize]));
    colour.save(dir.path().join("colour.png")).unwrap();
    let colour = parse_in(dir.path(), r#"image: "colour.png", material: "brick""#).expect("colour");
    let luma = &colour.terrains[0].heights.values;
    assert_eq!(luma[2], 255);
    assert!(luma[1] > luma[0] && luma[0] > 0, "green is brighter than red: {luma:?}");
}

#[test]
fn a_palette_colours_columns_by_height() {
    let dir = tempfile::tempdir().unwrap();
    gray(dir.path(), "h.png", 3, 1, &[1, 4, 9]);
    let palette = r#"image: "h.png", height_scale: 1, palette: [(from: 0, material: "street"), (from: 4, material: "brick")]"#;
    let scene = parse_in(dir.path(), palette).expect("valid");
    let materials: Vec<u32> = columns(&scene.terrains[0]).iter().map(|b| b.material).collect();
    assert_eq!(materials, [0, 1, 1]);
}

#[test]
fn a_generated_city_compiles_to_merged_columns_in_a_valid_blob() {
    let dir = tempfile::tempdir().unwrap();
    // Blocks of 6 x 6 pixels of one height on streets of height 1, 8 pixels apart.
    let size = 64u32;
    let values: Vec<u8> = (0..size * size)
        .map(|i| {
            let (x, z) = (i % size, i / size);
            if x % 8 < 2 || z % 8 < 2 { 1 } else { (4 + (x / 8 * 7 + z / 8 * 13) % 60) as u8 }
        })
        .collect();
    gray(dir.path(), "city.png", size, size, &values);
    let scene = parse_in(dir.path(), r#"image: "city.png", material: "brick""#).expect("valid");
    let raised = scene.terrains[0].heights.raised();
    assert_eq!(raised, (size * size) as usize);
    let boxes = columns(&scene.terrains[0]);
    // Each block is one box; the street grid merges into a few strips per block row.
    assert!(boxes.len() <= 64 + 3 * 64, "{} boxes", boxes.len());
    let volume: f32 = boxes.iter().map(|b| (b.max - b.min).x * (b.max - b.min).z).sum();
    assert_eq!(volume, (size * size) as f32, "the boxes' footprints tile the image");

    let compiled = compile_scene(&scene, &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).expect("the loader accepts the blob and its BVH");
    assert_eq!(view.records::<Cuboid>().len(), boxes.len());
    let leaf_prims: u32 =
        compiled.bvh_stats.leaf_size_histogram.iter().enumerate().map(|(k, n)| k as u32 * n).sum();
    assert_eq!(leaf_prims as usize, boxes.len(), "every column in one leaf");
}

#[test]
fn terrain_errors_point_at_the_ron_line() {
    let dir = tempfile::tempdir().unwrap();
    gray(dir.path(), "h.png", 1, 1, &[3]);
    let at = |terrain: &str| first_error(&parse_in(dir.path(), terrain).expect_err("invalid"));
    let line = 5;
    let col = |terrain: &str, needle: &str| "        Heightmap(".len() + terrain.find(needle).unwrap() + 1;

    let missing = r#"image: "nope.png", material: "brick""#;
    let (message, l, c) = at(missing);
    assert!(message.contains("nope.png") && message.contains("cannot open"), "{message}");
    assert_eq!((l, c), (line, col(missing, "\"nope")));

    std::fs::write(dir.path().join("text.png"), "not an image").unwrap();
    let unreadable = r#"image: "text.png", material: "brick""#;
    let (message, l, _) = at(unreadable);
    assert!(message.contains("not a readable image"), "{message}");
    assert_eq!(l, line);

    let both = r#"image: "h.png", material: "brick", palette: [(from: 0, material: "street")]"#;
    let (message, l, c) = at(both);
    assert!(message.contains("not both"), "{message}");
    assert_eq!((l, c), (line, col(both, "[(from")));

    let neither = r#"image: "h.png""#;
    assert!(at(neither).0.contains("needs a `material` or a `palette`"));

    let descending =
        r#"image: "h.png", palette: [(from: 5, material: "street"), (from: 2, material: "brick")]"#;
    let (message, l, c) = at(descending);
    assert!(message.contains("must ascend"), "{message}");
    assert_eq!((l, c), (line, col(descending, "2, material")));

    let flat = r#"image: "h.png", cell: 0, material: "brick""#;
    let (message, _, c) = at(flat);
    assert!(message.contains("terrain `cell` must be positive"), "{message}");
    assert_eq!(c, col(flat, "0,"));

    let typo = r#"image: "h.png", material: "brik""#;
    assert!(at(typo).0.contains("unknown material `brik`"));

    let far = r#"image: "h.png", origin: (1e9, 0, 0), material: "brick""#;
    assert!(at(far).0.contains("too fine"), "{}", at(far).0);
}

#[test]
fn an_image_over_the_column_limit_is_refused_before_decoding() {
    let dir = tempfile::tempdir().unwrap();
    // 8192 x 4097 pixels: one row over the 2^25 columns a blob holds. Zeros compress
    // to a small file.
    let (width, depth) = (8192, 4097);
    GrayImage::new(width, depth).save(dir.path().join("huge.png")).unwrap();
    let err = parse_in(dir.path(), r#"image: "huge.png", material: "brick""#).expect_err("too large");
    let (message, line, _) = first_error(&err);
    assert!(message.contains("8192 x 4097 pixels"), "{message}");
    assert_eq!(line, 5);
}
