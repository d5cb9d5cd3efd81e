//! glTF meshes placed more than once (by several nodes, or by `EXT_mesh_gpu_instancing`)
//! are read once in their own space, as a `MeshData::instanced` part with one placement
//! per (node, instance); a mesh one node places is flattened with its transform, a
//! mirroring one swapping its triangles' winding so the front face stays the file's.
//! Files are built here in code (`Gltf`); `scene/mesh_file.rs` and
//! `scene/gltf_instancing.rs` hold what is tested.

use std::path::Path;

use glam::{Affine3A, Mat4, Quat, Vec3};
use scene_compiler::scene::{MeshData, Scene, Transform};
use serde_json::{Value, json};

use super::hostile_models::{assert_refused, floats, parse_mesh, put};

/// A glTF file being built: one buffer, a view and an accessor appended per array.
struct Gltf {
    json: Value,
    bin: Vec<u8>,
}

impl Gltf {
    fn new() -> Self {
        Gltf {
            json: json!({
                "asset": {"version": "2.0"},
                "scene": 0,
                "scenes": [{"nodes": []}],
                "nodes": [],
                "meshes": [],
                "buffers": [{"uri": "BIN", "byteLength": 0}],
                "bufferViews": [],
                "accessors": []
            }),
            bin: Vec::new(),
        }
    }

    fn push(&mut self, list: &str, value: Value) -> usize {
        let list = self.json[list].as_array_mut().expect("a list");
        list.push(value);
        list.len() - 1
    }

    /// An accessor of `count` elements of `kind` (`"VEC3"`, ...) and `component` type
    /// over `bytes` in a view of its own; `extra` fields are added to it.
    fn accessor(&mut self, bytes: &[u8], component: u32, count: usize, kind: &str, extra: Value) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let view = json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()});
        self.bin.extend_from_slice(bytes);
        let view = self.push("bufferViews", view);
        let mut accessor =
            json!({"bufferView": view, "componentType": component, "count": count, "type": kind});
        for (k, v) in extra.as_object().into_iter().flatten() {
            accessor[k] = v.clone();
        }
        self.push("accessors", accessor)
    }

    /// An accessor of float vectors.
    fn vectors(&mut self, values: &[f32], kind: &str) -> usize {
        let width = match kind {
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            _ => 1,
        };
        let extra = match kind {
            // glTF requires POSITION's bounds; harmless on the others (left out where a
            // value is not finite: JSON has no such number).
            "VEC3" if values.iter().all(|v| v.is_finite()) => {
                let axis = |a: usize, f: fn(f32, f32) -> f32| {
                    values.chunks_exact(3).map(|v| v[a]).reduce(f).unwrap_or(0.0)
                };
                json!({"min": [axis(0, f32::min), axis(1, f32::min), axis(2, f32::min)],
                       "max": [axis(0, f32::max), axis(1, f32::max), axis(2, f32::max)]})
            }
            _ => json!({}),
        };
        self.accessor(&floats(values), 5126, values.len() / width, kind, extra)
    }

    /// A mesh of `n` separate triangles in the z = `z` plane, counter-clockwise seen from
    /// +z, each vertex's normal +z; `material` if given.
    fn mesh(&mut self, n: usize, z: f32, material: Option<usize>) -> usize {
        let positions: Vec<f32> = (0..n)
            .flat_map(|t| {
                let x = 2.0 * t as f32;
                [x, 0.0, z, x + 1.0, 0.0, z, x, 1.0, z]
            })
            .collect();
        let normals: Vec<f32> = (0..3 * n).flat_map(|_| [0.0, 0.0, 1.0]).collect();
        let position = self.vectors(&positions, "VEC3");
        let normal = self.vectors(&normals, "VEC3");
        let mut primitive = json!({"attributes": {"POSITION": position, "NORMAL": normal}});
        if let Some(m) = material {
            primitive["material"] = json!(m);
        }
        self.push("meshes", json!({"primitives": [primitive]}))
    }

    /// A node; a root of the scene when `root`.
    fn node(&mut self, node: Value, root: bool) -> usize {
        let n = self.push("nodes", node);
        if root {
            self.json["scenes"][0]["nodes"].as_array_mut().expect("roots").push(json!(n));
        }
        n
    }

    /// A node with `EXT_mesh_gpu_instancing` of `attributes` (name to accessor), the
    /// extension used and required.
    fn instanced_node(&mut self, mut node: Value, attributes: Value) -> usize {
        node["extensions"] = json!({"EXT_mesh_gpu_instancing": {"attributes": attributes}});
        self.json["extensionsUsed"] = json!(["EXT_mesh_gpu_instancing"]);
        self.json["extensionsRequired"] = json!(["EXT_mesh_gpu_instancing"]);
        self.node(node, true)
    }

    /// Writes `name.gltf` and its buffer `name.bin` into `dir`.
    fn save(mut self, dir: &Path, name: &str) {
        self.json["buffers"][0]["uri"] = json!(format!("{name}.bin"));
        self.json["buffers"][0]["byteLength"] = json!(self.bin.len().max(4));
        self.bin.resize(self.bin.len().max(4), 0);
        put(dir, &format!("{name}.bin"), &self.bin);
        put(dir, &format!("{name}.gltf"), self.json.to_string());
    }
}

