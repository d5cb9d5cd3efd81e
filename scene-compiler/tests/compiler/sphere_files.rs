//! Sphere files (`sphere_files`): PLY point lists in ascii, binary little and big endian,
//! with and without a `material` property, float or double; their transform and
//! materials at compile time; every error at its RON value; reuse and refit of the BVH;
//! and `to_ron` writing the file's name, never its spheres.

use std::path::Path;

use glam::Vec3;
use scene_compiler::compile::compile_scene_reusing;
use scene_compiler::scene::{self, LoadError, PlyEncoding, Scene, Sphere, write_sphere_file};
use scene_compiler::sphere_files::with_spheres;
use scene_compiler::{BlobView, CompileOptions, compile_scene};

/// A scene with three materials and the given `sphere_files` entries (line 5), parsed as
/// `dir/scene.ron`.
fn parse_in(dir: &Path, entries: &str) -> Result<Scene, LoadError> {
    let text = format!(
        r#"Scene(
    camera: (look_from: (0, 0, 9), look_at: (0, 0, 0), vfov_deg: 40),
    materials: {{ "a": Lambert(albedo: (0.6, 0.3, 0.2)), "b": Metal(albedo: (0.9, 0.9, 0.9)), "c": Dielectric(ior: 1.5) }},
    sphere_files: [
        {entries}
    ],
)"#
    );
    scene::parse(&text, &dir.join("scene.ron").display().to_string())
}

/// The first diagnostic's message, 1-based line and column.
fn first_error(err: &LoadError) -> (String, usize, usize) {
    let d = &err.diagnostics()[0];
    (d.message().to_owned(), d.line().expect("located"), d.column().expect("located"))
}

/// Spheres whose `material` is an index into a sphere file's `materials`.
fn points() -> Vec<Sphere> {
    vec![
        Sphere { center: Vec3::new(0.1, -2.5, 3.0), radius: 0.25, material: 2 },
        Sphere { center: Vec3::new(-1.0, 0.0, 1e-3), radius: 1.5, material: 0 },
        Sphere { center: Vec3::new(1234.5, 7.0, -0.125), radius: 3e-3, material: 1 },
    ]
}

