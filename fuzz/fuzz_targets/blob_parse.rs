//! Feeds arbitrary bytes to the blob loader.
//!
//! Checks that `BlobView::parse` never panics, and that whatever it accepts is safe
//! to hand to a backend without further checks: every node link and leaf range is
//! in range, the tree walk from the root terminates within the traversal stack, and
//! every sphere's material id is in range. Each input is parsed twice: as it is, and
//! with the header's payload checksum recomputed, so that mutations of the payload
//! reach the structural checks instead of stopping at the checksum.

#![no_main]

use libfuzzer_sys::fuzz_target;
use scene_compiler::blob::layout::{BlobHeader, HEADER_LEN, LEAF_FLAG, MAX_BVH_DEPTH};
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
    let (spheres, materials, nodes) = (view.spheres.len(), view.materials.len(), view.node_links.len());
    assert!(spheres > 0 && nodes > 0, "an accepted blob has a root and spheres");
    assert_eq!(view.node_bounds.len(), nodes);
    assert_eq!(view.sphere_materials.len(), spheres);
    assert_eq!(view.sphere_sources.len(), spheres);
    assert!(view.sphere_materials.iter().all(|&m| (m as usize) < materials), "material id out of range");
    assert!(view.sphere_sources.iter().all(|&s| (s as usize) < spheres), "source index out of range");

    // Walk every link from the root, as a kernel would, counting visits so that a
    // cycle fails here instead of looping.
    let mut covered = vec![false; spheres];
    let mut stack = vec![(0u32, 1u32)];
    let mut visits = 0;
    while let Some((node, depth)) = stack.pop() {
        visits += 1;
        assert!(visits <= nodes, "the tree walk visits more nodes than exist");
        assert!(depth <= MAX_BVH_DEPTH, "deeper than the traversal stack");
        let links = view.node_links[node as usize];
        if links.right_or_count & LEAF_FLAG != 0 {
            let first = links.left_or_first as usize;
            let count = (links.right_or_count & !LEAF_FLAG) as usize;
            let end = first.checked_add(count).expect("leaf range overflows");
            assert!(count > 0 && end <= spheres, "leaf range {first}+{count} outside 0..{spheres}");
            for slot in &mut covered[first..end] {
                assert!(!std::mem::replace(slot, true), "a sphere in two leaves");
            }
        } else {
            for child in [links.left_or_first, links.right_or_count] {
                assert!((child as usize) < nodes, "child {child} of {node} out of 0..{nodes}");
                stack.push((child, depth + 1));
            }
        }
    }
    assert_eq!(visits, nodes, "every node is reachable from the root");
    assert!(covered.iter().all(|&c| c), "every sphere is in a leaf");
}
