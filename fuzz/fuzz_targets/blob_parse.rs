//! Feeds arbitrary bytes to the blob loader.
//!
//! Checks that `BlobView::parse` never panics, and that whatever it accepts is safe
//! to hand to a backend without further checks: every node link and leaf range is
//! in range, the tree walk from the root terminates within the traversal stack, and
//! every primitive's material id and source index is in range. Each input is parsed twice: as it is, and
//! with the header's payload checksum recomputed, so that mutations of the payload
//! reach the structural checks instead of stopping at the checksum.

#![no_main]

use libfuzzer_sys::fuzz_target;
use scene_compiler::blob::layout::{BlobHeader, HEADER_LEN, PrimKind, is_leaf, leaf_prims, prim_parts};
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
