//! W1 of issue 37: blobs with a valid checksum that `verify` accepted although
//! docs/blob-format.md calls them invalid, and that rendered black, negative or inf
//! pixels. Each mutation of a valid blob (checksum recomputed) must be refused, naming
//! what is wrong. The blob comes from a scene with every kind of record the mutations
//! touch: spheres, a box, triangles, point and directional lights, an emitter.
//!
//! Issue 39: every kind code a kernel switches on without a fallback (a texture's kind
//! and wrap mode, a material's alpha mode, the globals' view and sampler) is refused
//! when unknown, so the kernels' `__builtin_unreachable` arms stay unreachable. Light,
//! material and primitive kinds have their tests in `blob.rs`.

use bytemuck::Pod;
use scene_compiler::blob::layout::{
    ALPHA_BLEND, BlobHeader, BoxRecord, FLAG_SHADING_NORMALS, GlobalsRecord, HEADER_LEN, LIGHT_DIRECTIONAL,
    LIGHT_POINT, LightRecord, MATERIAL_LAMBERT, MATERIAL_PRINCIPLED, MaterialRecord, NO_NORMAL,
    NodeBoxesRecord, SectionId, SphereRecord, TEXTURE_CHECKER, TEXTURE_IMAGE, TEXTURE_NOISE, TextureRecord,
    TriangleRecord, VertexRecord,
};
use scene_compiler::blob::{AlignedBytes, BlobView};
use scene_compiler::procedural::{Format, icosphere, write};
use scene_compiler::{CompileOptions, compile_scene, scene};

fn blob() -> AlignedBytes {
    let dir = tempfile::tempdir().expect("temp dir");
    write(&icosphere(1, 1.0), Format::Glb, &dir.path().join("ico.glb")).expect("model");
    let text = r#"Scene(
    camera: (look_from: (0, 1, 6), look_at: (0, 0, 0), vfov_deg: 40, aperture: 0.1, focus_dist: 6),
    materials: { "m": Lambert(albedo: (0.8, 0.3, 0.2)), "lamp": Emissive(color: (4, 4, 4)) },
    spheres: [(center: (0, -100, 0), radius: 99, material: "m"), (center: (2, 1, 0), radius: 0.5, material: "lamp")],
    boxes: [(min: (-3, 0, -1), max: (-2, 1, 0), material: "m")],
    meshes: [(file: "ico.glb", material: "m")],
    lights: [Point(position: (0, 5, 0), intensity: 10), Directional(direction: (1, -1, 0), intensity: 2)],
)"#;
    let scene = scene::parse(text, &dir.path().join("s.ron").display().to_string())
        .map_err(|e| e.to_string())
        .expect("scene");
    compile_scene(&scene, &CompileOptions::default()).blob
}

fn fix_crc(bytes: &mut [u8]) {
    let crc = crc32fast::hash(&bytes[HEADER_LEN..]);
    let at = std::mem::offset_of!(BlobHeader, payload_crc32);
    bytes[at..at + 4].copy_from_slice(&crc.to_le_bytes());
}

/// The byte range of record `index` of section `id` in `bytes`.
fn record_range(bytes: &[u8], id: SectionId, index: usize) -> std::ops::Range<usize> {
    let header: &BlobHeader = bytemuck::from_bytes(&bytes[..HEADER_LEN]);
    let start = header.sections[id as usize].offset as usize + index * id.record_size();
    start..start + id.record_size()
}

/// Changes record `index` of section `id` (of type `R`) in place.
fn edit<R: Pod>(bytes: &mut [u8], id: SectionId, index: usize, change: impl FnOnce(&mut R)) {
    let range = record_range(bytes, id, index);
    change(bytemuck::from_bytes_mut(&mut bytes[range]));
}

/// The index of the first light of `kind`.
fn light_of(bytes: &[u8], kind: u32) -> usize {
    let view = BlobView::parse(bytes).expect("the blob is valid");
    view.lights.iter().position(|l| l.kind == kind).expect("a light of that kind")
}

