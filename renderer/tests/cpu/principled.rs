//! The glTF features of the Principled material, each seen on the image of
//! `assets/scenes/reference/pbr_features.ron` (assets/references/README.md says where
//! its parts are) by taking it away in memory and comparing block means with and
//! without it; and a Blend surface's transmission against its closed form.
//!
//! Where the parts are (40x40-pixel blocks of its 320x240, `(bx, by)`, `by = 0` the
//! top): the alpha-masked leaf at (1..2, 1..2); its shadow, lit through the holes, on a
//! rough ground cell at (2, 3) and (3, 3); metal ground cells (metallic 1, roughness
//! 0.2: dark, reflecting the sky) at (0, 3), (4, 3) and (1..3, 5); rough ones (metallic
//! 0, roughness 0.8) at (7, 3) and (4..6, 5). Renders here are at half that size: the
//! block means of a box-filtered image do not depend on the pixel count, only their
//! noise does.
//!
//! Not here: agreement with Cycles on the same scene (`references.rs`).

use std::sync::{Arc, OnceLock};

use glam::{Vec2, Vec3};
use scene_compiler::Scene;
use scene_compiler::scene::{
    AlphaMode, MaterialKind, Mesh, MeshData, ModelMaterial, Principled, Sky, Transform,
};

use crate::cpu_support::blocks::{BlockRenderer, Estimate, load_scene};
use crate::cpu_support::{assert_close, estimate, pinhole, scene};

/// Samples per pixel of each render of `pbr_features`, at 160x120.
const SPP: u32 = 64;
const SEED: u32 = 1;

/// `pbr_features` at 160x120, its model's material `name` changed by `edit`.
fn features_with(name: &str, edit: impl FnOnce(&mut ModelMaterial)) -> Scene {
    let mut s = load_scene("assets/scenes/reference/pbr_features.ron");
    s.settings.width = 160;
    s.settings.height = 120;
    let data = Arc::make_mut(&mut s.meshes[0].data);
    let material = data.materials.iter_mut().find(|m| m.name == name);
    edit(material.unwrap_or_else(|| panic!("pbr_features.glb has no material `{name}`")));
    s
}

/// `edit` of a Principled material's parameters.
fn principled(edit: impl FnOnce(&mut Principled)) -> impl FnOnce(&mut ModelMaterial) {
    |m| match &mut m.kind {
        MaterialKind::Principled(p) => edit(p),
        other => panic!("`{}` is {other:?}, not Principled", m.name),
    }
}

/// `scene`'s 8x6 blocks.
fn render(scene: &Scene) -> Estimate {
    BlockRenderer::new(scene, 8, 6).frame(SPP, SEED)
}

/// The scene as it is, rendered once for every test here.
fn as_is() -> &'static Estimate {
    static AS_IS: OnceLock<Estimate> = OnceLock::new();
    AS_IS.get_or_init(|| render(&features_with("leaf", |_| {})))
}

/// The leaf without its mask: an opaque disc.
fn leaf_opaque() -> Scene {
    features_with("leaf", principled(|p| p.alpha_mode = AlphaMode::Opaque))
}

/// The ground without its normal map: flat.
fn ground_flat() -> Scene {
    features_with("ground", |m| m.maps.normal = None)
}

/// The ground without its metallic-roughness texture: glTF's factors alone (1 and 1,
/// the exporter omits them), a rough metal everywhere.
fn ground_untextured() -> Scene {
    features_with("ground", |m| m.maps.metallic_roughness = None)
}

/// Metal cells of the ground's checker (metallic 1, roughness 0.2: dark, reflecting the
/// sky, with the sun's glints off the bumps) and rough ones (metallic 0, roughness 0.8).
const METAL: [(usize, usize); 5] = [(0, 3), (4, 3), (1, 5), (2, 5), (3, 5)];
const ROUGH: [(usize, usize); 4] = [(7, 3), (4, 5), (5, 5), (6, 5)];

/// The mean luminance of `blocks` and its standard error.
fn cells(e: &Estimate, blocks: &[(usize, usize)]) -> (f64, f64) {
    let n = blocks.len() as f64;
    let (sum, variance) = blocks
        .iter()
        .map(|&(x, y)| e.luminance(x, y))
        .fold((0.0, 0.0), |(s, v), (l, se)| (s + l, v + se * se));
    (sum / n, variance.sqrt() / n)
}

/// `(x / y, its standard error)` of two independent estimates.
fn quotient((x, sx): (f64, f64), (y, sy): (f64, f64)) -> (f64, f64) {
    let r = x / y;
    (r, r * (sx / x).hypot(sy / y))
}

