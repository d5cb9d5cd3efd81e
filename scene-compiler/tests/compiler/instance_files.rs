//! Instanced meshes: `instances` in the RON and instance files (`instance_file`), PLY
//! point lists in ascii, binary little and big endian, with and without their optional
//! properties; every error at its RON value (line and column); an instanced-only scene
//! is not empty; and `to_ron` writing `instances` and the file's name back, never the
//! file's instances. (Compiling instances is not tested here.)

use std::path::Path;

use glam::Vec3;
use scene_compiler::procedural::{Format, icosphere, write};
use scene_compiler::scene::{
    self, LoadError, PlacedInstance, PlyEncoding, Scene, Transform, write_instance_file,
};

/// A scene with three materials and the given `meshes` entries (from line 5), parsed as
/// `dir/scene.ron`.
fn parse_in(dir: &Path, entries: &str) -> Result<Scene, LoadError> {
    let text = format!(
        r#"Scene(
    camera: (look_from: (0, 0, 9), look_at: (0, 0, 0), vfov_deg: 40),
    materials: {{ "a": Lambert(albedo: (0.6, 0.3, 0.2)), "b": Metal(albedo: (0.9, 0.9, 0.9)), "c": Dielectric(ior: 1.5) }},
    meshes: [
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

/// A folder with `ico.obj`, a unit icosphere (an OBJ without materials).
fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(&icosphere(1, 1.0), Format::Obj, &dir.path().join("ico.obj")).unwrap();
    dir
}

fn placed(translate: Vec3, rotate_deg: Vec3, scale: f32, material: Option<u32>) -> PlacedInstance {
    PlacedInstance { transform: Transform { translate, rotate_deg, scale: Vec3::splat(scale) }, material }
}

/// Instances with every property away from its default.
fn forest() -> Vec<PlacedInstance> {
    vec![
        placed(Vec3::new(1.0, 0.0, 2.0), Vec3::new(0.0, 30.0, 0.0), 1.5, Some(2)),
        placed(Vec3::new(-12.5, 0.25, 1e-3), Vec3::new(-90.0, 0.5, 180.0), 0.125, Some(0)),
        placed(Vec3::new(1234.5, 7.0, -0.1), Vec3::ZERO, 3e-3, Some(1)),
    ]
}

#[test]
fn every_encoding_reads_back_what_the_writer_wrote() {
    let dir = folder();
    for (encoding, name) in [
        (PlyEncoding::Ascii, "ascii"),
        (PlyEncoding::BinaryLittleEndian, "le"),
        (PlyEncoding::BinaryBigEndian, "be"),
    ] {
        let path = dir.path().join(format!("{name}.ply"));
        std::fs::write(&path, write_instance_file(&forest(), encoding)).unwrap();
        let scene = parse_in(
            dir.path(),
            &format!(r#"(file: "ico.obj", material: "a", instance_file: "{name}.ply"),"#),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mesh = &scene.meshes[0];
        assert!(mesh.is_instanced());
        assert_eq!(mesh.placements.instances, forest(), "{name}");
        assert_eq!(mesh.placements.rewrite, Ok(encoding), "{name}: the writer can stand for it");
        assert_eq!(mesh.placements.path, path);
        assert!(scene.input_files().contains(&path.as_path()), "a live session watches the instance file");
        // Each placement is the file's transform (no `transform`: the identity after it).
        let placements = mesh.placements();
        assert_eq!(placements.len(), 3);
        for ((matrix, material), p) in placements.iter().zip(forest()) {
            assert_eq!((*matrix, *material), (p.transform.matrix(), p.material));
        }
    }
}

/// A file that holds more than the writer writes (another property or element, doubles)
/// says why it cannot be written back: the editor leaves its instances to the file.
#[test]
fn a_file_with_more_than_instances_is_not_rewritten() {
    let dir = folder();
    let header = |more: &str| {
        format!(
            "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\n{more}end_header\n0 0 0{}\n",
            if more.contains("property") { " 1" } else { "" }
        )
    };
    let cases = [
        ("id.ply", header("property float id\n"), "a property `id`"),
        ("double.ply", header("property double scale\n"), "`scale` is double"),
        (
            "element.ply",
            "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nelement note 1\nproperty uchar n\nend_header\n0 0 0\n7\n".to_owned(),
            "an element `note`",
        ),
    ];
    for (name, text, why) in cases {
        std::fs::write(dir.path().join(name), text).unwrap();
        let scene =
            parse_in(dir.path(), &format!(r#"(file: "ico.obj", material: "a", instance_file: "{name}"),"#))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        let rewrite = &scene.meshes[0].placements.rewrite;
        assert!(rewrite.as_ref().is_err_and(|e| e.contains(why)), "{name}: {rewrite:?}");
    }
}

#[test]
fn optional_properties_absent_are_the_identity_rotation_scale_1_and_no_material() {
    let dir = folder();
    // Doubles, other properties and elements (skipped), no `rx ry rz`, `scale`, `material`.
    let ply = "ply\nformat ascii 1.0\ncomment made by hand\nelement camera 1\nproperty float fov\n\
               element vertex 2\nproperty double x\nproperty uchar red\nproperty double y\nproperty double z\n\
               element face 0\nproperty list uchar int vertex_indices\nend_header\n45\n\
               0.1 255 0.2 0.3\n-1 0 -2 -3\n";
    std::fs::write(dir.path().join("bare.ply"), ply).unwrap();
    let scene =
        parse_in(dir.path(), r#"(file: "ico.obj", material: "b", instance_file: "bare.ply"),"#).unwrap();
    let f = |x: f64| x as f32;
    assert_eq!(
        scene.meshes[0].placements.instances,
        [
            placed(Vec3::new(f(0.1), f(0.2), f(0.3)), Vec3::ZERO, 1.0, None),
            placed(Vec3::new(-1.0, -2.0, -3.0), Vec3::ZERO, 1.0, None),
        ]
    );

    // The writer leaves out what every instance has at its default, and reads back.
    let bare = vec![placed(Vec3::new(4.0, 5.0, 6.0), Vec3::ZERO, 1.0, None)];
    for encoding in [PlyEncoding::Ascii, PlyEncoding::BinaryBigEndian] {
        let bytes = write_instance_file(&bare, encoding);
        let text = String::from_utf8_lossy(&bytes);
        let header = &text[..text.find("end_header").unwrap()];
        for absent in ["rx", "scale", "material"] {
            assert!(!header.contains(&format!("property float {absent}")), "{header}");
        }
        assert!(!header.contains("material\n"), "{header}");
        std::fs::write(dir.path().join("written.ply"), bytes).unwrap();
        let scene =
            parse_in(dir.path(), r#"(file: "ico.obj", material: "b", instance_file: "written.ply"),"#)
                .unwrap();
        assert_eq!(scene.meshes[0].placements.instances, bare);
    }
}

/// An instance's `material` names one of the scene's: a name the scene lacks is an
/// error where it is written, and instances that all name one need none of the model's.
#[test]
fn an_instance_material_is_checked_where_it_is_written() {
    let dir = folder();
    let entry =
        r#"(file: "ico.obj", instances: [(translate: (1, 0, 0), material: "a"), (material: "glas")]),"#;
    let err = parse_in(dir.path(), entry).unwrap_err();
    let (message, line, column) = first_error(&err);
    assert!(message.contains("unknown material `glas`"), "{message}");
    assert_eq!((line, column), (5, 8 + entry.find("\"glas\"").unwrap() + 1), "{message}");
    assert_eq!(err.diagnostics().len(), 1, "the other instance names a material: the model needs none");
    let fixed = entry.replace("glas", "c");
    assert!(parse_in(dir.path(), &fixed).is_ok());
}

/// `transform` applies after each instance's own, for `instances` and the file's alike,
/// and a file's `material` replaces the model's.
#[test]
fn the_mesh_transform_applies_after_each_instance() {
    let dir = folder();
    std::fs::write(dir.path().join("f.ply"), write_instance_file(&forest(), PlyEncoding::BinaryLittleEndian))
        .unwrap();
    let entry = r#"(file: "ico.obj", material: "a", transform: (translate: (0, 1, 0), rotate_deg: (0, 90, 0), scale: 2), instances: [(translate: (1, 0, 2), rotate_deg: (0, 30, 0), scale: 1.5), (translate: (0, 0, 5), material: "c")], instance_file: "f.ply"),"#;
    let scene = parse_in(dir.path(), entry).unwrap();
    let mesh = &scene.meshes[0];
    let outer = mesh.transform.matrix();
    let own = Transform {
        translate: Vec3::new(1.0, 0.0, 2.0),
        rotate_deg: Vec3::new(0.0, 30.0, 0.0),
        scale: Vec3::splat(1.5),
    };
    let glass = Transform { translate: Vec3::new(0.0, 0.0, 5.0), ..Transform::default() };
    assert_eq!(mesh.instances, [own.into(), PlacedInstance { transform: glass, material: Some(2) }]);
    let mut want = vec![(outer * own.matrix(), None), (outer * glass.matrix(), Some(2))];
    want.extend(forest().iter().map(|p| (outer * p.transform.matrix(), p.material)));
    assert_eq!(mesh.placements(), want);
    // A point of the model: scaled by the instance, rotated, moved, then the same by the mesh.
    let p = mesh.placements()[0].0.transform_point3(Vec3::X);
    let inner = own.matrix().transform_point3(Vec3::X);
    let expected = Vec3::new(inner.z, inner.y, -inner.x) * 2.0 + Vec3::Y;
    assert!((p - expected).length() < 1e-4, "{p} against {expected}");
}

/// A valid ascii header of `count` vertices `x y z` (floats) and `extra` properties.
fn header(format: &str, count: &str, extra: &str) -> String {
    format!(
        "ply\nformat {format} 1.0\nelement vertex {count}\nproperty float x\nproperty float y\nproperty float z\n\
         {extra}end_header\n"
    )
}

#[test]
fn bad_instance_files_are_errors_at_their_instance_file() {
    let dir = folder();
    let write = |name: &str, bytes: &[u8]| std::fs::write(dir.path().join(name), bytes).unwrap();
    let ascii = |count: &str, extra: &str, body: &str| format!("{}{body}", header("ascii", count, extra));
    let binary =
        |instances: &[PlacedInstance]| write_instance_file(instances, PlyEncoding::BinaryLittleEndian);
    // A count the file cannot hold: refused before anything is read or allocated.
    let mut huge = header("binary_little_endian", &(1u64 << 40).to_string(), "").into_bytes();
    huge.extend([0u8; 24]);
    write("huge.ply", &huge);
    // A count beyond the data, within the limit: an error at the end of the data.
    let mut short = header("binary_little_endian", "30000000", "").into_bytes();
    short.extend([0u8; 24]);
    write("short.ply", &short);
    // Non-finite values, in binary (ascii PLY has no spelling for them).
    let mut bad = forest();
    bad[1].transform.translate.y = f32::NAN;
    write("nan.ply", &binary(&bad));
    let mut bad = forest();
    bad[2].transform.rotate_deg.z = f32::INFINITY;
    write("inf-rotation.ply", &binary(&bad));
    write("zero-scale.ply", ascii("2", "property float scale\n", "0 0 0 1\n0 0 0 0\n").as_bytes());
    write("negative-scale.ply", ascii("1", "property double scale\n", "1 2 3 -2\n").as_bytes());
    write("huge-scale.ply", ascii("1", "property float scale\n", "1 2 3 1e7\n").as_bytes());
    write(
        "no-x.ply",
        b"ply\nformat ascii 1.0\nelement vertex 1\nproperty float y\nproperty float z\nend_header\n0 0\n",
    );
    write("int-x.ply", ascii("1", "", "1 2 3\n").replace("float x", "int x").as_bytes());
    write("rx-only.ply", ascii("1", "property float rx\n", "1 2 3 4\n").as_bytes());
    write(
        "far-material.ply",
        ascii("3", "property uchar material\n", "0 0 0 0\n0 0 0 2\n0 0 0 3\n").as_bytes(),
    );
    write("negative-material.ply", ascii("2", "property int material\n", "0 0 0 0\n0 0 0 -1\n").as_bytes());
    write("float-material.ply", ascii("1", "property float material\n", "0 0 0 0.5\n").as_bytes());
    write("fraction-material.ply", ascii("1", "property uchar material\n", "0 0 0 0.5\n").as_bytes());
    write("empty.ply", b"");
    write("text.ply", b"not a ply file\n");
    write("no-instances.ply", ascii("0", "", "").as_bytes());
    write(
        "no-vertex.ply",
        b"ply\nformat ascii 1.0\nelement face 0\nproperty list uchar int vertex_indices\nend_header\n",
    );
    // The unit icosphere, 1e6 times its size at 9.995e8: it reaches past 1e9.
    write("far.ply", ascii("2", "property float scale\n", "0 0 0 1\n9.995e8 0 0 1e6\n").as_bytes());
    write("ok.ply", &binary(&forest()));
    // Wider `material` types (the writer's ushort and uint), both byte orders.
    let with_material = |m| {
        let mut instances = forest();
        instances[1].material = Some(m);
        instances
    };
    write("ushort.ply", &binary(&with_material(300)));
    write("uint.ply", &write_instance_file(&with_material(70_000), PlyEncoding::BinaryBigEndian));

    let cases: &[(&str, &str)] = &[
        ("missing.ply", "cannot use instance_file `missing.ply`"),
        ("huge.ply", "1099511627776 instances, more than the format's 33554432"),
        ("short.ply", "element `vertex`"),
        ("nan.ply", "vertex 1 has a non-finite translation"),
        ("inf-rotation.ply", "vertex 2 has a non-finite rotation"),
        ("zero-scale.ply", "vertex 1 has scale 0: a scale must be finite and above 0"),
        ("negative-scale.ply", "vertex 0 has scale -2: a scale must be finite and above 0"),
        ("huge-scale.ply", "vertex 0 has scale 10000000: a scale must be between 1e-6 and 1e6"),
        ("no-x.ply", "the `vertex` element has no `x` property"),
        ("int-x.ply", "property `x` is int"),
        ("rx-only.ply", "has `rx` but no `ry`"),
        ("far-material.ply", "vertex 2 has material 3, but the scene has 3 materials"),
        ("negative-material.ply", "vertex 1 has material -1"),
        ("float-material.ply", "property `material` is float: it must be an integer type"),
        ("fraction-material.ply", "element `vertex`"),
        ("ushort.ply", "vertex 1 has material 300, but the scene has 3 materials"),
        ("uint.ply", "vertex 1 has material 70000, but the scene has 3 materials"),
        ("empty.ply", "not a PLY file"),
        ("text.ply", "not a PLY file"),
        ("no-instances.ply", "no instances"),
        ("no-vertex.ply", "no `vertex` element"),
        ("far.ply", "vertex 1 places model `ico.obj` past 1e9 from the origin"),
    ];
    for &(file, message) in cases {
        let entry = format!(r#"(file: "ico.obj", material: "a", instance_file: "{file}"),"#);
        // The entry starts in column 9 of its line; the error points at the file's name.
        let column = 9 + entry.find(&format!("\"{file}")).expect("the name is in the entry");
        let err = parse_in(dir.path(), &entry).expect_err(file);
        let (got, line, col) = first_error(&err);
        assert!(got.contains(message), "{file}: {got}");
        assert!(got.contains(&format!("instance_file `{file}`")), "{file}: {got}");
        assert_eq!((line, col), (5, column), "{file}: {got}");
        assert_eq!(err.diagnostics().len(), 1, "{file}: one mistake, one message: {err}");
        let hint = err.diagnostics()[0].hint().unwrap_or_default().to_owned();
        if !got.contains("vertex ") || got.contains("element `vertex`") {
            // The file's layout is wrong: the hint says what it should be.
            assert!(hint.contains("`x y z`") && hint.contains("`rx ry rz`"), "{file}: {hint}");
        }
    }

    // The mesh's `transform` counts where the instances land.
    let entry = r#"(file: "ico.obj", material: "a", transform: (translate: (9.999999e8, 0, 0)), instance_file: "ok.ply"),"#;
    let (got, line, _) = first_error(&parse_in(dir.path(), entry).expect_err("far"));
    assert!(got.contains("vertex 2 and the mesh's `transform` places model `ico.obj` past 1e9"), "{got}");
    assert_eq!(line, 5);
}

#[test]
fn bad_instances_are_errors_at_their_lines() {
    let dir = folder();
    // Each instance on a line of its own: line 6 + k.
    let entry = |second: &str| {
        format!(
            "(file: \"ico.obj\", material: \"a\", instances: [\n            (translate: (1, 0, 0)),\n            {second},\n        ]),"
        )
    };
    let cases = [
        ("(translate: (NaN, 0, 0))", "`translate` must be a finite number, found NaN", "NaN"),
        (
            "(translate: (1, 2, 3), scale: 0)",
            "`scale` must be between 1e-6 and 1e6, or between -1e6 and -1e-6 to mirror, found 0",
            "0)",
        ),
        ("(scale: (2, 1e7, -1))", "`scale` along y must be between 1e-6 and 1e6", "1e7"),
        ("(scale: (2, 1, NaN))", "`scale` along z must be a finite number, found NaN", "NaN"),
        ("(rotate_deg: (0, inf, 0))", "`rotate_deg` must be a finite number", "inf"),
        ("(scale: 1e7)", "`scale` must be between 1e-6 and 1e6", "1e7"),
        ("(translate: (3e9, 0, 0))", "`translate` must be between -1e9 and 1e9", "3e9"),
        (
            "(translate: (9.995e8, 0, 0), scale: 1e6)",
            "instance 1 of `instances` places model `ico.obj` past 1e9",
            "(",
        ),
    ];
    for (second, message, marker) in cases {
        let err = parse_in(dir.path(), &entry(second)).expect_err(second);
        let (got, line, col) = first_error(&err);
        assert!(got.contains(message), "{second}: {got}");
        assert_eq!((line, col), (7, 13 + second.find(marker).unwrap()), "{second}: {got}");
        assert_eq!(err.diagnostics().len(), 1, "{second}: {err}");
    }
}

/// An instance file holds one `scale` per instance: one of its instances stretched in
/// memory (an edit) is an error naming the file and the vertex, not a file written
/// without the stretch on save.
#[test]
fn an_instance_files_instance_stretched_in_memory_is_an_error() {
    let dir = folder();
    std::fs::write(dir.path().join("f.ply"), write_instance_file(&forest(), PlyEncoding::Ascii)).unwrap();
    let mut scene =
        parse_in(dir.path(), r#"(file: "ico.obj", material: "a", instance_file: "f.ply"),"#).unwrap();
    scene::check(&scene, "scene.ron").expect("as read, the file's scales are one number each");
    std::sync::Arc::make_mut(&mut scene.meshes[0].placements).instances[1].transform.scale =
        Vec3::new(1.0, 2.0, 1.0);
    let err = scene::check(&scene, "scene.ron").expect_err("stretched");
    let message = err.diagnostics()[0].message();
    let want = "cannot use instance_file `f.ply`: vertex 1 has scale (1, 2, 1): an instance file's scale is one number";
    assert!(message.contains(want), "{message}");
}

#[test]
fn an_instanced_model_must_be_usable_in_its_own_space() {
    let dir = folder();
    std::fs::write(dir.path().join("big.obj"), "v 0 0 0\nv 2e9 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
    let entry = r#"(file: "big.obj", material: "a", instances: [(scale: 1e-3)]),"#;
    let (got, line, col) = first_error(&parse_in(dir.path(), entry).expect_err("big"));
    assert!(got.contains("triangle 0 of model `big.obj`"), "{got}");
    assert!(got.contains("own space"), "{got}");
    assert_eq!((line, col), (5, 9 + entry.find("\"big").unwrap()));
}

#[test]
fn instance_file_materials_replace_the_models() {
    let dir = folder();
    std::fs::write(dir.path().join("m.ply"), write_instance_file(&forest(), PlyEncoding::Ascii)).unwrap();
    let bare: Vec<PlacedInstance> =
        forest().iter().map(|p| PlacedInstance { material: None, ..*p }).collect();
    std::fs::write(dir.path().join("bare.ply"), write_instance_file(&bare, PlyEncoding::Ascii)).unwrap();
    // An OBJ without materials needs none when every instance names one...
    let scene = parse_in(dir.path(), r#"(file: "ico.obj", instance_file: "m.ply"),"#).unwrap();
    let materials: Vec<_> = scene.meshes[0].placements().iter().map(|p| p.1).collect();
    assert_eq!(materials, [Some(2), Some(0), Some(1)]);
    // ... but does when they do not, or when `instances` place it too.
    for entry in [
        r#"(file: "ico.obj", instance_file: "bare.ply"),"#,
        r#"(file: "ico.obj", instances: [(scale: 1)], instance_file: "m.ply"),"#,
    ] {
        let (got, line, _) = first_error(&parse_in(dir.path(), entry).expect_err(entry));
        assert!(got.contains("needs a `material`"), "{entry}: {got}");
        assert_eq!(line, 5);
    }
}

/// A scene whose only primitives are instances is not empty, and `to_ron` writes
/// `instances` and `instance_file` back (never the file's instances).
#[test]
fn instanced_scenes_parse_and_round_trip() {
    let dir = folder();
    std::fs::write(dir.path().join("f.ply"), write_instance_file(&forest(), PlyEncoding::BinaryBigEndian))
        .unwrap();
    let origin = dir.path().join("scene.ron").display().to_string();
    for entry in [
        r#"(file: "ico.obj", material: "b", instances: [(translate: (1, 0, 2), rotate_deg: (0, 30, 0), scale: 1.5), (translate: (-3, 0, 0))]),"#,
        r#"(file: "ico.obj", material: "c", instance_file: "f.ply"),"#,
        r#"(file: "ico.obj", material: "a", transform: (scale: 2), instances: [(rotate_deg: (90, 0, 0))], instance_file: "f.ply"),"#,
    ] {
        let scene = parse_in(dir.path(), entry).unwrap_or_else(|e| panic!("{entry}: {e}"));
        assert!(scene.spheres.is_empty() && scene.boxes.is_empty() && scene.meshes.len() == 1);
        let text = scene::to_ron(&scene);
        let mesh = &scene.meshes[0];
        if !mesh.instances.is_empty() {
            assert!(text.contains("instances: [(translate: "), "{text}");
        }
        if mesh.instance_file.is_some() {
            assert!(text.contains(r#"instance_file: "f.ply""#), "{text}");
            assert!(!text.contains("1234.5"), "the file's instances stay in the file: {text}");
        }
        let back = scene::parse(&text, &origin).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(back, scene, "{text}");
        assert_eq!(scene::to_ron(&back), text);
    }
    // An empty `instances` is no instancing, and is not written.
    let scene = parse_in(dir.path(), r#"(file: "ico.obj", material: "a", instances: []),"#).unwrap();
    assert!(!scene.meshes[0].is_instanced());
    assert!(!scene::to_ron(&scene).contains("instances"));
}
