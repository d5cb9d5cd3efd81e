//! BVH tests through the public API: structural invariants of built trees,
//! determinism across thread counts, the stats against independent recomputation,
//! the van Emde Boas reorder against the depth-first tree and brute force, and the
//! binned builder's SAH cost against a full-sweep SAH reference builder; the depth
//! bound on pathological scenes, through the blob loader.

use glam::Vec3;
use proptest::prelude::*;
use scene_compiler::blob::{BlobView, NodeLayout};
use scene_compiler::bvh::{self, Aabb, BuildOptions, Bvh, C_INT, C_TRAV, Node, NodeKind};
use scene_compiler::limits::MAX_BVH_DEPTH;
use scene_compiler::rng::SplitMix64;
use scene_compiler::{CompileOptions, compile_scene};

use crate::common;

/// Test scenes: spheres from a deterministic generator.
mod scenes {
    use glam::Vec3;
    use scene_compiler::bvh::Aabb;
    use scene_compiler::rng::SplitMix64;

    #[derive(Clone, Copy, Debug)]
    pub struct Sphere {
        pub center: Vec3,
        pub radius: f32,
    }

    impl Sphere {
        pub fn bounds(&self) -> Aabb {
            Aabb::of_sphere(self.center, self.radius)
        }
    }

    /// `n` spheres with centers uniform in a cube of side `side` and radii in `radii`.
    pub fn random(n: usize, side: f32, radii: (f32, f32), seed: u64) -> Vec<Sphere> {
        let mut rng = SplitMix64(seed);
        (0..n)
            .map(|_| Sphere {
                center: rng.next_vec3() * side,
                radius: radii.0 + (radii.1 - radii.0) * rng.next_f32(),
            })
            .collect()
    }

    /// The benchmark distribution: a cube of side 1000, radii 0.1 to 1.
    pub fn uniform(n: usize, seed: u64) -> Vec<Sphere> {
        random(n, 1000.0, (0.1, 1.0), seed)
    }

    pub fn bounds(spheres: &[Sphere]) -> Vec<Aabb> {
        spheres.iter().map(Sphere::bounds).collect()
    }
}

/// Checks of a tree's structure, independent of the builder's code.
mod check {
    use scene_compiler::bvh::{Aabb, Bvh, Node, NodeKind};

    /// Everything a valid tree guarantees, in any layout: links in range, each
    /// non-root node with exactly one parent, root 0, every primitive in exactly one
    /// leaf, leaves no larger than `max_leaf_size`, bounds equal to the union of the
    /// children's (tight, which implies containment) and containing each leaf's prims.
    pub fn tree(bvh: &Bvh, prims: &[Aabb], max_leaf_size: u32) {
        let n = bvh.nodes.len();
        assert!(n >= 1, "a tree has a root");
        let mut parents = vec![0u32; n];
        let mut seen_prim = vec![0u32; prims.len()];
        let mut covered = vec![0u32; bvh.prim_order.len()];
        for node in &bvh.nodes {
            match node.kind {
                NodeKind::Inner { left, right } => {
                    for child in [left, right] {
                        let child = bvh.nodes.get(child as usize).expect("child index in range");
                        assert!(node.bounds.contains(child.bounds), "{node:?} does not contain {child:?}");
                    }
                    parents[left as usize] += 1;
                    parents[right as usize] += 1;
                    let union = bvh.nodes[left as usize].bounds.union(bvh.nodes[right as usize].bounds);
                    assert_eq!(node.bounds, union, "inner bounds are the union of the children");
                }
                NodeKind::Leaf { first, count } => {
                    assert!(count <= max_leaf_size, "leaf of {count} > {max_leaf_size}");
                    let range = first as usize..(first + count) as usize;
                    let mut union = Aabb::EMPTY;
                    for slot in range {
                        covered[slot] += 1;
                        let prim = bvh.prim_order[slot] as usize;
                        seen_prim[prim] += 1;
                        assert!(node.bounds.contains(prims[prim]), "leaf {node:?} misses prim {prim}");
                        union = union.union(prims[prim]);
                    }
                    if count > 0 {
                        assert_eq!(node.bounds, union, "leaf bounds are the union of its prims");
                    }
                }
            }
        }
        assert_eq!(parents[0], 0, "the root has no parent");
        assert!(parents[1..].iter().all(|&p| p == 1), "every other node has exactly one parent");
        assert!(covered.iter().all(|&c| c == 1), "leaf ranges tile prim_order");
        assert!(seen_prim.iter().all(|&c| c == 1), "every primitive is in exactly one leaf");
    }

