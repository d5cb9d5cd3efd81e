//! Feeds arbitrary bytes to the blob loader.
//!
//! Checks that `BlobView::parse` never panics, and that whatever it accepts is safe
//! to hand to a backend without further checks: every node link and leaf range is
//! in range, the tree walk from the root terminates within the traversal stack, and
//! every primitive's material id and source index is in range; the light table is
//! safe to sample: every alias in range, every sphere light names a sphere whose
//! `prim_light_pdfs` entry is its pdf, and no light of pdf 0 can be picked; the
//! environment's texels and alias tables are sized from the header, every alias in its
//! table and no cell of density 0 picked. Each input is parsed twice: as it is, and
//! with the header's payload checksum recomputed, so that mutations of the payload
//! reach the structural checks instead of stopping at the checksum.

#![no_main]

use libfuzzer_sys::fuzz_target;
use scene_compiler::blob::layout::{
    BlobHeader, HEADER_LEN, LIGHT_DIRECTIONAL, LIGHT_ENVIRONMENT, LIGHT_POINT, LIGHT_AREA, PRIM_INDEX_MASK, PRIM_KIND_MASK,
    PrimKind, is_leaf, leaf_prims, prim_parts,
};
use scene_compiler::limits::MAX_BVH_DEPTH;
use scene_compiler::{AlignedBytes, BlobView};

fuzz_target!(|data: &[u8]| {
    // The loader requires 16-byte-aligned storage, as `AlignedBytes::read_file` gives.
    let mut bytes = AlignedBytes::copy_from(data);
    check(&bytes);
    if bytes.len() >= HEADER_LEN {
        let crc = crc32fast::hash(&bytes[HEADER_LEN..]).to_le_bytes();
        let at = std::mem::offset_of!(BlobHeader, payload_crc32);
        bytes.as_mut_slice()[at..at + 4].copy_from_slice(&crc);
        check(&bytes);
    }
});

/// Parses `bytes` and, if the loader accepts them, proves everything in range.
fn check(bytes: &[u8]) {
    let Ok(view) = BlobView::parse(bytes) else { return };
    let prims = usize::try_from(view.header.prim_total()).expect("validated totals fit");
    let (materials, nodes) = (view.materials.len(), view.node_links.len());
    assert!(prims > 0, "an accepted blob has primitives");
    assert_eq!(view.node_boxes.len(), nodes);
    assert_eq!(view.prim_materials.len(), prims);
    assert_eq!(view.prim_sources.len(), prims);
    assert!(view.prim_materials.iter().all(|&m| (m as usize) < materials), "material id out of range");
    check_lights(&view, prims);
    check_environment(&view);

    // Walk every link from the root, as a kernel would, counting visits so that a
    // cycle fails here instead of looping.
    let mut covered = vec![false; prims];
    let mut stack = vec![(view.root(), 1u32)];
    let mut visits = 0;
    while let Some((link, depth)) = stack.pop() {
        assert!(depth <= MAX_BVH_DEPTH, "deeper than the traversal stack");
        if is_leaf(link) {
            let (first, count) = leaf_prims(link);
            let (kind, index) = prim_parts(first);
            let kind = PrimKind::from_u32(kind).expect("a leaf of a known kind");
            let end = index.checked_add(count).expect("leaf range overflows");
            let kind_count = view.header.prim_count(kind);
            assert!(end <= kind_count, "leaf {index}+{count} outside 0..{kind_count} of {}", kind.name());
            let slot = view.prim_slot(first);
            for covered in &mut covered[slot..slot + count as usize] {
                assert!(!std::mem::replace(covered, true), "a primitive in two leaves");
            }
        } else {
            visits += 1;
            assert!(visits <= nodes, "the tree walk visits more nodes than exist");
            assert!((link as usize) < nodes, "node {link} out of 0..{nodes}");
            let links = view.node_links[link as usize];
            stack.push((links.left, depth + 1));
            stack.push((links.right, depth + 1));
        }
    }
    assert_eq!(visits, nodes, "every node is reachable from the root");
    assert!(covered.iter().all(|&c| c), "every primitive is in a leaf");
}

