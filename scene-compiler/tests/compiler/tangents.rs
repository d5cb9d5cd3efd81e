//! Vertex tangents for normal maps (docs/path-tracing.md, "Normal maps"): a glTF
//! `TANGENT` reaches the blob placed in the world, a mesh without one gets
//! MikkTSpace's (what Blender bakes against: it reproduces the tangents Blender
//! exported), only triangles whose material has a normal map carry any, and a scene
//! without normal maps has no tangents section.

use std::path::Path;

use glam::{Vec3, Vec4, Vec4Swizzles};
use scene_compiler::blob::layout::{
    BlobHeader, FLAG_TRIANGLE_TANGENTS, HEADER_LEN, PrimKind, SectionId, TriangleTangentsRecord,
};
use scene_compiler::meshes::with_triangles;
use scene_compiler::scene::{self, MeshData, Scene};
use scene_compiler::{BlobView, CompileOptions, compile_scene, tangents};

/// A scene whose only mesh is `mesh`, parsed as `dir/scene.ron`.
fn parse_mesh(dir: &Path, mesh: &str) -> Scene {
    let text = format!(
        r#"Scene(
    camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40),
    materials: {{ "clay": Lambert(albedo: (0.6, 0.3, 0.2)) }},
    meshes: [ {mesh} ],
)"#
    );
    scene::parse(&text, &dir.join("scene.ron").display().to_string()).unwrap_or_else(|e| panic!("{e}"))
}

/// The blob's tangents by the scene's triangle index (records are in leaf order).
fn tangents_by_source(view: &BlobView<'_>) -> Vec<[Vec4; 3]> {
    let first = view.header.kind_first()[PrimKind::Triangle as usize] as usize;
    let mut out = vec![[Vec4::ZERO; 3]; view.triangle_tangents.len()];
    for (i, t) in view.triangle_tangents.iter().enumerate() {
        out[view.prim_sources[first + i] as usize] = [t.t0, t.t1, t.t2].map(Vec4::from_array);
    }
    out
}

fn assert_close(found: Vec4, expected: Vec4, what: &str) {
    assert!((found - expected).abs().max_element() < 1e-5, "{what}: {found} against {expected}");
}

/// A 1 x 1 PNG of a flat normal, (128, 128, 255).
fn flat_normal_png() -> Vec<u8> {
    let image = image::RgbImage::from_raw(1, 1, vec![128, 128, 255]).expect("1 x 1");
    let mut bytes = std::io::Cursor::new(Vec::new());
    image.write_to(&mut bytes, image::ImageFormat::Png).expect("encode PNG");
    bytes.into_inner()
}

