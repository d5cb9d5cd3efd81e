//! glTF as asset pipelines write it (issue 35): gltfpack's `KHR_mesh_quantization`
//! (integer positions placed by the node's scale and offset, normalized normals and
//! tangents, texture coordinates scaled back by `KHR_texture_transform`) and
//! `EXT_meshopt_compression` / `KHR_meshopt_compression` (buffer views decoded by
//! meshoptimizer). The files are gltfpack's outputs of repository models, committed in
//! `assets/models/gltfpack/` (its README says how they were made: CI has no node):
//! each reads to the original's triangles within the quantization's error.
//! Required extensions that are not read are an error naming them; hostile meshopt
//! views are errors at the mesh's line, never a panic or an allocation the file's
//! bytes do not back. `KHR_draco_mesh_compression` (glTF Transform's Draco output of the
//! icosphere, `assets/models/draco/`) reads within Draco's quantization.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use glam::{Vec2, Vec3, Vec4, Vec4Swizzles};
use scene_compiler::scene::{MeshData, Texture};
use serde_json::{Value, json};

use super::hostile_models::{assert_refused, floats, parse_mesh, parse_mesh_with, put};

fn models() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/models")
}

/// The model `file` (under assets/models/) with its own materials.
fn model(file: &str) -> MeshData {
    let scene = parse_mesh_with(&models(), file, None).unwrap_or_else(|e| panic!("{file}: {e}"));
    MeshData::clone(&scene.meshes[0].data)
}

/// One corner of a triangle: its position, unit normal, texture coordinates as its
/// material's textures look them up (moved by their `uv_transform`: gltfpack puts the
/// scale of its quantized coordinates there) and tangent, where the file has them.
#[derive(Clone, Copy, Debug)]
struct Corner {
    p: Vec3,
    n: Option<Vec3>,
    uv: Option<Vec2>,
    t: Option<Vec4>,
}

/// The uv_transform of the triangle's material's textures (all of a material's are the
/// same in these files), or none when it has no texture: its coordinates are unused.
fn uv_rows(data: &MeshData, triangle: usize) -> Option<[[f32; 3]; 2]> {
    let material = &data.materials[data.triangle_materials[triangle] as usize];
    let texture = material.texture.as_ref().or(material.maps.slots().into_iter().flatten().next())?;
    match texture {
        Texture::Image { uv_transform, .. } => Some(uv_transform.rows()),
        _ => None,
    }
}

fn corners(data: &MeshData, triangle: usize) -> [Corner; 3] {
    let rows = uv_rows(data, triangle);
    data.triangles[triangle].map(|i| {
        let i = i as usize;
        let uv = rows.zip(data.uvs.get(i)).map(|(r, uv)| {
            let uv = uv.extend(1.0);
            Vec2::new(Vec3::from(r[0]).dot(uv), Vec3::from(r[1]).dot(uv))
        });
        Corner { p: data.positions[i], n: data.normals.get(i).copied(), uv, t: data.tangents.get(i).copied() }
    })
}

/// The largest differences between matched corners: position (distance), normal and
/// tangent (angle, radians), texture coordinates (per coordinate), tangent signs that differ.
#[derive(Debug, Default)]
struct Errors {
    position: f32,
    normal: f32,
    uv: f32,
    tangent: f32,
    tangent_signs: usize,
    uvs_compared: usize,
    tangents_compared: usize,
}

fn angle(a: Vec3, b: Vec3) -> f32 {
    a.normalize().dot(b.normalize()).clamp(-1.0, 1.0).acos()
}