/// The light table: what a kernel reads when it picks and samples a light, or when a
/// BSDF ray hits an emitter.
fn check_lights(view: &BlobView<'_>, prims: usize) {
    let n = view.lights.len();
    assert_eq!(view.header.light_count as usize, n);
    assert_eq!(view.prim_light_pdfs.len(), prims);
    assert!(view.prim_light_pdfs.iter().all(|p| (0.0..=1.0).contains(p)), "prim pdf outside [0, 1]");
    let mut is_light = vec![false; prims];
    let mut sum = 0.0f64;
    for l in view.lights {
        let mut floats = l.vector_cos.iter().chain(&l.radiance_pdf).chain([&l.alias_threshold]);
        assert!(floats.all(|x| x.is_finite()), "non-finite light value");
        let pdf = l.radiance_pdf[3];
        assert!((0.0..=1.0).contains(&pdf) && (0.0..=1.0).contains(&l.alias_threshold));
        assert!((l.alias as usize) < n, "alias {} out of 0..{n}", l.alias);
        match l.kind {
            LIGHT_POINT | LIGHT_DIRECTIONAL => {}
            LIGHT_ENVIRONMENT => assert!(view.header.env_size[0] > 0, "an environment light without one"),
            LIGHT_AREA => {
                assert_eq!(
                    l.prim & !(PRIM_KIND_MASK | PRIM_INDEX_MASK),
                    0,
                    "stray bits in an area light's prim"
                );
                let (kind, index) = prim_parts(l.prim);
                let kind = PrimKind::from_u32(kind).expect("an area light names a known kind");
                assert!(index < view.header.prim_count(kind), "an area light names a primitive of the blob");
                let slot = view.prim_slot(l.prim);
                assert!(!std::mem::replace(&mut is_light[slot], true), "two lights are one primitive");
                assert_eq!(view.prim_light_pdfs[slot], pdf, "prim_light_pdfs disagrees with the light");
            }
            kind => panic!("unknown light kind {kind} accepted"),
        }
        sum += f64::from(pdf);
    }
    for (slot, &p) in view.prim_light_pdfs.iter().enumerate() {
        assert!(is_light[slot] || p == 0.0, "primitive {slot} has a pick pdf but is no light");
    }
    if sum == 0.0 {
        return; // No light has power: renderers pick none.
    }
    assert!((sum - 1.0).abs() <= 1e-3, "pdfs sum to {sum}");
    // Picking never lands on a light of pdf 0 (a kernel would divide by it).
    for (i, l) in view.lights.iter().enumerate() {
        if l.alias_threshold > 0.0 {
            assert!(l.radiance_pdf[3] > 0.0, "cell {i} keeps a light of pdf 0");
        }
        if l.alias_threshold < 1.0 {
            assert!(view.lights[l.alias as usize].radiance_pdf[3] > 0.0, "cell {i} aliases a light of pdf 0");
        }
    }
}

/// The environment: what `env_radiance`, `env_pdf` and `env_sample` read.
fn check_environment(view: &BlobView<'_>) {
    let [w, h, ..] = view.header.env_size.map(|v| v as usize);
    assert_eq!(view.env_texels.len(), w * h);
    if w == 0 {
        assert_eq!(h, 0);
        assert!(view.env_sampling.is_empty());
        return;
    }
    assert_eq!(view.env_sampling.len(), h + w * h);
    assert!(view.env_texels.iter().all(|t| t.rgb_pdf.iter().all(|x| x.is_finite() && *x >= 0.0)));
    for (i, a) in view.env_sampling.iter().enumerate() {
        let n = if i < h { h } else { w };
        assert!((a.alias as usize) < n && (0.0..=1.0).contains(&a.threshold), "env alias cell {i}");
    }
    if view.env_light_pdf() == 0.0 {
        return; // Never sampled.
    }
    // A picked cell has a positive density (a kernel divides by it).
    let row_density = |j: usize| view.env_texels[j * w..(j + 1) * w].iter().any(|t| t.rgb_pdf[3] > 0.0);
    for (j, a) in view.env_sampling[..h].iter().enumerate() {
        assert!(a.threshold == 0.0 || row_density(j), "row {j} kept without density");
        assert!(a.threshold == 1.0 || row_density(a.alias as usize), "row {j} aliases a dark row");
    }
    for j in (0..h).filter(|&j| row_density(j)) {
        for (i, a) in view.env_sampling[h + j * w..h + (j + 1) * w].iter().enumerate() {
            let density = |i: usize| view.env_texels[j * w + i].rgb_pdf[3];
            assert!(a.threshold == 0.0 || density(i) > 0.0, "cell ({i}, {j}) kept without density");
            assert!(a.threshold == 1.0 || density(a.alias as usize) > 0.0, "cell ({i}, {j}) aliases a dark cell");
        }
    }
}
