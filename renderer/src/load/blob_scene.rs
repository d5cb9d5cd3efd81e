//! A [`Scene`] read back from a validated blob, so a session on a `.blob` has a scene
//! to show and edit like one on a `.ron`.
//!
//! The blob keeps what rendering needs, not how it was written: material names become
//! `material0`, `material1`…, and emitters and lights get their radiance as `color`
//! with strength or intensity 1; an image's uv transform comes back as offset, angle and
//! scales from its rows (exact for untransformed images, else to rounding). Instances
//! come back with their bottom levels (each distinct root's triangles, in their own
//! space). Compiling the result renders the same image.

use glam::Vec3;
use scene_compiler::BlobView;
use scene_compiler::blob::layout::{
    LIGHT_DIRECTIONAL, LIGHT_POINT, PrimKind, TEXTURE_CHECKER, TEXTURE_IMAGE, TEXTURE_SLOT_COLOR,
    TEXTURE_SLOT_EMISSION, TEXTURE_SLOT_METALLIC_ROUGHNESS, TEXTURE_SLOT_NORMAL, TextureRecord, WRAP_CLAMP,
};
use scene_compiler::scene::{
    Light, Maps, Material, MaterialKind, Scene, Texture, TextureImage, UvTransform, Vertices, Wrap,
};
use scene_compiler::shapes::Shape;
use scene_compiler::with_shape;

/// The scene `view` holds, each kind's shapes in their source order (a terrain's boxes
/// come back as plain boxes).
pub fn decode(view: &BlobView<'_>) -> Scene {
    let xyz = |v: &[f32; 4]| Vec3::new(v[0], v[1], v[2]);
    let materials = view
        .materials
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let slot = |s: usize| view.textures.get(m.textures[s] as usize).map(|t| texture(view, t));
            Material {
                name: format!("material{i}"),
                kind: MaterialKind::from_record(m).expect("BlobView::parse checks every material record"),
                texture: slot(TEXTURE_SLOT_COLOR),
                maps: Maps {
                    metallic_roughness: slot(TEXTURE_SLOT_METALLIC_ROUGHNESS),
                    emission: slot(TEXTURE_SLOT_EMISSION),
                    normal: slot(TEXTURE_SLOT_NORMAL),
                },
            }
        })
        .collect();
    // Area lights are derived from emissive materials; only the scene's own lights
    // come back.
    let lights = view
        .lights
        .iter()
        .filter_map(|l| {
            let color = xyz(&l.radiance_pdf);
            match l.kind {
                LIGHT_POINT => Some(Light::Point { position: xyz(&l.vector_cos), color, intensity: 1.0 }),
                // The blob stores the way to the light; the scene the way light travels.
                LIGHT_DIRECTIONAL => Some(Light::Directional {
                    direction: -xyz(&l.vector_cos),
                    color,
                    intensity: 1.0,
                    angular_radius_deg: l.vector_cos[3].clamp(-1.0, 1.0).acos().to_degrees(),
                }),
                _ => None,
            }
        })
        .collect();
    let mut scene = Scene {
        camera: view.camera(),
        settings: view.settings(),
        sky: view.sky(),
        materials,
        lights,
        // Each kind's shapes are filled in below; a terrain's columns are boxes in the
        // blob, so they come back as boxes and the terrains stay empty.
        ..Scene::default()
    };
    for kind in PrimKind::ALL {
        with_shape!(kind, S => *S::of_mut(&mut scene) = decode_kind::<S>(view));
    }
    decode_levels(view, &mut scene);
    // The writer puts the world's vertices first, each level's after them.
    let world_end = scene.triangles.iter().flat_map(|t| t.v).max().map_or(0, |i| i as usize + 1);
    scene.vertices = vertices_in(view, 0..world_end);
    scene
}

/// The blob's vertices `span` as a list of their own.
fn vertices_in(view: &BlobView<'_>, span: std::ops::Range<usize>) -> Vertices {
    let uvs = view.vertex_uvs.get(span.clone()).map_or_else(Vec::new, <[_]>::to_vec);
    Vertices { records: view.vertices[span].to_vec(), uvs }
}

