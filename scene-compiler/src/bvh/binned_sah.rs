//! The binned SAH builder: primitives' boxes in, a plain depth-first [`Bvh`] out.
//!
//! Top-down: each node bins its primitives' centroids, takes the cheapest split by
//! the surface area heuristic or becomes a leaf (`binned_sah/split.rs`), and
//! partitions its range of a compact ref array in place, so the whole build
//! allocates the ref array, one scratch per task and the output.
//!
//! Large subtrees are built by rayon tasks. The output is identical on any number of
//! threads: a task's range of refs and the decisions inside it depend only on the
//! input, and task outputs are joined in tree order (`binned_sah/assemble.rs`).
//!
//! Not here: other layouts of the tree (`veb.rs`) and measuring it (`stats.rs`).

mod assemble;
mod prim_ref;
mod split;

use rayon::prelude::*;

use self::assemble::Subtree;
use self::prim_ref::{Extent, PrimRef};
use self::split::{Scratch, Settings, split};
use super::{Aabb, BuildOptions, Bvh, Node, NodeKind};

/// Subtrees with at least this many primitives build their two children in parallel;
/// smaller ones are one sequential task (a join costs about a microsecond, a subtree
/// of 8K primitives about a millisecond).
const PAR_SUBTREE_MIN_PRIMS: usize = 1 << 13;
/// Parallel recursion stops at this depth even on lopsided splits, which bounds the
/// stack; sequential tasks use an explicit stack and have no depth limit.
const MAX_PAR_DEPTH: u32 = 32;
/// More bins than this no longer improves the SAH cost measurably, only the time.
const MAX_BINS: u32 = 256;

/// Builds a BVH over `prims` by binned SAH. Deterministic: the same input and options
/// give the same tree on any number of threads.
///
/// `opts.bins` is clamped to `2..=256` and `opts.max_leaf_size` raised to at least 1.
/// An empty `prims` gives a single empty leaf with [`Aabb::EMPTY`] bounds (callers
/// always have at least one sphere; the blob loader would reject those bounds).
///
/// # Panics
///
/// If `prims` has `2^31` or more entries: node indices are `u32` and a tree has up to
/// `2n - 1` nodes.
pub fn build(prims: &[Aabb], opts: &BuildOptions) -> Bvh {
    assert!(prims.len() < 1 << 31, "a BVH holds fewer than 2^31 primitives, got {}", prims.len());
    let settings = Settings {
        bins: opts.bins.clamp(2, MAX_BINS) as usize,
        max_leaf_size: opts.max_leaf_size.max(1) as usize,
    };
    if prims.is_empty() {
        let empty = Node { bounds: Aabb::EMPTY, kind: NodeKind::Leaf { first: 0, count: 0 } };
        return Bvh { nodes: vec![empty], prim_order: Vec::new() };
    }
    let mut refs: Vec<PrimRef> =
        prims.par_iter().enumerate().map(|(i, aabb)| PrimRef::new(i as u32, aabb)).collect();
    // min/max are exact, so the reduction order cannot change the result.
    let extent = refs.par_chunks(1 << 14).map(Extent::of).reduce(|| Extent::EMPTY, Extent::union);
    let nodes = build_subtree(&mut refs, 0, extent, &settings, 0).flatten();
    let prim_order = refs.par_iter().map(|r| r.index).collect();
    Bvh { nodes, prim_order }
}

/// Builds the subtree over `refs`, which start at `first` in the final prim order.
fn build_subtree(
    refs: &mut [PrimRef],
    first: u32,
    extent: Extent,
    settings: &Settings,
    depth: u32,
) -> Subtree {
    if refs.len() < PAR_SUBTREE_MIN_PRIMS || depth >= MAX_PAR_DEPTH {
        return Subtree::Flat(build_sequential(refs, first, extent, settings));
    }
    let Some(halves) = split(refs, &extent, settings, &mut Scratch::new(settings)) else {
        return Subtree::Flat(vec![leaf(&extent, first, refs.len())]);
    };
    let (left_refs, right_refs) = refs.split_at_mut(halves.mid);
    let right_first = first + halves.mid as u32;
    let (left, right) = rayon::join(
        || build_subtree(left_refs, first, halves.left, settings, depth + 1),
        || build_subtree(right_refs, right_first, halves.right, settings, depth + 1),
    );
    Subtree::Joined { bounds: extent.bounds, children: Box::new([left, right]) }
}

/// A node still to be built by [`build_sequential`].
struct Task {
    start: usize,
    end: usize,
    extent: Extent,
    /// The inner node whose right child this is; its link is set when the task starts.
    right_of: Option<usize>,
}

/// Builds the subtree over `refs` in one thread, in depth-first order with indices
/// from 0. An explicit stack instead of recursion: lopsided SAH splits can make a
/// tree far deeper than `log2(n)`.
fn build_sequential(refs: &mut [PrimRef], first: u32, extent: Extent, settings: &Settings) -> Vec<Node> {
    // A tree over n primitives has at most 2n - 1 nodes; SAH on sparse scenes comes
    // close (mostly single-primitive leaves), so reserve that and never reallocate.
    let mut nodes: Vec<Node> = Vec::with_capacity(2 * refs.len());
    let mut scratch = Scratch::new(settings);
    let mut stack = vec![Task { start: 0, end: refs.len(), extent, right_of: None }];
    while let Some(task) = stack.pop() {
        let index = nodes.len();
        if let Some(parent) = task.right_of
            && let NodeKind::Inner { right, .. } = &mut nodes[parent].kind
        {
            *right = index as u32;
        }
        let range = &mut refs[task.start..task.end];
        let Some(halves) = split(range, &task.extent, settings, &mut scratch) else {
            nodes.push(leaf(&task.extent, first + task.start as u32, range.len()));
            continue;
        };
        // The left child is built next, so it lands at `index + 1`; the right link is
        // filled in when its task is popped, after the whole left subtree.
        nodes.push(Node {
            bounds: task.extent.bounds.to_aabb(),
            kind: NodeKind::Inner { left: index as u32 + 1, right: 0 },
        });
        let mid = task.start + halves.mid;
        stack.push(Task { start: mid, end: task.end, extent: halves.right, right_of: Some(index) });
        stack.push(Task { start: task.start, end: mid, extent: halves.left, right_of: None });
    }
    nodes
}

/// A leaf over the refs at `first..first + count` of the final prim order.
fn leaf(extent: &Extent, first: u32, count: usize) -> Node {
    Node { bounds: extent.bounds.to_aabb(), kind: NodeKind::Leaf { first, count: count as u32 } }
}