    /// The depth-first layout: a left child follows its parent, the right child
    /// follows the left subtree, and leaf ranges ascend in node order.
    pub fn depth_first(bvh: &Bvh) {
        let sizes = subtree_sizes(&bvh.nodes);
        let mut next_prim = 0;
        for (i, node) in bvh.nodes.iter().enumerate() {
            match node.kind {
                NodeKind::Inner { left, right } => {
                    assert_eq!(left as usize, i + 1, "left child of {i}");
                    assert_eq!(right as usize, i + 1 + sizes[i + 1], "right child of {i}");
                }
                NodeKind::Leaf { first, count } => {
                    assert_eq!(first, next_prim, "leaf {i} continues the previous leaf's range");
                    next_prim += count;
                }
            }
        }
    }

    /// Nodes in each node's subtree (children have higher indices in depth-first order).
    fn subtree_sizes(nodes: &[Node]) -> Vec<usize> {
        let mut sizes = vec![1; nodes.len()];
        for i in (0..nodes.len()).rev() {
            if let NodeKind::Inner { left, right } = nodes[i].kind {
                sizes[i] = 1 + sizes[left as usize] + sizes[right as usize];
            }
        }
        sizes
    }

    /// `a` and `b` are the same tree up to node numbering: same bounds, same leaf
    /// ranges, same left/right children, node for node from the roots.
    pub fn same_tree(a: &Bvh, b: &Bvh) {
        assert_eq!(a.nodes.len(), b.nodes.len());
        let mut stack = vec![(0u32, 0u32)];
        let mut visited = 0;
        while let Some((i, j)) = stack.pop() {
            visited += 1;
            let (x, y) = (a.nodes[i as usize], b.nodes[j as usize]);
            assert_eq!(x.bounds, y.bounds);
            match (x.kind, y.kind) {
                (NodeKind::Inner { left: l1, right: r1 }, NodeKind::Inner { left: l2, right: r2 }) => {
                    stack.extend([(l1, l2), (r1, r2)]);
                }
                (NodeKind::Leaf { first: f1, count: c1 }, NodeKind::Leaf { first: f2, count: c2 }) => {
                    assert_eq!(
                        a.prim_order[f1 as usize..][..c1 as usize],
                        b.prim_order[f2 as usize..][..c2 as usize]
                    );
                }
                (x, y) => panic!("node kinds differ: {x:?} vs {y:?}"),
            }
        }
        assert_eq!(visited, a.nodes.len(), "every node is reachable from the root");
    }
}

/// Closest-hit ray casting over spheres, the way a renderer uses the tree.
mod trace {
    use glam::Vec3;
    use scene_compiler::bvh::{Aabb, Bvh, NodeKind};

    use super::scenes::Sphere;

    /// Hits closer than this are ignored (self-intersection guard, as in a renderer).
    const T_MIN: f32 = 1e-3;

    pub struct Ray {
        pub origin: Vec3,
        pub dir: Vec3,
    }

    /// The closest hit: sphere index and distance.
    pub type Hit = (u32, f32);

    fn hit_sphere(ray: &Ray, s: &Sphere) -> Option<f32> {
        let oc = ray.origin - s.center;
        let b = oc.dot(ray.dir);
        let disc = b * b - (oc.dot(oc) - s.radius * s.radius);
        if disc < 0.0 {
            return None;
        }
        let root = disc.sqrt();
        [-b - root, -b + root].into_iter().find(|&t| t > T_MIN)
    }

