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
//! Depth: no tree is deeper than [`MAX_DEPTH`] levels, the blob loader's limit (the
//! kernels' traversal stack). SAH alone has no such bound: on scenes of nested size
//! classes each binned split can only peel off the outermost class, and the tree
//! becomes a chain. A node close to the limit is therefore split at the object median
//! instead ([`needs_median_split`] proves the bound); trees that never come near it
//! are exactly the SAH trees.
//!
//! Not here: other layouts of the tree (`veb.rs`) and measuring it (`stats.rs`).

mod assemble;
mod prim_ref;
mod split;

use rayon::prelude::*;

use self::assemble::Subtree;
use self::prim_ref::{Extent, MAX_INDEX, PrimRef};
use self::split::{KIND_STARTS, ONE_KIND, Scratch, Settings, Split, split, split_median};
use super::{Aabb, BuildOptions, Bvh, C_INT, C_INT_SMALL_TREE, Node, NodeKind, SMALL_TREE_PRIMS};
use crate::limits::{MAX_BVH_DEPTH, MAX_LEAF_SIZE};

/// Subtrees with at least this many primitives build their two children in parallel;
/// smaller ones are one sequential task (a join costs about a microsecond, a subtree
/// of 8K primitives about a millisecond).
const PAR_SUBTREE_MIN_PRIMS: usize = 1 << 13;
/// Parallel recursion stops at this depth even on lopsided splits, which bounds the
/// stack; sequential tasks use an explicit stack and go on down to [`MAX_DEPTH`].
const MAX_PAR_DEPTH: u32 = 32;
/// More bins than this no longer improves the SAH cost measurably, only the time.
const MAX_BINS: u32 = 256;
/// The deepest tree [`build`] returns, in nodes on a root-to-leaf path (a lone root
/// leaf has depth 1): the blob loader refuses deeper trees, because the kernels'
/// traversal stack has [`MAX_BVH_DEPTH`] entries.
const MAX_DEPTH: u32 = MAX_BVH_DEPTH;

/// Builds a BVH over `prims` by binned SAH. Deterministic: the same input and options
/// give the same tree on any number of threads. The tree is at most [`MAX_DEPTH`]
/// (64) levels deep, whatever the scene, so its blob always loads. A tree of at most
/// [`SMALL_TREE_PRIMS`] primitives prices a primitive test at [`C_INT_SMALL_TREE`]
/// node steps, a bigger one at [`C_INT`] (the constants say why).
///
/// `opts.bins` is clamped to `2..=256` and `opts.max_leaf_size` to `1..=32` (the
/// largest leaf a blob link encodes).
/// An empty `prims` gives a single empty leaf with [`Aabb::EMPTY`] bounds (callers
/// always have at least one sphere; the blob loader would reject those bounds).
///
/// # Panics
///
/// If `prims` has `2^30` or more entries (the most a `PrimRef` numbers; blobs hold far
/// fewer, `limits::MAX_PRIMS_PER_KIND` per kind).
pub fn build(prims: &[Aabb], opts: &BuildOptions) -> Bvh {
    build_kinds(prims, &[], u32::MAX, opts)
}

