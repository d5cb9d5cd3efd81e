//! Measures a built tree: sizes, depth, leaf occupancy and its SAH cost, the
//! number the builder minimizes (what `scene-compiler build` prints and the
//! quality tests compare).

use rayon::prelude::*;

use super::{Bvh, C_INT, C_TRAV, Node, NodeKind};

/// What [`stats`] measured.
#[derive(Clone, Debug, PartialEq)]
pub struct BvhStats {
    /// Inner nodes and leaves.
    pub node_count: usize,
    /// Leaves only.
    pub leaf_count: usize,
    /// Nodes on the longest root-to-leaf path: a lone root leaf has depth 1.
    pub depth: u32,
    /// `leaf_size_histogram[k]` is the number of leaves holding `k` primitives.
    pub leaf_size_histogram: Vec<u32>,
    /// `(Σ_inner SA(n)·C_TRAV + Σ_leaf SA(n)·prims(n)·C_INT) / SA(root)`: the expected
    /// cost of a random ray through the root (MacDonald and Booth 1990). When the root
    /// has no area (no primitives, or all of them points) every node counts as hit.
    pub sah_cost: f32,
}

/// Measures `bvh`, which must be a tree as [`super::build`] or [`super::veb::reorder`]
/// return it (a child index out of range panics). Independent of the node layout.
pub fn stats(bvh: &Bvh) -> BvhStats {
    // On every core, in fixed chunks summed in order (the same sums on any number of
    // threads): a 21M-triangle tree has 24M nodes, which one core took longer to
    // measure than the blob took to encode on the others.
    let parts: Vec<Sums> = bvh.nodes.par_chunks(CHUNK).map(Sums::of).collect();
    let sums = parts.into_iter().fold(Sums::default(), Sums::add);
    let sah_cost = match bvh.nodes.first().map(|root| f64::from(root.bounds.surface_area())) {
        Some(root_area) if root_area > 0.0 => {
            (sums.inner_area * f64::from(C_TRAV) + sums.leaf_area * f64::from(C_INT)) / root_area
        }
        _ => degenerate_cost(bvh),
    };
    BvhStats {
        node_count: bvh.nodes.len(),
        leaf_count: sums.leaf_count,
        depth: if bvh.nodes.is_empty() { 0 } else { depth(bvh, 0, 1) },
        leaf_size_histogram: sums.leaf_size_histogram,
        sah_cost: sah_cost as f32,
    }
}

/// Nodes a task of [`stats`] measures.
const CHUNK: usize = 1 << 16;

/// What [`stats`] adds up over a run of nodes.
#[derive(Default)]
struct Sums {
    leaf_count: usize,
    leaf_size_histogram: Vec<u32>,
    // f64: a million f32 terms would lose the digits the quality tests compare.
    inner_area: f64,
    leaf_area: f64,
}

impl Sums {
    fn of(nodes: &[Node]) -> Sums {
        let mut sums = Sums::default();
        for node in nodes {
            let area = f64::from(node.bounds.surface_area());
            match node.kind {
                NodeKind::Inner { .. } => sums.inner_area += area,
                NodeKind::Leaf { count, .. } => {
                    sums.leaf_count += 1;
                    sums.leaf_area += area * f64::from(count);
                    let k = count as usize;
                    if sums.leaf_size_histogram.len() <= k {
                        sums.leaf_size_histogram.resize(k + 1, 0);
                    }
                    sums.leaf_size_histogram[k] += 1;
                }
            }
        }
        sums
    }

    fn add(mut self, other: Sums) -> Sums {
        if self.leaf_size_histogram.len() < other.leaf_size_histogram.len() {
            self.leaf_size_histogram.resize(other.leaf_size_histogram.len(), 0);
        }
        for (a, b) in self.leaf_size_histogram.iter_mut().zip(&other.leaf_size_histogram) {
            *a += b;
        }
        Sums {
            leaf_count: self.leaf_count + other.leaf_count,
            leaf_size_histogram: self.leaf_size_histogram,
            inner_area: self.inner_area + other.inner_area,
            leaf_area: self.leaf_area + other.leaf_area,
        }
    }
}

/// The SAH cost when the root has no area: every ray reaching the root visits every node.
fn degenerate_cost(bvh: &Bvh) -> f64 {
    bvh.nodes
        .iter()
        .map(|node| match node.kind {
            NodeKind::Inner { .. } => f64::from(C_TRAV),
            NodeKind::Leaf { count, .. } => f64::from(count) * f64::from(C_INT),
        })
        .sum()
}

/// Subtrees from this depth on are measured by one task each.
const PAR_DEPTH: u32 = 12;

/// Nodes on the longest path from `index` (at `level`, the root's being 1) to a leaf,
/// counting from the root: the top levels' subtrees side by side, the rest by an
/// explicit stack (trees can be deep).
fn depth(bvh: &Bvh, index: u32, level: u32) -> u32 {
    if level < PAR_DEPTH
        && let NodeKind::Inner { left, right } = bvh.nodes[index as usize].kind
    {
        let (l, r) = rayon::join(|| depth(bvh, left, level + 1), || depth(bvh, right, level + 1));
        return l.max(r);
    }
    let mut deepest = 0;
    let mut stack = vec![(index, level)];
    while let Some((index, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        if let NodeKind::Inner { left, right } = bvh.nodes[index as usize].kind {
            stack.push((left, depth + 1));
            stack.push((right, depth + 1));
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::bvh::{Aabb, Node};

    fn cube(min: f32, max: f32) -> Aabb {
        Aabb { min: Vec3::splat(min), max: Vec3::splat(max) }
    }

    #[test]
    fn hand_computed_tree() {
        // Root: cube of side 2 (area 24) over two unit cubes (area 6 each) with
        // 1 and 3 primitives: cost = (24·1 + 6·1 + 6·3) / 24 = 2.
        let bvh = Bvh {
            nodes: vec![
                Node { bounds: cube(0.0, 2.0), kind: NodeKind::Inner { left: 1, right: 2 } },
                Node { bounds: cube(0.0, 1.0), kind: NodeKind::Leaf { first: 0, count: 1 } },
                Node { bounds: cube(1.0, 2.0), kind: NodeKind::Leaf { first: 1, count: 3 } },
            ],
            prim_order: vec![0, 1, 2, 3],
        };
        let s = stats(&bvh);
        assert_eq!(s.node_count, 3);
        assert_eq!(s.leaf_count, 2);
        assert_eq!(s.depth, 2);
        assert_eq!(s.leaf_size_histogram, vec![0, 1, 0, 1]);
        assert_eq!(s.sah_cost, 2.0);
    }

    #[test]
    fn a_lone_leaf_has_depth_one_and_costs_its_primitives() {
        let bvh = Bvh {
            nodes: vec![Node { bounds: cube(0.0, 1.0), kind: NodeKind::Leaf { first: 0, count: 3 } }],
            prim_order: vec![0, 1, 2],
        };
        let s = stats(&bvh);
        assert_eq!((s.depth, s.leaf_count, s.sah_cost), (1, 1, 3.0));
    }

    #[test]
    fn a_root_without_area_counts_every_node() {
        let point = cube(1.0, 1.0);
        let bvh = Bvh {
            nodes: vec![
                Node { bounds: point, kind: NodeKind::Inner { left: 1, right: 2 } },
                Node { bounds: point, kind: NodeKind::Leaf { first: 0, count: 2 } },
                Node { bounds: point, kind: NodeKind::Leaf { first: 2, count: 2 } },
            ],
            prim_order: vec![0, 1, 2, 3],
        };
        assert_eq!(stats(&bvh).sah_cost, 5.0);
    }
}