    /// Slab test, widened by a few ulps so that no sphere the exact test hits is
    /// culled by rounding in the box test (Ize 2013).
    fn hit_box(ray: &Ray, inv_dir: Vec3, b: &Aabb, t_max: f32) -> bool {
        let t0 = (b.min - ray.origin) * inv_dir;
        let t1 = (b.max - ray.origin) * inv_dir;
        let near = t0.min(t1).max_element();
        let far = t0.max(t1).min_element() * (1.0 + 4.0 * f32::EPSILON);
        near <= far && far >= 0.0 && near <= t_max
    }

    /// Keeps the nearer hit; equal distances keep the lower index, so the answer does
    /// not depend on the visiting order.
    fn closer(best: Option<Hit>, candidate: Hit) -> Option<Hit> {
        match best {
            Some((i, t)) if t < candidate.1 || (t == candidate.1 && i < candidate.0) => best,
            _ => Some(candidate),
        }
    }

    pub fn brute_force(ray: &Ray, spheres: &[Sphere]) -> Option<Hit> {
        spheres
            .iter()
            .enumerate()
            .filter_map(|(i, s)| hit_sphere(ray, s).map(|t| (i as u32, t)))
            .fold(None, closer)
    }

    /// Traversal that reads only the links, so it works on any layout.
    pub fn bvh(ray: &Ray, tree: &Bvh, spheres: &[Sphere]) -> Option<Hit> {
        let inv_dir = ray.dir.recip();
        let mut best: Option<Hit> = None;
        let mut stack = vec![0u32];
        while let Some(index) = stack.pop() {
            let node = &tree.nodes[index as usize];
            if !hit_box(ray, inv_dir, &node.bounds, best.map_or(f32::INFINITY, |h| h.1)) {
                continue;
            }
            match node.kind {
                NodeKind::Inner { left, right } => stack.extend([right, left]),
                NodeKind::Leaf { first, count } => {
                    for &prim in &tree.prim_order[first as usize..][..count as usize] {
                        if let Some(t) = hit_sphere(ray, &spheres[prim as usize]) {
                            best = closer(best, (prim, t));
                        }
                    }
                }
            }
        }
        best
    }
}

/// A full-sweep SAH builder for reference: sorts along each axis and evaluates every
/// split position, with the same leaf rule as the binned builder. Slow and simple.
mod sweep {
    use scene_compiler::bvh::{Aabb, Bvh, C_INT, C_TRAV, Node, NodeKind};

    pub fn build(prims: &[Aabb], max_leaf_size: usize) -> Bvh {
        let mut order: Vec<u32> = (0..prims.len() as u32).collect();
        let mut nodes = Vec::new();
        build_node(prims, &mut order, 0, max_leaf_size, &mut nodes);
        Bvh { nodes, prim_order: order }
    }

    fn union(prims: &[Aabb], ids: &[u32]) -> Aabb {
        ids.iter().fold(Aabb::EMPTY, |b, &i| b.union(prims[i as usize]))
    }