/// Takes the instances' triangles out of `scene.triangles` (every triangle of the
/// blob, in source order) into one bottom level per distinct root link, and points
/// each instance (whose `bottom_level` holds its root link, `Shape::from_record`) at
/// its level. A level's triangles are numbered after the world's, level after level
/// (`blob::write`), so each level's sources are one range, and the world's come first.
fn decode_levels(view: &BlobView<'_>, scene: &mut Scene) {
    use scene_compiler::blob::layout::{is_leaf, leaf_prims, prim_parts};
    use scene_compiler::scene::BottomLevel;
    use std::sync::Arc;
    let first = view.header.kind_first()[PrimKind::Triangle as usize] as usize;
    let mut roots: Vec<u32> = Vec::new();
    for instance in &mut scene.instances {
        let root = instance.bottom_level;
        let level = roots.iter().position(|&r| r == root).unwrap_or_else(|| {
            roots.push(root);
            roots.len() - 1
        });
        instance.bottom_level = level as u32;
    }
    // Per level, the range of its triangles' sources (the loader checked each tree).
    let ranges: Vec<std::ops::Range<usize>> = roots
        .iter()
        .map(|&root| {
            let (mut lo, mut hi) = (usize::MAX, 0);
            let mut stack = vec![root];
            while let Some(link) = stack.pop() {
                if is_leaf(link) {
                    let (prim, count) = leaf_prims(link);
                    for index in prim_parts(prim).1..prim_parts(prim).1 + count {
                        let source = view.prim_sources[first + index as usize] as usize;
                        (lo, hi) = (lo.min(source), hi.max(source + 1));
                    }
                } else {
                    let links = view.node_links[link as usize];
                    stack.extend([links.left, links.right]);
                }
            }
            lo..hi
        })
        .collect();
    let Some(world) = ranges.iter().map(|r| r.start).min() else { return };
    let levels = scene.triangles.split_off(world);
    // Each level's vertices are one span after the world's (`blob::write`): a level
    // takes the span its triangles index, renumbered from 0.
    scene.bottom_levels = ranges
        .into_iter()
        .map(|r| {
            let mut triangles = levels[r.start - world..r.end - world].to_vec();
            let indices = || triangles.iter().flat_map(|t| t.v);
            let (lo, hi) = (indices().min().unwrap_or(0), indices().max().map_or(0, |i| i + 1));
            triangles.iter_mut().for_each(|t| t.v = t.v.map(|i| i - lo));
            let vertices = vertices_in(view, lo as usize..hi as usize);
            BottomLevel { triangles: Arc::new(triangles), vertices: Arc::new(vertices) }
        })
        .collect();
}

/// One kind's shapes in their source order: the blob stores them in BVH leaf order, and
/// `prim_sources` gives each one's place in the scene's list.
fn decode_kind<S: Shape>(view: &BlobView<'_>) -> Vec<S> {
    let records = view.records::<S>();
    let first = view.header.kind_first()[S::KIND as usize] as usize;
    let slots = first..first + records.len();
    let mut shapes: Vec<Option<S>> = vec![None; records.len()];
    for ((record, &material), &source) in
        records.iter().zip(&view.prim_materials[slots.clone()]).zip(&view.prim_sources[slots])
    {
        shapes[source as usize] = Some(S::from_record(record, material));
    }
    // The loader checked that the sources of a kind are a permutation.
    shapes.into_iter().map(|s| s.expect("prim_sources is a permutation")).collect()
}

/// The texture a record holds; an image comes back from its texels, named `texture<i>`
/// after its first texel (the blob keeps no file names).
fn texture(view: &BlobView<'_>, t: &TextureRecord) -> Texture {
    let xyz = |v: [f32; 4]| Vec3::new(v[0], v[1], v[2]);
    match t.kind {
        TEXTURE_IMAGE => {
            let [first, width, height, wrap] = t.image;
            let texels = &view.texels[first as usize..(first + width * height) as usize];
            let image = TextureImage {
                path: Default::default(),
                width,
                height,
                texels: texels.iter().map(|&[r, g, b, _]| [r, g, b]).collect(),
                // Opaque images were stored with alpha 1.
                alpha: if texels.iter().all(|t| t[3] == 1.0) {
                    Vec::new()
                } else {
                    texels.iter().map(|t| t[3]).collect()
                },
            };
            Texture::Image {
                file: format!("texture{first}"),
                image: std::sync::Arc::new(image),
                wrap: if wrap == WRAP_CLAMP { Wrap::Clamp } else { Wrap::Repeat },
                uv_transform: UvTransform::from_rows([[t.a[0], t.a[1], t.a[2]], [t.b[0], t.b[1], t.b[2]]]),
            }
        }
        TEXTURE_CHECKER => Texture::Checker { size: t.a[3], even: xyz(t.a), odd: xyz(t.b) },
        _ => Texture::Noise { scale: t.a[0] },
    }
}
