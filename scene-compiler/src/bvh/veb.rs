//! The van Emde Boas layout: the same tree with its nodes permuted so that any
//! root-to-leaf path touches few cache lines (or GPU memory segments) whatever the
//! line size, because each recursively chosen subtree is contiguous (Prokop 1999;
//! van Emde Boas 1975). A conversion of the plain tree, like the blob encoding.
//!
//! Not here: building the tree (`binned_sah.rs`). The result is no longer
//! depth-first (a left child is not always at `index + 1`).

use rayon::prelude::*;

use super::{Bvh, Node, NodeKind};

/// The same tree with nodes in van Emde Boas order and links remapped; `prim_order`
/// is unchanged and the root stays node 0. Deterministic.
///
/// The layout of a subtree of height `h` is: the top `h / 2` levels, laid out the same
/// way, then each subtree hanging below them, left to right, laid out the same way.
/// `bvh` must be a tree as [`super::build`] returns it (a child index out of range panics).
pub fn reorder(bvh: &Bvh) -> Bvh {
    if bvh.nodes.is_empty() {
        return bvh.clone();
    }
    let heights = subtree_heights(&bvh.nodes);
    let order = layout_order(&bvh.nodes, &heights);
    let mut new_index = vec![0u32; bvh.nodes.len()];
    for (new, &old) in order.iter().enumerate() {
        new_index[old as usize] = new as u32;
    }
    // Each output node depends only on its own input node: remap in parallel, in order.
    let nodes = order
        .par_iter()
        .map(|&old| {
            let node = bvh.nodes[old as usize];
            match node.kind {
                NodeKind::Inner { left, right } => Node {
                    kind: NodeKind::Inner {
                        left: new_index[left as usize],
                        right: new_index[right as usize],
                    },
                    ..node
                },
                NodeKind::Leaf { .. } => node,
            }
        })
        .collect();
    Bvh { nodes, prim_order: bvh.prim_order.clone() }
}

/// Levels below and including each node (a leaf has height 1).
fn subtree_heights(nodes: &[Node]) -> Vec<u32> {
    // A preorder lists parents before children, so walking it backwards sees both
    // children of a node before the node.
    let mut preorder = Vec::with_capacity(nodes.len());
    let mut stack = vec![0u32];
    while let Some(index) = stack.pop() {
        preorder.push(index);
        if let NodeKind::Inner { left, right } = nodes[index as usize].kind {
            stack.extend([right, left]);
        }
    }
    let mut heights = vec![0u32; nodes.len()];
    for &index in preorder.iter().rev() {
        heights[index as usize] = match nodes[index as usize].kind {
            NodeKind::Inner { left, right } => 1 + heights[left as usize].max(heights[right as usize]),
            NodeKind::Leaf { .. } => 1,
        };
    }
    heights
}

/// Old node indices in van Emde Boas order. The subtrees below the top half are
/// independent, so parallel tasks lay them out and their orders are joined left to
/// right: the same result as one [`Layout::place`] of the whole tree.
fn layout_order(nodes: &[Node], heights: &[u32]) -> Vec<u32> {
    let levels = heights[0];
    let mut top = Layout::new(nodes, heights);
    if levels <= 2 {
        top.place(0, levels);
        return top.order;
    }
    let top_levels = levels / 2;
    top.place(0, top_levels);
    top.push_nodes_at_depth(0, top_levels);
    let bottoms: Vec<Vec<u32>> = top
        .frontier
        .par_iter()
        .map(|&root| {
            let mut bottom = Layout::new(nodes, heights);
            bottom.place(root, levels - top_levels);
            bottom.order
        })
        .collect();
    let mut order = Vec::with_capacity(nodes.len());
    order.append(&mut top.order);
    bottoms.into_iter().for_each(|mut bottom| order.append(&mut bottom));
    order
}

/// The recursive placement; `order` lists old node indices in their new order.
struct Layout<'a> {
    nodes: &'a [Node],
    heights: &'a [u32],
    order: Vec<u32>,
    /// Roots of bottom subtrees still to place, a stack shared by all calls: each call
    /// appends its own and truncates them when done, so placing allocates nothing.
    frontier: Vec<u32>,
    /// The walk that finds a frontier, reused for the same reason.
    walk: Vec<(u32, u32)>,
}