/// `mutate`d copy of `original`, its checksum fixed, must be refused with `wanted` in
/// the message.
fn assert_refused(original: &AlignedBytes, name: &str, wanted: &str, mutate: impl FnOnce(&mut Vec<u8>)) {
    let mut bytes = original.to_vec();
    mutate(&mut bytes);
    fix_crc(&mut bytes);
    let aligned = AlignedBytes::copy_from(&bytes);
    match BlobView::parse(&aligned) {
        Ok(_) => panic!("{name}: accepted"),
        Err(e) => assert!(e.to_string().contains(wanted), "{name}: `{wanted}` in: {e}"),
    }
}

#[test]
fn w1_blobs_the_format_calls_invalid_are_refused() {
    let original = blob();
    BlobView::parse(&original).expect("the unchanged blob is valid");
    let set_total = |bytes: &mut Vec<u8>| {
        let len = bytes.len() as u64;
        let at = std::mem::offset_of!(BlobHeader, total_len);
        bytes[at..at + 8].copy_from_slice(&len.to_le_bytes());
    };
    let point = light_of(&original, LIGHT_POINT);
    let directional = light_of(&original, LIGHT_DIRECTIONAL);
    let view = BlobView::parse(&original).unwrap();
    let second_corner = view.records::<scene::Triangle>()[0].v[1] as usize;
    type Mutation = Box<dyn FnOnce(&mut Vec<u8>)>;
    let cases: Vec<(&str, &str, Mutation)> = vec![
        (
            "size not a multiple of 16",
            "a multiple of 16",
            Box::new(move |b| {
                b.push(0);
                set_total(b);
            }),
        ),
        (
            "junk after the last section",
            "after the last section",
            Box::new(move |b| {
                b.extend([0x5a; 4096]);
                set_total(b);
            }),
        ),
        (
            "a nonzero gap byte",
            "padding",
            Box::new(|b| {
                // The globals section ends 16-aligned; the materials' end may not: find a gap.
                let header: BlobHeader = *bytemuck::from_bytes(&b[..HEADER_LEN]);
                let gap = (1..header.sections.len())
                    .map(|i| {
                        (
                            header.sections[i - 1].offset + header.sections[i - 1].len,
                            header.sections[i].offset,
                        )
                    })
                    .find(|(end, next)| end < next)
                    .expect("the test blob has a gap between sections");
                b[gap.0 as usize] = 1;
            }),
        ),
        (
            "reserved globals lanes",
            "reserved lanes",
            Box::new(|b| edit::<GlobalsRecord>(b, SectionId::Globals, 0, |g| g.seed_root[3] = 7)),
        ),
        (
            "camera from = at",
            "camera: `look_at` equals `look_from`",
            Box::new(|b| {
                edit::<GlobalsRecord>(b, SectionId::Globals, 0, |g| {
                    g.camera_at_aperture[..3].copy_from_slice(&g.camera_from_vfov[..3])
                })
            }),
        ),
        (
            "camera up zero",
            "camera: `up`",
            Box::new(|b| {
                edit::<GlobalsRecord>(b, SectionId::Globals, 0, |g| g.camera_up_focus[..3].fill(0.0))
            }),
        ),
        (
            "negative aperture",
            "aperture",
            Box::new(|b| edit::<GlobalsRecord>(b, SectionId::Globals, 0, |g| g.camera_at_aperture[3] = -1.0)),
        ),
        (
            "negative focus",
            "focus distance",
            Box::new(|b| edit::<GlobalsRecord>(b, SectionId::Globals, 0, |g| g.camera_up_focus[3] = -6.0)),
        ),
        (
            "negative sky",
            "sky",
            Box::new(|b| edit::<GlobalsRecord>(b, SectionId::Globals, 0, |g| g.sky_top[1] = -1.0)),
        ),
        (
            "sky near f32::MAX",
            "sky",
            Box::new(|b| edit::<GlobalsRecord>(b, SectionId::Globals, 0, |g| g.sky_bottom[0] = 3e38)),
        ),
        (
            "negative light radiance",
            "radiance",
            Box::new(move |b| edit::<LightRecord>(b, SectionId::Lights, point, |l| l.radiance_pdf[0] = -5.0)),
        ),
        (
            "light radiance near f32::MAX",
            "radiance",
            Box::new(move |b| {
                edit::<LightRecord>(b, SectionId::Lights, point, |l| l.radiance_pdf[1] = 3.4e38)
            }),
        ),
        (
            "zero light direction",
            "not unit length",
            Box::new(move |b| {
                edit::<LightRecord>(b, SectionId::Lights, directional, |l| l.vector_cos[..3].fill(0.0))
            }),
        ),
        (
            "directional cos 5",
            "cos 5",
            Box::new(move |b| {
                edit::<LightRecord>(b, SectionId::Lights, directional, |l| l.vector_cos[3] = 5.0)
            }),
        ),
        (
            "point light far away",
            "point light",
            Box::new(move |b| edit::<LightRecord>(b, SectionId::Lights, point, |l| l.vector_cos[0] = 3e38)),
        ),
        (
            "albedo near f32::MAX",
            "albedo or emission above 1e9",
            Box::new(|b| {
                edit::<MaterialRecord>(b, SectionId::Materials, 0, |m| m.albedo_roughness[0] = 3e38)
            }),
        ),
        (
            "degenerate triangle",
            "no area",
            Box::new(|b| edit::<TriangleRecord>(b, SectionId::Triangles, 0, |t| t.v[2] = t.v[1])),
        ),
        (
            "vertex at 3e38",
            "past 1e9",
            Box::new(|b| edit::<VertexRecord>(b, SectionId::Vertices, 0, |v| v.position[0] = 3e38)),
        ),
        (
            "triangle naming a vertex past the section",
            "a vertex index past the vertices section",
            Box::new(|b| edit::<TriangleRecord>(b, SectionId::Triangles, 0, |t| t.v[1] = u32::MAX)),
        ),
        (
            "a triangle whose vertices disagree on having a normal",
            "its vertices disagree on having a normal",
            Box::new(move |b| {
                edit::<VertexRecord>(b, SectionId::Vertices, second_corner, |v| v.normal = NO_NORMAL)
            }),
        ),
        (
            "vertex normals without the header's flag",
            "a normal without flag 2",
            Box::new(|b| {
                let at = std::mem::offset_of!(BlobHeader, flags);
                let flags = u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) & !FLAG_SHADING_NORMALS;
                b[at..at + 4].copy_from_slice(&flags.to_le_bytes());
            }),
        ),
        (
            "normal code no encoder writes",
            "a normal code the octahedral code does not write",
            Box::new(|b| edit::<VertexRecord>(b, SectionId::Vertices, 0, |v| v.normal = 0x8000_0001)),
        ),
        (
            "sphere radius 3e38",
            "past 1e9",
            Box::new(|b| edit::<SphereRecord>(b, SectionId::Spheres, 0, |s| s.center_radius[3] = 3e38)),
        ),
        (
            "box corner 3e38",
            "past 1e9",
            Box::new(|b| edit::<BoxRecord>(b, SectionId::Boxes, 0, |r| r.max[1] = 3e38)),
        ),
        (
            "negated node boxes",
            "min is above its max",
            Box::new(|b| {
                edit::<NodeBoxesRecord>(b, SectionId::NodeBoxes, 0, |n| {
                    for row in [&mut n.x, &mut n.y, &mut n.z] {
                        *row = [row[2], row[3], row[0], row[1]];
                    }
                })
            }),
        ),
    ];
    for (name, wanted, mutate) in cases {
        assert_refused(&original, name, wanted, mutate);
    }
}