/// `name.gltf` in `dir` read through a scene; its model.
fn load(dir: &Path, name: &str) -> MeshData {
    let scene: Scene =
        parse_mesh(dir, &format!("{name}.gltf")).unwrap_or_else(|e| panic!("{name}.gltf should load: {e}"));
    (*scene.meshes[0].data).clone()
}

/// A node's local matrix as glTF builds it from TRS.
fn trs(t: [f32; 3], r: Quat, s: [f32; 3]) -> Mat4 {
    Mat4::from_scale_rotation_translation(Vec3::from(s), r, Vec3::from(t))
}

fn assert_placements(found: &[Affine3A], expected: &[Mat4]) {
    assert_eq!(found.len(), expected.len(), "placements: {found:?}");
    for (i, (f, e)) in found.iter().zip(expected).enumerate() {
        let f = Mat4::from(*f);
        assert!(f.abs_diff_eq(*e, 1e-5), "placement {i}: {f} against {e}");
    }
}

/// The file's triangles (x, y, z) as the mesh builder wrote them, in mesh space.
fn file_positions(n: usize, z: f32) -> Vec<Vec3> {
    (0..n)
        .flat_map(|t| {
            let x = 2.0 * t as f32;
            [Vec3::new(x, 0.0, z), Vec3::new(x + 1.0, 0.0, z), Vec3::new(x, 1.0, z)]
        })
        .collect()
}

/// (a) One mesh placed by three nodes (under a parent that moves and turns them) is one
/// part, read once as the file has it, placed by the nodes' world matrices, in the
/// walk's order; nothing is flattened.
#[test]
fn a_mesh_that_three_nodes_place_is_one_part_with_their_world_matrices() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut g = Gltf::new();
    let mesh = g.mesh(2, 0.5, None);
    let turn = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
    let parent = trs([0.0, 0.0, -5.0], turn, [1.0, 1.0, 1.0]);
    let locals = [
        trs([1.0, 0.0, 0.0], Quat::IDENTITY, [1.0; 3]),
        trs([0.0; 3], Quat::IDENTITY, [2.0, 2.0, 2.0]),
        trs([0.0, 3.0, 0.0], Quat::from_rotation_x(0.3), [1.0, 0.5, 1.0]),
    ];
    g.node(json!({"translation": [0, 0, -5], "rotation": turn.to_array(), "children": [1, 2, 3]}), true);
    g.node(json!({"mesh": mesh, "translation": [1, 0, 0]}), false);
    g.node(json!({"mesh": mesh, "scale": [2, 2, 2]}), false);
    g.node(json!({"mesh": mesh, "matrix": locals[2].to_cols_array()}), false);
    g.save(dir.path(), "three");
    let data = load(dir.path(), "three");
    assert!(data.triangles.is_empty() && data.positions.is_empty(), "nothing is flattened");
    assert!(!data.is_unread());
    assert_eq!(data.instanced.len(), 1);
    let part = &data.instanced[0];
    assert_eq!(part.geometry.triangles, vec![[0, 1, 2], [3, 4, 5]]);
    assert_eq!(part.geometry.positions, file_positions(2, 0.5), "mesh space, as the file has it");
    assert_eq!(part.geometry.normals, vec![Vec3::Z; 6]);
    assert_placements(&part.placements, &locals.map(|l| parent * l));
    assert_eq!(data.stored_triangles(), 2);
    // glTF's default material, appended to the file's (none): the part's triangles index them.
    assert_eq!(data.materials.len(), 1);
    assert!(part.geometry.materials.is_empty());
    assert_eq!(part.geometry.triangle_materials, vec![0, 0]);
}