/// One triangle with normals, texture coordinates and tangents (one per vertex, the
/// third of the other handedness), under a node that mirrors x; its material has a
/// normal map.
fn write_gltf_with_tangents(path: &Path) {
    let floats: Vec<f32> = vec![
        0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, // positions
        0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, // normals
        0.0, 0.0, 1.0, 0.0, 0.0, 1.0, // uvs
        0.6, 0.8, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, -1.0, // tangents
    ];
    let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    let buffer = base64::encode(&bytes);
    let png = base64::encode(flat_normal_png());
    let json = format!(
        r#"{{
  "asset": {{ "version": "2.0" }},
  "scene": 0,
  "scenes": [{{ "nodes": [0] }}],
  "nodes": [{{ "mesh": 0, "scale": [-1, 1, 1] }}],
  "meshes": [{{ "primitives": [
    {{ "attributes": {{ "POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2, "TANGENT": 3 }}, "material": 0 }}
  ] }}],
  "materials": [
    {{ "name": "bumpy", "pbrMetallicRoughness": {{ "metallicFactor": 0.0 }}, "normalTexture": {{ "index": 0 }} }}
  ],
  "textures": [{{ "source": 0 }}],
  "images": [{{ "uri": "data:image/png;base64,{png}" }}],
  "buffers": [{{ "byteLength": {len}, "uri": "data:application/octet-stream;base64,{buffer}" }}],
  "bufferViews": [
    {{ "buffer": 0, "byteOffset": 0, "byteLength": 36 }},
    {{ "buffer": 0, "byteOffset": 36, "byteLength": 36 }},
    {{ "buffer": 0, "byteOffset": 72, "byteLength": 24 }},
    {{ "buffer": 0, "byteOffset": 96, "byteLength": 48 }}
  ],
  "accessors": [
    {{ "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0] }},
    {{ "bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3" }},
    {{ "bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC2" }},
    {{ "bufferView": 3, "componentType": 5126, "count": 3, "type": "VEC4" }}
  ]
}}"#,
        len = bytes.len()
    );
    std::fs::write(path, json).expect("write glTF");
}

/// The file's tangents, turned by the node (which mirrors x: w flips) and by the mesh's
/// transform (a quarter turn about z, scaled by 2: unit again), are what the blob holds.
/// The mirror also swaps the triangle's last two corners (its front face stays where
/// the file's was): corner 1 is the file's vertex 2.
#[test]
fn gltf_tangents_reach_the_blob_in_world_space() {
    let dir = tempfile::tempdir().unwrap();
    write_gltf_with_tangents(&dir.path().join("m.gltf"));
    let scene = parse_mesh(
        dir.path(),
        r#"(file: "m.gltf", transform: (translate: (1, 2, 3), rotate_deg: (0, 0, 90), scale: 2))"#,
    );
    let expected =
        [Vec4::new(-0.8, -0.6, 0.0, -1.0), Vec4::new(0.0, -1.0, 0.0, 1.0), Vec4::new(-1.0, 0.0, 0.0, -1.0)];
    let expanded = with_triangles(&scene);
    let stored = expanded.triangles[0].tangents.as_deref().expect("a normal-mapped triangle has tangents");
    let compiled = compile_scene(&scene, &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).expect("a blob with tangents parses");
    assert_ne!(view.header.flags & FLAG_TRIANGLE_TANGENTS, 0);
    let blob = tangents_by_source(&view);
    for k in 0..3 {
        assert_close(stored[k], expected[k], &format!("corner {k} in the scene"));
        assert_eq!(blob[0][k], stored[k], "corner {k}: the blob holds the scene's tangent");
    }
}

/// A model with two quads under a normal-mapped MTL material and no tangents: each
/// corner gets the tangent worked out by hand from its quad's positions and (OBJ,
/// v up) texture coordinates, T = dP/du and w the sign of (n × T) · dP/dv, orthogonal
/// to the normal; one quad's mapping is mirrored (w = -1).
#[test]
fn mikktspace_tangents_match_hand_computed_ones_on_quads() {
    let dir = tempfile::tempdir().unwrap();
    // Quad a: u runs along +y, OBJ's v along -x. Quad b (at z = 1): u along +x, v along -y.
    let obj = "mtllib m.mtl\n\
               o a\nv 0 0 0\nv 2 0 0\nv 2 1 0\nv 0 1 0\nvt 0 1\nvt 0 0\nvt 1 0\nvt 1 1\nvn 0 0 1\n\
               usemtl bumpy\nf 1/1/1 2/2/1 3/3/1 4/4/1\n\
               o b\nv 0 0 1\nv 2 0 1\nv 2 1 1\nv 0 1 1\nvt 0 1\nvt 1 1\nvt 1 0\nvt 0 0\n\
               f 5/5/1 6/6/1 7/7/1 8/8/1\n";
    std::fs::write(dir.path().join("m.obj"), obj).unwrap();
    std::fs::write(dir.path().join("m.mtl"), "newmtl bumpy\nKd 0.5 0.5 0.5\nPr 0.4\nPm 1\nnorm normal.png\n")
        .unwrap();
    std::fs::write(dir.path().join("normal.png"), flat_normal_png()).unwrap();
    let scene = parse_mesh(dir.path(), r#"(file: "m.obj")"#);
    assert!(scene.meshes[0].data.tangents.is_empty(), "an OBJ has no tangents");
    let n = Vec3::Z;
    let by_hand = |dpdu: Vec3, dpdv_up: Vec3| {
        let t = dpdu.normalize();
        t.extend(if n.cross(t).dot(dpdv_up) > 0.0 { 1.0 } else { -1.0 })
    };
    let quad_a = by_hand(Vec3::Y, -2.0 * Vec3::X);
    let quad_b = by_hand(2.0 * Vec3::X, -Vec3::Y);
    assert_eq!((quad_a.w, quad_b.w), (1.0, -1.0), "the second quad's mapping is mirrored");
    let expanded = with_triangles(&scene);
    assert_eq!(expanded.triangles.len(), 4);
    let compiled = compile_scene(&scene, &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).expect("a blob with tangents parses");
    let blob = tangents_by_source(&view);
    for (i, t) in expanded.triangles.iter().enumerate() {
        let expected = if i < 2 { quad_a } else { quad_b };
        let stored = t.tangents.as_deref().expect("a normal-mapped triangle with uvs has tangents");
        for k in 0..3 {
            assert_close(stored[k], expected, &format!("triangle {i} corner {k}"));
            assert!(stored[k].xyz().dot(n).abs() < 1e-6, "orthogonal to the normal");
            assert_eq!(blob[i][k], stored[k]);
        }
    }
}

/// The two Blender exports of the reference scenes (`assets/references/`) carry
/// tangents; MikkTSpace over the same meshes (their TANGENT dropped) gives back what
/// Blender exported on every mesh but the subdivided Suzanne, so a model without
/// tangents gets the frame its normal map was baked in. Suzanne is quads that the
/// exporter triangulated, and Blender ran MikkTSpace on the quads (MikkTSpace's own
/// caveat: a triangulation changes the tangents it averages): there every bitangent
/// sign agrees and 99.5 % of corners are within 8° (measured: 88 % within 0.8°,
/// 99.7 % within 8°; fed the quads rebuilt from the triangle pairs, 98 % within 0.8°).
#[test]
fn mikktspace_reproduces_the_tangents_blender_exported() {
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/models");
    for model in ["pbr_features.glb", "pbr_showcase.glb"] {
        let scene = parse_mesh(&models, &format!(r#"(file: "{model}")"#));
        let data = &scene.meshes[0].data;
        assert_eq!(data.tangents.len(), data.positions.len(), "{model} loads with its tangents");
        let ours = tangents::mikktspace(&MeshData { tangents: Vec::new(), ..MeshData::clone(data) });
        // Per material: corners, sign differences, corners beyond 0.8° and beyond 8°.
        let mut counts = vec![[0usize; 4]; data.materials.len()];
        for ((corners, t), &m) in ours.iter().zip(&data.triangles).zip(&data.triangle_materials) {
            for (ours, &i) in corners.iter().zip(t) {
                let blender = data.tangents[i as usize];
                let cos = ours.xyz().dot(blender.xyz());
                let c = &mut counts[m as usize];
                c[0] += 1;
                c[1] += usize::from(ours.w != blender.w);
                c[2] += usize::from(cos < 0.9999);
                c[3] += usize::from(cos < 0.99);
            }
        }
        for (material, [corners, signs, beyond_small, beyond_8]) in data.materials.iter().zip(counts) {
            let what = format!(
                "{model} {}: {corners} corners, {signs} signs, {beyond_small} beyond 0.8°, {beyond_8} beyond 8°",
                material.name
            );
            assert!(corners > 0 && signs == 0, "{what}");
            if material.name == "copper" {
                assert!(beyond_8 * 200 <= corners && beyond_small * 5 <= corners, "{what}");
            } else {
                assert_eq!(beyond_small, 0, "{what}");
            }
        }

        // Compiled with its own materials: the normal-mapped ground has its file's
        // tangents; the blob holds one record per triangle.
        let expanded = with_triangles(&scene);
        let mapped = expanded.triangles.iter().filter(|t| t.tangents.is_some()).count();
        assert!(mapped > 0 && mapped < expanded.triangles.len(), "{model}: {mapped} normal-mapped triangles");
        let compiled = compile_scene(&scene, &CompileOptions::default());
        let view = BlobView::parse(&compiled.blob).expect("the model's blob parses");
        assert_eq!(view.triangle_tangents.len(), expanded.triangles.len());
    }
}

/// Without a normal map nothing is computed or stored: the same model under a plain
/// material has no tangents on its triangles, no flag, and an empty section.
#[test]
fn a_scene_without_normal_maps_has_no_tangents_section() {
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/models");
    let scene = parse_mesh(&models, r#"(file: "pbr_features.glb", material: "clay")"#);
    let expanded = with_triangles(&scene);
    assert!(expanded.triangles.iter().all(|t| t.tangents.is_none()));
    let compiled = compile_scene(&scene, &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).unwrap();
    assert_eq!(view.header.flags & FLAG_TRIANGLE_TANGENTS, 0);
    assert!(view.triangle_tangents.is_empty());
    let entry = view.header.sections[SectionId::TriangleTangents as usize];
    assert_eq!(entry.len, 0, "an empty section");
    // The section takes no bytes: the next one starts where the one before ended (aligned).
    let uvs = view.header.sections[SectionId::VertexUvs as usize];
    let next = view.header.sections[SectionId::PrimMaterials as usize];
    assert_eq!(next.offset, (uvs.offset + uvs.len).next_multiple_of(16));
}

/// A triangle of a mesh without tangents or texture coordinates gets its face's
/// tangent: the barycentric frame (u along the first edge, v along the second), with
/// the bitangent pointing away from v's growth.
#[test]
fn face_tangents_follow_the_edges_without_texture_coordinates() {
    let v = [Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(1.0, 3.0, 0.0)];
    let t = tangents::face_tangent(v, None);
    assert_close(t, Vec4::new(1.0, 0.0, 0.0, -1.0), "u along the first edge; n × T = +y, where v grows");
}

fn fix_crc(bytes: &mut [u8]) {
    let crc = crc32fast::hash(&bytes[HEADER_LEN..]);
    let at = std::mem::offset_of!(BlobHeader, payload_crc32);
    bytes[at..at + 4].copy_from_slice(&crc.to_le_bytes());
}

#[test]
fn tangents_that_are_not_unit_or_have_no_sign_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_gltf_with_tangents(&dir.path().join("m.gltf"));
    let scene = parse_mesh(dir.path(), r#"(file: "m.gltf")"#);
    let compiled = compile_scene(&scene, &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).unwrap();
    let at = view.header.sections[SectionId::TriangleTangents as usize].offset as usize;
    let size = size_of::<TriangleTangentsRecord>();
    let corrupt = |change: &dyn Fn(&mut TriangleTangentsRecord)| -> String {
        let mut bytes = compiled.blob.clone();
        change(bytemuck::from_bytes_mut(&mut bytes.as_mut_slice()[at..at + size]));
        fix_crc(bytes.as_mut_slice());
        BlobView::parse(&bytes).map(|_| ()).unwrap_err().to_string()
    };
    let err = corrupt(&|t| t.t0[0] *= 2.0);
    assert!(err.contains("triangle_tangents[0]") && err.contains("unit length"), "{err}");
    let err = corrupt(&|t| t.t2[3] = 0.5);
    assert!(err.contains("sign"), "{err}");
    let err = corrupt(&|t| t.t0[1] = f32::NAN);
    assert!(err.contains("non-finite"), "{err}");
}