/// Matches every triangle of `packed` with one of `original` whose corners lie within
/// `within` of its own (in the same order up to a rotation: meshoptimizer's index codec
/// rotates triangles, keeping their winding) and returns the largest differences.
fn compare(original: &MeshData, packed: &MeshData, within: f32) -> Errors {
    assert_eq!(packed.triangles.len(), original.triangles.len(), "the same number of triangles");
    let cell = |p: Vec3| (p / 0.01).floor().as_ivec3();
    let centroid =
        |d: &MeshData, t: usize| d.triangles[t].map(|i| d.positions[i as usize]).iter().sum::<Vec3>() / 3.0;
    let mut grid: HashMap<glam::IVec3, Vec<usize>> = HashMap::new();
    for t in 0..original.triangles.len() {
        grid.entry(cell(centroid(original, t))).or_default().push(t);
    }
    let mut taken = vec![false; original.triangles.len()];
    let mut e = Errors::default();
    for t in 0..packed.triangles.len() {
        let ours = corners(packed, t);
        let c = cell(centroid(packed, t));
        // The closest untaken original (the largest of its corners' distances), as
        // small triangles lie within the bound of their neighbours.
        let mut found: Option<(f32, usize, usize)> = None;
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    for &o in grid.get(&(c + glam::IVec3::new(dx, dy, dz))).into_iter().flatten() {
                        let theirs = corners(original, o);
                        for r in 0..3 {
                            let d =
                                (0..3).map(|k| ours[k].p.distance(theirs[(k + r) % 3].p)).fold(0.0, f32::max);
                            if d <= within && !taken[o] && found.is_none_or(|f| d < f.0) {
                                found = Some((d, o, r));
                            }
                        }
                    }
                }
            }
        }
        let (_, o, r) =
            found.unwrap_or_else(|| panic!("packed triangle {t} ({:?}) has no original", ours.map(|c| c.p)));
        let theirs = corners(original, o);
        taken[o] = true;
        for k in 0..3 {
            let (a, b) = (ours[k], theirs[(k + r) % 3]);
            e.position = e.position.max(a.p.distance(b.p));
            if let (Some(x), Some(y)) = (a.n, b.n) {
                e.normal = e.normal.max(angle(x, y));
            }
            if let (Some(x), Some(y)) = (a.uv, b.uv) {
                e.uv = e.uv.max((x - y).abs().max_element());
                e.uvs_compared += 1;
            }
            if let (Some(x), Some(y)) = (a.t, b.t)
                && x != Vec4::ZERO
            {
                e.tangent = e.tangent.max(angle(x.xyz(), y.xyz()));
                e.tangent_signs += usize::from(x.w != y.w);
                e.tangents_compared += 1;
            }
        }
    }
    e
}

/// gltfpack's default output of the held-out Blender scene (`pbr_showcase.glb`):
/// positions on a 14-bit grid of the scene's extent, u16 read as whole numbers and
/// placed by the node's scale (0.000854544 m) and offset; normals and tangents 8-bit
/// normalized; texture coordinates 12 bits in normalized u16, scaled back by each
/// texture's `KHR_texture_transform`. Every triangle of the original is there, within:
///
/// - position: half a grid step on each axis (Suzanne's rotation was applied before
///   rounding, the glass cube's parent node turns its grid): at most √3/2 · 0.000854544
///   = 0.00074 m from the original (measured 0.00073);
/// - normal: 8-bit components round by at most 1/254 each, at most asin(√3/254) =
///   0.0068 rad (0.39°) after normalizing (measured 0.0064 rad); the ground's tangents
///   the same (measured 0: they lie on the axes);
/// - texture coordinates: half a 12-bit step of the material's range, the transform's
///   scale · 16 / 65535 / 2: 0.0039 on the ground (scale 32.007), 0.0020 on the
///   sphere (16.004) (measured 0.00012).
#[test]
fn gltfpack_quantized_showcase_reads_as_the_original() {
    let original = model("pbr_showcase.glb");
    let packed = model("gltfpack/pbr_showcase_q.glb");
    let step = 0.000_854_544_3_f32;
    let e = compare(&original, &packed, step);
    eprintln!("pbr_showcase_q: {e:?}");
    assert!(e.position <= 3f32.sqrt() / 2.0 * step * 1.001, "{e:?}");
    let normal = (3f32.sqrt() / 254.0).asin() * 1.001;
    assert!(e.normal <= normal, "{e:?}");
    assert!(e.tangents_compared > 0 && e.tangent <= normal && e.tangent_signs == 0, "{e:?}");
    assert!(e.uvs_compared > 0 && e.uv <= 32.007_328 * 8.0 / 65535.0 * 1.001, "{e:?}");
    assert_eq!(packed.normals.len(), packed.positions.len());
    assert!(packed.normals.iter().all(|n| (n.length() - 1.0).abs() < 1e-5), "unit normals");
}