/// An image texture's uv transform rows (`TextureRecord` lanes `a` and `b`): a NaN or
/// infinite entry, or a w lane set, is refused (the renderers would look the image up
/// at NaN), while the compiled rows verify.
#[test]
fn image_uv_transform_lanes_that_are_not_finite_rows_are_refused() {
    use scene_compiler::blob::layout::TextureRecord;
    let dir = tempfile::tempdir().expect("temp dir");
    image::RgbImage::from_pixel(2, 2, image::Rgb([200, 100, 50]))
        .save(dir.path().join("t.png"))
        .expect("PNG");
    let text = r#"Scene(
    camera: (look_from: (0, 1, 6), look_at: (0, 0, 0), vfov_deg: 40),
    materials: { "m": Lambert(albedo: (1, 1, 1), texture: Image(file: "t.png", uv_transform: (rotation_deg: 30, scale: (2, 2)))) },
    spheres: [(center: (0, 0, 0), radius: 1, material: "m")],
)"#;
    let scene = scene::parse(text, &dir.path().join("s.ron").display().to_string())
        .map_err(|e| e.to_string())
        .expect("scene");
    let original = compile_scene(&scene, &CompileOptions::default()).blob;
    BlobView::parse(&original).expect("the transformed texture verifies");
    let texture = |change: fn(&mut TextureRecord)| {
        move |b: &mut Vec<u8>| edit::<TextureRecord>(b, SectionId::Textures, 0, change)
    };
    assert_refused(&original, "NaN m01", "non-finite parameter", texture(|t| t.a[1] = f32::NAN));
    assert_refused(&original, "infinite m12", "non-finite parameter", texture(|t| t.b[2] = f32::INFINITY));
    assert_refused(&original, "row 0's w", "w lanes set", texture(|t| t.a[3] = 1.0));
    assert_refused(&original, "row 1's w", "w lanes set", texture(|t| t.b[3] = -2.0));
}