/// The mask's holes let light through, to the camera and to the ground: made opaque,
/// the leaf (green, darker than the ground seen through its holes) gets darker and so
/// does its shadow where the holes lit it (measured: about 0.74, 0.58 and 0.79).
#[test]
fn the_leaf_s_alpha_mask_shows_in_the_leaf_and_its_shadow() {
    let opaque = render(&leaf_opaque());
    let leaf = quotient(opaque.region(1..=2, 1..=2), as_is().region(1..=2, 1..=2));
    eprintln!("opaque / masked (ratio, s.e.): leaf {leaf:.3?}");
    assert!(leaf.0 < 0.85, "leaf blocks (1..2, 1..2), opaque / masked: {leaf:?}");
    for ((bx, by), most) in [((2, 3), 0.75), ((3, 3), 0.9)] {
        let shadow = quotient(opaque.luminance(bx, by), as_is().luminance(bx, by));
        eprintln!("opaque / masked (ratio, s.e.): shadow ({bx}, {by}) {shadow:.3?}");
        assert!(
            shadow.0 < most,
            "shadow block ({bx}, {by}), opaque / masked: {shadow:?}, expected under {most}"
        );
    }
}

/// The normal map's bumps glint in the sun on the metal cells, and tilt the rough cells'
/// normals away from the sun on average (a diffuse surface gets darker): flat, the metal
/// cells lose about half their light and the rough ones gain about 4 %.
#[test]
fn the_ground_s_normal_map_shows_on_metal_and_rough_cells() {
    let flat = render(&ground_flat());
    let metal = quotient(cells(&flat, &METAL), cells(as_is(), &METAL));
    assert!(metal.0 < 0.75, "metal cells {METAL:?}, flat / bumpy: {metal:?}");
    let rough = quotient(cells(&flat, &ROUGH), cells(as_is(), &ROUGH));
    eprintln!("flat / bumpy (ratio, s.e.): metal cells {metal:.3?}, rough cells {rough:.4?}");
    assert!(rough.0 > 1.015, "rough cells {ROUGH:?}, flat / bumpy: {rough:?}");
}

/// The metallic-roughness texture makes the checker: with it the rough cells are about
/// a third brighter than the metal ones; without it every cell is glTF's default
/// (metallic 1, roughness 1) and the two sets agree within a few per cent.
#[test]
fn the_ground_s_metallic_roughness_texture_makes_its_checker() {
    let textured = quotient(cells(as_is(), &ROUGH), cells(as_is(), &METAL));
    assert!(textured.0 > 1.15, "with the texture, rough / metal cells: {textured:?}");
    let untextured = render(&ground_untextured());
    let plain = quotient(cells(&untextured, &ROUGH), cells(&untextured, &METAL));
    eprintln!("rough / metal cells (ratio, s.e.): textured {textured:.3?}, untextured {plain:.3?}");
    assert!((plain.0 - 1.0).abs() < 0.08, "without the texture, rough / metal cells: {plain:?}");
}

/// A black mirror (metallic 1, base colour 0: F0 = 0, so nothing is reflected face on)
/// as a 10x10 quad filling the view, seen face on under a white sky, with `alpha`.
fn black_quad(alpha: f32, alpha_mode: AlphaMode) -> Scene {
    let black = Principled {
        base_color: Vec3::ZERO,
        metallic: 1.0,
        roughness: 0.0,
        emission: Vec3::ZERO,
        alpha,
        alpha_mode,
        ..Principled::default()
    };
    let camera = pinhole(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, 20.0);
    let mut s = scene(camera, Sky::Constant(Vec3::ONE), &[MaterialKind::Principled(black)], &[]);
    let corners = [(-5.0, -5.0), (5.0, -5.0), (5.0, 5.0), (-5.0, 5.0)];
    s.meshes = vec![Mesh {
        file: "quad.ply".into(),
        material: Some(0),
        transform: Transform::default(),
        data: Arc::new(MeshData {
            path: "quad.ply".into(),
            positions: corners.map(|(x, y)| Vec3::new(x, y, 0.0)).to_vec(),
            uvs: corners.map(|(x, y)| Vec2::new(x, y) / 10.0 + 0.5).to_vec(),
            triangles: vec![[0, 1, 2], [0, 2, 3]],
            ..MeshData::default()
        }),
        ..Mesh::default()
    }];
    s
}

/// Blend is stochastic transparency: a surface of alpha `a` in front of a sky of 1 lets
/// 1 - a of it through (the rest meets the black mirror, which sends back nothing face
/// on). Mask keeps a surface whole or drops it whole at the cutoff.
#[test]
fn a_blend_surface_of_alpha_a_lets_one_minus_a_of_the_sky_through() {
    for alpha in [0.25, 0.6] {
        let s = black_quad(alpha, AlphaMode::Blend);
        let what = format!("Blend, alpha {alpha}");
        assert_close(&what, estimate(&s, (32, 24), 16, 4, true, 8), f64::from(1.0 - alpha));
    }
    for (alpha, expected) in [(0.4, 1.0), (0.6, 0.0)] {
        let s = black_quad(alpha, AlphaMode::Mask(0.5));
        let (mean, _) = estimate(&s, (32, 24), 4, 4, true, 2);
        assert!((mean - expected).abs() < 1e-4, "Mask(0.5), alpha {alpha}: {mean}, expected {expected}");
    }
}
