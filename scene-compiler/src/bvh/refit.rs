//! Refitting: the same tree over primitives that moved. Cheaper than a build by the
//! sort and the SAH sweeps, and as good as the build while the moves are small; the
//! caller measures the refitted tree and builds anew when it got too much worse
//! (`compile::REFIT_MAX_COST`).

use super::{Aabb, Bvh, NodeKind};

/// `tree` with every box recomputed for `bounds` (one box per primitive, indexed as the
/// array `tree` was built over): the same nodes in the same order and the same leaves,
/// each leaf's box the union of its primitives' boxes, each inner box the union of its
/// children's. `bounds` must have as many boxes as that array had.
pub fn refit(tree: &Bvh, bounds: &[Aabb]) -> Bvh {
    if tree.nodes.is_empty() {
        return tree.clone();
    }
    let mut nodes = tree.nodes.clone();
    // Parents before children (pre-order from the root, node 0); walked backwards, every
    // node comes after its children.
    let mut order = Vec::with_capacity(nodes.len());
    let mut stack = vec![0u32];
    while let Some(i) = stack.pop() {
        order.push(i);
        if let NodeKind::Inner { left, right } = nodes[i as usize].kind {
            stack.push(left);
            stack.push(right);
        }
    }
    for &i in order.iter().rev() {
        let i = i as usize;
        nodes[i].bounds = match nodes[i].kind {
            NodeKind::Leaf { first, count } => tree.prim_order[first as usize..(first + count) as usize]
                .iter()
                .fold(Aabb::EMPTY, |b, &p| b.union(bounds[p as usize])),
            NodeKind::Inner { left, right } => {
                nodes[left as usize].bounds.union(nodes[right as usize].bounds)
            }
        };
    }
    Bvh { nodes, prim_order: tree.prim_order.clone() }
}