/// (b) A mesh one node places is flattened as before; beside it a mesh two nodes place
/// is a part; the part's triangles index the file's materials.
#[test]
fn a_mesh_placed_once_is_flattened_beside_an_instanced_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut g = Gltf::new();
    g.json["materials"] = json!([{"name": "red", "pbrMetallicRoughness": {"baseColorFactor": [1, 0, 0, 1]}}]);
    let shared = g.mesh(2, 0.0, None);
    let single = g.mesh(3, 0.0, Some(0));
    g.node(json!({"mesh": single, "translation": [0, 10, 0]}), true);
    g.node(json!({"mesh": shared, "translation": [1, 0, 0]}), true);
    g.node(json!({"mesh": shared, "translation": [2, 0, 0]}), true);
    g.save(dir.path(), "mixed");
    let data = load(dir.path(), "mixed");
    assert_eq!(data.triangles.len(), 3, "the mesh placed once is flattened");
    let moved: Vec<Vec3> = file_positions(3, 0.0).iter().map(|p| *p + Vec3::new(0.0, 10.0, 0.0)).collect();
    assert_eq!(data.positions, moved);
    assert_eq!(data.triangle_materials, vec![0; 3]);
    assert_eq!(data.instanced.len(), 1);
    let part = &data.instanced[0];
    assert_eq!(part.geometry.triangles.len(), 2);
    assert_placements(
        &part.placements,
        &[Mat4::from_translation(Vec3::X), Mat4::from_translation(2.0 * Vec3::X)],
    );
    // The default material came after the file's one; the part names it in the file's list.
    assert_eq!(data.materials.len(), 2);
    assert_eq!(part.geometry.triangle_materials, vec![1, 1]);
    assert_eq!(data.stored_triangles(), 5);

    // One mesh, one node: no parts.
    let mut g = Gltf::new();
    let mesh = g.mesh(1, 0.0, None);
    g.node(json!({"mesh": mesh}), true);
    g.save(dir.path(), "once");
    let data = load(dir.path(), "once");
    assert_eq!((data.triangles.len(), data.instanced.len()), (1, 0));
}

