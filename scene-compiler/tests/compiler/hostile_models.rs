//! Hostile model files reached through a scene's `meshes`: truncated files, absurd
//! element counts, indices out of range, NaN data and glTF graphs that loop or nest
//! without end. Each must be one error at the mesh's RON line, naming the file: no
//! panic, and no allocation sized by a count in the file before the file is known to
//! hold that much data (a count of 2^40 vertices would abort the test with an
//! allocation failure if it were trusted). The fuzz target `model_files` (fuzz/) runs
//! the same path on arbitrary bytes.

use std::path::Path;

use scene_compiler::procedural::{Format, icosphere, write};
use scene_compiler::scene::{self, LoadError, Scene};

/// A scene whose one mesh is `file` (in `dir`), parsed as `dir/scene.ron`; the mesh
/// entry is on line 5.
pub(crate) fn parse_mesh(dir: &Path, file: &str) -> Result<Scene, LoadError> {
    parse_mesh_with(dir, file, Some("clay"))
}

/// [`parse_mesh`] with the mesh's `material` (`None`: the model's own materials).
pub(crate) fn parse_mesh_with(dir: &Path, file: &str, material: Option<&str>) -> Result<Scene, LoadError> {
    let material = material.map(|m| format!(r#", material: "{m}""#)).unwrap_or_default();
    let text = format!(
        r#"Scene(
    camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40),
    materials: {{ "clay": Lambert(albedo: (0.6, 0.3, 0.2)) }},
    meshes: [
        (file: "{file}"{material}),
    ],
)"#
    );
    scene::parse(&text, &dir.join("scene.ron").display().to_string())
}

/// Asserts that `file` is refused at line 5 with a message naming it and containing
/// every one of `wanted` (case-insensitive).
pub(crate) fn assert_refused(dir: &Path, file: &str, wanted: &[&str]) {
    assert_refused_with(dir, file, Some("clay"), wanted)
}

/// [`assert_refused`] with the mesh's `material` as [`parse_mesh_with`] takes it.
pub(crate) fn assert_refused_with(dir: &Path, file: &str, material: Option<&str>, wanted: &[&str]) {
    let err = parse_mesh_with(dir, file, material).map(|_| ()).expect_err(file);
    let d = &err.diagnostics()[0];
    let message = d.message().to_owned();
    assert_eq!(d.line(), Some(5), "{file}: the error is at the mesh's line: {message}");
    assert!(message.contains(file), "{file}: the message names the file: {message}");
    for w in wanted {
        assert!(message.to_lowercase().contains(&w.to_lowercase()), "{file}: `{w}` in: {message}");
    }
}

pub(crate) fn put(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) {
    std::fs::write(dir.join(name), bytes).expect("write model");
}

#[test]
fn hostile_obj_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    write(&icosphere(1, 1.0), Format::Obj, &dir.join("ico.obj")).expect("write");
    let whole = std::fs::read(dir.join("ico.obj")).expect("read");
    // Cut inside the face list: a face that names vertices that never came.
    let cut = whole.len() * 2 / 3;
    put(dir, "truncated.obj", &whole[..cut]);
    put(dir, "far.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4000000000\n");
    put(dir, "negative.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -10 -11 -12\n");
    put(dir, "nan.obj", "v nan 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    put(dir, "inf.obj", "v 1e39 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    put(dir, "nan-normal.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn nan 0 1\nf 1//1 2//1 3//1\n");
    put(dir, "garbage.obj", [0xff, 0x00, 0x13, 0x37, b'\n', b'f', b' ', b'1']);
    // Indices tobj's arithmetic would overflow on (a panic in a debug build).
    put(dir, "before-first-uv.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/-9 2/1 3/1\n");
    put(dir, "isize-max.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/9223372036854775807 2 3\n");
    let parsed = parse_mesh(dir, "truncated.obj");
    if let Ok(scene) = &parsed {
        // A cut at a line end is a smaller valid model: then it must be whole triangles.
        assert!(scene.meshes[0].data.triangles.len() < 320);
    } else {
        assert_refused(dir, "truncated.obj", &[]);
    }
    assert_refused(dir, "far.obj", &[]);
    assert_refused(dir, "negative.obj", &[]);
    assert_refused(dir, "nan.obj", &["non-finite"]);
    assert_refused(dir, "inf.obj", &["non-finite"]);
    assert_refused(dir, "nan-normal.obj", &["normal"]);
    assert_refused(dir, "garbage.obj", &[]);
    assert_refused(dir, "before-first-uv.obj", &["line 5", "texture coordinate index `-9`"]);
    assert_refused(dir, "isize-max.obj", &["out of range"]);
}

