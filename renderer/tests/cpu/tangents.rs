//! A normal map's tangent frame on the CPU (docs/path-tracing.md, "Normal maps"): a
//! triangle whose blob stores vertex tangents takes its frame from them, glTF's T and
//! B = w (n × T), and so bends its normal otherwise than its texture coordinates would;
//! without stored tangents the model's MikkTSpace frame agrees with the per-face one on
//! a flat triangle, and a scene without normal maps stores none.

use std::sync::Arc;

use crate::cpu_support;

use glam::{Vec2, Vec3, Vec3A, Vec4};
use renderer::backend::cpu::prims;
use renderer::backend::cpu::scene::CpuScene;
use renderer::backend::cpu::shading::normal_mapped;
use renderer::backend::cpu::shapes::triangle::triangle_surface;
use scene_compiler::BlobView;
use scene_compiler::blob::layout::{PrimKind, prim_ref};
use scene_compiler::scene::{
    Maps, Material, MaterialKind, Mesh, MeshData, Principled, Scene, Sky, Texture, TextureImage, Transform,
    Wrap,
};

use cpu_support::{compile, pinhole, scene};

/// One triangle facing +y, (0, 0, 0), (1, 0, 0), (0, 0, -1), with texture coordinates
/// whose u runs along +x and v (down the image) along +z, and vertex tangents
/// `tangents` (none when empty); its material a Principled with a flat normal map when
/// `normal_map`, else a Lambert.
fn triangle_scene(tangents: Vec<Vec4>, normal_map: bool) -> Scene {
    let mut s = scene(
        pinhole(Vec3::new(0.3, 2.0, -0.3), Vec3::new(0.3, 0.0, -0.3), 40.0),
        Sky::Constant(Vec3::ONE),
        &[],
        &[],
    );
    // Looking straight down: `up` must cross the view (the blob check refuses a camera
    // without a basis, issue 37).
    s.camera.up = Vec3::Z;
    let flat = TextureImage {
        path: "flat.png".into(),
        width: 1,
        height: 1,
        texels: vec![[0.5, 0.5, 1.0]],
        alpha: Vec::new(),
    };
    let maps = Maps {
        normal: Some(Texture::Image {
            file: "flat.png".into(),
            image: Arc::new(flat),
            wrap: Wrap::Repeat,
            uv_transform: Default::default(),
        }),
        ..Maps::default()
    };
    s.materials = vec![if normal_map {
        Material {
            name: "bumpy".into(),
            kind: MaterialKind::Principled(Principled { metallic: 0.0, ..Principled::default() }),
            texture: None,
            maps,
        }
    } else {
        Material {
            name: "clay".into(),
            kind: MaterialKind::Lambert { albedo: Vec3::splat(0.5) },
            texture: None,
            maps: Maps::default(),
        }
    }];
    s.meshes = vec![Mesh {
        file: "procedural.gltf".into(),
        material: Some(0),
        transform: Transform::default(),
        data: Arc::new(MeshData {
            path: "procedural.gltf".into(),
            positions: vec![Vec3::ZERO, Vec3::X, -Vec3::Z],
            normals: vec![Vec3::Y; 3],
            uvs: vec![Vec2::new(0.0, 1.0), Vec2::new(1.0, 1.0), Vec2::ZERO],
            tangents,
            triangles: vec![[0, 1, 2]],
            ..MeshData::default()
        }),
        ..Mesh::default()
    }];
    s
}

/// The frame `prims::dpduv` gives at the triangle's centroid, and the blob's scene.
fn frame(s: &Scene) -> (CpuScene, (Vec3A, Vec3A)) {
    let blob = compile(s);
    let cpu = CpuScene::from_blob(&BlobView::parse(&blob).expect("valid blob"));
    let hit = triangle_surface(&cpu.shapes.triangles[0], [1.0 / 3.0; 3]);
    let frame = prims::dpduv(&cpu, prim_ref(PrimKind::Triangle, 0), &hit);
    (cpu, frame)
}

fn assert_near(found: Vec3A, expected: Vec3A, what: &str) {
    assert!((found - expected).length() < 1e-5, "{what}: {found} against {expected}");
}

/// Tangents a quarter turn from the texture coordinates' u (along -z instead of +x):
/// `dpduv` returns them and minus glTF's bitangent w (n × T), so a normal map's +X
/// leans the normal along -z and its +Y (up the image) along -x (w = 1) or +x (w = -1),
/// where the per-face frame leans them along +x and -z.
#[test]
fn stored_tangents_are_the_normal_maps_frame() {
    let ns = Vec3A::Y;
    let leaning = |(dpdu, dpdv): (Vec3A, Vec3A), texel: Vec3A| normal_mapped(texel, 1.0, ns, dpdu, dpdv);
    // Texels whose normals lean 45° towards +X and +Y of the tangent space.
    let (plus_x, plus_y) = (Vec3A::new(1.0, 0.5, 1.0), Vec3A::new(0.5, 1.0, 1.0));
    let half = std::f32::consts::FRAC_1_SQRT_2;

    let (cpu, turned) = frame(&triangle_scene(vec![Vec4::new(0.0, 0.0, -1.0, 1.0); 3], true));
    assert_eq!(cpu.shapes.triangle_tangents.len(), 1, "the blob stores the triangle's tangents");
    assert_near(turned.0, Vec3A::NEG_Z, "dpdu: the stored tangent");
    assert_near(turned.1, Vec3A::X, "dpdv: -B, B = n × T = -x");
    assert_near(leaning(turned, plus_x), Vec3A::new(0.0, half, -half), "+X leans along the tangent");
    assert_near(leaning(turned, plus_y), Vec3A::new(-half, half, 0.0), "+Y leans along B");

    let (_, mirrored) = frame(&triangle_scene(vec![Vec4::new(0.0, 0.0, -1.0, -1.0); 3], true));
    assert_near(mirrored.0, Vec3A::NEG_Z, "dpdu");
    assert_near(mirrored.1, Vec3A::NEG_X, "w = -1: B = -(n × T) = +x");
    assert_near(leaning(mirrored, plus_y), Vec3A::new(half, half, 0.0), "+Y leans along B");

    // Without the file's tangents MikkTSpace's frame: on one flat triangle, dP/du and the
    // image's up, the per-face frame (dpdv along +z, where v grows).
    let (cpu, mikk) = frame(&triangle_scene(Vec::new(), true));
    assert_eq!(cpu.shapes.triangle_tangents.len(), 1);
    assert_near(mikk.0, Vec3A::X, "dpdu: MikkTSpace's tangent, dP/du");
    assert_near(mikk.1, Vec3A::Z, "dpdv: -B, B pointing up the image (-z)");
    assert_near(leaning(mikk, plus_x), Vec3A::new(half, half, 0.0), "+X leans along +x");
    assert_near(leaning(mikk, plus_y), Vec3A::new(0.0, half, -half), "+Y leans up the image");

    // A scene without normal maps stores none: the per-face frame, the same directions.
    let (cpu, per_face) = frame(&triangle_scene(vec![Vec4::new(0.0, 0.0, -1.0, 1.0); 3], false));
    assert!(cpu.shapes.triangle_tangents.is_empty(), "no normal map, no tangents");
    assert_near(per_face.0, Vec3A::X, "dpdu");
    assert_near(per_face.1, Vec3A::Z, "dpdv");
}
