//! Boxes beside spheres: the RON form, its validation, one BVH over both kinds with
//! single-kind leaves, and the blob's box section and its checks.

use crate::common;

use glam::Vec3;
use scene_compiler::blob::layout::{
    BlobHeader, HEADER_LEN, PrimKind, SectionId, is_leaf, leaf_prims, prim_parts,
};
use scene_compiler::bvh::{self, Aabb, NodeKind};
use scene_compiler::scene::{self, Cuboid, Sphere};
use scene_compiler::{BlobView, CompileOptions, compile_scene};

const SCENE: &str = r#"Scene(
    camera: (look_from: (0, 2, 8), look_at: (0, 0, 0), vfov_deg: 40),
    materials: { "ground": Lambert(albedo: (0.5, 0.5, 0.5)), "glass": Dielectric(ior: 1.5) },
    spheres: [(center: (0, 1, 0), radius: 1, material: "glass")],
    boxes: [
        (min: (-5, -1, -5), max: (5, 0, 5), material: "ground"),
        (min: (2, 0, -1), max: (3, 2, 1), material: "glass"),
    ],
)"#;

#[test]
fn boxes_parse_round_trip_and_compile() {
    let parsed = scene::parse(SCENE, "boxes.ron").expect("valid");
    assert_eq!(
        parsed.boxes,
        vec![
            Cuboid { min: Vec3::new(-5.0, -1.0, -5.0), max: Vec3::new(5.0, 0.0, 5.0), material: 0 },
            Cuboid { min: Vec3::new(2.0, 0.0, -1.0), max: Vec3::new(3.0, 2.0, 1.0), material: 1 },
        ]
    );
    let text = scene::to_ron(&parsed);
    assert!(text.contains("boxes: ["), "{text}");
    assert_eq!(scene::parse(&text, "again.ron").expect("written text parses"), parsed);

    let compiled = compile_scene(&parsed, &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).expect("loads");
    assert_eq!((view.records::<Sphere>().len(), view.records::<Cuboid>().len()), (1, 2));
    assert_eq!(view.header.prim_count(PrimKind::Box), 2);
    // Each box comes back at its place in the scene's list of boxes.
    let box_first = view.header.kind_first()[PrimKind::Box as usize] as usize;
    for (within, record) in view.records::<Cuboid>().iter().enumerate() {
        let source = view.prim_sources[box_first + within] as usize;
        assert_eq!(record.min[..3], parsed.boxes[source].min.to_array());
        assert_eq!(record.max[..3], parsed.boxes[source].max.to_array());
    }
}