/// An ascii PLY header declaring `vertices` vertices and `faces` faces, then `body`.
fn ply(vertices: &str, faces: &str, body: &str) -> String {
    format!(
        "ply\nformat ascii 1.0\nelement vertex {vertices}\nproperty float x\nproperty float y\nproperty float z\n\
         element face {faces}\nproperty list uint int vertex_index\nend_header\n{body}"
    )
}

#[test]
fn hostile_ply_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    let triangle = "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
    put(dir, "huge-vertex-count.ply", ply("1099511627776", "1", triangle));
    put(dir, "huge-face-count.ply", ply("3", "1099511627776", triangle));
    put(dir, "huge-list.ply", ply("3", "1", "0 0 0\n1 0 0\n0 1 0\n4000000000 0 1 2\n"));
    put(dir, "negative-count.ply", ply("-3", "1", triangle));
    put(dir, "far.ply", ply("3", "1", "0 0 0\n1 0 0\n0 1 0\n3 0 1 2000000000\n"));
    put(dir, "negative-index.ply", ply("3", "1", "0 0 0\n1 0 0\n0 1 0\n3 0 1 -1\n"));
    put(dir, "nan.ply", ply("3", "1", "nan 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"));
    put(dir, "short-face.ply", ply("3", "1", "0 0 0\n1 0 0\n0 1 0\n2 0 1\n"));
    put(dir, "truncated-ascii.ply", ply("3", "1", "0 0 0\n1 0"));
    for format in [Format::PlyLittleEndian, Format::PlyBigEndian] {
        let name = format!("ico-{format:?}.ply");
        write(&icosphere(1, 1.0), format, &dir.join(&name)).expect("write");
        let whole = std::fs::read(dir.join(&name)).expect("read");
        put(dir, &format!("truncated-{format:?}.ply"), &whole[..whole.len() - 7]);
        // The same binary body under a header that promises 2^40 vertices.
        let text = String::from_utf8_lossy(&whole);
        let header_end = text.find("end_header\n").expect("a header") + "end_header\n".len();
        let header = std::str::from_utf8(&whole[..header_end]).expect("ascii header");
        let vertices = header.lines().find_map(|l| l.strip_prefix("element vertex ")).expect("vertex count");
        let mut lying = header
            .replacen(&format!("element vertex {vertices}"), "element vertex 1099511627776", 1)
            .into_bytes();
        lying.extend_from_slice(&whole[header_end..]);
        put(dir, &format!("lying-{format:?}.ply"), lying);
    }
    for file in [
        "huge-vertex-count.ply",
        "huge-face-count.ply",
        "huge-list.ply",
        "negative-count.ply",
        "truncated-ascii.ply",
        "truncated-PlyLittleEndian.ply",
        "truncated-PlyBigEndian.ply",
        "lying-PlyLittleEndian.ply",
        "lying-PlyBigEndian.ply",
    ] {
        assert_refused(dir, file, &[]);
    }
    assert_refused(dir, "far.ply", &["names vertex 2000000000"]);
    assert_refused(dir, "negative-index.ply", &[]);
    // ply-rs refuses `nan` in ascii; in binary the bits arrive and the model check refuses them.
    assert_refused(dir, "nan.ply", &[]);
    let mut binary = b"ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n\
        property float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_index\nend_header\n"
        .to_vec();
    for v in [f32::NAN, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0] {
        binary.extend(v.to_le_bytes());
    }
    binary.push(3);
    for i in [0i32, 1, 2] {
        binary.extend(i.to_le_bytes());
    }
    put(dir, "nan-binary.ply", binary);
    assert_refused(dir, "nan-binary.ply", &["non-finite"]);
    assert_refused(dir, "short-face.ply", &["fewer than 3"]);
}