/// A texture's kind or an image's wrap mode, a Principled material's alpha mode (or an
/// alpha mode on a kind without one), the view transform or the sampler that the
/// kernels do not know is refused: their switches end in `__builtin_unreachable`.
#[test]
fn kind_codes_the_kernels_switch_on_are_refused_when_unknown() {
    let dir = tempfile::tempdir().expect("temp dir");
    image::RgbImage::from_pixel(2, 2, image::Rgb([200, 100, 50]))
        .save(dir.path().join("t.png"))
        .expect("PNG");
    let text = r#"Scene(
    camera: (look_from: (0, 1, 6), look_at: (0, 0, 0), vfov_deg: 40),
    materials: {
        "image": Lambert(albedo: (1, 1, 1), texture: Image(file: "t.png")),
        "checker": Lambert(albedo: (1, 1, 1), texture: Checker(size: 1, even: (1, 1, 1), odd: (0, 0, 0))),
        "noise": Lambert(albedo: (1, 1, 1), texture: Noise(scale: 4)),
        "leaf": Principled(metallic: 0, alpha_mode: Mask(0.5)),
    },
    spheres: [
        (center: (0, -100, 0), radius: 99, material: "image"),
        (center: (-2, 1, 0), radius: 0.5, material: "checker"),
        (center: (0, 1, 0), radius: 0.5, material: "noise"),
        (center: (2, 1, 0), radius: 0.5, material: "leaf"),
    ],
)"#;
    let scene = scene::parse(text, &dir.path().join("s.ron").display().to_string())
        .map_err(|e| e.to_string())
        .expect("scene");
    let original = compile_scene(&scene, &CompileOptions::default()).blob;
    let view = BlobView::parse(&original).expect("the unchanged blob is valid");
    let texture_of =
        |kind: u32| view.textures.iter().position(|t| t.kind == kind).expect("a texture of that kind");
    let material_of =
        |kind: u32| view.materials.iter().position(|m| m.kind == kind).expect("a material of that kind");
    let textures = [TEXTURE_IMAGE, TEXTURE_CHECKER, TEXTURE_NOISE].map(texture_of);
    let (image, lambert, principled) =
        (textures[0], material_of(MATERIAL_LAMBERT), material_of(MATERIAL_PRINCIPLED));
    for (i, t) in textures.into_iter().enumerate() {
        assert_refused(&original, &format!("texture kind 7 ({i})"), "unknown texture kind 7", |b| {
            edit::<TextureRecord>(b, SectionId::Textures, t, |t| t.kind = 7)
        });
    }
    assert_refused(&original, "wrap mode 5", "unknown wrap mode 5", |b| {
        edit::<TextureRecord>(b, SectionId::Textures, image, |t| t.image[3] = 5)
    });
    assert_refused(&original, "alpha mode 9", "unknown alpha mode 9", |b| {
        edit::<MaterialRecord>(b, SectionId::Materials, principled, |m| m.alpha_mode = 9)
    });
    assert_refused(&original, "a Lambert's alpha mode", "alpha_mode", |b| {
        edit::<MaterialRecord>(b, SectionId::Materials, lambert, |m| m.alpha_mode = ALPHA_BLEND)
    });
    assert_refused(&original, "view 9", "unknown view transform 9", |b| {
        edit::<GlobalsRecord>(b, SectionId::Globals, 0, |g| g.view = 9)
    });
    assert_refused(&original, "sampler 9", "sampler 9", |b| {
        edit::<GlobalsRecord>(b, SectionId::Globals, 0, |g| g.sampler = 9)
    });
}