/// (c) `EXT_mesh_gpu_instancing` (required by the file): each instance is the node's
/// world matrix times T * R * S, in the accessors' order; ROTATION may be normalized
/// `i16`; an attribute left out is the identity's; a node without the extension that
/// places the same mesh adds its own placement after.
#[test]
fn ext_mesh_gpu_instancing_places_the_node_times_each_instance() {
    let dir = tempfile::tempdir().expect("temp dir");
    let translations = [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]];
    let rotations = [Quat::IDENTITY, Quat::from_rotation_z(1.0), Quat::from_rotation_x(-0.5)];
    let scales = [[1.0, 1.0, 1.0], [2.0, 0.5, 1.0], [0.25, 0.25, 0.25]];
    let node = trs([0.0, 1.0, 0.0], Quat::from_rotation_y(0.7), [1.0, 1.0, 1.0]);
    let expected: Vec<Mat4> = (0..3).map(|i| node * trs(translations[i], rotations[i], scales[i])).collect();
    let mut g = Gltf::new();
    let mesh = g.mesh(1, 0.0, None);
    let t = g.vectors(translations.as_flattened(), "VEC3");
    let r = g.vectors(&rotations.iter().flat_map(|q| q.to_array()).collect::<Vec<_>>(), "VEC4");
    let s = g.vectors(scales.as_flattened(), "VEC3");
    let node_json =
        json!({"mesh": mesh, "translation": [0, 1, 0], "rotation": Quat::from_rotation_y(0.7).to_array()});
    g.instanced_node(node_json.clone(), json!({"TRANSLATION": t, "ROTATION": r, "SCALE": s}));
    g.node(json!({"mesh": mesh, "translation": [0, 0, 9]}), true);
    g.save(dir.path(), "gpu");
    let data = load(dir.path(), "gpu");
    assert!(data.triangles.is_empty());
    assert_eq!(data.instanced.len(), 1);
    let mut all = expected.clone();
    all.push(Mat4::from_translation(Vec3::new(0.0, 0.0, 9.0)));
    assert_placements(&data.instanced[0].placements, &all);

    // Normalized i16 rotations (within their quantization), translations only, and a
    // custom `_ID` attribute that only counts.
    let mut g = Gltf::new();
    let mesh = g.mesh(1, 0.0, None);
    let shorts: Vec<u8> = rotations
        .iter()
        .flat_map(|q| q.to_array())
        .flat_map(|c| ((c * 32767.0).round() as i16).to_le_bytes())
        .collect();
    let r = g.accessor(&shorts, 5122, 3, "VEC4", json!({"normalized": true}));
    let ids = g.accessor(&floats(&[0.0, 1.0, 2.0]), 5126, 3, "SCALAR", json!({}));
    g.instanced_node(json!({"mesh": mesh}), json!({"ROTATION": r, "_ID": ids}));
    g.save(dir.path(), "gpu-i16");
    let data = load(dir.path(), "gpu-i16");
    let found = &data.instanced[0].placements;
    assert_eq!(found.len(), 3);
    for (i, q) in rotations.iter().enumerate() {
        let e = Mat4::from_quat(*q);
        assert!(Mat4::from(found[i]).abs_diff_eq(e, 1e-3), "instance {i}: {} against {e}", found[i]);
    }

    // One node, one instance: still a part (the extension says so), not flattened.
    let mut g = Gltf::new();
    let mesh = g.mesh(1, 0.0, None);
    let t = g.vectors(&[5.0, 0.0, 0.0], "VEC3");
    g.instanced_node(json!({"mesh": mesh}), json!({"TRANSLATION": t}));
    g.save(dir.path(), "gpu-one");
    let data = load(dir.path(), "gpu-one");
    assert!(data.triangles.is_empty());
    assert_placements(&data.instanced[0].placements, &[Mat4::from_translation(5.0 * Vec3::X)]);
}

