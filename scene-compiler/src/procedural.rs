//! Procedural meshes and the model files they are written as: what `scene-gen` writes
//! and the tests and benchmarks read, so no outside model is needed. An icosphere
//! (a subdivided icosahedron, vertices on the sphere) written as OBJ, PLY (ascii or
//! binary, either byte order) or glTF 2.0 (`.gltf` with its buffer as a data URI, or
//! `.glb`). Nothing in the compiler uses this module.

use std::fmt::Write as _;
use std::path::Path;

use glam::Vec3;

/// Vertices and counter-clockwise (seen from outside) triangles.
#[derive(Clone, Debug, PartialEq)]
pub struct Geometry {
    pub positions: Vec<Vec3>,
    /// Unit vertex normals, one per position, or none (the file then has none).
    pub normals: Vec<Vec3>,
    pub triangles: Vec<[u32; 3]>,
}

/// An icosahedron subdivided `subdivisions` times (each time every triangle into
/// four), its vertices pushed onto the sphere of `radius` around the origin:
/// 20 · 4^subdivisions triangles, closed, every edge shared by exactly two.
pub fn icosphere(subdivisions: u32, radius: f32) -> Geometry {
    let t = (1.0 + 5f32.sqrt()) / 2.0;
    let mut positions: Vec<Vec3> = [
        (-1.0, t, 0.0),
        (1.0, t, 0.0),
        (-1.0, -t, 0.0),
        (1.0, -t, 0.0),
        (0.0, -1.0, t),
        (0.0, 1.0, t),
        (0.0, -1.0, -t),
        (0.0, 1.0, -t),
        (t, 0.0, -1.0),
        (t, 0.0, 1.0),
        (-t, 0.0, -1.0),
        (-t, 0.0, 1.0),
    ]
    .iter()
    .map(|&(x, y, z)| Vec3::new(x, y, z).normalize())
    .collect();
    let mut triangles: Vec<[u32; 3]> = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    for _ in 0..subdivisions {
        let mut midpoints = std::collections::HashMap::new();
        let mut midpoint = |a: u32, b: u32, positions: &mut Vec<Vec3>| {
            *midpoints.entry((a.min(b), a.max(b))).or_insert_with(|| {
                positions.push((positions[a as usize] + positions[b as usize]).normalize());
                positions.len() as u32 - 1
            })
        };
        let mut next = Vec::with_capacity(triangles.len() * 4);
        for [a, b, c] in triangles {
            let ab = midpoint(a, b, &mut positions);
            let bc = midpoint(b, c, &mut positions);
            let ca = midpoint(c, a, &mut positions);
            next.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        triangles = next;
    }
    // The sphere's own normals: a smooth-shaded icosphere looks like the sphere.
    Geometry {
        normals: positions.clone(),
        positions: positions.into_iter().map(|p| p * radius).collect(),
        triangles,
    }
}

/// The model file formats [`write`] can produce, by extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Obj,
    PlyAscii,
    PlyLittleEndian,
    PlyBigEndian,
    /// `.gltf` with its one buffer inline as a base64 data URI.
    Gltf,
    Glb,
}

/// Writes `geometry` to `path` in `format`.
pub fn write(geometry: &Geometry, format: Format, path: &Path) -> std::io::Result<()> {
    let bytes = match format {
        Format::Obj => obj(geometry).into_bytes(),
        Format::PlyAscii => ply_ascii(geometry).into_bytes(),
        Format::PlyLittleEndian => ply_binary(geometry, true),
        Format::PlyBigEndian => ply_binary(geometry, false),
        Format::Gltf => gltf_json(geometry, Some(&base64::encode(gltf_buffer(geometry)))).into_bytes(),
        Format::Glb => glb(geometry),
    };
    std::fs::write(path, bytes)
}

fn obj(g: &Geometry) -> String {
    let mut out = String::from("# icosphere (scene-compiler procedural)\n");
    for p in &g.positions {
        let _ = writeln!(out, "v {:?} {:?} {:?}", p.x, p.y, p.z);
    }
    for n in &g.normals {
        let _ = writeln!(out, "vn {:?} {:?} {:?}", n.x, n.y, n.z);
    }
    let normals = !g.normals.is_empty();
    for t in &g.triangles {
        let [a, b, c] = t.map(|i| i + 1);
        let _ = if normals {
            writeln!(out, "f {a}//{a} {b}//{b} {c}//{c}")
        } else {
            writeln!(out, "f {a} {b} {c}")
        };
    }
    out
}

fn ply_header(g: &Geometry, format: &str) -> String {
    format!(
        "ply\nformat {format} 1.0\ncomment icosphere (scene-compiler procedural)\nelement vertex {}\n\
         property float x\nproperty float y\nproperty float z\n{}element face {}\n\
         property list uchar int vertex_indices\nend_header\n",
        g.positions.len(),
        if g.normals.is_empty() { "" } else { "property float nx\nproperty float ny\nproperty float nz\n" },
        g.triangles.len()
    )
}

