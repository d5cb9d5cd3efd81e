//! The glTF cases of issue 37 (`../shared/hostile/`, rebuilt here in code from what
//! each case's file did): panics inside the `gltf` crate (P1–P4) and a node graph that
//! expands exponentially (H1). Each must be one error at the mesh's RON line naming the
//! file and what is wrong; `scene/gltf_check.rs` holds the checks.

use serde_json::{Value, json};

use super::hostile_models::{assert_refused, assert_refused_with, floats, parse_mesh, put};

/// A glTF of one triangle: POSITION (accessor 0, view 0) and u32 indices (accessor 1,
/// view 1) in `{name}.bin`, one node placing mesh 0. Tests change the JSON.
fn triangle() -> (Value, Vec<u8>) {
    let mut bin = floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    bin.extend([0u32, 1, 2].iter().flat_map(|i| i.to_le_bytes()));
    let json = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "buffers": [{"uri": "BIN", "byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 12}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [0, 0, 0], "max": [1, 1, 0]},
            {"bufferView": 1, "componentType": 5125, "count": 3, "type": "SCALAR"}
        ]
    });
    (json, bin)
}

/// Writes `name.gltf` and its buffer `name.bin` into `dir`.
fn save(dir: &std::path::Path, name: &str, mut json: Value, bin: &[u8]) {
    json["buffers"][0]["uri"] = json!(format!("{name}.bin"));
    put(dir, &format!("{name}.bin"), bin);
    put(dir, &format!("{name}.gltf"), json.to_string());
}

/// Writes the triangle changed by `change` as `name.gltf`.
fn variant(dir: &std::path::Path, name: &str, change: impl FnOnce(&mut Value, &mut Vec<u8>)) {
    let (mut json, mut bin) = triangle();
    change(&mut json, &mut bin);
    save(dir, name, json, &bin);
}

#[test]
fn the_unchanged_triangle_reads() {
    let dir = tempfile::tempdir().expect("temp dir");
    variant(dir.path(), "good", |_, _| {});
    let scene = parse_mesh(dir.path(), "good.gltf").map_err(|e| e.to_string()).expect("a valid glTF");
    assert_eq!(scene.meshes[0].data.triangles.len(), 1);
}

/// P1: a primitive's POSITION names accessor 99 of 2 (gltf-json's validation indexed
/// the accessors with it before checking it: a panic).
#[test]
fn p1_an_attribute_past_the_accessors_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    variant(dir.path(), "p1", |j, _| j["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(99));
    assert_refused(dir.path(), "p1.gltf", &["accessor 99", "the file has 2"]);
    variant(dir.path(), "p1-normal", |j, _| {
        j["meshes"][0]["primitives"][0]["attributes"]["NORMAL"] = json!(7)
    });
    assert_refused(dir.path(), "p1-normal.gltf", &["accessor 7"]);
}

/// P2: float and i16 accessors as indices (the crate's `read_indices` reached
/// `unreachable!()`), and a float sparse index type.
#[test]
fn p2_indices_of_a_type_gltf_forbids_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    variant(dir.path(), "p2-float", |j, _| j["accessors"][1]["componentType"] = json!(5126));
    assert_refused(dir.path(), "p2-float.gltf", &["indices accessor 1 holds F32"]);
    variant(dir.path(), "p2-i16", |j, _| j["accessors"][1]["componentType"] = json!(5122));
    assert_refused(dir.path(), "p2-i16.gltf", &["indices accessor 1 holds I16"]);
    // The file's own case: the POSITION accessor (VEC3 floats) named as the indices.
    variant(dir.path(), "p2-vec3", |j, _| j["meshes"][0]["primitives"][0]["indices"] = json!(0));
    assert_refused(dir.path(), "p2-vec3.gltf", &["indices accessor 0 holds F32 Vec3"]);
    variant(dir.path(), "p2-texcoord", |j, _| {
        j["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"] = json!(1);
    });
    assert_refused(dir.path(), "p2-texcoord.gltf", &["TEXCOORD_0 accessor 1 holds U32"]);
    variant(dir.path(), "p2-sparse", |j, _| {
        j["accessors"][0]["sparse"] = json!({
            "count": 1,
            "indices": {"bufferView": 1, "componentType": 5126},
            "values": {"bufferView": 0}
        });
    });
    // The crate's validation refuses this one (gltf_check's test stays as a guard).
    assert_refused(dir.path(), "p2-sparse.gltf", &["sparse.indices.componentType"]);
}