/// [`build`] over primitives of several kinds, numbered kind after kind: `kind_starts`
/// lists where each kind after the first starts (ascending, at most three). No leaf
/// mixes kinds (a blob leaf link names one): a leaf that would is split by kind
/// instead, which adds up to `kind_starts.len()` levels under it, so the SAH tree
/// above is kept that much shallower and the whole still fits [`MAX_DEPTH`].
///
/// Primitives numbered from `alone_from` on (the instances, the last kind; `u32::MAX`
/// for none) each get a leaf of their own, whatever the SAH says: a ray that meets a
/// leaf enters each of its instances (a walk of their bottom levels, from a transform of
/// the ray), where a leaf of one is culled by its own box in the parent node.
///
/// # Panics
///
/// As [`build`], and if `kind_starts` has more than three entries.
pub fn build_kinds(prims: &[Aabb], kind_starts: &[u32], alone_from: u32, opts: &BuildOptions) -> Bvh {
    assert!(kind_starts.len() <= KIND_STARTS, "at most {} primitive kinds", KIND_STARTS + 1);
    let mut starts = ONE_KIND;
    starts[..kind_starts.len()].copy_from_slice(kind_starts);
    let settings = Settings {
        bins: opts.bins.clamp(2, MAX_BINS) as usize,
        max_leaf_size: opts.max_leaf_size.clamp(1, MAX_LEAF_SIZE) as usize,
        max_depth: MAX_DEPTH - kind_starts.len() as u32,
        kind_starts: starts,
        alone_from,
        test_cost: if prims.len() <= SMALL_TREE_PRIMS { C_INT_SMALL_TREE } else { C_INT },
    };
    build_with(prims, &settings)
}

/// [`build`] with any depth limit (tests use others than [`MAX_DEPTH`]).
fn build_with(prims: &[Aabb], settings: &Settings) -> Bvh {
    assert!(
        prims.len() <= MAX_INDEX as usize + 1,
        "a BVH holds fewer than 2^30 primitives, got {}",
        prims.len()
    );
    // The root must be safe in the sense of `needs_median_split`: `1 + L(n) <= max_depth`
    // (1 + 30 <= 64 for `build`).
    assert!(ceil_log2(prims.len()) < settings.max_depth, "no tree of {} primitives fits", prims.len());
    if prims.is_empty() {
        let empty = Node { bounds: Aabb::EMPTY, kind: NodeKind::Leaf { first: 0, count: 0 } };
        return Bvh { nodes: vec![empty], prim_order: Vec::new() };
    }
    if prims.len() < PAR_SUBTREE_MIN_PRIMS {
        // The whole build is one sequential task: no rayon at all, so a small scene
        // pays neither the pool's start (its first use spawns the threads) nor the
        // wake-ups of three parallel passes (tens of microseconds each on 2 cores).
        let mut refs: Vec<PrimRef> =
            prims.iter().enumerate().map(|(i, aabb)| PrimRef::new(i as u32, aabb)).collect();
        let extent = Extent::of(&refs);
        let nodes = build_sequential(&mut refs, 0, extent, settings, 0);
        let prim_order = refs.iter().map(|r| r.index()).collect();
        return Bvh { nodes, prim_order };
    }
    let mut refs: Vec<PrimRef> =
        prims.par_iter().enumerate().map(|(i, aabb)| PrimRef::new(i as u32, aabb)).collect();
    // min/max are exact, so the reduction order cannot change the result.
    let extent = refs.par_chunks(1 << 14).map(Extent::of).reduce(|| Extent::EMPTY, Extent::union);
    let nodes = build_subtree(&mut refs, 0, extent, settings, 0).flatten();
    let prim_order = refs.par_iter().map(|r| r.index()).collect();
    Bvh { nodes, prim_order }
}

/// Whether the node at `depth` (edges from the root; the root is at 0) over `n`
/// primitives must be split at the object median instead of by SAH, so that the tree
/// stays within `max_depth` levels. True when `depth + 2 + ceil(log2(n)) > max_depth`.
///
/// Why that bounds the depth. Let `L(n) = ceil(log2(n))`. Median splits alone build
/// at most `1 + L(n)` levels over `n` primitives: one leaf for `n = 1`, and for
/// `n >= 2` children of at most `ceil(n / 2)` primitives, with `L(ceil(n / 2)) =
/// L(n) - 1`. Call a node *safe* when `depth + 1 + L(n) <= max_depth`, i.e. median
/// splits from it would fit. The root is safe (`1 + L(n) <= 31 <= 64` for the
/// `n < 2^30` that [`build`] accepts). Every child of a safe node is safe:
/// - an SAH split (taken only when `depth + 2 + L(n) <= max_depth`) gives children
///   at `depth + 1` of at most `n - 1` primitives: `depth + 2 + L(n - 1) <= max_depth`;
/// - a median split gives children of at most `ceil(n / 2)` primitives:
///   `depth + 2 + L(n) - 1 <= max_depth` because the parent is safe.
///
/// So every node is safe, and a safe leaf is on level `depth + 1 <= max_depth`.
/// The rule changes nothing in a tree whose nodes all keep that much room: in
/// practice every tree of an ordinary scene (random scenes of up to 40K spheres in
/// the tests below build the same tree with and without the limit).
fn needs_median_split(depth: u32, n: usize, settings: &Settings) -> bool {
    depth + 2 + ceil_log2(n) > settings.max_depth
}