/// A `.gltf` whose one buffer is `name.bin` (`bin` bytes, `byte_length` declared),
/// with a POSITION accessor of `count` VEC3 floats, optional indices (u32 scalars
/// after the positions, `index_count`), and `nodes` as JSON.
fn gltf(
    dir: &Path,
    name: &str,
    bin: &[u8],
    byte_length: u64,
    count: u64,
    indices: Option<(u64, u64)>,
    nodes: &str,
) {
    put(dir, &format!("{name}.bin"), bin);
    let (index_view, index_accessor, index_field) = match indices {
        Some((offset, index_count)) => (
            format!(r#",{{"buffer":0,"byteOffset":{offset},"byteLength":{}}}"#, index_count * 4),
            format!(r#",{{"bufferView":1,"componentType":5125,"count":{index_count},"type":"SCALAR"}}"#),
            r#","indices":1"#.to_owned(),
        ),
        None => (String::new(), String::new(), String::new()),
    };
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],"nodes":{nodes},
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}{index_field}}}]}}],
"buffers":[{{"uri":"{name}.bin","byteLength":{byte_length}}}],
"bufferViews":[{{"buffer":0,"byteLength":{}}}{index_view}],
"accessors":[{{"bufferView":0,"componentType":5126,"count":{count},"type":"VEC3","min":[0,0,0],"max":[1,1,0]}}{index_accessor}]}}"#,
        count.saturating_mul(12).min(bin.len() as u64).max(12)
    );
    put(dir, &format!("{name}.gltf"), json);
}