    fn build_node(prims: &[Aabb], ids: &mut [u32], first: u32, max_leaf: usize, nodes: &mut Vec<Node>) {
        let n = ids.len();
        let bounds = union(prims, ids);
        let index = nodes.len();
        nodes.push(Node { bounds, kind: NodeKind::Leaf { first, count: n as u32 } });
        if n <= 1 {
            return;
        }
        let mut best: Option<(f32, usize, usize)> = None; // (weighted count, axis, split)
        let mut right_cost = vec![0.0f32; n];
        for axis in 0..3 {
            ids.sort_by(|&a, &b| {
                let (ca, cb) = (prims[a as usize].center()[axis], prims[b as usize].center()[axis]);
                ca.total_cmp(&cb).then(a.cmp(&b))
            });
            let mut acc = Aabb::EMPTY;
            for i in (1..n).rev() {
                acc = acc.union(prims[ids[i] as usize]);
                right_cost[i] = acc.surface_area() * (n - i) as f32;
            }
            let mut acc = Aabb::EMPTY;
            for i in 1..n {
                acc = acc.union(prims[ids[i - 1] as usize]);
                let cost = acc.surface_area() * i as f32 + right_cost[i];
                if best.is_none_or(|b| cost < b.0) {
                    best = Some((cost, axis, i));
                }
            }
        }
        let Some((cost, axis, mid)) = best else { return };
        let area = bounds.surface_area();
        if n <= max_leaf && n as f32 * C_INT * area <= C_TRAV * area + cost * C_INT {
            return;
        }
        ids.sort_by(|&a, &b| {
            let (ca, cb) = (prims[a as usize].center()[axis], prims[b as usize].center()[axis]);
            ca.total_cmp(&cb).then(a.cmp(&b))
        });
        let (left, right) = ids.split_at_mut(mid);
        build_node(prims, left, first, max_leaf, nodes);
        let right_index = nodes.len() as u32;
        build_node(prims, right, first + mid as u32, max_leaf, nodes);
        nodes[index].kind = NodeKind::Inner { left: index as u32 + 1, right: right_index };
    }
}

fn build(prims: &[Aabb], max_leaf_size: u32) -> Bvh {
    bvh::build(prims, &BuildOptions { max_leaf_size, ..BuildOptions::default() })
}

// --- Builder: edge cases and invariants ---

#[test]
fn one_sphere_is_a_lone_leaf_root() {
    let prims = [Aabb::of_sphere(Vec3::new(1.0, 2.0, 3.0), 0.5)];
    let tree = build(&prims, 4);
    assert_eq!(tree.nodes, [Node { bounds: prims[0], kind: NodeKind::Leaf { first: 0, count: 1 } }]);
    assert_eq!(tree.prim_order, [0]);
}

#[test]
fn no_spheres_give_one_empty_leaf() {
    let tree = build(&[], 4);
    assert_eq!(tree.nodes, [Node { bounds: Aabb::EMPTY, kind: NodeKind::Leaf { first: 0, count: 0 } }]);
    assert!(tree.prim_order.is_empty());
}

#[test]
fn identical_spheres_are_split_down_to_the_leaf_size() {
    let prims = vec![Aabb::of_sphere(Vec3::ONE, 1.0); 1000];
    let tree = build(&prims, 4);
    check::tree(&tree, &prims, 4);
    check::depth_first(&tree);
    assert_eq!(bvh::stats(&tree).depth, 9, "middle splits halve the range: ceil(log2(1000 / 4)) + 1");
}

#[test]
fn large_parallel_build_keeps_the_invariants() {
    // Large enough for parallel subtrees and parallel binning at the top.
    let prims = scenes::bounds(&scenes::uniform(300_000, 1));
    let tree = build(&prims, 4);
    check::tree(&tree, &prims, 4);
    check::depth_first(&tree);
}

#[test]
fn build_is_identical_on_one_and_four_threads() {
    // Uniform spheres plus a clump of identical ones (middle splits inside parallel tasks).
    let mut prims = scenes::bounds(&scenes::uniform(200_000, 2));
    prims.extend(std::iter::repeat_n(Aabb::of_sphere(Vec3::splat(500.0), 1.0), 50_000));
    let build_on = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
        pool.install(|| build(&prims, 4))
    };
    let (one, four) = (build_on(1), build_on(4));
    assert!(one == four, "the tree depends on the thread count");
    check::tree(&one, &prims, 4);
}

fn arbitrary_spheres() -> impl Strategy<Value = Vec<Aabb>> {
    // A small spread makes many coincident centroids and identical boxes.
    (1i32..40).prop_flat_map(|spread| {
        prop::collection::vec((-spread..=spread, -spread..=spread, -spread..=spread, 1u32..20), 1..300)
            .prop_map(|spheres| {
                spheres
                    .into_iter()
                    .map(|(x, y, z, r)| {
                        Aabb::of_sphere(Vec3::new(x as f32, y as f32, z as f32), r as f32 * 0.25)
                    })
                    .collect()
            })
    })
}