#[test]
fn every_encoding_reads_the_same_spheres_with_and_without_materials() {
    let dir = tempfile::tempdir().unwrap();
    for (encoding, name) in [
        (PlyEncoding::Ascii, "ascii"),
        (PlyEncoding::BinaryLittleEndian, "le"),
        (PlyEncoding::BinaryBigEndian, "be"),
    ] {
        // With materials: each sphere takes the scene material its index names.
        std::fs::write(dir.path().join(format!("{name}.ply")), write_sphere_file(&points(), encoding, true))
            .unwrap();
        let scene = parse_in(dir.path(), &format!(r#"(file: "{name}.ply", materials: ["c", "a", "b"]),"#))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(scene.spheres.is_empty(), "the scene's own spheres stay what the file wrote");
        assert_eq!(scene.sphere_files[0].data.spheres, points(), "{name}");
        let placed = with_spheres(&scene).spheres.clone();
        let scene_material = [2, 0, 1];
        let want: Vec<Sphere> =
            points().iter().map(|s| Sphere { material: scene_material[s.material as usize], ..*s }).collect();
        assert_eq!(placed, want, "{name}");

        // Without: one material for all.
        std::fs::write(
            dir.path().join(format!("{name}-1.ply")),
            write_sphere_file(&points(), encoding, false),
        )
        .unwrap();
        let scene = parse_in(dir.path(), &format!(r#"(file: "{name}-1.ply", materials: ["b"]),"#)).unwrap();
        assert!(!scene.sphere_files[0].data.has_material);
        let placed = with_spheres(&scene).spheres.clone();
        assert_eq!(placed, points().iter().map(|s| Sphere { material: 1, ..*s }).collect::<Vec<_>>());
        let compiled = compile_scene(&scene, &CompileOptions::default());
        let view = BlobView::parse(&compiled.blob).expect("a sphere file's blob is valid");
        assert_eq!(view.records::<Sphere>().len(), 3);
    }
}

#[test]
fn doubles_any_integer_material_and_other_properties_and_elements_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let ply = "ply\nformat ascii 1.0\ncomment made by hand\nelement camera 1\nproperty float fov\n\
               element vertex 2\nproperty double x\nproperty double y\nproperty double z\nproperty uchar red\n\
               property double radius\nproperty short material\nelement face 0\n\
               property list uchar int vertex_indices\nend_header\n45\n\
               0.1 0.2 0.3 255 0.5 1\n-1 -2 -3 0 2.5 0\n";
    std::fs::write(dir.path().join("d.ply"), ply).unwrap();
    let scene = parse_in(dir.path(), r#"(file: "d.ply", materials: ["a", "c"]),"#).unwrap();
    let f = |x: f64| x as f32;
    assert_eq!(
        with_spheres(&scene).spheres,
        [
            Sphere { center: Vec3::new(f(0.1), f(0.2), f(0.3)), radius: 0.5, material: 2 },
            Sphere { center: Vec3::new(-1.0, -2.0, -3.0), radius: 2.5, material: 0 },
        ]
    );
}

#[test]
fn the_transform_scales_centers_and_radii_then_rotates_and_translates() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("p.ply"),
        write_sphere_file(&points(), PlyEncoding::BinaryLittleEndian, true),
    )
    .unwrap();
    let entry = r#"(file: "p.ply", materials: ["a", "b", "c"], transform: (translate: (0, 1, 0), rotate_deg: (0, 90, 0), scale: 2)),"#;
    let scene = parse_in(dir.path(), entry).unwrap();
    for (placed, s) in with_spheres(&scene).spheres.iter().zip(points()) {
        // 90° about Y takes x to -z and z to x.
        let want = Vec3::new(s.center.z, s.center.y, -s.center.x) * 2.0 + Vec3::Y;
        assert!((placed.center - want).length() <= 1e-4 * want.length().max(1.0), "{placed:?} {want}");
        assert_eq!((placed.radius, placed.material), (s.radius * 2.0, s.material));
    }
    // A scale of one size on every axis, negative on one: the centers mirrored, the
    // radii twice as large (never negative).
    let mirrored = r#"(file: "p.ply", materials: ["a", "b", "c"], transform: (scale: (2, -2, 2))),"#;
    let scene = parse_in(dir.path(), mirrored).unwrap();
    for (placed, s) in with_spheres(&scene).spheres.iter().zip(points()) {
        let want = s.center * Vec3::new(2.0, -2.0, 2.0);
        assert!((placed.center - want).length() <= 1e-4 * want.length().max(1.0), "{placed:?} {want}");
        assert_eq!(placed.radius, s.radius * 2.0);
    }
}

/// A valid header of `count` vertices `x y z radius` (floats) and `extra` properties.
fn header(format: &str, count: &str, extra: &str) -> String {
    format!(
        "ply\nformat {format} 1.0\nelement vertex {count}\nproperty float x\nproperty float y\nproperty float z\n\
         property float radius\n{extra}end_header\n"
    )
}

#[test]
fn bad_sphere_files_are_errors_at_their_ron_values() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| std::fs::write(dir.path().join(name), bytes).unwrap();
    let ascii = |count: &str, extra: &str, body: &str| format!("{}{body}", header("ascii", count, extra));
    write("ok.ply", &write_sphere_file(&points(), PlyEncoding::Ascii, true));
    write("one.ply", &write_sphere_file(&points(), PlyEncoding::Ascii, false));
    write("text.ply", b"not a ply file\n");
    write(
        "no-vertex.ply",
        b"ply\nformat ascii 1.0\nelement face 0\nproperty list uchar int vertex_indices\nend_header\n",
    );
    write("no-radius.ply", b"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 0 0\n");
    write("int-radius.ply", ascii("1", "", "").replace("float radius", "int radius").as_bytes());
    write("float-material.ply", ascii("1", "property float material\n", "0 0 0 1 0.5\n").as_bytes());
    write("empty.ply", ascii("0", "", "").as_bytes());
    write("zero.ply", ascii("2", "", "0 0 0 1\n0 0 0 0\n").as_bytes());
    // Non-finite values, in binary (ascii PLY has no spelling for them).
    let binary = |spheres: &[Sphere]| write_sphere_file(spheres, PlyEncoding::BinaryLittleEndian, false);
    let mut bad = points();
    bad[0].radius = f32::INFINITY;
    write("inf.ply", &binary(&bad[..1]));
    bad[1].center.y = f32::NAN;
    write("nan.ply", &binary(&bad[1..]));
    write("far.ply", ascii("3", "property uchar material\n", "0 0 0 1 0\n0 0 0 1 2\n0 0 0 1 3\n").as_bytes());
    write("negative.ply", ascii("2", "property int material\n", "0 0 0 1 0\n0 0 0 1 -1\n").as_bytes());
    write("short.ply", ascii("3", "", "0 0 0 1\n").as_bytes());
    // A count far beyond the data: an error at the end of the data, not an allocation.
    let mut huge = header("binary_little_endian", "30000000", "").into_bytes();
    huge.extend([0u8; 32]);
    write("huge.ply", &huge);
    write("too-many.ply", ascii("4000000000", "", "0 0 0 1\n").as_bytes());

    // Where each error points: the first character of this text in the entry.
    let file_column = "\"";
    let cases: &[(&str, &str, &str)] = &[
        (r#"(file: "missing.ply", materials: ["a"]),"#, "cannot use sphere file `missing.ply`", file_column),
        (r#"(file: "text.ply", materials: ["a"]),"#, "not a PLY file", file_column),
        (r#"(file: "no-vertex.ply", materials: ["a"]),"#, "no `vertex` element", file_column),
        (r#"(file: "no-radius.ply", materials: ["a"]),"#, "no `radius` property", file_column),
        (r#"(file: "int-radius.ply", materials: ["a"]),"#, "property `radius` is int", file_column),
        (r#"(file: "float-material.ply", materials: ["a"]),"#, "property `material` is float", file_column),
        (r#"(file: "empty.ply", materials: ["a"]),"#, "no spheres", file_column),
        (r#"(file: "zero.ply", materials: ["a"]),"#, "vertex 1 has radius 0", file_column),
        (r#"(file: "inf.ply", materials: ["a"]),"#, "vertex 0 has radius inf", file_column),
        (r#"(file: "nan.ply", materials: ["a"]),"#, "vertex 0 has a non-finite center", file_column),
        (
            r#"(file: "far.ply", materials: ["a", "b", "c"]),"#,
            "vertex 2 has material 3, but `materials` names 3",
            file_column,
        ),
        (r#"(file: "negative.ply", materials: ["a"]),"#, "vertex 1 has material -1", file_column),
        (r#"(file: "short.ply", materials: ["a"]),"#, "element `vertex`", file_column),
        (r#"(file: "huge.ply", materials: ["a"]),"#, "element `vertex`", file_column),
        (r#"(file: "too-many.ply", materials: ["a"]),"#, "4000000000 spheres, more than", file_column),
        (r#"(file: "one.ply", materials: ["a", "b"]),"#, "must name exactly one material, not 2", "["),
        (r#"(file: "ok.ply", materials: []),"#, "`materials` is empty", "["),
        (r#"(file: "ok.ply", materials: ["a", "bb", "c"]),"#, "unknown material `bb`", "\"bb\""),
        (
            r#"(file: "ok.ply", materials: ["a", "b", "c"], transform: (scale: 0)),"#,
            "`scale` must be between 1e-6 and 1e6, or between -1e6 and -1e-6 to mirror, found 0",
            "0)",
        ),
        (
            r#"(file: "ok.ply", materials: ["a", "b", "c"], transform: (scale: (1, 2, 1))),"#,
            "a sphere file's `scale` must be one number (or the same size on every axis, a negative one mirroring), found (1, 2, 1)",
            "(1, 2",
        ),
        (
            r#"(file: "ok.ply", materials: ["a", "b", "c"], transform: (scale: 1e38)),"#,
            "`scale` must be between 1e-6 and 1e6",
            "1e38",
        ),
        (
            r#"(file: "ok.ply", materials: ["a", "b", "c"], transform: (scale: 1e6, translate: (9e8, 0, 0))),"#,
            "of sphere file `ok.ply`, placed by this `transform`, is unusable: it reaches past 1e9",
            "(scale",
        ),
    ];
    for &(entry, message, marker) in cases {
        // The entry starts in column 9 of its line.
        let column = 9 + entry.find(marker).expect("the marker is in the entry");
        let err = parse_in(dir.path(), entry).expect_err(entry);
        let (got, line, col) = first_error(&err);
        assert!(got.contains(message), "{entry}: {got}");
        assert_eq!((line, col), (5, column), "{entry}: {got}");
        assert_eq!(err.diagnostics().len(), 1, "{entry}: one mistake, one message: {err}");
    }
}

/// A camera edit reuses the BVH of a scene whose spheres come from a file, a moved
/// sphere file refits it, and `to_ron` writes the file's name, never its spheres.
#[test]
fn sphere_files_round_trip_and_reuse_or_refit_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    let many: Vec<Sphere> = (0..500)
        .map(|i| Sphere {
            center: Vec3::new((i % 10) as f32, (i / 10 % 10) as f32, (i / 100) as f32),
            radius: 0.3,
            material: i % 3,
        })
        .collect();
    std::fs::write(dir.path().join("m.ply"), write_sphere_file(&many, PlyEncoding::BinaryBigEndian, true))
        .unwrap();
    let scene =
        parse_in(dir.path(), r#"(file: "m.ply", materials: ["a", "b", "c"], transform: (scale: 0.5)),"#)
            .unwrap();
    let text = scene::to_ron(&scene);
    assert!(text.contains(r#"(file: "m.ply", materials: ["a", "b", "c"], transform: (translate: (0.0, 0.0, 0.0), rotate_deg: (0.0, 0.0, 0.0), scale: 0.5)),"#), "{text}");
    assert!(!text.contains("center"), "{text}");
    let back = scene::parse(&text, &dir.path().join("scene.ron").display().to_string()).unwrap();
    assert_eq!(back, scene);

    let options = CompileOptions::default();
    let first = compile_scene(&scene, &options);
    let previous = first.previous(&scene);
    let mut camera = scene.clone();
    camera.camera.vfov_deg = 30.0;
    let reused = compile_scene_reusing(&camera, &options, Some(previous));
    assert!(reused.bvh_reused);
    assert!(
        reused.blob[..] == compile_scene(&camera, &options).blob[..],
        "reuse gives a fresh compile's blob"
    );

    let mut moved = scene.clone();
    moved.sphere_files[0].transform.translate.x += 0.25;
    let refitted = compile_scene_reusing(&moved, &options, Some(previous));
    assert!(refitted.bvh_refitted && !refitted.bvh_reused);
    let centers = |blob: &scene_compiler::AlignedBytes| {
        let view = BlobView::parse(blob).unwrap();
        let mut c: Vec<[f32; 4]> = view.records::<Sphere>().iter().map(|r| r.center_radius).collect();
        c.sort_by(|a, b| a.partial_cmp(b).unwrap());
        c
    };
    assert_eq!(centers(&refitted.blob), centers(&compile_scene(&moved, &options).blob));
}