/// P3: a `byteStride` smaller than an element (the crate asserted), and offsets,
/// strides and counts whose arithmetic overflows or leaves the buffer.
#[test]
fn p3_strides_and_ranges_that_do_not_fit_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    variant(dir.path(), "p3", |j, _| j["bufferViews"][0]["byteStride"] = json!(4));
    assert_refused(
        dir.path(),
        "p3.gltf",
        &["POSITION accessor 0", "byteStride 4 is smaller than an element (12 bytes)"],
    );
    variant(dir.path(), "p3-offset", |j, _| j["accessors"][0]["byteOffset"] = json!(u64::MAX - 8));
    assert_refused(dir.path(), "p3-offset.gltf", &["do not fit"]);
    variant(dir.path(), "p3-count", |j, _| j["accessors"][1]["count"] = json!(1u64 << 62));
    assert_refused(dir.path(), "p3-count.gltf", &["1537228672809129301 triangles"]);
    variant(dir.path(), "p3-empty", |j, _| j["accessors"][1]["count"] = json!(0));
    assert_refused(dir.path(), "p3-empty.gltf", &["no elements"]);
    variant(dir.path(), "p3-view", |j, _| j["bufferViews"][1]["byteOffset"] = json!(u64::MAX - 4));
    assert_refused(dir.path(), "p3-view.gltf", &["buffer view 1"]);
}

/// P4: an image in a buffer view without `mimeType` (the crate unwrapped it), and one
/// with neither a view nor a URI; the model's materials are read even when the mesh
/// names a scene material.
#[test]
fn p4_images_without_a_type_or_a_source_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let textured = |j: &mut Value, image: Value| {
        j["images"] = json!([image]);
        j["textures"] = json!([{"source": 0}]);
        j["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
        j["meshes"][0]["primitives"][0]["material"] = json!(0);
    };
    variant(dir.path(), "p4", |j, _| textured(j, json!({"bufferView": 0})));
    assert_refused_with(dir.path(), "p4.gltf", None, &["image 0", "no `mimeType`"]);
    assert_refused(dir.path(), "p4.gltf", &["image 0", "no `mimeType`"]);
    variant(dir.path(), "p4-nothing", |j, _| textured(j, json!({"name": "lost"})));
    assert_refused(dir.path(), "p4-nothing.gltf", &["image 0 has neither"]);
}

/// H1: nodes that list the same child twice make a DAG whose walk doubles at every
/// level (depth 40 was an abort, 20 a hang); two parents, a root that is a child, a
/// root listed twice are the same mistake.
#[test]
fn h1_a_node_with_two_parents_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    variant(dir.path(), "h1", |j, _| {
        let mut nodes: Vec<Value> = (1..=40).map(|c| json!({"children": [c, c]})).collect();
        nodes.push(json!({"mesh": 0}));
        j["nodes"] = Value::Array(nodes);
    });
    assert_refused(
        dir.path(),
        "h1.gltf",
        &["node 1 is listed as a child twice by node 0", "at most one parent"],
    );
    variant(dir.path(), "h1-parents", |j, _| {
        j["nodes"] = json!([{"children": [2]}, {"children": [2]}, {"mesh": 0}]);
        j["scenes"] = json!([{"nodes": [0, 1]}]);
    });
    assert_refused(dir.path(), "h1-parents.gltf", &["node 2", "by nodes 0 and 1"]);
    variant(dir.path(), "h1-root-child", |j, _| {
        j["nodes"] = json!([{"children": [1]}, {"mesh": 0}]);
        j["scenes"] = json!([{"nodes": [0, 1]}]);
    });
    assert_refused(dir.path(), "h1-root-child.gltf", &["node 1 as a root, but it is a child of node 0"]);
    variant(dir.path(), "h1-root-twice", |j, _| j["scenes"] = json!([{"nodes": [0, 0]}]));
    assert_refused(dir.path(), "h1-root-twice.gltf", &["root node 0 twice"]);
}

/// H1's other half: the triangle limit is checked while the node tree is expanded,
/// from the accessors' counts, before any triangle is read: 1000 meshes that share one
/// primitive's accessors (33 600 triangles, u8 indices, 100 KB of buffer), each placed
/// by its own node, would be 33.6M triangles, over the format's 2^25. (One mesh placed
/// by 1000 nodes is instanced and stored once: `gltf_instances`.)
#[test]
fn h1_meshes_past_the_triangle_limit_are_refused_before_reading() {
    let dir = tempfile::tempdir().expect("temp dir");
    let per_mesh = 33_600usize;
    variant(dir.path(), "h1-meshes", |j, bin| {
        let mut nodes = vec![json!({"children": (1..=1000).collect::<Vec<u32>>()})];
        nodes.extend((0..1000).map(|m| json!({"mesh": m})));
        j["nodes"] = Value::Array(nodes);
        let mesh = j["meshes"][0].clone();
        j["meshes"] = Value::Array(vec![mesh; 1000]);
        bin.truncate(36);
        bin.resize(36 + 3 * per_mesh, 0);
        j["buffers"][0]["byteLength"] = json!(bin.len());
        j["bufferViews"][1]["byteLength"] = json!(3 * per_mesh);
        j["accessors"][1]["componentType"] = json!(5121);
        j["accessors"][1]["count"] = json!(3 * per_mesh);
    });
    assert_refused(
        dir.path(),
        "h1-meshes.gltf",
        &["more than the format's 33554432", "counting each placed mesh once"],
    );
}