proptest! {
    // No regression files: failing inputs are printed, and this suite writes nothing
    // outside the build directory.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_builds_keep_the_invariants(prims in arbitrary_spheres(), bins in 0u32..40, max_leaf in 0u32..9) {
        let tree = bvh::build(&prims, &BuildOptions { bins, max_leaf_size: max_leaf });
        check::tree(&tree, &prims, max_leaf.max(1));
        check::depth_first(&tree);
        prop_assert!(bvh::stats(&tree).depth <= MAX_BVH_DEPTH);
    }

    #[test]
    fn stats_match_an_independent_recomputation(prims in arbitrary_spheres(), max_leaf in 1u32..9) {
        let tree = build(&prims, max_leaf);
        let s = bvh::stats(&tree);
        let (cost, depth) = recursive_cost_and_depth(&tree, 0);
        let expected = cost / f64::from(tree.nodes[0].bounds.surface_area());
        prop_assert!((f64::from(s.sah_cost) - expected).abs() <= 1e-5 * expected, "{} vs {expected}", s.sah_cost);
        prop_assert_eq!(s.depth, depth);
        prop_assert_eq!(s.node_count, tree.nodes.len());
        let leaves: Vec<u32> = tree.nodes.iter().filter_map(|n| match n.kind {
            NodeKind::Leaf { count, .. } => Some(count),
            NodeKind::Inner { .. } => None,
        }).collect();
        prop_assert_eq!(s.leaf_count, leaves.len());
        for (size, &count) in s.leaf_size_histogram.iter().enumerate() {
            prop_assert_eq!(count as usize, leaves.iter().filter(|&&c| c as usize == size).count());
        }
        prop_assert_eq!(s.leaf_size_histogram.iter().map(|&c| c as usize).sum::<usize>(), leaves.len());
    }

    #[test]
    fn veb_reorder_is_the_same_tree_renumbered(prims in arbitrary_spheres(), max_leaf in 1u32..5) {
        let tree = build(&prims, max_leaf);
        let veb = bvh::veb::reorder(&tree);
        check::tree(&veb, &prims, max_leaf);
        check::same_tree(&tree, &veb);
        prop_assert_eq!(&veb.prim_order, &tree.prim_order);
        prop_assert_eq!(bvh::veb::reorder(&tree), veb, "deterministic");
    }
}

/// `Σ_inner SA·C_TRAV + Σ_leaf SA·count·C_INT` and the depth, by recursion from `index`.
fn recursive_cost_and_depth(tree: &Bvh, index: u32) -> (f64, u32) {
    let node = tree.nodes[index as usize];
    let area = f64::from(node.bounds.surface_area());
    match node.kind {
        NodeKind::Leaf { count, .. } => (area * f64::from(count) * f64::from(C_INT), 1),
        NodeKind::Inner { left, right } => {
            let (l, dl) = recursive_cost_and_depth(tree, left);
            let (r, dr) = recursive_cost_and_depth(tree, right);
            (area * f64::from(C_TRAV) + l + r, 1 + dl.max(dr))
        }
    }
}

// --- vEB: same hits as depth-first and brute force ---

#[test]
fn veb_and_depth_first_give_the_brute_force_closest_hits() {
    // Dense enough that most rays hit something: 3000 spheres in a cube of side 100.
    let spheres = scenes::random(3000, 100.0, (0.3, 3.0), 3);
    let tree = build(&scenes::bounds(&spheres), 4);
    let veb = bvh::veb::reorder(&tree);
    assert!(
        veb.nodes
            .iter()
            .enumerate()
            .any(|(i, n)| matches!(n.kind, NodeKind::Inner { left, .. } if left as usize != i + 1))
    );
    let mut rng = SplitMix64(4);
    let mut hits = 0;
    for i in 0..2000 {
        let origin = rng.next_vec3() * 140.0 - Vec3::splat(20.0);
        // Half the rays aim at a sphere's center, so hits are common.
        let target = if i % 2 == 0 {
            spheres[rng.next_u64() as usize % spheres.len()].center
        } else {
            rng.next_vec3() * 100.0
        };
        let Some(dir) = (target - origin).try_normalize() else { continue };
        let ray = trace::Ray { origin, dir };
        let expected = trace::brute_force(&ray, &spheres);
        assert_eq!(trace::bvh(&ray, &tree, &spheres), expected, "depth-first, ray {i}");
        assert_eq!(trace::bvh(&ray, &veb, &spheres), expected, "vEB, ray {i}");
        hits += usize::from(expected.is_some());
    }
    assert!(hits > 1000, "only {hits} of 2000 rays hit: the test scene is too sparse");
}

