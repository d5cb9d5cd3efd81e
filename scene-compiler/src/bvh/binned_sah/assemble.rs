//! Joining subtrees built by parallel tasks into one depth-first node array.
//!
//! Each task numbers its nodes from 0; the parent only records the order of its two
//! children. Indices are assigned in one pass at the end, in tree order, so they never
//! depend on which task finished first (the build must be identical on 1 or 64 threads).

use super::prim_ref::Box3;
use crate::bvh::{Node, NodeKind};

/// A built subtree: the nodes of one sequential task, or an inner node whose two
/// children were built in parallel.
pub(super) enum Subtree {
    Flat(Vec<Node>),
    Joined { bounds: Box3, children: Box<[Subtree; 2]> },
}

impl Subtree {
    fn node_count(&self) -> usize {
        match self {
            Subtree::Flat(nodes) => nodes.len(),
            Subtree::Joined { children, .. } => 1 + children[0].node_count() + children[1].node_count(),
        }
    }

    /// The nodes in depth-first order with global child indices; copies each node once.
    pub fn flatten(self) -> Vec<Node> {
        let mut out = Vec::with_capacity(self.node_count());
        self.append_to(&mut out);
        out
    }

    fn append_to(self, out: &mut Vec<Node>) {
        let base = out.len() as u32;
        match self {
            Subtree::Flat(nodes) => out.extend(nodes.into_iter().map(|node| match node.kind {
                NodeKind::Inner { left, right } => {
                    Node { kind: NodeKind::Inner { left: left + base, right: right + base }, ..node }
                }
                NodeKind::Leaf { .. } => node,
            })),
            Subtree::Joined { bounds, children } => {
                let [left, right] = *children;
                // The right index is known only after the left subtree is placed.
                out.push(Node {
                    bounds: bounds.to_aabb(),
                    kind: NodeKind::Inner { left: base + 1, right: 0 },
                });
                left.append_to(out);
                let right_index = out.len() as u32;
                out[base as usize].kind = NodeKind::Inner { left: base + 1, right: right_index };
                right.append_to(out);
            }
        }
    }
}