pub(crate) fn floats(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A header that declares more entries than its file can hold is refused before any is
/// read, by all three PLY readers: an element without properties takes no bytes per
/// entry, so 2^40 of them took memory without end (an abort) from a file of 200 bytes.
#[test]
fn ply_headers_that_declare_more_than_the_file_holds_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    let points =
        "element vertex 1\nproperty float x\nproperty float y\nproperty float z\nproperty float radius\n";
    let header = |before: &str, rest: &str| {
        format!("ply\nformat binary_little_endian 1.0\n{before}{rest}end_header\n").into_bytes()
    };
    let one_point = floats(&[0.0, 0.0, 0.0, 1.0]);
    let empty = header("element junk 1099511627776\n", points);
    let huge = header("element junk 1099511627776\nproperty uchar a\n", points);
    for (name, head, wanted) in
        [("empty.ply", empty, "no properties"), ("huge.ply", huge, "more than the file's")]
    {
        put(dir, name, [head, one_point.clone()].concat());
        let entries = [
            format!(r#"sphere_files: [(file: "{name}", materials: ["clay"])]"#),
            format!(r#"meshes: [(file: "ico.ply", material: "clay", instance_file: "{name}")]"#),
            format!(r#"meshes: [(file: "{name}", material: "clay")]"#),
        ];
        write(&icosphere(1, 1.0), Format::PlyLittleEndian, &dir.join("ico.ply")).expect("write");
        for entry in entries {
            let text = format!(
                r#"Scene(camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40), materials: {{ "clay": Lambert(albedo: (0.6, 0.3, 0.2)) }}, {entry})"#
            );
            let err = scene::parse(&text, &dir.join("scene.ron").display().to_string()).expect_err(&entry);
            let message = err.diagnostics()[0].message().to_owned();
            assert!(message.contains("element `junk`") && message.contains(wanted), "{entry}: {message}");
        }
    }
}

#[test]
fn hostile_gltf_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    let tri = floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    let one_node = r#"[{"mesh":0}]"#;
    // A good one first: the helper writes valid files.
    gltf(dir, "good", &tri, 36, 3, None, one_node);
    assert!(
        parse_mesh(dir, "good.gltf").is_ok(),
        "{:?}",
        parse_mesh(dir, "good.gltf").err().map(|e| e.to_string())
    );

    gltf(dir, "huge-count", &tri, 36, 1 << 40, None, one_node);
    gltf(dir, "huge-buffer", &tri, 1 << 50, 3, None, one_node);
    let mut with_indices = tri.clone();
    with_indices.extend([0u32, 1, 4_000_000_000].iter().flat_map(|i| i.to_le_bytes()));
    gltf(dir, "far-index", &with_indices, 48, 3, Some((36, 3)), one_node);
    gltf(dir, "indices-past-buffer", &with_indices, 48, 3, Some((36, 1 << 30)), one_node);
    let nan = floats(&[f32::NAN, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    gltf(dir, "nan", &nan, 36, 3, None, one_node);
    gltf(dir, "cycle", &tri, 36, 3, None, r#"[{"mesh":0,"children":[1]},{"children":[0]}]"#);
    gltf(dir, "self-child", &tri, 36, 3, None, r#"[{"mesh":0,"children":[0]}]"#);
    let chain: Vec<String> =
        (0..100_000).map(|i| format!(r#"{{"mesh":0,"children":[{}]}}"#, i + 1)).collect();
    gltf(dir, "deep", &tri, 36, 3, None, &format!("[{},{{\"mesh\":0}}]", chain.join(",")));
    gltf(dir, "missing-node", &tri, 36, 3, None, r#"[{"mesh":0,"children":[7]}]"#);
    put(dir, "truncated-json.gltf", r#"{"asset":{"version":"2.0"},"nodes":[{"mesh":0"#);
    write(&icosphere(1, 1.0), Format::Glb, &dir.join("ico.glb")).expect("write");
    let glb = std::fs::read(dir.join("ico.glb")).expect("read");
    put(dir, "truncated.glb", &glb[..glb.len() / 2]);
    let mut lying = glb.clone();
    lying[8..12].copy_from_slice(&u32::MAX.to_le_bytes()); // total length
    put(dir, "lying-length.glb", lying);

    for file in [
        "huge-count.gltf",
        "huge-buffer.gltf",
        "indices-past-buffer.gltf",
        "cycle.gltf",
        "self-child.gltf",
        "deep.gltf",
        "missing-node.gltf",
        "truncated-json.gltf",
        "truncated.glb",
        "lying-length.glb",
    ] {
        assert_refused(dir, file, &[]);
    }
    assert_refused(dir, "far-index.gltf", &["index 4000000000"]);
    assert_refused(dir, "nan.gltf", &["non-finite"]);
}

/// P5 of issue 37: an MTL line `Kd 1 1` (tobj 4.0.5 unwraps its three-number parse, a
/// panic). The MTL is checked before tobj reads it: a mesh that uses the model's
/// materials is refused at its line with what is wrong in which file; one with a scene
/// material does not need the MTL and reads.
#[test]
fn p5_an_mtl_colour_with_two_numbers_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    put(dir, "panel.mtl", "newmtl poster\nKd 1 1");
    put(dir, "panel.obj", "mtllib panel.mtl\nv -1 -1 0\nv 1 -1 0\nv 1 1 0\nusemtl poster\nf 1 2 3\n");
    assert_refused_with(dir, "panel.obj", None, &["`panel.mtl`: line 2: `Kd` has 2 value(s)"]);
    assert!(parse_mesh(dir, "panel.obj").is_ok());
}

/// Issue 37: a model, scene or image that is a device (a link to /dev/zero aborted on a
/// 16 GB allocation) or a folder is refused by its metadata, naming it.
#[cfg(unix)]
#[test]
fn devices_and_folders_are_refused_before_reading() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    for name in ["zero.obj", "zero.ply", "zero.glb"] {
        std::os::unix::fs::symlink("/dev/zero", dir.join(name)).expect("symlink");
        assert_refused(dir, name, &["not a regular file"]);
    }
    std::fs::create_dir(dir.join("folder.obj")).expect("mkdir");
    assert_refused(dir, "folder.obj", &["a folder"]);
    // A glTF whose buffer is the device.
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.bin")).expect("symlink");
    put(
        dir,
        "buffer.gltf",
        r#"{"asset":{"version":"2.0"},"buffers":[{"uri":"zero.bin","byteLength":36}],"scenes":[{"nodes":[]}]}"#,
    );
    assert_refused(dir, "buffer.gltf", &["buffer 0 (`zero.bin`)", "not a regular file"]);
    let err = scene::load_file(&dir.join("zero.obj")).map(|_| ()).expect_err("a device as a scene");
    assert!(err.to_string().contains("not a regular file"), "{err}");
}