#[test]
fn veb_keeps_the_stats() {
    let prims = scenes::bounds(&scenes::uniform(20_000, 5));
    let tree = build(&prims, 4);
    assert_eq!(bvh::stats(&bvh::veb::reorder(&tree)), bvh::stats(&tree));
}

// --- Quality: binned against full sweep ---

/// Builds both and returns (binned cost, sweep cost); the binned cost must be within 2%.
fn sah_binned_vs_sweep(n: usize, seed: u64) -> (f32, f32) {
    let prims = scenes::bounds(&scenes::uniform(n, seed));
    let binned = bvh::stats(&build(&prims, 4)).sah_cost;
    let reference = sweep::build(&prims, 4);
    check::tree(&reference, &prims, 4);
    let swept = bvh::stats(&reference).sah_cost;
    eprintln!("{n} spheres: binned SAH {binned:.4}, full sweep {swept:.4}, ratio {:.4}", binned / swept);
    assert!(binned <= swept * 1.02, "binned {binned} is more than 2% above the sweep's {swept}");
    (binned, swept)
}

#[test]
fn binned_sah_is_within_2_percent_of_the_full_sweep_on_10k() {
    sah_binned_vs_sweep(10_000, 6);
}

#[test]
fn binned_sah_is_within_2_percent_of_the_full_sweep_on_100k() {
    sah_binned_vs_sweep(100_000, 7);
}

// --- Depth: the builder never exceeds the loader's MAX_BVH_DEPTH ---

/// `n` spheres along x at `ratio^i` (the example: 200 at `1.5^i`).
fn exponential_row(n: usize, ratio: f64) -> Vec<scenes::Sphere> {
    (0..n)
        .map(|i| scenes::Sphere { center: Vec3::new(ratio.powi(i as i32) as f32, 0.0, 0.0), radius: 0.5 })
        .collect()
}

/// Nested size classes: `levels` shells of `per_level` spheres around the origin,
/// each shell and its spheres `shrink` times the size of the previous one. Binned SAH
/// peels about one shell per level, so without the depth bound these trees are about
/// 75 (60 x 5, shrink 1/4) and 110 (40 x 20, shrink 1/10) levels deep.
fn nested_size_classes(levels: usize, per_level: usize, shrink: f32) -> Vec<scenes::Sphere> {
    let mut rng = SplitMix64(11);
    let mut spheres = Vec::new();
    for level in 0..levels {
        let scale = shrink.powi(level as i32);
        for _ in 0..per_level {
            let center = (rng.next_vec3() * 2.0 - Vec3::ONE) * 100.0 * scale;
            spheres.push(scenes::Sphere { center, radius: 0.5 * scale });
        }
    }
    spheres
}