fn ply_ascii(g: &Geometry) -> String {
    let mut out = ply_header(g, "ascii");
    for (i, p) in g.positions.iter().enumerate() {
        let _ = write!(out, "{:?} {:?} {:?}", p.x, p.y, p.z);
        if let Some(n) = g.normals.get(i) {
            let _ = write!(out, " {:?} {:?} {:?}", n.x, n.y, n.z);
        }
        out.push('\n');
    }
    for t in &g.triangles {
        let _ = writeln!(out, "3 {} {} {}", t[0], t[1], t[2]);
    }
    out
}

fn ply_binary(g: &Geometry, little: bool) -> Vec<u8> {
    let mut out =
        ply_header(g, if little { "binary_little_endian" } else { "binary_big_endian" }).into_bytes();
    let word = |le: [u8; 4]| if little { le } else { [le[3], le[2], le[1], le[0]] };
    for (i, p) in g.positions.iter().enumerate() {
        let normal = g.normals.get(i).map(|n| n.to_array());
        for x in p.to_array().into_iter().chain(normal.into_iter().flatten()) {
            out.extend(word(x.to_le_bytes()));
        }
    }
    for t in &g.triangles {
        out.push(3);
        for &i in t {
            out.extend(word((i as i32).to_le_bytes()));
        }
    }
    out
}

/// Positions (f32 xyz), indices (u32), then normals (f32 xyz), little endian: the
/// glTF buffer.
fn gltf_buffer(g: &Geometry) -> Vec<u8> {
    let mut out = Vec::with_capacity(g.positions.len() * 24 + g.triangles.len() * 12);
    for p in &g.positions {
        for x in p.to_array() {
            out.extend(x.to_le_bytes());
        }
    }
    for t in &g.triangles {
        for &i in t {
            out.extend(i.to_le_bytes());
        }
    }
    for n in &g.normals {
        for x in n.to_array() {
            out.extend(x.to_le_bytes());
        }
    }
    out
}

/// The glTF JSON: one node with one mesh of one primitive; the buffer is `uri` (a data
/// URI) or, with `None`, the GLB's binary chunk.
fn gltf_json(g: &Geometry, data_uri: Option<&str>) -> String {
    let positions_len = g.positions.len() * 12;
    let indices_len = g.triangles.len() * 12;
    let normals_len = g.normals.len() * 12;
    let (normal_attribute, normal_view, normal_accessor) = if g.normals.is_empty() {
        (String::new(), String::new(), String::new())
    } else {
        (
            r#", "NORMAL": 2"#.to_owned(),
            format!(
                r#", {{"buffer": 0, "byteOffset": {}, "byteLength": {normals_len}, "target": 34962}}"#,
                positions_len + indices_len
            ),
            format!(
                r#", {{"bufferView": 2, "componentType": 5126, "count": {}, "type": "VEC3"}}"#,
                g.normals.len()
            ),
        )
    };
    let (min, max) =
        g.positions.iter().fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &p| (lo.min(p), hi.max(p)));
    let uri = data_uri
        .map(|d| format!(r#""uri": "data:application/octet-stream;base64,{d}", "#))
        .unwrap_or_default();
    format!(
        r#"{{"asset": {{"version": "2.0", "generator": "scene-compiler procedural"}},
"scene": 0, "scenes": [{{"nodes": [0]}}], "nodes": [{{"mesh": 0}}],
"meshes": [{{"primitives": [{{"attributes": {{"POSITION": 0{normal_attribute}}}, "indices": 1, "mode": 4}}]}}],
"buffers": [{{{uri}"byteLength": {total}}}],
"bufferViews": [{{"buffer": 0, "byteOffset": 0, "byteLength": {positions_len}, "target": 34962}},
                {{"buffer": 0, "byteOffset": {positions_len}, "byteLength": {indices_len}, "target": 34963}}{normal_view}],
"accessors": [{{"bufferView": 0, "componentType": 5126, "count": {vertices}, "type": "VEC3",
                "min": [{:?}, {:?}, {:?}], "max": [{:?}, {:?}, {:?}]}},
              {{"bufferView": 1, "componentType": 5125, "count": {indices}, "type": "SCALAR"}}{normal_accessor}]}}
"#,
        min.x,
        min.y,
        min.z,
        max.x,
        max.y,
        max.z,
        total = positions_len + indices_len + normals_len,
        vertices = g.positions.len(),
        indices = g.triangles.len() * 3,
    )
}

fn glb(g: &Geometry) -> Vec<u8> {
    let mut json = gltf_json(g, None).into_bytes();
    json.resize(json.len().next_multiple_of(4), b' ');
    let mut bin = gltf_buffer(g);
    bin.resize(bin.len().next_multiple_of(4), 0);
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend(b"glTF");
    out.extend(2u32.to_le_bytes());
    out.extend((total as u32).to_le_bytes());
    out.extend((json.len() as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(json);
    out.extend((bin.len() as u32).to_le_bytes());
    out.extend(b"BIN\0");
    out.extend(bin);
    out
}