#[test]
fn a_scene_of_boxes_alone_is_a_scene_and_an_empty_one_is_not() {
    let only_boxes = SCENE.replace(r#"spheres: [(center: (0, 1, 0), radius: 1, material: "glass")],"#, "");
    let scene = scene::parse(&only_boxes, "boxes.ron").expect("boxes without spheres");
    assert!(scene.spheres.is_empty() && scene.boxes.len() == 2);
    assert!(BlobView::parse(&compile_scene(&scene, &CompileOptions::default()).blob).is_ok());

    let empty = SCENE.replace(r#"(center: (0, 1, 0), radius: 1, material: "glass")"#, "");
    let empty = empty.replace(
        r#"(min: (-5, -1, -5), max: (5, 0, 5), material: "ground"),
        (min: (2, 0, -1), max: (3, 2, 1), material: "glass"),"#,
        "",
    );
    let err = scene::parse(&empty, "empty.ron").expect_err("nothing to render");
    assert!(err.to_string().contains("the scene has no spheres, boxes, terrain columns or meshes"), "{err}");
}

/// The diagnostic for a box edited from `from` to `to` in [`SCENE`]: message and line:col.
fn box_error(from: &str, to: &str) -> (String, usize, usize) {
    let src = SCENE.replacen(from, to, 1);
    let err = scene::parse(&src, "boxes.ron").expect_err("invalid box");
    let [d] = err.diagnostics() else { panic!("one diagnostic expected:\n{err}") };
    (d.message().to_owned(), d.line().expect("line"), d.column().expect("column"))
}

#[test]
fn flat_inverted_and_broken_boxes_are_errors_at_their_values() {
    // Zero thickness in y: the second box's `max` is on line 7.
    let (message, line, column) = box_error("max: (3, 2, 1)", "max: (3, 0, 1)");
    assert_eq!(message, "box `max` must be above `min` on every axis, not on y");
    assert_eq!((line, column), (7, 32));
    let (message, ..) = box_error("max: (3, 2, 1)", "max: (1, 2, -2)");
    assert_eq!(message, "box `max` must be above `min` on every axis, not on x, z");
    let (message, line, _) = box_error("material: \"ground\"),", "material: \"grund\"),");
    assert_eq!((message.as_str(), line), ("unknown material `grund`", 6));
    let (message, ..) = box_error("min: (2, 0, -1)", "min: (2, 0, 1e39)");
    assert!(message.contains("box `min`"), "{message}");
}

#[test]
fn the_builder_keeps_every_leaf_to_one_kind() {
    // Spheres and boxes interleaved in space, so SAH alone would mix them in leaves.
    let mut prims = Vec::new();
    for i in 0..3000 {
        let c = Vec3::new((i % 60) as f32 * 0.5, ((i * 7) % 13) as f32 * 0.1, (i / 60) as f32 * 0.5);
        prims.push(Aabb { min: c - 0.2, max: c + 0.2 });
    }
    let kind_start = 1500;
    let tree = bvh::build_kinds(&prims, &[kind_start], u32::MAX, &Default::default());
    let kind = |prim: u32| u32::from(prim >= kind_start);
    let mut seen = vec![false; prims.len()];
    for node in &tree.nodes {
        if let NodeKind::Leaf { first, count } = node.kind {
            let leaf = &tree.prim_order[first as usize..(first + count) as usize];
            assert!(leaf.iter().all(|&p| kind(p) == kind(leaf[0])), "a leaf mixes kinds: {leaf:?}");
            for &p in leaf {
                seen[p as usize] = true;
            }
        }
    }
    assert!(seen.iter().all(|&s| s), "every primitive is in a leaf");
    assert!(bvh::stats(&tree).depth <= 64);
    // With one kind the tree is the plain build.
    assert_eq!(
        bvh::build_kinds(&prims, &[], u32::MAX, &Default::default()),
        bvh::build(&prims, &Default::default())
    );
}

#[test]
fn a_mixed_scene_compiles_to_single_kind_leaf_links() {
    let mut scene = common::test_scene(400);
    scene.boxes = scene
        .spheres
        .iter()
        .step_by(2)
        .map(|s| Cuboid { min: s.center - 0.15, max: s.center + 0.15, material: s.material })
        .collect();
    let compiled = compile_scene(&scene, &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).expect("the loader accepts it");
    let mut boxes_seen = 0;
    for links in view.node_links {
        for link in [links.left, links.right] {
            if is_leaf(link) {
                let (first, count) = leaf_prims(link);
                let (kind, _) = prim_parts(first);
                if kind == PrimKind::Box as u32 {
                    boxes_seen += count as usize;
                }
            }
        }
    }
    assert_eq!(boxes_seen, scene.boxes.len());
}

#[test]
fn the_loader_refuses_a_flat_box_record() {
    let parsed = scene::parse(SCENE, "boxes.ron").expect("valid");
    let compiled = compile_scene(&parsed, &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).unwrap();
    let at = view.header.sections[SectionId::Boxes as usize].offset as usize;
    let mut flat = compiled.blob.clone();
    // max.x of the first box := min.x.
    let min_x = flat.as_mut_slice()[at..at + 4].to_vec();
    flat.as_mut_slice()[at + 16..at + 20].copy_from_slice(&min_x);
    let crc = crc32fast::hash(&flat.as_mut_slice()[HEADER_LEN..]);
    let crc_at = std::mem::offset_of!(BlobHeader, payload_crc32);
    flat.as_mut_slice()[crc_at..crc_at + 4].copy_from_slice(&crc.to_le_bytes());
    let err = BlobView::parse(&flat).unwrap_err().to_string();
    assert!(err.contains("boxes[0]") && err.contains("min is not below max"), "{err}");
}
