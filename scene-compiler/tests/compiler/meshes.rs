//! Triangle meshes: the RON form and its errors (at the RON value), every model format
//! and variant read into the same triangles, transforms (scale, rotations about X then
//! Y then Z, translation; glTF node hierarchies), and the compiled triangles in a blob
//! the loader accepts.

use std::path::Path;

use glam::Vec3;
use scene_compiler::blob::layout::{PrimKind, TriangleRecord};
use scene_compiler::blob::normal;
use scene_compiler::procedural::{Format, Geometry, icosphere, write};
use scene_compiler::scene::{self, LoadError, Scene, Triangle};
use scene_compiler::{BlobView, CompileOptions, compile_scene};

/// A scene with the given `meshes` entries and nothing else, parsed as `dir/scene.ron`.
pub(crate) fn parse_in(dir: &Path, meshes: &str) -> Result<Scene, LoadError> {
    let text = format!(
        r#"Scene(
    camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40),
    materials: {{ "clay": Lambert(albedo: (0.6, 0.3, 0.2)) }},
    meshes: [
        {meshes}
    ],
)"#
    );
    scene::parse(&text, &dir.join("scene.ron").display().to_string())
}

/// The first diagnostic's message and 1-based line.
fn first_error(err: &LoadError) -> (String, usize) {
    let d = &err.diagnostics()[0];
    (d.message().to_owned(), d.line().expect("located"))
}

/// A compiled triangle with what the blob says of its vertices.
#[derive(Clone, Debug, PartialEq)]
struct Stored {
    v: [Vec3; 3],
    material: u32,
    normals: Option<[Vec3; 3]>,
}

/// The compiled scene's triangles, in the scene's (file) order.
fn triangles_of(scene: &Scene) -> Vec<Stored> {
    let compiled = compile_scene(scene, &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).expect("the blob of a mesh scene parses");
    let records: &[TriangleRecord] = view.records::<Triangle>();
    let first = view.header.kind_first()[PrimKind::Triangle as usize] as usize;
    let mut out = vec![None; records.len()];
    for (i, r) in records.iter().enumerate() {
        let source = view.prim_sources[first + i] as usize;
        let vertex = r.v.map(|i| view.vertices[i as usize]);
        let normals = vertex.map(|v| normal::decode(v.normal));
        out[source] = Some(Stored {
            v: vertex.map(|v| Vec3::from_array(v.position)),
            material: view.prim_materials[first + i],
            normals: normals[0].map(|_| normals.map(|n| n.expect("all three or none"))),
        });
    }
    out.into_iter().map(|t| t.expect("prim_sources is a permutation")).collect()
}

fn expected(g: &Geometry) -> Vec<Stored> {
    let normals = |t: &[u32; 3]| (!g.normals.is_empty()).then(|| t.map(|i| g.normals[i as usize]));
    g.triangles
        .iter()
        .map(|t| Stored { v: t.map(|i| g.positions[i as usize]), material: 0, normals: normals(t) })
        .collect()
}