#[test]
fn pathological_scenes_stay_within_the_loader_depth_and_load() {
    let cases = [
        ("exponential row 200 x 1.5^i", exponential_row(200, 1.5)),
        // The longest such row a scene may hold: 1.5^51 is just below the 1e9 coordinates reach.
        ("exponential row 52 x 1.5^i", exponential_row(52, 1.5)),
        ("exponential shells 60 x 5", nested_size_classes(60, 5, 0.25)),
        ("exponential shells 40 x 20", nested_size_classes(40, 20, 0.1)),
    ];
    for (name, spheres) in cases {
        let prims = scenes::bounds(&spheres);
        assert!(prims.iter().all(|b| b.max.y > b.min.y && b.max.is_finite()), "{name}: degenerate input");
        for max_leaf in [1, 4] {
            let tree = build(&prims, max_leaf);
            let depth = bvh::stats(&tree).depth;
            assert!(depth <= MAX_BVH_DEPTH, "{name}, max leaf {max_leaf}: depth {depth} > {MAX_BVH_DEPTH}");
            check::tree(&tree, &prims, max_leaf);
            check::depth_first(&tree);
        }
        // A scene past the coordinate range (the 200-sphere row reaches 1.5^199) is refused
        // by validation (`ranges`): its tree is checked above, its blob cannot exist.
        if !spheres.iter().all(|s| scene_compiler::ranges::sphere_problem(s.center, s.radius).is_none()) {
            continue;
        }
        let mut scene = common::test_scene(1);
        scene.spheres = spheres
            .iter()
            .map(|s| scene_compiler::scene::Sphere { center: s.center, radius: s.radius, material: 0 })
            .collect();
        for layout in [NodeLayout::DepthFirst, NodeLayout::VanEmdeBoas] {
            let compiled = compile_scene(&scene, &CompileOptions { layout, ..CompileOptions::default() });
            assert!(compiled.bvh_stats.depth <= MAX_BVH_DEPTH, "{name}: {:?}", compiled.bvh_stats);
            let view = BlobView::parse(&compiled.blob).unwrap_or_else(|e| panic!("{name}, {layout:?}: {e}"));
            assert_eq!(view.records::<scene_compiler::scene::Sphere>().len(), spheres.len());
        }
    }
}

/// A refitted tree is a valid tree over the moved primitives (the same checks as a
/// build's) with the same shape, and finds the brute-force closest hits.
#[test]
fn a_refit_tree_holds_the_moved_primitives_and_finds_the_closest_hits() {
    let spheres = scenes::random(3000, 100.0, (0.3, 3.0), 5);
    let tree = build(&scenes::bounds(&spheres), 4);
    let mut rng = SplitMix64(6);
    let mut moved = spheres.clone();
    for s in moved.iter_mut().step_by(3) {
        s.center += (rng.next_vec3() - Vec3::splat(0.5)) * 4.0;
        s.radius *= 0.5 + rng.next_f32();
    }
    let refitted = bvh::refit(&tree, &scenes::bounds(&moved));
    check::tree(&refitted, &scenes::bounds(&moved), 4);
    assert_eq!(refitted.prim_order, tree.prim_order);
    let shape = |t: &Bvh| t.nodes.iter().map(|n| n.kind).collect::<Vec<_>>();
    assert_eq!(shape(&refitted), shape(&tree));
    assert_eq!(
        bvh::refit(&tree, &scenes::bounds(&spheres)),
        tree,
        "refitting to the same spheres changes nothing"
    );
    for i in 0..2000 {
        let origin = rng.next_vec3() * 140.0 - Vec3::splat(20.0);
        let target = if i % 2 == 0 {
            moved[rng.next_u64() as usize % moved.len()].center
        } else {
            rng.next_vec3() * 100.0
        };
        let Some(dir) = (target - origin).try_normalize() else { continue };
        let ray = trace::Ray { origin, dir };
        assert_eq!(trace::bvh(&ray, &refitted, &moved), trace::brute_force(&ray, &moved), "ray {i}");
    }
}

