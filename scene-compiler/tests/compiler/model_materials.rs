//! A model's own materials (docs/scene-format.md, "Model materials"): glTF
//! metallic-roughness with its extensions and OBJ's MTL mapped to our kinds, base
//! colour textures and texture coordinates carried into the blob, what is dropped
//! named once, and a scene `material` overriding them.

use std::path::Path;

use glam::{Vec2, Vec3};
use scene_compiler::meshes::{warnings, with_triangles};
use scene_compiler::scene::{self, MaterialKind, Principled, Scene, Texture};
use scene_compiler::{BlobView, CompileOptions, compile_scene};

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

/// A 2 x 1 PNG: a red and a blue pixel (8-bit: sRGB-encoded).
fn red_blue_png() -> Vec<u8> {
    let image = image::RgbImage::from_raw(2, 1, vec![255, 0, 0, 0, 0, 255]).expect("2 x 1");
    let mut bytes = std::io::Cursor::new(Vec::new());
    image.write_to(&mut bytes, image::ImageFormat::Png).expect("encode PNG");
    bytes.into_inner()
}

/// An 8-bit value as a data texture holds it: v / 255, no sRGB curve.
fn image_data_value(v: u8) -> f32 {
    f32::from(v) / 255.0
}

/// Two triangles in two primitives (each with positions and texture coordinates): the
/// first steel (metallic, rough, a normal map), the second an emitter (emissive factor
/// and strength) with an embedded base colour texture; a third material is glass.
fn write_gltf(path: &Path) {
    let floats: Vec<f32> = vec![
        0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, // positions
        0.0, 0.0, 1.0, 0.0, 0.0, 1.0, // uvs
    ];
    let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    let buffer = base64::encode(&bytes);
    let png = base64::encode(red_blue_png());
    let json = format!(
        r#"{{
  "asset": {{ "version": "2.0" }},
  "extensionsUsed": ["KHR_materials_emissive_strength", "KHR_materials_transmission", "KHR_materials_ior"],
  "scene": 0,
  "scenes": [{{ "nodes": [0] }}],
  "nodes": [{{ "mesh": 0 }}],
  "meshes": [{{ "primitives": [
    {{ "attributes": {{ "POSITION": 0, "TEXCOORD_0": 1 }}, "material": 0 }},
    {{ "attributes": {{ "POSITION": 0, "TEXCOORD_0": 1 }}, "material": 1 }},
    {{ "attributes": {{ "POSITION": 0 }}, "material": 2 }}
  ] }}],
  "materials": [
    {{ "name": "steel", "pbrMetallicRoughness": {{ "baseColorFactor": [0.5, 0.6, 0.7, 1.0], "metallicFactor": 1.0, "roughnessFactor": 0.25 }},
       "normalTexture": {{ "index": 0 }} }},
    {{ "name": "lamp", "pbrMetallicRoughness": {{ "baseColorFactor": [1.0, 1.0, 1.0, 1.0], "metallicFactor": 0.0, "baseColorTexture": {{ "index": 0 }} }},
       "emissiveFactor": [1.0, 0.5, 0.0], "extensions": {{ "KHR_materials_emissive_strength": {{ "emissiveStrength": 3.0 }} }} }},
    {{ "name": "glass", "pbrMetallicRoughness": {{ "metallicFactor": 0.0 }},
       "extensions": {{ "KHR_materials_transmission": {{ "transmissionFactor": 1.0 }}, "KHR_materials_ior": {{ "ior": 1.33 }} }} }}
  ],
  "textures": [{{ "source": 0 }}],
  "images": [{{ "uri": "data:image/png;base64,{png}" }}],
  "buffers": [{{ "byteLength": {len}, "uri": "data:application/octet-stream;base64,{buffer}" }}],
  "bufferViews": [{{ "buffer": 0, "byteOffset": 0, "byteLength": 36 }}, {{ "buffer": 0, "byteOffset": 36, "byteLength": 24 }}],
  "accessors": [
    {{ "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0] }},
    {{ "bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC2" }}
  ]
}}"#,
        len = bytes.len()
    );
    std::fs::write(path, json).expect("write glTF");
}