#[test]
fn every_format_reads_the_same_triangles_and_compiles_them() {
    let dir = tempfile::tempdir().unwrap();
    let ico = icosphere(1, 2.0);
    assert_eq!(ico.triangles.len(), 80);
    for (format, name) in [
        (Format::Obj, "ico.obj"),
        (Format::PlyAscii, "ico_ascii.ply"),
        (Format::PlyLittleEndian, "ico_le.ply"),
        (Format::PlyBigEndian, "ico_be.ply"),
        (Format::Gltf, "ico.gltf"),
        (Format::Glb, "ico.glb"),
    ] {
        write(&ico, format, &dir.path().join(name)).unwrap();
        let scene = parse_in(dir.path(), &format!(r#"(file: "{name}", material: "clay"),"#))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(scene.meshes[0].data.triangles.len(), 80, "{name}");
        let (got, want) = (triangles_of(&scene), expected(&ico));
        assert_eq!(got.len(), want.len(), "{name}");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!((g.v, g.material), (w.v, w.material), "{name}: the blob holds the file's triangles");
            let (gn, wn) = (g.normals.expect("normals"), w.normals.expect("normals"));
            // Octahedral-coded in the blob: within 6.4e-5 rad (records::normal).
            assert!(gn.iter().zip(&wn).all(|(a, b)| (*a - *b).abs().max_element() < 7e-5), "{name}: normals");
        }
        // The text written back names the same file and reads back the same scene.
        let again = scene::parse(&scene::to_ron(&scene), &dir.path().join("again.ron").display().to_string())
            .expect("written text");
        assert_eq!(again, scene, "{name}");
    }
}

/// The triangle with corners on the axes, (1, 0, 0), (0, 1, 0), (0, 0, 1), as a mesh
/// placed by `transform` (its RON text) compiles it, with the scene.
fn axes_triangle_placed_by(transform: &str) -> (Stored, Scene) {
    let dir = tempfile::tempdir().unwrap();
    let one = Geometry {
        normals: Vec::new(),
        positions: vec![Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 0.0, 1.0)],
        triangles: vec![[0, 1, 2]],
    };
    write(&one, Format::Obj, &dir.path().join("one.obj")).unwrap();
    let mesh = format!(r#"(file: "one.obj", material: "clay", transform: {transform}),"#);
    let scene = parse_in(dir.path(), &mesh).expect("valid");
    (triangles_of(&scene).swap_remove(0), scene)
}

#[test]
fn transforms_scale_then_rotate_about_x_y_z_then_translate() {
    let (t, _) = axes_triangle_placed_by("(translate: (10, 0, 0), rotate_deg: (90, 90, 0), scale: 2)");
    // x: scaled to 2x; about X it stays, about Y (+90°) it goes to -z; then +10 x.
    // y: to 2y; about X (+90°) to +z; about Y to +x.  z: to 2z; about X to -y; Y keeps it.
    let close = |a: Vec3, b: Vec3| (a - b).abs().max_element() < 1e-5;
    assert!(close(t.v[0], Vec3::new(10.0, 0.0, -2.0)), "{}", t.v[0]);
    assert!(close(t.v[1], Vec3::new(12.0, 0.0, 0.0)), "{}", t.v[1]);
    assert!(close(t.v[2], Vec3::new(10.0, -2.0, 0.0)), "{}", t.v[2]);
}

/// A scale per axis, `(x, y, z)`, stretches the model along its own axes before the
/// rotation, and a negative one mirrors it.
#[test]
fn a_scale_per_axis_stretches_and_mirrors_before_the_rotation() {
    let (t, scene) =
        axes_triangle_placed_by("(translate: (10, 0, 0), rotate_deg: (0, 90, 0), scale: (2, 3, -0.5))");
    assert_eq!(scene.meshes[0].transform.scale, Vec3::new(2.0, 3.0, -0.5));
    // x to 2x, then about Y (+90°) to -z; y to 3y, which Y keeps; z to -0.5z, then to
    // -0.5x; then +10 x. The mirror leaves the corners where they are, in any order.
    let want = [Vec3::new(10.0, 0.0, -2.0), Vec3::new(10.0, 3.0, 0.0), Vec3::new(9.5, 0.0, 0.0)];
    for w in want {
        assert!(t.v.iter().any(|v| (*v - w).abs().max_element() < 1e-5), "{w} is not among {:?}", t.v);
    }
}

/// `to_ron` writes a scale the axes share as one number (as files before scales per
/// axis wrote it), whichever form the file used, and any other as `(x, y, z)`; either
/// reads back equal, and writes the same text again.
#[test]
fn scales_are_written_as_one_number_when_the_axes_share_it_and_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    write(&icosphere(0, 1.0), Format::Obj, &dir.path().join("ico.obj")).unwrap();
    let entries = r#"(file: "ico.obj", material: "clay", transform: (scale: (2, 2, 2))),
        (file: "ico.obj", material: "clay", transform: (rotate_deg: (0, 30, 0), scale: (1, 2.5, -1)), instances: [(scale: 1.5), (scale: (0.5, 1, 1)), (translate: (3, 0, 0), scale: -1)]),"#;
    let scene = parse_in(dir.path(), entries).expect("valid");
    let scales: Vec<Vec3> = scene.meshes[1].instances.iter().map(|i| i.transform.scale).collect();
    assert_eq!(scales, [Vec3::splat(1.5), Vec3::new(0.5, 1.0, 1.0), Vec3::splat(-1.0)]);
    let text = scene::to_ron(&scene);
    for written in
        ["scale: 2.0)", "scale: (1.0, 2.5, -1.0)", "scale: 1.5)", "scale: (0.5, 1.0, 1.0)", "scale: -1.0)"]
    {
        assert!(text.contains(written), "`{written}` is not in\n{text}");
    }
    let origin = dir.path().join("scene.ron").display().to_string();
    let back = scene::parse(&text, &origin).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back, scene);
    assert_eq!(scene::to_ron(&back), text);
}