/// (d) A broken `EXT_mesh_gpu_instancing` is one error at the mesh's line, naming the
/// extension and what is wrong, never a panic; a count past the format's instances is
/// refused before anything is read or allocated.
#[test]
fn broken_instancing_is_refused_naming_the_extension() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    // `attributes(g)` gives the node's attributes, after adding accessors to `g`.
    let case = |name: &str, attributes: &dyn Fn(&mut Gltf) -> Value, wanted: &[&str]| {
        let mut g = Gltf::new();
        let mesh = g.mesh(1, 0.0, None);
        let a = attributes(&mut g);
        g.instanced_node(json!({"mesh": mesh}), a);
        g.save(dir, name);
        let mut all = vec!["EXT_mesh_gpu_instancing"];
        all.extend(wanted);
        assert_refused(dir, &format!("{name}.gltf"), &all);
    };
    let vec3 = |g: &mut Gltf, values: &[f32]| g.vectors(values, "VEC3");
    case(
        "counts",
        &|g| json!({"TRANSLATION": vec3(g, &[0.0; 9]), "SCALE": vec3(g, &[1.0; 6])}),
        &["same count", "3", "2"],
    );
    case(
        "vec4-translation",
        &|g| json!({"TRANSLATION": g.vectors(&[0.0; 8], "VEC4")}),
        &["TRANSLATION accessor", "F32 Vec4"],
    );
    case(
        "u8-rotation",
        &|g| json!({"ROTATION": g.accessor(&[0, 0, 0, 255], 5121, 1, "VEC4", json!({"normalized": true}))}),
        &["ROTATION accessor", "U8 Vec4"],
    );
    case(
        "raw-i16-rotation",
        &|g| json!({"ROTATION": g.accessor(&[0; 8], 5122, 1, "VEC4", json!({}))}),
        &["ROTATION accessor", "not normalized"],
    );
    case(
        "nan-scale",
        &|g| json!({"SCALE": vec3(g, &[1.0, 1.0, 1.0, f32::NAN, 1.0, 1.0])}),
        &["instance 1", "non-finite SCALE"],
    );
    case(
        "inf-translation",
        &|g| json!({"TRANSLATION": vec3(g, &[f32::INFINITY, 0.0, 0.0])}),
        &["instance 0", "non-finite TRANSLATION"],
    );
    case("zero-rotation", &|g| json!({"ROTATION": g.vectors(&[0.0; 4], "VEC4")}), &["no direction"]);
    case(
        "zero-scale",
        &|g| json!({"SCALE": vec3(g, &[1.0, 0.0, 1.0])}),
        &["instance 0", "cannot be inverted"],
    );
    case("missing-accessor", &|_| json!({"SCALE": 99}), &["SCALE names accessor 99"]);
    case("not-an-index", &|_| json!({"SCALE": "zero"}), &["not an accessor index"]);
    case("no-attributes", &|_| json!({}), &["empty"]);
    case(
        "past-the-view",
        &|g| {
            let a = vec3(g, &[0.0; 3]);
            g.json["accessors"][a]["count"] = json!(4);
            json!({"TRANSLATION": a})
        },
        &["TRANSLATION accessor", "do not fit"],
    );
    // 2^31 instances claimed by a 12-byte accessor: refused by count, before reading.
    case(
        "huge",
        &|g| {
            let a = vec3(g, &[0.0; 3]);
            g.json["accessors"][a]["count"] = json!(1u64 << 31);
            json!({"TRANSLATION": a})
        },
        &["2147483648 instances", "more than the format's 33554432"],
    );
    // Two nodes of 2^24 + 1 each: together past the limit.
    let mut g = Gltf::new();
    let mesh = g.mesh(1, 0.0, None);
    let a = g.vectors(&[0.0; 3], "VEC3");
    g.json["accessors"][a]["count"] = json!((1u64 << 24) + 1);
    g.instanced_node(json!({"mesh": mesh}), json!({"TRANSLATION": a}));
    g.instanced_node(json!({"mesh": mesh}), json!({"TRANSLATION": a}));
    g.save(dir, "two-halves");
    assert_refused(dir, "two-halves.gltf", &["33554434 instances", "EXT_mesh_gpu_instancing"]);
    // The extension without `attributes`.
    let mut g = Gltf::new();
    let mesh = g.mesh(1, 0.0, None);
    let n = g.instanced_node(json!({"mesh": mesh}), json!({}));
    g.json["nodes"][n]["extensions"]["EXT_mesh_gpu_instancing"] = json!({"count": 3});
    g.save(dir, "no-attributes-object");
    assert_refused(dir, "no-attributes-object.gltf", &["EXT_mesh_gpu_instancing", "no `attributes`"]);
}

/// A stretch 32-bit floats cannot undo once composed (two scales per axis with a
/// rotation between them, as `meshes.rs`'s test of RON instances has it): each map alone
/// is fine.
fn stretch(rotate_deg: [f32; 3]) -> Mat4 {
    let t = Transform {
        rotate_deg: Vec3::from(rotate_deg),
        scale: Vec3::new(1000.0, 0.001, 1.0),
        ..Transform::default()
    };
    Mat4::from(t.matrix())
}

