//! Bounding volume hierarchy: one builder producing one plain tree, and layout
//! conversions of that tree (as tinybvh does it: every layout is a permutation of
//! the same tree, so layouts change memory order, never the hits or the SAH cost).
//!
//! - [`build`] (binned SAH, `binned_sah.rs`) returns a [`Bvh`] in depth-first order:
//!   node 0 is the root and an inner node's left child directly follows it.
//! - [`veb::reorder`] permutes the nodes into van Emde Boas order; hits are unchanged.
//! - [`stats`] measures a tree (node count, depth, leaf histogram, SAH cost).
//! - [`wide::collapse`] turns the blob's binary tree into compressed 8-wide nodes
//!   (quantized child boxes) for the GPU's traversal; same leaves, same hits.
//!   [`wide::collapse_levels`] does it for the world's tree and every instanced mesh's,
//!   each placed at its binary root's index (what the CUDA backend uploads).
//!
//! Not here: the blob encoding of nodes (that is `blob::write`) and traversal
//! (kernels and the CPU backend).

mod aabb;
mod binned_sah;
mod refit;
mod stats;
pub mod veb;
pub mod wide;

pub use aabb::Aabb;
pub use binned_sah::{build, build_kinds};
pub use refit::refit;
pub use stats::{BvhStats, stats};

use rayon::prelude::*;

use crate::chunk_counts::{CHUNK, chunk_starts};
use crate::scene::BottomLevel;

/// Per node of `tree`, its index among the inner nodes in node order (the blob's node
/// records are the inner nodes'); 0 for a leaf. On every core: a 21M-triangle tree has
/// 24M nodes.
pub(crate) fn inner_indices(tree: &Bvh) -> Vec<u32> {
    let is_inner = |node: &Node| matches!(node.kind, NodeKind::Inner { .. });
    let starts = chunk_starts(&tree.nodes, is_inner);
    let mut inner = vec![0u32; tree.nodes.len()];
    inner.par_chunks_mut(CHUNK).zip(tree.nodes.par_chunks(CHUNK)).zip(starts).for_each(
        |((out, nodes), mut k)| {
            for (slot, node) in out.iter_mut().zip(nodes) {
                if is_inner(node) {
                    *slot = k;
                    k += 1;
                }
            }
        },
    );
    inner
}

/// Builder options; the defaults are what `scene-compiler build` uses.
///
/// Not an option: the depth. Every tree [`build`] returns is at most
/// `blob::layout::MAX_BVH_DEPTH` (64) levels deep, the most the blob loader accepts
/// (the kernels' traversal stack). Nodes that come close to that limit are split at
/// the object median instead of by SAH, which bounds the levels below them by
/// `ceil(log2(n))`; the proof is at `needs_median_split` in `binned_sah.rs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// SAH bins per axis and split (`--bins`); 16 is the usual quality/speed point.
    pub bins: u32,
    /// No leaf holds more primitives than this, even when SAH would prefer it.
    pub max_leaf_size: u32,
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self { bins: 16, max_leaf_size: 4 }
    }
}

/// Cost of one traversal step in the SAH (relative units).
pub const C_TRAV: f32 = 1.0;
/// Cost of one primitive intersection in the SAH (relative units).
pub const C_INT: f32 = 1.0;
/// The cost of a primitive intersection the builder uses for trees of at most
/// [`SMALL_TREE_PRIMS`] primitives: smaller leaves, more nodes. A tree that small stays
/// in the GPU's caches, where the test is what costs (the watertight triangle test is
/// two to three node visits' instructions); in a big one the extra nodes are memory
/// traffic. H100 (docs/performance.md, "Leaf sizes for triangles"): priced at 2, the
/// 400 instanced trees of 20k triangles and the meshes asset rendered 4 % faster, and
/// the million instances of a 1.31M-triangle tree 11 % slower. [`stats`] reports the
/// SAH cost at [`C_INT`] for every tree.
pub const C_INT_SMALL_TREE: f32 = 2.0;
/// The most primitives a tree built at [`C_INT_SMALL_TREE`] has (measured at 20k, which
/// gains, and 1.31M, which loses; not in between).
pub const SMALL_TREE_PRIMS: usize = 1 << 16;

/// A node of the plain tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node {
    pub bounds: Aabb,
    pub kind: NodeKind,
}

/// Inner nodes link two children; leaves own a range of `Bvh::prim_order`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Inner { left: u32, right: u32 },
    Leaf { first: u32, count: u32 },
}

/// A built tree. Leaves reference `prim_order[first..first + count]`, which holds
/// indices into the primitive array that was built over.
#[derive(Clone, Debug, PartialEq)]
pub struct Bvh {
    pub nodes: Vec<Node>,
    pub prim_order: Vec<u32>,
}

/// A bottom level's tree (docs/architecture.md, "Two levels"): built over an instanced
/// mesh's triangles in its own space, which it keeps so that a later compile can tell
/// whether the same mesh came back and reuse it.
#[derive(Debug, PartialEq)]
pub struct BottomTree {
    pub level: BottomLevel,
    pub bvh: Bvh,
}