#[test]
fn gltf_materials_map_to_our_kinds_with_textures_and_warnings() {
    let dir = tempfile::tempdir().unwrap();
    write_gltf(&dir.path().join("m.gltf"));
    let scene = parse_mesh(dir.path(), r#"(file: "m.gltf")"#);
    let expanded = with_triangles(&scene);
    let names: Vec<&str> = expanded.materials.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["clay", "m.gltf#steel", "m.gltf#lamp", "m.gltf#glass"]);
    let principled = |p: Principled| MaterialKind::Principled(p);
    assert_eq!(
        expanded.materials[1].kind,
        principled(Principled {
            base_color: Vec3::new(0.5, 0.6, 0.7),
            metallic: 1.0,
            roughness: 0.25,
            ..Principled::default()
        })
    );
    assert_eq!(
        expanded.materials[2].kind,
        principled(Principled {
            metallic: 0.0,
            emission: Vec3::new(1.0, 0.5, 0.0),
            emission_strength: 3.0,
            ..Principled::default()
        })
    );
    assert_eq!(
        expanded.materials[3].kind,
        principled(Principled { metallic: 0.0, transmission: 1.0, ior: 1.33, ..Principled::default() })
    );
    match &expanded.materials[2].texture {
        Some(Texture::Image { image, .. }) => {
            assert_eq!((image.width, image.height), (2, 1));
            assert_eq!(image.texels, vec![[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], "sRGB 255 and 0 decode exactly");
        }
        other => panic!("the lamp's base colour texture: {other:?}"),
    }
    assert!(expanded.materials[1].texture.is_none());
    // The steel's normal map is data: read as stored, not sRGB-decoded.
    match &expanded.materials[1].maps.normal {
        Some(Texture::Image { image, .. }) => {
            let mid = image_data_value(128);
            assert_eq!(image.texels[0], [1.0, 0.0, 0.0]);
            assert!(mid > 0.5, "{mid}");
        }
        other => panic!("the steel's normal map: {other:?}"),
    }
    // Each primitive's triangle takes its material; the uvs of the first two come along,
    // the third primitive has no TEXCOORD_0 and gets (0, 0) at each corner.
    let materials: Vec<u32> = expanded.triangles.iter().map(|t| t.material).collect();
    assert_eq!(materials, [1, 2, 3]);
    let uvs = |t: usize| expanded.vertices.triangle_uvs(&expanded.triangles[t]);
    assert!(uvs(0).is_some_and(|uvs| uvs != [Vec2::ZERO; 3]), "{:?}", uvs(0));
    assert_eq!(uvs(2), Some([Vec2::ZERO; 3]), "a primitive without TEXCOORD_0 among some with");
    assert!(warnings(&scene).is_empty(), "{:?}", warnings(&scene));

    // A scene material overrides the model's: no model materials, no warnings.
    let overridden = parse_mesh(dir.path(), r#"(file: "m.gltf", material: "clay")"#);
    let expanded = with_triangles(&overridden);
    assert_eq!(expanded.materials.len(), 1);
    assert!(expanded.triangles.iter().all(|t| t.material == 0));
    assert!(warnings(&overridden).is_empty());
}

/// Texture coordinates reach the blob: the vertices a triangle names hold its (u, v).
#[test]
fn texture_coordinates_reach_the_blob() {
    let dir = tempfile::tempdir().unwrap();
    let obj = "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nusemtl red\nf 1/1 2/2 3/3\n";
    std::fs::write(dir.path().join("m.obj"), obj).unwrap();
    std::fs::write(dir.path().join("m.mtl"), "newmtl red\nKd 0.8 0.1 0.1\n").unwrap();
    let scene = parse_mesh(dir.path(), r#"(file: "m.obj")"#);
    let expanded = with_triangles(&scene);
    // OBJ's v runs up the image, ours down: flipped.
    let flipped = [Vec2::new(0.0, 1.0), Vec2::new(1.0, 1.0), Vec2::new(0.0, 0.0)];
    assert_eq!(expanded.vertices.triangle_uvs(&expanded.triangles[0]), Some(flipped));
    let compiled = compile_scene(&scene, &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).expect("a blob with uvs parses");
    assert_eq!(view.vertex_uvs.len(), 3, "one per vertex");
    let corners = view.records::<scene_compiler::scene::Triangle>()[0].v;
    assert_eq!(corners.map(|i| Vec2::from_array(view.vertex_uvs[i as usize].uv)), flipped);
}

#[test]
fn mtl_materials_map_to_our_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let obj = "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n\
               f 1 2 3\nusemtl red\nf 2 4 3\nusemtl glass\nf 1 2 4\nusemtl lamp\nf 1 3 4\nusemtl chrome\nf 1 2 3\n";
    std::fs::write(dir.path().join("m.obj"), obj).unwrap();
    let mtl = "newmtl red\nKd 0.8 0.1 0.1\nmap_Bump bump.png\n\
               newmtl glass\nillum 7\nNi 1.33\n\
               newmtl lamp\nKd 0.5 0.5 0.5\nKe 4 2 1\n\
               newmtl chrome\nillum 3\nKd 0.2 0.2 0.2\nKs 0.9 0.9 0.9\nNs 250\n\
               newmtl blender_glass\nKd 1 1 1\nPr 0.1\nPm 0\nTf 1 1 1\nNi 1.45\nd 1\nillum 2\n\
               newmtl bumpy\nKd 0.5 0.5 0.5\nPr 0.4\nPm 1\nnorm normal.png\nmap_Pr rough.png\n";
    std::fs::write(dir.path().join("m.mtl"), mtl).unwrap();
    // A height map (grey) where map_Bump names one, a tangent-space normal map (blue).
    let png = |rgb: [u8; 3], name: &str| {
        image::RgbImage::from_pixel(2, 2, image::Rgb(rgb)).save(dir.path().join(name)).expect("write PNG")
    };
    png([100, 100, 100], "bump.png");
    png([128, 128, 255], "normal.png");
    png([51, 51, 51], "rough.png");
    let obj = "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n\
               f 1 2 3\nusemtl red\nf 2 4 3\nusemtl glass\nf 1 2 4\nusemtl lamp\nf 1 3 4\nusemtl chrome\nf 1 2 3\n\
               usemtl blender_glass\nf 1 2 3\nusemtl bumpy\nf 1 2 3\n";
    std::fs::write(dir.path().join("m.obj"), obj).unwrap();
    let scene = parse_mesh(dir.path(), r#"(file: "m.obj")"#);
    let expanded = with_triangles(&scene);
    let kinds: Vec<(&str, MaterialKind)> =
        expanded.materials.iter().skip(1).map(|m| (m.name.as_str(), m.kind)).collect();
    let p = |p: Principled| MaterialKind::Principled(p);
    // Without Ns, roughness 1; without Pm, metallic 0.
    let plain = Principled { metallic: 0.0, roughness: 1.0, ..Principled::default() };
    assert_eq!(
        kinds,
        [
            ("m.obj#red", p(Principled { base_color: Vec3::new(0.8, 0.1, 0.1), ..plain })),
            (
                "m.obj#glass",
                p(Principled { base_color: Vec3::splat(0.8), transmission: 1.0, ior: 1.33, ..plain })
            ),
            (
                "m.obj#lamp",
                p(Principled { base_color: Vec3::splat(0.5), emission: Vec3::new(4.0, 2.0, 1.0), ..plain })
            ),
            // Ns 250 is roughness 1 - sqrt(0.25) = 0.5 (Blender's export); illum 3 a metal of Ks.
            (
                "m.obj#chrome",
                p(Principled { base_color: Vec3::splat(0.9), metallic: 1.0, roughness: 0.5, ..plain })
            ),
            // Blender's exporter writes a Principled's transmission as Tf, with illum 2.
            (
                "m.obj#blender_glass",
                p(Principled {
                    base_color: Vec3::ONE,
                    roughness: 0.1,
                    transmission: 1.0,
                    ior: 1.45,
                    ..plain
                })
            ),
            (
                "m.obj#bumpy",
                p(Principled { base_color: Vec3::splat(0.5), metallic: 1.0, roughness: 0.4, ..plain })
            ),
            // The faces before any `usemtl`.
            ("m.obj#default", p(Principled { base_color: Vec3::splat(0.8), ..plain })),
        ]
    );
    let bumpy = &expanded.materials[6];
    assert!(matches!(bumpy.maps.normal, Some(Texture::Image { .. })), "norm is a normal map");
    // map_Pr alone becomes a metallic-roughness image: G its value, B 1 (metallic as is).
    match &bumpy.maps.metallic_roughness {
        Some(Texture::Image { image, .. }) => assert_eq!(image.texels[0], [1.0, 0.2, 1.0]),
        other => panic!("bumpy's metallic-roughness: {other:?}"),
    }
    assert!(expanded.materials[1].maps.normal.is_none(), "a grey map_Bump is a height map");
    let materials: Vec<u32> = expanded.triangles.iter().map(|t| t.material).collect();
    assert_eq!(materials, [7, 1, 2, 3, 4, 5, 6]);
    assert_eq!(
        warnings(&scene),
        [
            "model `m.obj`: a height bump map (norm / map_Bump that is not a tangent-space normal map) is not supported and was dropped"
        ]
    );
}

/// A missing texture named by a model is an error at the mesh's `file`, naming the
/// material and the image.
#[test]
fn a_missing_map_kd_is_an_error_naming_the_material() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("m.obj"),
        "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl wood\nf 1 2 3\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("m.mtl"), "newmtl wood\nKd 1 1 1\nmap_Kd wood.png\n").unwrap();
    let text = r#"Scene(
    camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40),
    materials: {},
    meshes: [ (file: "m.obj") ],
)"#;
    let err =
        scene::parse(text, &dir.path().join("scene.ron").display().to_string()).expect_err("no wood.png");
    let d = &err.diagnostics()[0];
    assert!(d.message().contains("material `wood`: map_Kd `wood.png`"), "{}", d.message());
    assert_eq!(d.line(), Some(4));
}