/// A mesh placed by two nodes under a parent whose stretch, composed with theirs, 32-bit
/// floats cannot undo is refused as the file is read, naming the node (it compiled to a
/// blob that failed its own check).
#[test]
fn a_node_placement_floats_cannot_undo_is_refused_naming_the_node() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut g = Gltf::new();
    let mesh = g.mesh(1, 0.0, None);
    g.node(json!({"matrix": stretch([20.0, 30.0, 40.0]).to_cols_array(), "children": [1, 2]}), true);
    g.node(json!({"mesh": mesh}), false);
    g.node(json!({"mesh": mesh, "matrix": stretch([50.0, -30.0, 10.0]).to_cols_array()}), false);
    g.save(dir.path(), "uneven");
    assert_refused(dir.path(), "uneven.gltf", &["node 2", "too unevenly for 32-bit floats to undo"]);
}

/// Node placements fine alone, which the mesh's `transform` or an instance stretches
/// past what 32-bit floats can undo: an error at that `transform` or instance, naming
/// the glTF mesh and its placement.
#[test]
fn a_transform_that_makes_a_node_placement_uneven_is_an_error_at_the_transform() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut g = Gltf::new();
    let mesh = g.mesh(1, 0.0, None);
    g.node(json!({"mesh": mesh, "translation": [3, 0, 0]}), true);
    g.node(json!({"mesh": mesh, "matrix": stretch([50.0, -30.0, 10.0]).to_cols_array()}), true);
    g.save(dir.path(), "nodes");
    let stretched = "(rotate_deg: (20, 30, 40), scale: (1000, 0.001, 1))";
    let parse = |entry: &str| super::meshes::parse_in(dir.path(), entry);
    parse(r#"(file: "nodes.gltf", material: "clay", transform: (rotate_deg: (20, 30, 40), scale: 2))"#)
        .expect("a uniform scale composes with any node");
    for (entry, marker) in [
        (format!(r#"(file: "nodes.gltf", material: "clay", transform: {stretched}),"#), stretched),
        (
            format!(
                r#"(file: "nodes.gltf", material: "clay", instances: [(translate: (1, 0, 0)), {stretched}]),"#
            ),
            stretched,
        ),
    ] {
        let err = parse(&entry).expect_err(&entry);
        let d = &err.diagnostics()[0];
        let message = d.message();
        assert!(
            message.contains("stretches glTF mesh 0 of model `nodes.gltf`, as its node placement 1 in the file places it, too unevenly for 32-bit floats to undo"),
            "{entry}: {message}"
        );
        // The entry starts in column 9 of line 5.
        let at = 9 + entry.find(marker).expect("the marker is in the entry");
        assert_eq!((d.line(), d.column()), (Some(5), Some(at)), "{entry}: {message}");
    }
}

/// (e) A node that mirrors (scale -1 on x, or a matrix of negative determinant) keeps
/// the file's front faces: each flattened triangle's geometric normal agrees with its
/// vertices' normals (through the inverse transpose). A mirroring placement of an
/// instanced mesh leaves its geometry as the file has it, and keeps its determinant.
#[test]
fn mirroring_nodes_keep_the_files_front_faces() {
    let dir = tempfile::tempdir().expect("temp dir");
    let agrees = |data: &MeshData, what: &str| {
        assert!(!data.triangles.is_empty());
        for (t, tri) in data.triangles.iter().enumerate() {
            let [a, b, c] = tri.map(|i| data.positions[i as usize]);
            let geometric = (b - a).cross(c - a);
            for &i in tri {
                let n = data.normals[i as usize];
                assert!(geometric.dot(n) > 0.0, "{what}: triangle {t} {tri:?}: {geometric} against {n}");
            }
        }
    };
    let mirrored = Mat4::from_rotation_y(0.4) * Mat4::from_scale(Vec3::new(1.0, 1.0, -2.0));
    for (name, node) in [
        ("plain", json!({"translation": [1, 2, 3]})),
        ("scale-x", json!({"scale": [-1, 1, 1]})),
        ("matrix", json!({"matrix": mirrored.to_cols_array()})),
        ("both", json!({"scale": [-1, -1, 1]})),
    ] {
        let mut g = Gltf::new();
        let mesh = g.mesh(3, 0.0, None);
        let mut node = node;
        node["mesh"] = json!(mesh);
        g.node(node, true);
        g.save(dir.path(), name);
        let data = load(dir.path(), name);
        agrees(&data, name);
    }
    // Scale -1 on x: corners 1 and 2 swapped, positions as placed.
    let data = load(dir.path(), "scale-x");
    assert_eq!(data.triangles[0], [0, 2, 1]);
    assert_eq!(data.positions[1], Vec3::new(-1.0, 0.0, 0.0));
    // No mirror (two mirrors): the file's order.
    assert_eq!(load(dir.path(), "plain").triangles[0], [0, 1, 2]);
    assert_eq!(load(dir.path(), "both").triangles[0], [0, 1, 2]);

    let mut g = Gltf::new();
    let mesh = g.mesh(1, 0.0, None);
    g.node(json!({"mesh": mesh, "scale": [-1, 1, 1]}), true);
    g.node(json!({"mesh": mesh}), true);
    g.save(dir.path(), "instanced-mirror");
    let data = load(dir.path(), "instanced-mirror");
    let part = &data.instanced[0];
    assert_eq!(part.geometry.triangles, vec![[0, 1, 2]], "mesh space: the file's winding");
    agrees(&part.geometry, "the part");
    assert!(part.placements[0].matrix3.determinant() < 0.0);
    assert!(part.placements[1].matrix3.determinant() > 0.0);
}

/// (f) An instanced mesh counts its triangles once against the format's limit: one
/// mesh of 33 600 triangles placed by 1000 nodes (33.6M if each counted, over 2^25)
/// loads, stored once. (`mesh_file`'s unit test does the same against a limit of 100.)
#[test]
fn an_instanced_mesh_counts_its_triangles_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let per_mesh = 33_600;
    let mut g = Gltf::new();
    let mesh = g.mesh(per_mesh, 0.0, None);
    let root = g.node(json!({"children": (1..=1000).collect::<Vec<u32>>()}), true);
    for i in 0..1000 {
        g.node(json!({"mesh": mesh, "translation": [0, 0, i]}), false);
    }
    assert_eq!(root, 0);
    g.save(dir.path(), "many");
    let data = load(dir.path(), "many");
    assert_eq!(data.stored_triangles(), per_mesh);
    assert_eq!(data.instanced[0].placements.len(), 1000);
    assert_eq!(data.instanced[0].placements[999].translation, glam::Vec3A::new(0.0, 0.0, 999.0));
}

/// A glTF mesh that many nodes place compiles to one bottom level: the blob holds its
/// triangles once, and each more node adds an instance, not a copy.
#[test]
fn node_reuse_compiles_to_one_bottom_level_the_blobs_size_says_so() {
    use scene_compiler::CompileOptions;
    use scene_compiler::blob::BlobView;
    use scene_compiler::compile::compile_scene;
    use scene_compiler::records::layout::PrimKind;
    let dir = tempfile::tempdir().expect("temp dir");
    let per_mesh = 2_000;
    let blob_with = |nodes: usize| {
        let mut g = Gltf::new();
        let mesh = g.mesh(per_mesh, 0.0, None);
        g.node(json!({"children": (1..=nodes).collect::<Vec<usize>>()}), true);
        for i in 0..nodes {
            g.node(json!({"mesh": mesh, "translation": [0, 3 * i, 0]}), false);
        }
        let name = format!("nodes{nodes}");
        g.save(dir.path(), &name);
        let scene = parse_mesh(dir.path(), &format!("{name}.gltf")).expect("the file loads");
        compile_scene(&scene, &CompileOptions::default()).blob
    };
    let (ten, hundred) = (blob_with(10), blob_with(100));
    for (blob, nodes) in [(&ten, 10), (&hundred, 100)] {
        let view = BlobView::parse(blob).expect("valid");
        assert_eq!(view.header.prim_count(PrimKind::Triangle), per_mesh as u32, "the triangles once");
        assert_eq!(view.header.prim_count(PrimKind::Instance), nodes);
    }
    // 90 more nodes: their instance records, per-primitive rows and the top level's
    // nodes (a copy of the mesh would be 2000 triangles, over 200 kB).
    let per_node = (hundred.len() - ten.len()) / 90;
    assert!(per_node < 400, "{per_node} bytes per node");
}