/// The same scene through `gltfpack -cc`: the quantized buffers compressed by
/// `EXT_meshopt_compression` (attributes, normals through the OCTAHEDRAL filter, triangle
/// indices); decoding is exact, the normals are the octahedral filter's 8-bit
/// encoding instead of 8-bit components: within 1.5° (measured 0.0185 rad, 1.06°; the
/// icospheres' 0.88°).
#[test]
fn gltfpack_meshopt_showcase_reads_as_the_original() {
    let original = model("pbr_showcase.glb");
    let packed = model("gltfpack/pbr_showcase_cc.glb");
    let quantized = model("gltfpack/pbr_showcase_q.glb");
    let step = 0.000_854_544_3_f32;
    let e = compare(&original, &packed, step);
    eprintln!("pbr_showcase_cc: {e:?}");
    assert!(e.position <= 3f32.sqrt() / 2.0 * step * 1.001, "{e:?}");
    assert!(e.normal <= 1.5f32.to_radians(), "{e:?}");
    assert!(e.tangents_compared > 0 && e.tangent <= 1.5f32.to_radians() && e.tangent_signs == 0, "{e:?}");
    assert!(e.uvs_compared > 0 && e.uv <= 32.007_328 * 8.0 / 65535.0 * 1.001, "{e:?}");
    // Positions and texture coordinates are decoded bit for bit: the same values as
    // the uncompressed quantized file's (in another order).
    let sorted = |d: &MeshData| {
        let mut v: Vec<[u32; 5]> = d
            .positions
            .iter()
            .zip(&d.uvs)
            .map(|(p, uv)| [p.x, p.y, p.z, uv.x, uv.y].map(f32::to_bits))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    assert!(sorted(&packed) == sorted(&quantized), "the same positions and texture coordinates");
}

/// The icosphere through `gltfpack -cc -vpf` (float positions through the EXPONENTIAL
/// filter) and `-cz` (`KHR_meshopt_compression`, meshoptimizer's version 1 streams):
/// the 14-bit grid of the -cz file is 2 / 16383 m, its positions within half a step on
/// each axis, √3 / 16383 (measured 0.000086); -vpf's exponential encoding keeps 15
/// mantissa bits of each coordinate, within 1e-4 (measured 0.000038). Normals through
/// the octahedral filter, within 1.5° (measured 0.88° in both).
#[test]
fn gltfpack_meshopt_icospheres_read_as_the_original() {
    let original = model("icosphere.glb");
    for (file, within) in
        [("gltfpack/icosphere_cc_vpf.glb", 1e-4), ("gltfpack/icosphere_cz.glb", 3f32.sqrt() / 16383.0)]
    {
        let packed = model(file);
        let e = compare(&original, &packed, within);
        eprintln!("{file}: {e:?}");
        assert!(e.position <= within && e.normal <= 1.5f32.to_radians(), "{file}: {e:?}");
    }
}

/// A triangle in a `.gltf` with its buffer as `name.bin` beside it; `change` edits both.
fn triangle(dir: &Path, name: &str, change: impl FnOnce(&mut Value, &mut Vec<u8>)) {
    let mut bin = floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    bin.extend([0u32, 1, 2].iter().flat_map(|i| i.to_le_bytes()));
    let mut json = json!({
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "buffers": [{"uri": format!("{name}.bin"), "byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 12}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]},
            {"bufferView": 1, "componentType": 5125, "count": 3, "type": "SCALAR"}
        ]
    });
    change(&mut json, &mut bin);
    put(dir, &format!("{name}.bin"), &bin);
    put(dir, &format!("{name}.gltf"), json.to_string());
}

/// A required extension that is not read is refused by name, saying which are; one
/// that is only used is ignored.
#[test]
fn unknown_required_extensions_are_named() {
    let dir = tempfile::tempdir().expect("temp dir");
    triangle(dir.path(), "ktx", |j, _| {
        j["extensionsUsed"] = json!(["KHR_mesh_quantization", "KHR_texture_basisu"]);
        j["extensionsRequired"] = json!(["KHR_mesh_quantization", "KHR_texture_basisu"]);
    });
    assert_refused(
        dir.path(),
        "ktx.gltf",
        &[
            "requires the glTF extension `KHR_texture_basisu`",
            "not read here",
            "KHR_mesh_quantization",
            "EXT_meshopt_compression",
        ],
    );
    triangle(dir.path(), "used", |j, _| j["extensionsUsed"] = json!(["EXT_future_thing"]));
    parse_mesh(dir.path(), "used.gltf").expect("an extension that is only used is ignored");
}

/// KHR_mesh_quantization's integer types read by hand: i16 normalized positions,
/// i8 normalized normals, u8 unnormalized texture coordinates, through a sparse
/// accessor too; an unnormalized integer normal is refused.
#[test]
fn quantized_attributes_read_as_the_extension_says() {
    let dir = tempfile::tempdir().expect("temp dir");
    let quantized = |j: &mut Value, bin: &mut Vec<u8>| {
        // Positions: i16 normalized, 8-byte stride (padded as glTF requires).
        let positions: [[i16; 4]; 3] = [[0, 0, 0, 0], [32767, 0, 0, 0], [0, -32768, 0, 0]];
        let at = bin.len();
        bin.extend(positions.iter().flatten().flat_map(|c| c.to_le_bytes()));
        // Normals: i8 normalized (0, 0, 127) and texture coordinates u8 (3, 4).
        let normals = bin.len();
        bin.extend([0u8, 0, 127, 0].repeat(3));
        let uvs = bin.len();
        bin.extend([3u8, 4, 0, 0].repeat(3));
        j["bufferViews"].as_array_mut().unwrap().extend([
            json!({"buffer": 0, "byteOffset": at, "byteLength": 24, "byteStride": 8}),
            json!({"buffer": 0, "byteOffset": normals, "byteLength": 12, "byteStride": 4}),
            json!({"buffer": 0, "byteOffset": uvs, "byteLength": 12, "byteStride": 4}),
        ]);
        j["accessors"].as_array_mut().unwrap().extend([
            json!({"bufferView": 2, "componentType": 5122, "normalized": true, "count": 3, "type": "VEC3",
                   "min": [0, -32768, 0], "max": [32767, 0, 0]}),
            json!({"bufferView": 3, "componentType": 5120, "normalized": true, "count": 3, "type": "VEC3"}),
            json!({"bufferView": 4, "componentType": 5121, "count": 3, "type": "VEC2"}),
        ]);
        j["meshes"][0]["primitives"][0]["attributes"] = json!({"POSITION": 2, "NORMAL": 3, "TEXCOORD_0": 4});
        j["meshes"][0]["primitives"][0]["indices"] = json!(1);
        j["extensionsUsed"] = json!(["KHR_mesh_quantization"]);
        j["extensionsRequired"] = json!(["KHR_mesh_quantization"]);
        j["buffers"][0]["byteLength"] = json!(bin.len());
    };
    triangle(dir.path(), "q", quantized);
    let scene = parse_mesh(dir.path(), "q.gltf").expect("a quantized triangle");
    let data = &scene.meshes[0].data;
    // The triangle's winding is reversed by the negative y; it still has area.
    assert_eq!(data.positions, [Vec3::ZERO, Vec3::X, Vec3::new(0.0, -1.0, 0.0)]);
    assert_eq!(data.normals, [Vec3::Z; 3]);
    assert_eq!(data.uvs, [Vec2::new(3.0, 4.0); 3], "unnormalized integers are whole numbers");

    triangle(dir.path(), "bad", |j, bin| {
        quantized(j, bin);
        j["accessors"][3]["normalized"] = json!(false);
    });
    assert_refused(dir.path(), "bad.gltf", &["NORMAL accessor 3", "not normalized"]);
}

/// Hostile EXT_meshopt_compression views: each one error at the mesh's line naming
/// what is wrong, decided before anything the file claims is allocated.
#[test]
fn hostile_meshopt_views_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    // The triangle's positions as a compressed view into a fallback buffer 1.
    let compress = |j: &mut Value, ext: Value| {
        j["buffers"].as_array_mut().unwrap().push(json!({"byteLength": 36,
            "extensions": {"EXT_meshopt_compression": {"fallback": true}}}));
        j["bufferViews"][0] = json!({"buffer": 1, "byteLength": 36, "byteStride": 12,
            "extensions": {"EXT_meshopt_compression": ext}});
        j["extensionsRequired"] = json!(["EXT_meshopt_compression"]);
        j["extensionsUsed"] = json!(["EXT_meshopt_compression"]);
    };
    let cases: [(&str, Value, &[&str]); 6] = [
        (
            "count",
            json!({"buffer": 0, "byteLength": 36, "byteStride": 12, "count": 4, "mode": "ATTRIBUTES"}),
            &["buffer view 0", "4 elements of 12 bytes do not fill the view's 36 bytes"],
        ),
        (
            "stride",
            json!({"buffer": 0, "byteLength": 36, "byteStride": 12, "count": 3, "mode": "ATTRIBUTES", "filter": "OCTAHEDRAL"}),
            &["byteStride 12 is not one that mode Attributes with filter Octahedral allows"],
        ),
        (
            "range",
            json!({"buffer": 0, "byteOffset": 40, "byteLength": 36, "byteStride": 12, "count": 3, "mode": "ATTRIBUTES"}),
            &["36 compressed bytes from byte 40 reach past buffer 0's 48 bytes"],
        ),
        (
            "garbage",
            json!({"buffer": 0, "byteLength": 36, "byteStride": 12, "count": 3, "mode": "ATTRIBUTES"}),
            &["its Attributes stream cannot be decoded"],
        ),
        (
            "mode",
            json!({"buffer": 0, "byteLength": 36, "byteStride": 12, "count": 3, "mode": "LINES"}),
            &["buffer view 0 (EXT_meshopt_compression)", "LINES"],
        ),
        (
            "triangles",
            json!({"buffer": 0, "byteLength": 12, "byteStride": 12, "count": 3, "mode": "TRIANGLES"}),
            &["byteStride 12 is not one that mode Triangles"],
        ),
    ];
    for (name, ext, wanted) in cases {
        triangle(dir.path(), name, |j, _| compress(j, ext));
        assert_refused(dir.path(), &format!("{name}.gltf"), wanted);
    }
    // A view that claims 2^40 elements from 36 bytes: refused before it is allocated.
    triangle(dir.path(), "claims", |j, _| {
        compress(
            j,
            json!({"buffer": 0, "byteLength": 36, "byteStride": 4, "count": 1u64 << 40, "mode": "ATTRIBUTES"}),
        );
        j["bufferViews"][0]["byteLength"] = json!(4u64 << 40);
        j["bufferViews"][0]["byteStride"] = json!(4);
        j["buffers"][1]["byteLength"] = json!(4u64 << 40);
    });
    assert_refused(dir.path(), "claims.gltf", &["cannot hold 1099511627776 elements of 4 bytes"]);
    // A placeholder read by a view that is not compressed.
    triangle(dir.path(), "plain", |j, _| {
        compress(
            j,
            json!({"buffer": 0, "byteLength": 36, "byteStride": 12, "count": 3, "mode": "ATTRIBUTES"}),
        );
        j["bufferViews"][1]["buffer"] = json!(1);
    });
    assert_refused(
        dir.path(),
        "plain.gltf",
        &["buffer view 1 reads buffer 1", "placeholder", "not compressed"],
    );
}

/// `KHR_draco_mesh_compression` (glTF Transform's `draco`, Google's encoder): the
/// icosphere decoded by draco-core reads as the original within Draco's quantization,
/// 14 bits over the sphere's 2 m: half a step of 2 / 16383 on each axis, √3 / 16383
/// (measured 0.000086); 10-bit octahedral normals within 0.5° (measured 0.0035 rad,
/// 0.20°). A stream that is not Draco is an error naming the extension's view.
#[test]
fn draco_icosphere_reads_as_the_original() {
    let original = model("icosphere.glb");
    let packed = model("draco/icosphere_draco.glb");
    let within = 3f32.sqrt() / 16383.0;
    let e = compare(&original, &packed, within);
    eprintln!("draco/icosphere_draco.glb: {e:?}");
    assert!(e.position <= within && e.normal <= 0.5f32.to_radians(), "{e:?}");

    let dir = tempfile::tempdir().expect("temp dir");
    triangle(dir.path(), "draco", |j, _| {
        j["meshes"][0]["primitives"][0]["extensions"] =
            json!({"KHR_draco_mesh_compression": {"bufferView": 0, "attributes": {"POSITION": 0}}});
        j["extensionsRequired"] = json!(["KHR_draco_mesh_compression"]);
        j["extensionsUsed"] = json!(["KHR_draco_mesh_compression"]);
    });
    assert_refused(
        dir.path(),
        "draco.gltf",
        &["mesh 0 primitive 0", "Draco stream (buffer view 0) cannot be decoded"],
    );
}