/// An edit that leaves the primitives alone reuses the previous BVH, and the blob is
/// byte for byte a fresh compile's; a small move refits it, a scattering rebuilds it, a
/// new primitive rebuilds it.
#[test]
fn recompiling_an_edit_reuses_refits_or_rebuilds_the_bvh() {
    use scene_compiler::scene::{Light, MaterialKind, Scene};
    use scene_compiler::{Compiled, Previous, REFIT_MAX_COST, compile_scene_reusing};

    fn previous<'a>(scene: &'a Scene, first: &'a Compiled) -> Previous<'a> {
        first.previous(scene)
    }
    for layout in [NodeLayout::DepthFirst, NodeLayout::VanEmdeBoas] {
        let options = CompileOptions { layout, ..CompileOptions::default() };
        let scene = common::test_scene(500);
        let first = compile_scene(&scene, &options);
        assert!(!first.bvh_reused && !first.bvh_refitted);
        assert_eq!(first.built_sah_cost, first.bvh_stats.sah_cost);

        let mut camera_edit = scene.clone();
        camera_edit.camera.vfov_deg += 5.0;
        if let MaterialKind::Lambert { albedo } = &mut camera_edit.materials[0].kind {
            *albedo *= 0.5;
        }
        let again = compile_scene_reusing(&camera_edit, &options, Some(previous(&scene, &first)));
        assert!(again.bvh_reused, "{layout:?}");
        assert!(
            *again.blob == *compile_scene(&camera_edit, &options).blob,
            "{layout:?}: not a fresh compile's blob"
        );
        // Edits that change the light table (a new emitter, a new light) reuse the BVH
        // too but encode the whole blob; still byte for byte a fresh compile's.
        let mut glowing = camera_edit.clone();
        glowing.materials[1].kind =
            MaterialKind::Emissive { color: Vec3::ONE, strength: 2.0, albedo: Vec3::ZERO };
        let mut lit = camera_edit.clone();
        lit.lights.push(Light::Point {
            position: Vec3::new(0.0, 9.0, 0.0),
            color: Vec3::ONE,
            intensity: 50.0,
        });
        for edit in [glowing, lit] {
            let again = compile_scene_reusing(&edit, &options, Some(previous(&scene, &first)));
            assert!(again.bvh_reused, "{layout:?}");
            assert!(
                *again.blob == *compile_scene(&edit, &options).blob,
                "{layout:?}: not a fresh compile's blob"
            );
        }

        // A small move: the same tree with new boxes (bvh::refit is tested on its own
        // below), a valid blob, the build's cost kept as the baseline.
        let mut moved = scene.clone();
        moved.spheres[7].center.x += 0.25;
        let refitted = compile_scene_reusing(&moved, &options, Some(previous(&scene, &first)));
        assert!(refitted.bvh_refitted && !refitted.bvh_reused, "{layout:?}");
        assert_eq!(refitted.bvh_stats.node_count, first.bvh_stats.node_count);
        assert_eq!(refitted.built_sah_cost, first.built_sah_cost);
        assert!(refitted.bvh_stats.sah_cost <= first.built_sah_cost * REFIT_MAX_COST);
        let view = BlobView::parse(&refitted.blob).expect("a refitted blob is valid");
        assert_eq!(
            view.records::<scene_compiler::scene::Sphere>()[..],
            BlobView::parse(&compile_scene(&moved, &options).blob)
                .unwrap()
                .records::<scene_compiler::scene::Sphere>()[..]
        );

        // Every sphere swapped with one far away: the refitted tree's boxes span the scene,
        // its cost is far past the limit, and a full build replaces it.
        let mut scattered = scene.clone();
        let n = scattered.spheres.len();
        for i in 0..n / 2 {
            let (a, b) = (scattered.spheres[i].center, scattered.spheres[n - 1 - i].center);
            scattered.spheres[i].center = b;
            scattered.spheres[n - 1 - i].center = a;
        }
        let rebuilt = compile_scene_reusing(&scattered, &options, Some(previous(&scene, &first)));
        assert!(!rebuilt.bvh_refitted && !rebuilt.bvh_reused, "{layout:?}");
        assert!(*rebuilt.blob == *compile_scene(&scattered, &options).blob, "{layout:?}");

        let mut added = scene.clone();
        added.spheres.push(added.spheres[0]);
        let rebuilt = compile_scene_reusing(&added, &options, Some(previous(&scene, &first)));
        assert!(!rebuilt.bvh_refitted && !rebuilt.bvh_reused, "{layout:?}");
    }
}