/// A glTF whose textureInfos carry `KHR_texture_transform`, as `{transforms}` (JSON
/// objects, one per textureInfo in this order: base colour, metallic-roughness, emission
/// and normal of material `a`, base colour of `b`; each spliced in as is, so `""` is a
/// textureInfo without the extension). Every textureInfo names texture 0, the red and
/// blue image, which the blob stores once. `b_tex_coord` is `b`'s texCoord.
fn write_transformed_gltf(path: &Path, transforms: [&str; 5], b_tex_coord: u32) {
    let floats: Vec<f32> = vec![
        0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, // positions
        0.0, 0.0, 1.0, 0.0, 0.0, 1.0, // uvs
    ];
    let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    let buffer = base64::encode(&bytes);
    let png = base64::encode(red_blue_png());
    let info = |i: usize, extra: &str| {
        let ext = if transforms[i].is_empty() {
            String::new()
        } else {
            format!(r#", "extensions": {{ "KHR_texture_transform": {} }}"#, transforms[i])
        };
        format!(r#"{{ "index": 0{extra}{ext} }}"#)
    };
    let json = format!(
        r#"{{
  "asset": {{ "version": "2.0" }},
  "extensionsUsed": ["KHR_texture_transform"],
  "scene": 0,
  "scenes": [{{ "nodes": [0] }}],
  "nodes": [{{ "mesh": 0 }}],
  "meshes": [{{ "primitives": [
    {{ "attributes": {{ "POSITION": 0, "TEXCOORD_0": 1 }}, "material": 0 }},
    {{ "attributes": {{ "POSITION": 0, "TEXCOORD_0": 1 }}, "material": 1 }}
  ] }}],
  "materials": [
    {{ "name": "a", "pbrMetallicRoughness": {{ "baseColorTexture": {base}, "metallicRoughnessTexture": {mr} }},
       "emissiveFactor": [1.0, 1.0, 1.0], "emissiveTexture": {emission}, "normalTexture": {normal} }},
    {{ "name": "b", "pbrMetallicRoughness": {{ "baseColorTexture": {b} }} }}
  ],
  "textures": [{{ "source": 0 }}],
  "images": [{{ "uri": "data:image/png;base64,{png}" }}],
  "buffers": [{{ "byteLength": {len}, "uri": "data:application/octet-stream;base64,{buffer}" }}],
  "bufferViews": [{{ "buffer": 0, "byteOffset": 0, "byteLength": 36 }}, {{ "buffer": 0, "byteOffset": 36, "byteLength": 24 }}],
  "accessors": [
    {{ "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0] }},
    {{ "bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC2" }}
  ]
}}"#,
        base = info(0, ""),
        mr = info(1, ""),
        emission = info(2, ""),
        normal = info(3, r#", "scale": 0.5"#),
        b = info(4, &format!(r#", "texCoord": {b_tex_coord}"#)),
        len = bytes.len()
    );
    std::fs::write(path, json).expect("write glTF");
}

/// Each textureInfo's KHR_texture_transform becomes its texture's `uv_transform`
/// (radians to degrees; the normalTexture's too, which the gltf crate does not read),
/// one texture per textureInfo, whose image the blob stores once with each record its
/// own rows; the extension is no longer a warning. A texCoord the extension overrides to
/// 0 is used, one it overrides to 1 drops the texture with a warning.
#[test]
fn gltf_texture_transforms_become_uv_transforms() {
    use scene::UvTransform;
    let dir = tempfile::tempdir().unwrap();
    let quarter = std::f32::consts::FRAC_PI_2;
    let transforms = [
        format!(r#"{{ "offset": [0.5, 0.0], "rotation": {quarter}, "scale": [2.0, 3.0] }}"#),
        r#"{ "scale": [4.0, 4.0] }"#.to_owned(),
        String::new(),
        r#"{ "offset": [0.25, 0.75] }"#.to_owned(),
        r#"{ "rotation": -0.5, "texCoord": 0 }"#.to_owned(),
    ];
    let transform_refs = transforms.each_ref().map(String::as_str);
    write_transformed_gltf(&dir.path().join("t.gltf"), transform_refs, 1);
    let scene = parse_mesh(dir.path(), r#"(file: "t.gltf")"#);
    assert!(warnings(&scene).is_empty(), "{:?}", warnings(&scene));
    let expanded = with_triangles(&scene);
    let (a, b) = (&expanded.materials[1], &expanded.materials[2]);
    let uv = |t: &Option<Texture>| match t {
        Some(Texture::Image { uv_transform, .. }) => *uv_transform,
        other => panic!("an image texture: {other:?}"),
    };
    let base = uv(&a.texture);
    assert_eq!((base.offset, base.scale), (Vec2::new(0.5, 0.0), Vec2::new(2.0, 3.0)));
    assert!((base.rotation_deg - 90.0).abs() < 1e-4, "{base:?}");
    let scaled = UvTransform { scale: Vec2::splat(4.0), ..UvTransform::IDENTITY };
    assert_eq!(uv(&a.maps.metallic_roughness), scaled);
    assert_eq!(uv(&a.maps.emission), UvTransform::IDENTITY);
    assert_eq!(uv(&a.maps.normal), UvTransform { offset: Vec2::new(0.25, 0.75), ..UvTransform::IDENTITY });
    let turned = uv(&b.texture);
    assert!((turned.rotation_deg - (-0.5f32).to_degrees()).abs() < 1e-4, "{turned:?}");

    // One record per textureInfo, each with its rows, all on one copy of the image's
    // texels (pure red and blue read the same as colour, sRGB-decoded, and as data).
    let compiled = compile_scene(&scene, &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).expect("a transformed blob parses");
    let slots = view.materials[1].textures;
    let record = |i: u32| view.textures[i as usize];
    assert_eq!((record(slots[1]).a, record(slots[1]).b), ([4.0, 0.0, 0.0, 0.0], [0.0, 4.0, 0.0, 0.0]));
    let base_rows = (record(slots[0]).a, record(slots[0]).b);
    assert!((base_rows.0[1] - 3.0).abs() < 1e-5 && (base_rows.1[0] + 2.0).abs() < 1e-5, "{base_rows:?}");
    assert_eq!((base_rows.0[2], base_rows.1[2]), (0.5, 0.0));
    let firsts: Vec<u32> = slots.iter().map(|&i| record(i).image[0]).collect();
    assert_eq!(firsts, [0; 4], "every slot reads the one copy");
    assert_eq!(view.texels.len(), 2, "the 2 x 1 image, once");

    // texCoord 1 overridden to 1 by the extension (or not overridden at all): dropped.
    let transforms = ["", "", "", "", r#"{ "rotation": 0.5, "texCoord": 1 }"#];
    write_transformed_gltf(&dir.path().join("t1.gltf"), transforms, 0);
    let scene = parse_mesh(dir.path(), r#"(file: "t1.gltf")"#);
    assert_eq!(
        warnings(&scene),
        [
            "model `t1.gltf`: baseColorTexture on a second set of texture coordinates (TEXCOORD_1 by KHR_texture_transform's texCoord) is not supported and was dropped"
        ]
    );
    assert!(with_triangles(&scene).materials[2].texture.is_none());
}

/// A transform glTF cannot hold in f32 (1e39 reads as infinity) is an error naming the
/// material and texture, as a non-finite factor is; so is one that is not a transform.
#[test]
fn a_non_finite_gltf_texture_transform_is_an_error_naming_the_material() {
    let dir = tempfile::tempdir().unwrap();
    for (transforms, wanted) in [
        (
            ["", "", "", r#"{ "scale": [1e39, 1.0] }"#, ""],
            "material `a`: normalTexture: KHR_texture_transform",
        ),
        (
            [r#"{ "offset": [0.0, -1e39] }"#, "", "", "", ""],
            "material `a`: baseColorTexture: KHR_texture_transform",
        ),
        (["", "", "", r#"{ "offset": "left" }"#, ""], "material `a`: normalTexture: KHR_texture_transform"),
    ] {
        write_transformed_gltf(&dir.path().join("bad.gltf"), transforms, 0);
        let text = r#"Scene(
    camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40),
    materials: { "clay": Lambert(albedo: (0.6, 0.3, 0.2)) },
    meshes: [ (file: "bad.gltf") ],
)"#;
        let err = scene::parse(text, &dir.path().join("scene.ron").display().to_string())
            .expect_err("a non-finite transform");
        let d = &err.diagnostics()[0];
        assert!(d.message().contains(wanted), "{wanted}: {}", d.message());
        assert_eq!(d.line(), Some(4), "at the mesh's file");
    }
}