impl<'a> Layout<'a> {
    fn new(nodes: &'a [Node], heights: &'a [u32]) -> Layout<'a> {
        Layout { nodes, heights, order: Vec::new(), frontier: Vec::new(), walk: Vec::new() }
    }

    /// Places the top `levels` levels of the subtree at `root`.
    fn place(&mut self, root: u32, levels: u32) {
        let levels = levels.min(self.heights[root as usize]);
        match (levels, self.nodes[root as usize].kind) {
            (0 | 1, _) | (_, NodeKind::Leaf { .. }) => self.order.push(root),
            // Two levels: the root, then its children (each a subtree of one level).
            (2, NodeKind::Inner { left, right }) => self.order.extend([root, left, right]),
            _ => {
                let top = levels / 2;
                self.place(root, top);
                let start = self.frontier.len();
                self.push_nodes_at_depth(root, top);
                for i in start..self.frontier.len() {
                    self.place(self.frontier[i], levels - top);
                }
                self.frontier.truncate(start);
            }
        }
    }

    /// Appends to the frontier, left to right, the nodes `depth` levels below `root`.
    fn push_nodes_at_depth(&mut self, root: u32, depth: u32) {
        self.walk.push((root, 0));
        while let Some((index, d)) = self.walk.pop() {
            if d == depth {
                self.frontier.push(index);
            } else if let NodeKind::Inner { left, right } = self.nodes[index as usize].kind {
                self.walk.extend([(right, d + 1), (left, d + 1)]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::bvh::Aabb;

    /// A complete tree of `height` levels in depth-first order; leaf `i` holds prim `i`.
    fn complete_tree(height: u32) -> Bvh {
        fn grow(nodes: &mut Vec<Node>, height: u32, next_leaf: &mut u32) -> u32 {
            let index = nodes.len() as u32;
            let bounds = Aabb { min: Vec3::splat(index as f32), max: Vec3::splat(index as f32 + 1.0) };
            nodes.push(Node { bounds, kind: NodeKind::Leaf { first: *next_leaf, count: 1 } });
            if height == 1 {
                *next_leaf += 1;
                return index;
            }
            let left = grow(nodes, height - 1, next_leaf);
            let right = grow(nodes, height - 1, next_leaf);
            nodes[index as usize].kind = NodeKind::Inner { left, right };
            index
        }
        let mut nodes = Vec::new();
        let mut leaves = 0;
        grow(&mut nodes, height, &mut leaves);
        Bvh { nodes, prim_order: (0..leaves).collect() }
    }

    /// Old (depth-first) indices in new order.
    fn order_of(bvh: &Bvh, reordered: &Bvh) -> Vec<usize> {
        reordered.nodes.iter().map(|n| bvh.nodes.iter().position(|m| m.bounds == n.bounds).unwrap()).collect()
    }

    #[test]
    fn height_four_is_the_textbook_layout() {
        // Depth-first numbering of a complete tree of 15 nodes:
        //            0
        //      1           8
        //    2    5     9    12
        //   3 4  6 7  10 11 13 14
        // vEB: the top 2 levels (0 1 8), then the four bottom trees of 3 nodes each.
        let bvh = complete_tree(4);
        let reordered = reorder(&bvh);
        assert_eq!(order_of(&bvh, &reordered), [0, 1, 8, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14]);
    }

    #[test]
    fn height_five_splits_two_over_three() {
        // Top: 2 levels (0, 1, 16); below them four trees of height 3 rooted at 2, 9,
        // 17 and 24, each its root then its two 3-node subtrees (here depth-first order).
        let bvh = complete_tree(5);
        let expected: Vec<usize> = [0, 1, 16].into_iter().chain(2..16).chain(17..31).collect();
        assert_eq!(order_of(&bvh, &reorder(&bvh)), expected);
    }

    #[test]
    fn parallel_bottoms_match_one_recursive_placement() {
        // Spheres along a curve with growing gaps: an unbalanced tree.
        let prims: Vec<Aabb> = (0..3000)
            .map(|i| Aabb::of_sphere(Vec3::new((i as f32).powf(1.5), (i % 7) as f32, 0.0), 0.5))
            .collect();
        let bvh = crate::bvh::build(&prims, &Default::default());
        let heights = subtree_heights(&bvh.nodes);
        let mut whole = Layout::new(&bvh.nodes, &heights);
        whole.place(0, heights[0]);
        assert_eq!(layout_order(&bvh.nodes, &heights), whole.order);
    }

    #[test]
    fn a_lone_leaf_is_unchanged() {
        let bvh = complete_tree(1);
        assert_eq!(reorder(&bvh), bvh);
    }
}