/// `ceil(log2(n))` for `n >= 1` (and 0 for 0).
fn ceil_log2(n: usize) -> u32 {
    n.max(1).next_power_of_two().trailing_zeros()
}

/// Decides the node over `refs` at `depth`: SAH's choice, or the object median near
/// the depth limit. `None` makes it a leaf.
fn decide(
    refs: &mut [PrimRef],
    extent: &Extent,
    settings: &Settings,
    scratch: &mut Scratch,
    depth: u32,
) -> Option<Split> {
    if needs_median_split(depth, refs.len(), settings) {
        split_median(refs, extent, settings)
    } else {
        split(refs, extent, settings, scratch)
    }
}

/// Builds the subtree over `refs`, which start at `first` in the final prim order;
/// its root is at `depth` edges from the tree's root.
fn build_subtree(
    refs: &mut [PrimRef],
    first: u32,
    extent: Extent,
    settings: &Settings,
    depth: u32,
) -> Subtree {
    if refs.len() < PAR_SUBTREE_MIN_PRIMS || depth >= MAX_PAR_DEPTH {
        return Subtree::Flat(build_sequential(refs, first, extent, settings, depth));
    }
    let Some(halves) = decide(refs, &extent, settings, &mut Scratch::new(settings), depth) else {
        let mut nodes = Vec::new();
        push_leaf(&mut nodes, refs, first, &extent, settings);
        return Subtree::Flat(nodes);
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
    /// Edges from the tree's root (not the task's).
    depth: u32,
    /// The inner node whose right child this is; its link is set when the task starts.
    right_of: Option<usize>,
}

/// Builds the subtree over `refs`, whose root is at `depth`, in one thread, in
/// depth-first order with indices from 0. An explicit stack instead of recursion:
/// lopsided SAH splits can make a tree far deeper than `log2(n)` (up to [`MAX_DEPTH`]).
fn build_sequential(
    refs: &mut [PrimRef],
    first: u32,
    extent: Extent,
    settings: &Settings,
    depth: u32,
) -> Vec<Node> {
    // A tree over n primitives has at most 2n - 1 nodes; SAH on sparse scenes comes
    // close (mostly single-primitive leaves), so reserve that and never reallocate.
    let mut nodes: Vec<Node> = Vec::with_capacity(2 * refs.len());
    let mut scratch = Scratch::new(settings);
    let mut stack = vec![Task { start: 0, end: refs.len(), extent, depth, right_of: None }];
    while let Some(task) = stack.pop() {
        let index = nodes.len();
        if let Some(parent) = task.right_of
            && let NodeKind::Inner { right, .. } = &mut nodes[parent].kind
        {
            *right = index as u32;
        }
        let range = &mut refs[task.start..task.end];
        let Some(halves) = decide(range, &task.extent, settings, &mut scratch, task.depth) else {
            push_leaf(&mut nodes, range, first + task.start as u32, &task.extent, settings);
            continue;
        };
        // The left child is built next, so it lands at `index + 1`; the right link is
        // filled in when its task is popped, after the whole left subtree.
        nodes.push(Node {
            bounds: task.extent.bounds.to_aabb(),
            kind: NodeKind::Inner { left: index as u32 + 1, right: 0 },
        });
        let mid = task.start + halves.mid;
        let depth = task.depth + 1;
        stack.push(Task { start: mid, end: task.end, extent: halves.right, depth, right_of: Some(index) });
        stack.push(Task { start: task.start, end: mid, extent: halves.left, depth, right_of: None });
    }
    nodes
}

/// Appends the leaf over `refs` (at `first..` of the final prim order), or, when they
/// mix primitive kinds, an inner node whose left child is a leaf of the first kind and
/// whose right child holds the rest, split the same way: a chain of at most
/// `KIND_STARTS` extra levels (see [`build_kinds`]). Indices are local to `nodes`.
fn push_leaf(nodes: &mut Vec<Node>, refs: &mut [PrimRef], first: u32, extent: &Extent, settings: &Settings) {
    let kind = settings.kind_of(refs[0].index());
    if refs.iter().all(|r| settings.kind_of(r.index()) == kind) {
        nodes.push(leaf(extent, first, refs.len()));
        return;
    }
    // Stable, so a kind's primitives keep their order; leaves hold at most 16.
    refs.sort_by_key(|r| settings.kind_of(r.index()));
    let mid =
        refs.iter().take_while(|r| settings.kind_of(r.index()) == settings.kind_of(refs[0].index())).count();
    let index = nodes.len();
    nodes.push(Node {
        bounds: extent.bounds.to_aabb(),
        kind: NodeKind::Inner { left: index as u32 + 1, right: 0 },
    });
    let (left, right) = refs.split_at_mut(mid);
    nodes.push(leaf(&Extent::of(left), first, left.len()));
    let right_index = nodes.len() as u32;
    if let NodeKind::Inner { right, .. } = &mut nodes[index].kind {
        *right = right_index;
    }
    push_leaf(nodes, right, first + mid as u32, &Extent::of(right), settings);
}

/// A leaf over the refs at `first..first + count` of the final prim order.
fn leaf(extent: &Extent, first: u32, count: usize) -> Node {
    Node { bounds: extent.bounds.to_aabb(), kind: NodeKind::Leaf { first, count: count as u32 } }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::bvh::stats;
    use crate::rng::SplitMix64;

    fn settings(max_leaf_size: usize, max_depth: u32) -> Settings {
        Settings {
            bins: 16,
            max_leaf_size,
            max_depth,
            kind_starts: ONE_KIND,
            alone_from: u32::MAX,
            test_cost: C_INT,
        }
    }

    /// Centers uniform in a cube of side `side`, radii in `[0.1, 1)`.
    fn random_spheres(n: usize, side: f32, seed: u64) -> Vec<Aabb> {
        let mut rng = SplitMix64(seed);
        (0..n)
            .map(|_| {
                let center = rng.next_vec3() * side;
                Aabb::of_sphere(center, 0.1 + 0.9 * rng.next_f32())
            })
            .collect()
    }

    /// 60 shells of 5 spheres around the origin, each shell and its spheres 4x smaller
    /// than the previous: binned SAH peels one shell per level or so.
    fn nested_shells() -> Vec<Aabb> {
        let mut prims = random_spheres(300, 2.0, 11);
        for (i, prim) in prims.iter_mut().enumerate() {
            let scale = 0.25f32.powi(i as i32 / 5);
            let center = (prim.center() - Vec3::ONE) * 100.0 * scale;
            *prim = Aabb::of_sphere(center, 0.5 * scale);
            assert!(prim.max.x > prim.min.x, "sphere {i} underflowed");
        }
        prims
    }

    #[test]
    fn small_trees_price_a_test_higher_and_get_smaller_leaves() {
        // The same primitives, one more past the threshold: the small tree splits where
        // the big one keeps a leaf of two or three.
        let prims = random_spheres(SMALL_TREE_PRIMS + 1, 60.0, 5);
        let small = build(&prims[..SMALL_TREE_PRIMS], &BuildOptions::default());
        let big = build(&prims, &BuildOptions::default());
        let per_leaf = |tree: &Bvh| tree.prim_order.len() as f64 / stats(tree).leaf_count as f64;
        let (small_mean, big_mean) = (per_leaf(&small), per_leaf(&big));
        assert!(
            small_mean < 1.1 && big_mean > 1.2,
            "primitives a leaf: small tree {small_mean}, big {big_mean}"
        );
        // Both hold every primitive once.
        for tree in [&small, &big] {
            let mut order = tree.prim_order.clone();
            order.sort_unstable();
            assert!(order.iter().enumerate().all(|(i, &p)| p as usize == i));
        }
    }

    #[test]
    fn ceil_log2_of_small_numbers() {
        let expected =
            [(1, 0), (2, 1), (3, 2), (4, 2), (5, 3), (8, 3), (9, 4), (1 << 30, 30), ((1 << 30) + 1, 31)];
        for (n, log) in expected {
            assert_eq!(ceil_log2(n), log, "ceil(log2({n}))");
        }
    }

    #[test]
    fn ordinary_scenes_get_the_unbounded_sah_tree() {
        let scenes = [
            random_spheres(10_000, 1000.0, 1),
            random_spheres(3_000, 20.0, 2),
            random_spheres(500, 1.0, 3),
            // Enough for parallel subtrees at the top.
            random_spheres(40_000, 1000.0, 4),
        ];
        for (i, prims) in scenes.iter().enumerate() {
            for max_leaf in [1, 4] {
                let bounded = build_with(prims, &settings(max_leaf, MAX_DEPTH));
                let unbounded = build_with(prims, &settings(max_leaf, u32::MAX));
                assert!(stats(&unbounded).depth + 1 < MAX_DEPTH, "scene {i} is not ordinary");
                assert!(bounded == unbounded, "scene {i}, max leaf {max_leaf}: the bound changed the tree");
            }
        }
    }

    #[test]
    fn nested_shells_need_the_bound_and_get_it() {
        let prims = nested_shells();
        for max_leaf in [1, 4] {
            let unbounded = stats(&build_with(&prims, &settings(max_leaf, u32::MAX))).depth;
            assert!(unbounded > MAX_DEPTH, "the scene must be pathological, SAH depth is {unbounded}");
            let bounded = build_with(&prims, &settings(max_leaf, MAX_DEPTH));
            assert!(stats(&bounded).depth <= MAX_DEPTH);
            assert_eq!(build(&prims, &BuildOptions { bins: 16, max_leaf_size: max_leaf as u32 }), bounded);
        }
    }

    /// The proof allows any limit down to `1 + ceil(log2(n))`, where every split is a
    /// median split: each limit in between must hold exactly.
    #[test]
    fn every_limit_down_to_the_balanced_depth_holds() {
        for prims in
            [nested_shells(), random_spheres(1000, 100.0, 5), vec![Aabb::of_sphere(Vec3::ONE, 1.0); 77]]
        {
            let n = prims.len();
            for max_depth in 1 + ceil_log2(n)..=MAX_DEPTH {
                for max_leaf in [1, 3] {
                    let tree = build_with(&prims, &settings(max_leaf, max_depth));
                    let s = stats(&tree);
                    assert!(s.depth <= max_depth, "{n} prims: depth {} > {max_depth}", s.depth);
                    assert!(s.leaf_size_histogram.len() <= max_leaf + 1, "leaf over {max_leaf}");
                    let mut seen = tree.prim_order.clone();
                    seen.sort_unstable();
                    assert!(seen.iter().copied().eq(0..n as u32), "every primitive once");
                    assert_eq!(
                        s.leaf_size_histogram.iter().enumerate().map(|(k, &c)| k * c as usize).sum::<usize>(),
                        n
                    );
                }
            }
        }
    }
}