/// A blob whose icosphere is placed twice by `instances`, beside a sphere.
fn instanced_blob() -> AlignedBytes {
    let dir = tempfile::tempdir().expect("temp dir");
    write(&icosphere(1, 1.0), Format::Glb, &dir.path().join("ico.glb")).expect("model");
    let text = r#"Scene(
    camera: (look_from: (0, 1, 6), look_at: (0, 0, 0), vfov_deg: 40),
    materials: { "m": Lambert(albedo: (0.8, 0.3, 0.2)) },
    spheres: [(center: (0, -100, 0), radius: 99, material: "m")],
    meshes: [(file: "ico.glb", material: "m", instances: [(translate: (-2, 0, 0)), (translate: (2, 0, 0), scale: 0.5)])],
)"#;
    let scene = scene::parse(text, &dir.path().join("s.ron").display().to_string())
        .map_err(|e| e.to_string())
        .expect("scene");
    compile_scene(&scene, &CompileOptions::default()).blob
}

/// Issue 35: an instance's tree must be a bottom level of its own (not the world's,
/// not holding anything but triangles), its maps finite and each other's inverse, and
/// only an instance may keep its mesh's materials (NO_MATERIAL).
#[test]
fn instances_that_would_walk_the_wrong_tree_or_space_are_refused() {
    use scene_compiler::blob::layout::{InstanceRecord, NO_MATERIAL, PrimKind, leaf_link};
    let original = instanced_blob();
    let view = BlobView::parse(&original).expect("the unchanged blob is valid");
    assert_eq!(view.header.prim_count(PrimKind::Instance), 2);
    let world_root = view.root();
    assert_refused(&original, "instance rooted at the world", "reached twice", |b| {
        edit::<InstanceRecord>(b, SectionId::Instances, 0, |r| r.root = world_root);
    });
    assert_refused(&original, "instance tree of spheres", "triangles only", |b| {
        edit::<InstanceRecord>(b, SectionId::Instances, 1, |r| r.root = leaf_link(PrimKind::Sphere, 0, 1));
    });
    assert_refused(&original, "instance of an instance", "triangles only", |b| {
        edit::<InstanceRecord>(b, SectionId::Instances, 1, |r| r.root = leaf_link(PrimKind::Instance, 0, 1));
    });
    assert_refused(&original, "NaN map", "not finite", |b| {
        edit::<InstanceRecord>(b, SectionId::Instances, 0, |r| r.world_to_object[1][2] = f32::NAN);
    });
    assert_refused(&original, "maps that are not inverse", "not the inverse", |b| {
        edit::<InstanceRecord>(b, SectionId::Instances, 0, |r| r.world_to_object[0][0] *= 2.0);
    });
    assert_refused(&original, "a sphere without a material", "out of range", |b| {
        edit::<u32>(b, SectionId::PrimMaterials, 0, |m| *m = NO_MATERIAL);
    });
}