/// Each axis of a scale is checked alone, at its value: 0, NaN and infinities are
/// errors there, one per bad axis, saying what a scale may be; a scale of neither form
/// is ron's error, within the value (a tuple of the wrong length at its end).
#[test]
fn bad_scales_are_errors_at_their_values() {
    let dir = tempfile::tempdir().unwrap();
    write(&icosphere(0, 1.0), Format::Obj, &dir.path().join("ok.obj")).unwrap();
    let allowed = "must be between 1e-6 and 1e6, or between -1e6 and -1e-6 to mirror";
    let cases: [(&str, &[(String, &str)]); 7] = [
        ("(1, 0, 2)", &[(format!("`scale` along y {allowed}, found 0"), "0")]),
        (
            "(NaN, 1, -inf)",
            &[
                ("`scale` along x must be a finite number, found NaN".into(), "NaN"),
                ("`scale` along z must be a finite number, found -inf".into(), "-inf"),
            ],
        ),
        ("(1, 1, 2e6)", &[(format!("`scale` along z {allowed}, found 2000000"), "2e6")]),
        ("-0.0", &[(format!("`scale` {allowed}, found -0"), "-0.0")]),
        ("(1, 2)", &[("expected a number, or three numbers `(x, y, z)`".into(), "(1, 2)")]),
        ("(1, 2, 3, 4)", &[("expected a number, or three numbers `(x, y, z)`".into(), "(1, 2, 3, 4)")]),
        ("\"big\"", &[("expected a number, or three numbers `(x, y, z)`".into(), "\"big\"")]),
    ];
    for (scale, expected) in cases {
        let entry = format!(r#"(file: "ok.obj", material: "clay", transform: (scale: {scale})),"#);
        let err = parse_in(dir.path(), &entry).expect_err(&entry);
        let got: Vec<(String, usize, usize)> = err
            .diagnostics()
            .iter()
            .map(|d| (d.message().to_owned(), d.line().unwrap_or(0), d.column().unwrap_or(0)))
            .collect();
        assert_eq!(got.len(), expected.len(), "{entry}: {got:?}");
        for ((message, line, column), (want, marker)) in got.iter().zip(expected) {
            assert!(message.contains(want.as_str()), "{entry}: {message}");
            // The entry starts in column 9 of line 5.
            let at = 9 + entry.rfind(marker).expect("the marker is in the entry");
            let within = if marker.len() == scale.len() { at + marker.len() - 1 } else { at };
            assert!(*line == 5 && (at..=within).contains(column), "{entry}: {message} at {line}:{column}");
        }
    }
}

/// An instance stretched along other axes than the mesh's `transform` stretches it
/// shears the model, and past some ratio its placement cannot be undone in 32-bit
/// floats: an error at that instance, where otherwise the compiled blob would fail its
/// own check (and the renderers take rays into the model's space wrongly).
#[test]
fn a_placement_too_uneven_to_undo_is_an_error_at_its_instance() {
    let dir = tempfile::tempdir().unwrap();
    write(&icosphere(1, 1.0), Format::Obj, &dir.path().join("ico.obj")).unwrap();
    let entry = |scale: &str| {
        format!(
            r#"(file: "ico.obj", material: "clay", transform: (rotate_deg: (20, 30, 40), scale: {scale}), instances: [(translate: (3, 0, 0)), (rotate_deg: (50, -30, 10), scale: {scale})]),"#
        )
    };
    let uneven =
        parse_in(dir.path(), &entry("(100, 0.01, 1)")).expect("stretched 10^4 times, it can be undone");
    let compiled = compile_scene(&uneven, &CompileOptions::default());
    BlobView::parse(&compiled.blob).expect("the blob passes its check");
    let too_uneven = entry("(1000, 0.001, 1)");
    let err = parse_in(dir.path(), &too_uneven).expect_err("stretched 10^6 times");
    let d = &err.diagnostics()[0];
    let message = "instance 1 of `instances` and the mesh's `transform` stretches model `ico.obj` too unevenly for 32-bit floats to undo";
    assert!(d.message().contains(message), "{}", d.message());
    // The entry starts in column 9 of line 5.
    let at = 9 + too_uneven.find("(rotate_deg: (50").expect("the instance is in the entry");
    assert_eq!((d.line(), d.column()), (Some(5), Some(at)), "{}", d.message());
}

#[test]
fn gltf_nodes_compose_their_transforms_down_the_hierarchy() {
    let dir = tempfile::tempdir().unwrap();
    let ico = icosphere(0, 1.0);
    let path = dir.path().join("nested.gltf");
    write(&ico, Format::Gltf, &path).unwrap();
    // A parent that translates, holding the mesh node, which scales.
    let text = std::fs::read_to_string(&path).unwrap().replace(
        r#""scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}]"#,
        r#""scenes": [{"nodes": [0]}], "nodes": [{"children": [1], "translation": [1, 2, 3]}, {"mesh": 0, "scale": [2, 2, 2]}]"#,
    );
    assert!(text.contains("children"), "the generated glTF has the expected node list");
    std::fs::write(&path, text).unwrap();
    let scene = parse_in(dir.path(), r#"(file: "nested.gltf", material: "clay"),"#).expect("valid");
    let want: Vec<Stored> = expected(&ico)
        .into_iter()
        .map(|t| Stored { v: t.v.map(|p| p * 2.0 + Vec3::new(1.0, 2.0, 3.0)), ..t })
        .collect();
    for (got, want) in triangles_of(&scene).iter().zip(&want) {
        for (a, b) in got.v.iter().zip(&want.v) {
            assert!((*a - *b).abs().max_element() < 1e-5, "{a} against {b}");
        }
    }
}

#[test]
fn bad_meshes_are_errors_at_their_ron_values() {
    let dir = tempfile::tempdir().unwrap();
    write(&icosphere(0, 1.0), Format::Obj, &dir.path().join("ok.obj")).unwrap();
    let cases: [(&str, &str); 5] = [
        (r#"(file: "missing.obj", material: "clay"),"#, "cannot use model `missing.obj`"),
        (r#"(file: "ok.obj"),"#, "mesh `ok.obj` needs a `material`: the OBJ file names no MTL materials"),
        (r#"(file: "ok.obj", material: "clya"),"#, "clya"),
        (r#"(file: "ok.stl", material: "clay"),"#, "unknown model format"),
        (
            r#"(file: "ok.obj", material: "clay", transform: (scale: 0)),"#,
            "`scale` must be between 1e-6 and 1e6",
        ),
    ];
    for (mesh, message) in cases {
        let err = parse_in(dir.path(), mesh).expect_err(mesh);
        let (got, line) = first_error(&err);
        assert!(got.contains(message), "{mesh}: {got}");
        assert_eq!(line, 5, "{mesh}: the error points at the mesh's line");
    }
    // Inside the file: a degenerate triangle, an index past the vertices, no triangles.
    std::fs::write(dir.path().join("flat.obj"), "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n").unwrap();
    let ply = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n\
               element face 1\nproperty list uchar int vertex_index\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n";
    std::fs::write(dir.path().join("far.ply"), ply).unwrap();
    std::fs::write(dir.path().join("empty.obj"), "v 0 0 0\n").unwrap();
    for (file, message) in
        [("flat.obj", "triangle 0"), ("far.ply", "names vertex 7"), ("empty.obj", "no triangles")]
    {
        let err = parse_in(dir.path(), &format!(r#"(file: "{file}", material: "clay"),"#)).expect_err(file);
        let (got, line) = first_error(&err);
        assert!(got.contains(message) && got.contains(file), "{file}: {got}");
        assert_eq!(line, 5);
    }
}

/// A live edit that moves a mesh refits the previous BVH (same tree, new boxes) and
/// gives the triangles a fresh compile would; another model file rebuilds it.
#[test]
fn moving_a_mesh_refits_the_tree_and_a_new_model_rebuilds_it() {
    use scene_compiler::compile::compile_scene_reusing;
    let dir = tempfile::tempdir().unwrap();
    write(&icosphere(2, 1.0), Format::PlyLittleEndian, &dir.path().join("a.ply")).unwrap();
    write(&icosphere(1, 1.0), Format::PlyLittleEndian, &dir.path().join("b.ply")).unwrap();
    let scene = parse_in(dir.path(), r#"(file: "a.ply", material: "clay"), (file: "b.ply", material: "clay", transform: (translate: (3, 0, 0))),"#)
        .expect("valid");
    let options = CompileOptions::default();
    let first = compile_scene(&scene, &options);
    let previous = first.previous(&scene);
    let mut moved = scene.clone();
    moved.meshes[1].transform.translate.y += 0.25;
    let refitted = compile_scene_reusing(&moved, &options, Some(previous));
    assert!(refitted.bvh_refitted && !refitted.bvh_reused);
    assert_eq!(refitted.bvh_stats.node_count, first.bvh_stats.node_count);
    let view = BlobView::parse(&refitted.blob).expect("a refitted blob is valid");
    let fresh = compile_scene(&moved, &options);
    let fresh_view = BlobView::parse(&fresh.blob).unwrap();
    let first_corners = |view: &BlobView| -> Vec<[f32; 3]> {
        view.records::<Triangle>().iter().map(|t| view.vertices[t.v[0] as usize].position).collect()
    };
    let (mut got, mut want) = (first_corners(&view), first_corners(&fresh_view));
    got.sort_by(|a, b| a.partial_cmp(b).unwrap());
    want.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(got, want, "the refitted blob holds the moved triangles");

    let mut other_model = scene.clone();
    other_model.meshes[1] = moved.meshes[0].clone();
    let rebuilt = compile_scene_reusing(&other_model, &options, Some(previous));
    assert!(!rebuilt.bvh_refitted && !rebuilt.bvh_reused);
}

/// Issue 35: a mesh placed by `instances` is stored once (one bottom level: the blob's
/// triangles are the model's, however many instances there are), and moving one
/// instance rebuilds no bottom level: the compile reuses the previous one's tree.
#[test]
fn an_instanced_mesh_is_stored_once_and_a_moved_instance_rebuilds_only_the_top_level() {
    use scene_compiler::compile::compile_scene_reusing;
    use scene_compiler::scene::Transform;
    let dir = tempfile::tempdir().expect("temp dir");
    write(&icosphere(2, 1.0), Format::PlyLittleEndian, &dir.path().join("ico.ply")).expect("model");
    let with = |count: usize| {
        let instances: String = (0..count).map(|i| format!("(translate: ({}, 0, 0)),", 3 * i)).collect();
        let text = format!(
            r#"Scene(camera: (look_from: (0, 1, 9), look_at: (0, 0, 0), vfov_deg: 40), materials: {{ "m": Lambert(albedo: (0.5, 0.5, 0.5)) }}, meshes: [(file: "ico.ply", material: "m", instances: [{instances}])])"#
        );
        scene::parse(&text, &dir.path().join("s.ron").display().to_string())
            .map_err(|e| e.to_string())
            .expect("scene")
    };
    let options = CompileOptions::default();
    let (one, many) = (with(1), with(100));
    let (a, b) = (compile_scene(&one, &options), compile_scene(&many, &options));
    let (va, vb) = (BlobView::parse(&a.blob).expect("valid"), BlobView::parse(&b.blob).expect("valid"));
    let triangles = icosphere(2, 1.0).triangles.len() as u32;
    assert_eq!(va.header.prim_count(PrimKind::Triangle), triangles);
    assert_eq!(vb.header.prim_count(PrimKind::Triangle), triangles);
    assert_eq!(vb.header.prim_count(PrimKind::Instance), 100);
    // 99 more instances: their records, per-primitive rows and the top level's nodes.
    let per_instance = (b.blob.len() - a.blob.len()) / 99;
    assert!(per_instance < 400, "{per_instance} bytes per instance");
    assert_eq!((a.bottom_built, b.bottom_built), (1, 1));

    // Instances are never grouped in a leaf, even where the SAH would group them: a ray
    // enters every instance of a leaf it meets, so each is culled by its own box.
    let mut crowded = many.clone();
    crowded.meshes[0].instances = (0..40)
        .map(|i| {
            Transform { translate: glam::Vec3::new(0.01 * i as f32, 0.0, 0.0), ..Transform::default() }.into()
        })
        .collect();
    let leaves = compile_scene(&crowded, &options).bvh_stats.leaf_size_histogram;
    assert_eq!(leaves, [0, 40], "40 instances, 40 leaves of one");

    let mut moved = many.clone();
    moved.meshes[0].instances[40] =
        Transform { translate: glam::Vec3::new(1.0, 2.0, -3.0), ..Transform::default() }.into();
    let again = compile_scene_reusing(&moved, &options, Some(b.previous(&many)));
    assert_eq!(again.bottom_built, 0, "the model's tree is reused");
    assert!(std::sync::Arc::ptr_eq(&again.bottom_trees[0], &b.bottom_trees[0]));
    let fresh = compile_scene(&moved, &options);
    let (vr, vf) =
        (BlobView::parse(&again.blob).expect("valid"), BlobView::parse(&fresh.blob).expect("valid"));
    // The records but their root links: a refitted world tree may have another node
    // count than a fresh build, so the bottom level's nodes start elsewhere.
    let instances = |v: &BlobView<'_>| {
        let mut records: Vec<_> = v.records::<scene_compiler::scene::Instance>().to_vec();
        records.iter_mut().for_each(|r| r.root = 0);
        records.sort_by(|x, y| {
            x.bounds_min[0].total_cmp(&y.bounds_min[0]).then(x.bounds_min[1].total_cmp(&y.bounds_min[1]))
        });
        records
    };
    assert_eq!(
        instances(&vr),
        instances(&vf),
        "the reused tree places the same instances as a fresh compile"
    );
}

/// Compact triangles (docs/blob-format.md, "Triangles"): a closed mesh's vertex is
/// stored once for all the triangles that share it, and the whole blob, nodes and
/// per-primitive rows included, takes at most 64 bytes a triangle (140 when each
/// triangle held its three vertices and three normals). A mesh above
/// `bvh::SMALL_TREE_PRIMS` triangles: smaller ones get a tree of smaller leaves, more
/// nodes a triangle (`bvh::C_INT_SMALL_TREE` says why).
#[test]
fn a_closed_mesh_stores_each_vertex_once_in_at_most_64_bytes_a_triangle() {
    let dir = tempfile::tempdir().unwrap();
    let ico = icosphere(6, 1.0);
    assert!(ico.triangles.len() > scene_compiler::bvh::SMALL_TREE_PRIMS);
    write(&ico, Format::PlyLittleEndian, &dir.path().join("ico.ply")).unwrap();
    let scene = parse_in(dir.path(), r#"(file: "ico.ply", material: "clay"),"#).expect("valid");
    let compiled = compile_scene(&scene, &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).expect("parses");
    assert_eq!(view.vertices.len(), ico.positions.len(), "one record per vertex of the file");
    assert_eq!(view.header.vertex_count as usize, ico.positions.len());
    let triangles = view.records::<Triangle>();
    assert_eq!(triangles.len(), 20 * 4usize.pow(6));
    let bytes_per_triangle = compiled.blob.len() as f64 / triangles.len() as f64;
    assert!(bytes_per_triangle <= 64.0, "{bytes_per_triangle:.1} bytes a triangle");
    // Neighbours name the same vertex: every vertex is named by the six (or five, at the
    // icosahedron's corners) triangles around it.
    let mut uses = vec![0u32; view.vertices.len()];
    triangles.iter().flat_map(|t| t.v).for_each(|i| uses[i as usize] += 1);
    assert!(uses.iter().all(|&n| n == 5 || n == 6), "{:?}", &uses[..12]);
    assert!(view.prim_light_pdfs.is_empty(), "no emitter, no per-primitive pick probabilities");
}

/// Meshes with and without normals and texture coordinates share the vertices section:
/// the ones without say so (`NO_NORMAL`, NaN coordinates), all three of a triangle's
/// alike, and the blob says which meshes have what.
#[test]
fn meshes_with_and_without_normals_and_coordinates_share_one_vertices_section() {
    use scene_compiler::blob::layout::{FLAG_SHADING_NORMALS, FLAG_TRIANGLE_UVS, NO_NORMAL};
    let dir = tempfile::tempdir().unwrap();
    write(&icosphere(1, 1.0), Format::PlyLittleEndian, &dir.path().join("ico.ply")).unwrap();
    let quad =
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nf 1/1 2/2 3/3\nf 1/1 3/3 4/4\n";
    std::fs::write(dir.path().join("quad.obj"), quad).unwrap();
    let meshes = r#"(file: "ico.ply", material: "clay"), (file: "quad.obj", material: "clay", transform: (translate: (3, 0, 0))),"#;
    let scene = parse_in(dir.path(), meshes).expect("valid");
    let compiled = compile_scene(&scene, &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).expect("parses");
    assert_ne!(view.header.flags & FLAG_SHADING_NORMALS, 0);
    assert_ne!(view.header.flags & FLAG_TRIANGLE_UVS, 0);
    assert_eq!(
        view.vertex_uvs.len(),
        view.vertices.len(),
        "coordinates for every vertex once one mesh has them"
    );
    let (mut quads, mut spheres) = (0, 0);
    for t in view.records::<Triangle>() {
        let vertex = t.v.map(|i| view.vertices[i as usize]);
        let uv = t.v.map(|i| view.vertex_uvs[i as usize].uv);
        if vertex[0].position[0] >= 3.0 {
            quads += 1;
            assert!(vertex.iter().all(|v| v.normal == NO_NORMAL), "the OBJ has no normals");
            assert!(uv.iter().flatten().all(|x| x.is_finite()));
        } else {
            spheres += 1;
            for v in vertex {
                let n = normal::decode(v.normal).expect("the PLY has normals");
                // The icosphere's normal is its position's direction.
                assert!((n - Vec3::from_array(v.position).normalize()).length() < 1e-4);
            }
            assert!(uv.iter().flatten().all(|x| x.is_nan()), "the PLY has no coordinates");
        }
    }
    assert_eq!((quads, spheres), (2, 80));
}
