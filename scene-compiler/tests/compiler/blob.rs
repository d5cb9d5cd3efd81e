//! Blob round trip, generated-file freshness, and the loader against corrupted input.

use crate::common;

use std::path::Path;

use std::f64::consts::PI;

use glam::Vec3;
use scene_compiler::blob::layout::{
    BlobHeader, HEADER_LEN, LEAF_COUNT_MASK, LEAF_COUNT_SHIFT, LEAF_FLAG, LIGHT_AREA, LIGHT_DIRECTIONAL,
    LIGHT_POINT, LightRecord, MATERIAL_DIELECTRIC, MATERIAL_EMISSIVE, MaterialRecord, NO_TEXTURE,
    PRIM_INDEX_MASK, PRIM_KIND_MASK, PrimKind, SectionId, prim_ref,
};
use scene_compiler::blob::{AlignedBytes, BlobError, BlobView, NodeLayout, cuda_header, with_field_tables};
use scene_compiler::bvh::stats;
use scene_compiler::scene::{Light, Material, MaterialKind, Sphere};
use scene_compiler::{CompileOptions, compile_scene};

fn repo_file(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn round_trip_keeps_every_sphere_material_and_light() {
    let scene = common::test_scene(200);
    let compiled = compile_scene(&scene, &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).expect("fresh blob parses");
    assert_eq!(view.records::<Sphere>().len(), 200);
    assert_eq!(view.materials.len(), 4);
    // The scene's two lights, then one per emissive sphere, all with their pick pdfs.
    let emissive = |m: u32| matches!(scene.materials[m as usize].kind, MaterialKind::Emissive { .. });
    let emitters = scene.spheres.iter().filter(|s| emissive(s.material)).count();
    assert!(emitters > 0);
    assert_eq!(view.lights.len(), 2 + emitters);
    let pdf_sum: f32 = view.lights.iter().map(|l| l.radiance_pdf[3]).sum();
    assert!((pdf_sum - 1.0).abs() < 1e-5, "pick pdfs sum to {pdf_sum}");
    for (slot, &pdf) in view.prim_light_pdfs.iter().enumerate() {
        assert_eq!(pdf > 0.0, emissive(view.prim_materials[slot]), "slot {slot}: pdf {pdf}");
    }
    assert_eq!(view.node_layout(), NodeLayout::DepthFirst);
    assert_eq!(view.globals.settings, [64, 36, 4, 8]);
    assert_eq!(view.settings(), scene.settings);
    assert_eq!(view.camera(), scene.camera);
    for (stored, &source) in view.records::<Sphere>().iter().zip(view.prim_sources) {
        let s = &scene.spheres[source as usize];
        assert_eq!(stored.center_radius, [s.center.x, s.center.y, s.center.z, s.radius]);
    }
    for (&m, &source) in view.prim_materials.iter().zip(view.prim_sources) {
        assert_eq!(m, scene.spheres[source as usize].material);
    }
    // Directional lights store the unit direction towards the light.
    let d = view.lights[1];
    assert!((d.vector_cos[1] - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6 && d.kind == LIGHT_DIRECTIONAL);
}

#[test]
fn build_is_deterministic_and_veb_is_flagged() {
    let scene = common::test_scene(500);
    let a = compile_scene(&scene, &CompileOptions::default());
    let b = compile_scene(&scene, &CompileOptions::default());
    assert_eq!(&*a.blob, &*b.blob);
    let veb =
        compile_scene(&scene, &CompileOptions { layout: NodeLayout::VanEmdeBoas, ..Default::default() });
    let view = BlobView::parse(&veb.blob).expect("vEB blob parses");
    assert_eq!(view.node_layout(), NodeLayout::VanEmdeBoas);
    assert_eq!(view.node_links.len(), BlobView::parse(&a.blob).unwrap().node_links.len());
}

#[test]
fn sections_are_16_byte_aligned() {
    let compiled = compile_scene(&common::test_scene(33), &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).unwrap();
    for entry in view.header.sections {
        assert_eq!(entry.offset % 16, 0);
    }
    assert_eq!(compiled.blob.len() % 16, 0);
}

/// The plain tree read back from the blob is the tree that was built: the same
/// statistics in both node orders (vEB only renumbers nodes); the SAH cost to 10^-4 of
/// itself, as the blob's boxes carry the traversal's margin (`blob::write`).
#[test]
fn the_tree_read_back_is_the_tree_built() {
    let scene = common::test_scene(300);
    for layout in [NodeLayout::DepthFirst, NodeLayout::VanEmdeBoas] {
        let compiled = compile_scene(&scene, &CompileOptions { layout, ..CompileOptions::default() });
        let view = BlobView::parse(&compiled.blob).expect("fresh blob parses");
        let read_back = stats(&view.tree());
        assert_eq!(read_back.node_count, compiled.bvh_stats.node_count, "{layout:?}");
        assert_eq!(read_back.depth, compiled.bvh_stats.depth, "{layout:?}");
        assert_eq!(read_back.leaf_size_histogram, compiled.bvh_stats.leaf_size_histogram, "{layout:?}");
        let built = compiled.bvh_stats.sah_cost;
        assert!(
            (read_back.sah_cost - built).abs() < 1e-4 * built,
            "{layout:?}: {} against {built}",
            read_back.sah_cost
        );
        assert_eq!(view.node_links.len(), read_back.node_count - read_back.leaf_count);
    }
}

/// A scene that fits one leaf has no inner node: the root link is that leaf.
#[test]
fn a_one_leaf_scene_has_a_leaf_root_and_no_nodes() {
    let compiled = compile_scene(&common::test_scene(1), &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).expect("fresh blob parses");
    assert_eq!(view.header.node_count, 0);
    assert_eq!(view.root(), LEAF_FLAG, "leaf of sphere 0, count 1");
    let tree = view.tree();
    assert_eq!(tree.nodes.len(), 1);
    assert!(tree.nodes[0].bounds.surface_area() > 0.0);
}

#[test]
fn checked_in_cuda_header_is_current() {
    assert!(
        repo_file("kernels/blob_layout.cuh") == cuda_header(),
        "kernels/blob_layout.cuh is stale: run `cargo run -p tools --bin layout-header`"
    );
}

#[test]
fn checked_in_format_doc_tables_are_current() {
    let doc = repo_file("docs/blob-format.md");
    assert!(
        with_field_tables(&doc).as_deref() == Some(doc.as_str()),
        "docs/blob-format.md tables are stale: run `cargo run -p tools --bin layout-header`"
    );
}

#[test]
fn misaligned_and_short_buffers_are_refused() {
    let compiled = compile_scene(&common::test_scene(10), &CompileOptions::default());
    let mut shifted = AlignedBytes::zeroed(compiled.blob.len() + 1);
    shifted.as_mut_slice()[1..].copy_from_slice(&compiled.blob);
    assert_eq!(BlobView::parse(&shifted[1..]).unwrap_err(), BlobError::Misaligned);
    assert!(matches!(BlobView::parse(&compiled.blob[..100]), Err(BlobError::TooShort { .. })));
}

/// Checks, independently of the loader, that nothing in `view` reads out of range
/// and that walking the tree from the root terminates.
fn assert_in_range(view: &BlobView<'_>) {
    let (spheres, materials, nodes) =
        (view.records::<Sphere>().len(), view.materials.len(), view.node_links.len());
    assert_eq!(view.prim_materials.len(), spheres);
    assert!(view.prim_materials.iter().all(|&m| (m as usize) < materials));
    assert_eq!(view.node_boxes.len(), nodes);
    let mut stack = vec![view.root()];
    let mut visits = 0;
    while let Some(link) = stack.pop() {
        visits += 1;
        assert!(visits <= 2 * nodes + 1, "tree walk does not terminate");
        if link & LEAF_FLAG != 0 {
            assert_eq!(link & PRIM_KIND_MASK, 0, "spheres are the only kind");
            let first = (link & PRIM_INDEX_MASK) as usize;
            let count = ((link & LEAF_COUNT_MASK) >> LEAF_COUNT_SHIFT) as usize + 1;
            assert!(first + count <= spheres);
        } else {
            assert!((link as usize) < nodes);
            let l = view.node_links[link as usize];
            stack.extend([l.left, l.right]);
        }
    }
    assert_eq!(view.prim_light_pdfs.len(), spheres);
    for l in view.lights {
        assert!((l.alias as usize) < view.lights.len());
        if l.kind == LIGHT_AREA {
            assert_eq!(l.prim & !PRIM_INDEX_MASK, 0, "sphere lights name spheres");
            assert!((l.prim as usize) < spheres);
            assert_eq!(view.prim_light_pdfs[l.prim as usize], l.radiance_pdf[3]);
        }
    }
}

/// The probability the stored alias table picks each light with (see `LightRecord`).
fn alias_masses(lights: &[LightRecord]) -> Vec<f64> {
    let n = lights.len() as f64;
    let mut mass = vec![0.0; lights.len()];
    for (i, l) in lights.iter().enumerate() {
        let keep = f64::from(l.alias_threshold);
        mass[i] += keep / n;
        mass[l.alias as usize] += (1.0 - keep) / n;
    }
    mass
}

fn fix_crc(bytes: &mut [u8]) {
    let crc = crc32fast::hash(&bytes[HEADER_LEN..]);
    let at = std::mem::offset_of!(BlobHeader, payload_crc32);
    bytes[at..at + 4].copy_from_slice(&crc.to_le_bytes());
}

/// Every single-bit flip at every byte, once with the checksum left stale (the
/// checksum must catch payload flips) and once with it recomputed (so the
/// structural checks meet every corruption): parse never panics, and whatever it
/// accepts is in range.
#[test]
fn every_bit_flip_is_refused_or_harmless() {
    let compiled = compile_scene(&common::test_scene(24), &CompileOptions::default());
    let original = compiled.blob;
    let mut accepted_with_fixed_crc = 0;
    for pos in 0..original.len() {
        for bit in 0..8 {
            let mut bytes = original.clone();
            bytes.as_mut_slice()[pos] ^= 1 << bit;
            match BlobView::parse(&bytes) {
                Ok(view) => {
                    // Only header bits the checksum does not cover can get through.
                    assert!(pos < HEADER_LEN, "payload flip at {pos} bit {bit} passed the checksum");
                    assert_in_range(&view);
                }
                Err(e) => assert!(!e.to_string().is_empty()),
            }
            if pos >= HEADER_LEN {
                fix_crc(bytes.as_mut_slice());
                if let Ok(view) = BlobView::parse(&bytes) {
                    accepted_with_fixed_crc += 1;
                    assert_in_range(&view);
                }
            }
        }
    }
    // Float payload bits (e.g. a sphere center's low mantissa) are legitimately
    // accepted; index bits must not be. The count guards against a test that
    // accidentally refuses everything.
    assert!(accepted_with_fixed_crc > 0);
}

#[test]
fn every_truncation_is_refused() {
    let compiled = compile_scene(&common::test_scene(24), &CompileOptions::default());
    for len in 0..compiled.blob.len() {
        let cut = AlignedBytes::copy_from(&compiled.blob[..len]);
        assert!(BlobView::parse(&cut).is_err(), "truncated to {len} bytes and accepted");
    }
}

#[test]
fn out_of_range_indices_are_named() {
    let compiled = compile_scene(&common::test_scene(24), &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).unwrap();
    let links_at = view.header.sections[SectionId::NodeLinks as usize].offset as usize;
    let mats_at = view.header.sections[SectionId::PrimMaterials as usize].offset as usize;

    let mut bad_material = compiled.blob.clone();
    bad_material.as_mut_slice()[mats_at..mats_at + 4].copy_from_slice(&99u32.to_le_bytes());
    fix_crc(bad_material.as_mut_slice());
    let err = BlobView::parse(&bad_material).unwrap_err().to_string();
    assert!(err.contains("prim_materials[0]") && err.contains("99"), "{err}");

    // A leaf link naming a primitive kind the format does not have.
    let (at, link) = view
        .node_links
        .iter()
        .enumerate()
        .flat_map(|(i, l)| [(links_at + 8 * i, l.left), (links_at + 8 * i + 4, l.right)])
        .find(|&(_, link)| link & LEAF_FLAG != 0)
        .expect("a tree has leaves");
    let mut unknown_kind = compiled.blob.clone();
    unknown_kind.as_mut_slice()[at..at + 4].copy_from_slice(&(link | PRIM_KIND_MASK).to_le_bytes());
    fix_crc(unknown_kind.as_mut_slice());
    let err = BlobView::parse(&unknown_kind).unwrap_err().to_string();
    assert!(err.contains("unknown primitive kind 7"), "{err}");

    // Point the root's right child back at the root: a cycle the GPU would loop on.
    let mut cycle = compiled.blob.clone();
    cycle.as_mut_slice()[links_at + 4..links_at + 8].copy_from_slice(&0u32.to_le_bytes());
    fix_crc(cycle.as_mut_slice());
    let err = BlobView::parse(&cycle).unwrap_err();
    assert!(matches!(err, BlobError::Tree(_)), "{err}");
}

/// The tree is walked on all cores, yet with two bad links the error names the one an
/// in-order walk meets first (the leftmost), whichever task found a problem first.
#[test]
fn of_two_bad_links_the_tree_check_names_the_first_in_order() {
    let compiled = compile_scene(&common::test_scene(3000), &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).unwrap();
    let links_at = view.header.sections[SectionId::NodeLinks as usize].offset as usize;
    let n = view.node_links.len() as u32;
    // The byte offset of the link to the leftmost (or rightmost) leaf.
    let outermost = |right: bool| {
        let mut node = 0usize;
        loop {
            let links = view.node_links[node];
            let link = if right { links.right } else { links.left };
            if link & LEAF_FLAG != 0 {
                return links_at + 8 * node + if right { 4 } else { 0 };
            }
            node = link as usize;
        }
    };
    let mut bad = compiled.blob.clone();
    for (at, past) in [(outermost(false), n + 7), (outermost(true), n + 9)] {
        bad.as_mut_slice()[at..at + 4].copy_from_slice(&past.to_le_bytes());
    }
    fix_crc(bad.as_mut_slice());
    for _ in 0..20 {
        let err = BlobView::parse(&bad).unwrap_err().to_string();
        assert!(err.contains(&format!("link to node {}", n + 7)), "{err}");
    }
}

#[test]
fn corrupt_light_tables_are_refused() {
    let compiled = compile_scene(&common::test_scene(24), &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).unwrap();
    let lights_at = view.header.sections[SectionId::Lights as usize].offset as usize;
    let sphere_light =
        view.lights.iter().position(|l| l.kind == LIGHT_AREA).expect("the test scene has emissive spheres");
    let count = view.lights.len() as u32;
    let corrupt = |i: usize, change: &dyn Fn(&mut LightRecord)| -> String {
        let mut bytes = compiled.blob.clone();
        let at = lights_at + i * size_of::<LightRecord>();
        let record: &mut LightRecord =
            bytemuck::from_bytes_mut(&mut bytes.as_mut_slice()[at..at + size_of::<LightRecord>()]);
        change(record);
        fix_crc(bytes.as_mut_slice());
        BlobView::parse(&bytes).map(|_| ()).unwrap_err().to_string()
    };
    let err = corrupt(0, &|l| l.alias = count);
    assert!(err.contains("lights[0]") && err.contains("alias"), "{err}");
    let err = corrupt(sphere_light, &|l| l.prim = view.records::<Sphere>().len() as u32);
    assert!(err.contains("does not hold"), "{err}");
    let err = corrupt(sphere_light, &|l| l.prim = (l.prim + 1) % view.records::<Sphere>().len() as u32);
    assert!(err.contains("prim_light_pdfs"), "{err}");
    let err = corrupt(0, &|l| l.kind = 7);
    assert!(err.contains("unknown light kind 7"), "{err}");
    let err = corrupt(0, &|l| l.radiance_pdf[3] = 0.9);
    assert!(err.contains("sum to"), "{err}");
}

/// A scene with a point light, a directional light, three emissive spheres of
/// different radii (one also diffuse), a black "emitter" and a plain sphere.
fn light_scene() -> scene_compiler::scene::Scene {
    let mut scene = common::test_scene(1);
    let emissive =
        |color: Vec3, strength: f32, albedo: Vec3| MaterialKind::Emissive { color, strength, albedo };
    scene.materials = vec![
        Material {
            name: "white".into(),
            kind: MaterialKind::Lambert { albedo: Vec3::splat(0.7) },
            texture: None,
            maps: Default::default(),
        },
        Material {
            name: "warm".into(),
            kind: emissive(Vec3::new(1.0, 0.5, 0.25), 2.0, Vec3::ZERO),
            texture: None,
            maps: Default::default(),
        },
        Material {
            name: "glow".into(),
            kind: emissive(Vec3::new(0.0, 0.0, 1.0), 3.0, Vec3::splat(0.5)),
            texture: None,
            maps: Default::default(),
        },
        Material {
            name: "black".into(),
            kind: emissive(Vec3::ZERO, 5.0, Vec3::ZERO),
            texture: None,
            maps: Default::default(),
        },
    ];
    let sphere = |x: f32, y: f32, z: f32, radius: f32, material: u32| Sphere {
        center: Vec3::new(x, y, z),
        radius,
        material,
    };
    scene.spheres = vec![
        sphere(0.0, 0.0, 0.0, 1.0, 0),
        sphere(4.0, 0.0, 0.0, 0.5, 1),
        sphere(-3.0, 1.0, 0.0, 1.5, 2),
        sphere(0.0, 5.0, 2.0, 0.25, 1),
        sphere(0.0, -2.0, -3.0, 1.0, 3),
    ];
    scene.lights = vec![
        Light::Point { position: Vec3::new(1.0, 2.0, 3.0), color: Vec3::ONE, intensity: 10.0 },
        Light::Directional {
            direction: Vec3::new(0.0, -3.0, 0.0),
            color: Vec3::new(1.0, 0.9, 0.8),
            intensity: 2.0,
            angular_radius_deg: 0.5,
        },
    ];
    scene
}

#[test]
fn lights_are_picked_in_proportion_to_their_power() {
    let scene = light_scene();
    let compiled = compile_scene(&scene, &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).expect("fresh blob parses");
    let lum = |c: Vec3| (f64::from(c.x) + f64::from(c.y) + f64::from(c.z)) / 3.0;

    // The scene's bounding sphere: half the diagonal of the spheres' bounds.
    let (mut min, mut max) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for s in &scene.spheres {
        min = min.min(s.center - s.radius);
        max = max.max(s.center + s.radius);
    }
    let radius = 0.5 * (max.as_dvec3() - min.as_dvec3()).length();

    // Expected records: the scene's lights, then the emissive spheres in leaf order.
    let mut expected = vec![
        (LIGHT_POINT, 0, 4.0 * PI * lum(Vec3::splat(10.0))),
        (LIGHT_DIRECTIONAL, 0, PI * radius * radius * lum(Vec3::new(2.0, 1.8, 1.6))),
    ];
    let mut emitter_slots = Vec::new();
    for (slot, &source) in view.prim_sources.iter().enumerate() {
        let s = &scene.spheres[source as usize];
        if let MaterialKind::Emissive { color, strength, .. } = scene.materials[s.material as usize].kind {
            let r = f64::from(s.radius);
            if color * strength != Vec3::ZERO {
                expected.push((
                    LIGHT_AREA,
                    prim_ref(PrimKind::Sphere, slot as u32),
                    PI * (4.0 * PI * r * r) * lum(color * strength),
                ));
                emitter_slots.push(slot);
            }
        }
    }
    assert_eq!(emitter_slots.len(), 3, "the black emitter is no light");
    assert_eq!(view.lights.len(), expected.len());
    assert_eq!(view.header.light_count as usize, expected.len());
    let total: f64 = expected.iter().map(|e| e.2).sum();
    for (i, (l, &(kind, prim, power))) in view.lights.iter().zip(&expected).enumerate() {
        assert_eq!((l.kind, l.prim), (kind, prim), "light {i}");
        let pdf = f64::from(l.radiance_pdf[3]);
        assert!((pdf - power / total).abs() < 1e-6, "light {i}: pdf {pdf}, expected {}", power / total);
    }
    let sum: f64 = view.lights.iter().map(|l| f64::from(l.radiance_pdf[3])).sum();
    assert!((sum - 1.0).abs() < 1e-6, "pdfs sum to {sum}");

    // What each record holds.
    assert_eq!(view.lights[0].vector_cos, [1.0, 2.0, 3.0, 1.0]);
    assert_eq!(view.lights[0].radiance_pdf[..3], [10.0, 10.0, 10.0]);
    let d = view.lights[1].vector_cos;
    assert_eq!(d[..3], [0.0, 1.0, 0.0], "unit direction towards the light");
    assert!((d[3] - 0.5f32.to_radians().cos()).abs() < 1e-7);
    for (l, &slot) in view.lights[2..].iter().zip(&emitter_slots) {
        assert_eq!(l.vector_cos, [0.0, 0.0, 0.0, 1.0]);
        let s = &scene.spheres[view.prim_sources[slot] as usize];
        let MaterialKind::Emissive { color, strength, .. } = scene.materials[s.material as usize].kind else {
            unreachable!()
        };
        assert_eq!(l.radiance_pdf[..3], (color * strength).to_array());
    }

    // The primitives' pick probabilities are their lights'; other primitives have none.
    for (slot, &pdf) in view.prim_light_pdfs.iter().enumerate() {
        match emitter_slots.iter().position(|&e| e == slot) {
            Some(k) => assert_eq!(pdf, view.lights[2 + k].radiance_pdf[3], "slot {slot}"),
            None => assert_eq!(pdf, 0.0, "slot {slot} is no light"),
        }
    }

    // The stored (f32) alias table picks every light with its pdf.
    for (i, (mass, l)) in alias_masses(view.lights).iter().zip(view.lights).enumerate() {
        let pdf = f64::from(l.radiance_pdf[3]);
        assert!((mass - pdf).abs() < 1e-6, "light {i}: picked with {mass}, pdf {pdf}");
    }

    // Emitters keep their kind, albedo (none: they absorb) and radiance.
    assert_eq!((view.materials[1].kind, view.materials[1].albedo_roughness), (MATERIAL_EMISSIVE, [0.0; 4]));
    assert_eq!(view.materials[2].kind, MATERIAL_EMISSIVE);
    assert_eq!(view.materials[2].albedo_roughness, [0.5, 0.5, 0.5, 0.0]);
    assert_eq!(view.materials[2].emission_ior, [0.0, 0.0, 3.0, 1.0]);
    assert_eq!(view.materials[2].textures, [NO_TEXTURE; 4]);
}

#[test]
fn a_scene_without_powered_lights_has_all_pdfs_zero() {
    let mut scene = light_scene();
    scene.spheres.retain(|s| s.material == 0 || s.material == 3);
    for light in &mut scene.lights {
        match light {
            Light::Point { intensity, .. } | Light::Directional { intensity, .. } => *intensity = 0.0,
        }
    }
    let compiled = compile_scene(&scene, &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).expect("a blob without light power parses");
    assert_eq!(view.lights.len(), 2);
    assert!(view.lights.iter().all(|l| l.radiance_pdf[3] == 0.0));
    assert!(view.prim_light_pdfs.iter().all(|&p| p == 0.0));
}

#[test]
fn inconsistent_light_tables_are_refused() {
    let compiled = compile_scene(&light_scene(), &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).unwrap();
    let lights_at = view.header.sections[SectionId::Lights as usize].offset as usize;
    let pdfs_at = view.header.sections[SectionId::PrimLightPdfs as usize].offset as usize;
    let parse_err = |mut bytes: AlignedBytes| -> String {
        fix_crc(bytes.as_mut_slice());
        BlobView::parse(&bytes).map(|_| ()).unwrap_err().to_string()
    };
    let with_light = |i: usize, change: &dyn Fn(&mut LightRecord)| -> String {
        let mut bytes = compiled.blob.clone();
        let at = lights_at + i * size_of::<LightRecord>();
        change(bytemuck::from_bytes_mut(&mut bytes.as_mut_slice()[at..at + size_of::<LightRecord>()]));
        parse_err(bytes)
    };
    let with_prim_pdf = |slot: usize, pdf: f32| -> String {
        let mut bytes = compiled.blob.clone();
        let at = pdfs_at + 4 * slot;
        bytes.as_mut_slice()[at..at + 4].copy_from_slice(&pdf.to_le_bytes());
        parse_err(bytes)
    };
    let spheres = view.records::<Sphere>().len() as u32;
    let first_sphere_light = view.lights.iter().position(|l| l.kind == LIGHT_AREA).unwrap();
    let i = first_sphere_light;

    // Area lights must name a primitive the blob holds: not a kind without primitives
    // (this scene has no boxes), not past the last sphere, no stray bits, and each
    // primitive only once.
    let err = with_light(i, &|l| l.prim = prim_ref(PrimKind::Sphere, spheres));
    assert!(err.contains(&format!("lights[{i}]")) && err.contains("does not hold"), "{err}");
    let err = with_light(i, &|l| l.prim = 1 << 29);
    assert!(err.contains(&format!("lights[{i}]")) && err.contains("does not hold"), "{err}");
    let err = with_light(i, &|l| l.prim |= 1 << 27);
    assert!(err.contains("does not hold"), "{err}");
    let first_prim = view.lights[i].prim;
    let err = with_light(i + 1, &|l| l.prim = first_prim);
    assert!(err.contains(&format!("lights[{}]", i + 1)) && err.contains("already another light"), "{err}");

    // prim_light_pdfs must agree with the lights.
    let slot = view.lights[i].prim as usize;
    let err = with_prim_pdf(slot, view.prim_light_pdfs[slot] * 0.5);
    assert!(err.contains(&format!("lights[{i}]")) && err.contains("prim_light_pdfs"), "{err}");
    let dark = view.prim_light_pdfs.iter().position(|&p| p == 0.0).unwrap();
    let err = with_prim_pdf(dark, 0.125);
    assert!(err.contains(&format!("prim_light_pdfs[{dark}]")) && err.contains("no light"), "{err}");
    let err = with_prim_pdf(dark, f32::NAN);
    assert!(err.contains(&format!("prim_light_pdfs[{dark}]")), "{err}");

    // The alias table must pick each light with its pdf.
    let err = with_light(0, &|l| l.alias = view.lights.len() as u32);
    assert!(err.contains("lights[0]") && err.contains("alias"), "{err}");
    let cell = view.lights.iter().position(|l| (0.01..0.99).contains(&l.alias_threshold)).unwrap();
    let err = with_light(cell, &|l| l.alias_threshold = 0.5 * (l.alias_threshold + 1.0));
    assert!(err.contains("alias table picks"), "{err}");
    let err = with_light(cell, &|l| l.alias_threshold = 1.5);
    assert!(err.contains(&format!("lights[{cell}]")) && err.contains("alias threshold"), "{err}");
}

/// `parse_accepted` views what `parse` views, checks what keeps its slices in bounds,
/// and (by design) skips the linear checks: a flipped payload byte goes unnoticed.
#[test]
fn parse_accepted_checks_the_layout_only() {
    let compiled = compile_scene(&common::test_scene(300), &CompileOptions::default());
    let full = BlobView::parse(&compiled.blob).expect("valid");
    let again = BlobView::parse_accepted(&compiled.blob).expect("valid");
    assert_eq!(again.records::<Sphere>(), full.records::<Sphere>());
    assert_eq!(again.node_links, full.node_links);
    assert_eq!(again.prim_sources, full.prim_sources);

    let short = AlignedBytes::copy_from(&compiled.blob[..compiled.blob.len() - 16]);
    assert!(BlobView::parse_accepted(&short).is_err(), "a section past the end is refused");

    let mut flipped = compiled.blob.to_vec();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    let flipped = AlignedBytes::copy_from(&flipped);
    assert!(matches!(BlobView::parse(&flipped), Err(BlobError::Checksum { .. })));
    assert!(BlobView::parse_accepted(&flipped).is_ok());
    // The checksum is read beside the other checks, and still comes after the header's
    // start (the flags) and before the rest (the padding above, the header's reserved).
    let mut both = flipped.clone();
    let header: &mut BlobHeader = bytemuck::from_bytes_mut(&mut both.as_mut_slice()[..HEADER_LEN]);
    header.flags |= 1 << 30;
    assert!(matches!(BlobView::parse(&both), Err(BlobError::UnknownFlags(_))));
    let mut reserved = flipped.clone();
    let header: &mut BlobHeader = bytemuck::from_bytes_mut(&mut reserved.as_mut_slice()[..HEADER_LEN]);
    header.reserved[0] = 1;
    assert!(matches!(BlobView::parse(&reserved), Err(BlobError::Checksum { .. })));
}

#[test]
fn emissive_boxes_are_area_lights_after_the_spheres_with_pi_area_radiance_power() {
    use scene_compiler::scene::Cuboid;
    let mut scene = light_scene();
    scene.lights.clear();
    scene.spheres.retain(|s| s.material != 1 && s.material != 2);
    let lamp = |min: Vec3, max: Vec3, material| Cuboid { min, max, material };
    scene.boxes = vec![
        lamp(Vec3::new(0.0, 3.0, 0.0), Vec3::new(1.0, 3.5, 2.0), 1),
        lamp(Vec3::new(5.0, 0.0, 0.0), Vec3::new(6.0, 1.0, 1.0), 0),
        lamp(Vec3::new(-4.0, 0.0, 0.0), Vec3::new(-3.0, 4.0, 0.25), 2),
    ];
    let view_blob = compile_scene(&scene, &CompileOptions::default()).blob;
    let view = BlobView::parse(&view_blob).expect("fresh blob parses");
    let lum = |c: Vec3| (f64::from(c.x) + f64::from(c.y) + f64::from(c.z)) / 3.0;
    let area = |b: &Cuboid| {
        let e = (b.max - b.min).as_dvec3();
        2.0 * (e.x * e.y + e.y * e.z + e.z * e.x)
    };
    // Only the two emissive boxes are lights (no emissive sphere is left), in leaf order.
    assert_eq!(view.lights.len(), 2);
    let powers: Vec<f64> = [(0, Vec3::new(1.0, 0.5, 0.25) * 2.0), (2, Vec3::new(0.0, 0.0, 3.0))]
        .iter()
        .map(|&(i, radiance)| PI * area(&scene.boxes[i]) * lum(radiance))
        .collect();
    let total: f64 = powers.iter().sum();
    for l in view.lights {
        assert_eq!(l.kind, LIGHT_AREA);
        let (kind, index) = scene_compiler::blob::layout::prim_parts(l.prim);
        assert_eq!(kind, PrimKind::Box as u32, "a box light names a box");
        let source = view.prim_sources[view.prim_slot(l.prim)] as usize;
        let k = if source == 0 { 0 } else { 1 };
        assert_eq!(source, [0, 2][k], "box {index} is an emitter");
        let pdf = f64::from(l.radiance_pdf[3]);
        assert!(
            (pdf - powers[k] / total).abs() < 1e-6,
            "box {source}: pdf {pdf}, expected {}",
            powers[k] / total
        );
        assert_eq!(view.prim_light_pdfs[view.prim_slot(l.prim)], l.radiance_pdf[3]);
    }
}

#[test]
fn material_records_with_unknown_kinds_stray_lanes_or_textures_are_refused() {
    let compiled = compile_scene(&light_scene(), &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).unwrap();
    let at = view.header.sections[SectionId::Materials as usize].offset as usize;
    let corrupt = |i: usize, change: &dyn Fn(&mut MaterialRecord)| -> String {
        let mut bytes = compiled.blob.clone();
        let at = at + i * size_of::<MaterialRecord>();
        change(bytemuck::from_bytes_mut(&mut bytes.as_mut_slice()[at..at + size_of::<MaterialRecord>()]));
        fix_crc(bytes.as_mut_slice());
        BlobView::parse(&bytes).map(|_| ()).unwrap_err().to_string()
    };
    let err = corrupt(0, &|m| m.kind = 9);
    assert!(err.contains("materials[0]") && err.contains("unknown material kind 9"), "{err}");
    let err = corrupt(0, &|m| m.textures[0] = 0);
    assert!(err.contains("texture"), "{err}");
    let err = corrupt(0, &|m| m.albedo_roughness[3] = 0.5);
    assert!(err.contains("roughness"), "a Lambert has no roughness: {err}");
    let err = corrupt(0, &|m| m.emission_ior[0] = 1.0);
    assert!(err.contains("emission"), "a Lambert does not emit: {err}");
    let err = corrupt(1, &|m| m.albedo_roughness[1] = f32::NAN);
    assert!(err.contains("non-finite"), "{err}");
    let err = corrupt(2, &|m| m.kind = MATERIAL_DIELECTRIC);
    assert!(err.contains("materials[2]"), "an emitter read as glass has emission and albedo lanes: {err}");
}
