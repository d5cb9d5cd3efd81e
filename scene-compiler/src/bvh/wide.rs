//! Compressed 8-wide BVH nodes (Ylitie, Karras and Laine, "Efficient Incoherent Ray
//! Traversal on GPUs Through Compressed Wide BVHs", HPG 2017), made on the host by
//! collapsing the blob's binary tree ([`collapse`]).
//!
//! Why: GPU traversal of incoherent rays is bound by memory traffic, not arithmetic.
//! A binary visit loads a 48-byte [`NodeBoxesRecord`], which the device copy widens to
//! 128 bytes with its mirrored rows, to decide between two children; a
//! [`WideNodeRecord`] is 96 bytes for up to eight children, each child's box stored as
//! six bytes quantized against the node's own frame (an origin and one power-of-two
//! scale per axis). Decoded boxes are conservative (they contain the exact ones), so
//! a ray may visit a little more than with exact boxes but never misses a hit. A wide
//! node holds several binary inner nodes (`count - 1` of them), so a ray also makes
//! fewer dependent loads from the root to a leaf. The 1M-sphere grid (`scene-gen grid
//! --count 1000000 --seed 1`): 962 545 binary inner nodes (123 MB as the device
//! repacks them) become 287 638 wide nodes (26 MB), 4.35 children on average.
//!
//! The tree is a conversion of the blob's binary tree, as [`super::veb`] is: leaves
//! are the blob's leaves, unchanged (a wide node links them with the blob's own leaf
//! links), and wide inner nodes are made of binary inner nodes. Nodes are in
//! depth-first preorder (a node's subtree follows it), node 0 the root. A node's
//! children are in the binary tree's left-to-right order; the slots carry no
//! ray-octant order (the traversal sorts hits by distance if it wants them near first).
//!
//! The stack bound: the kernels' traversal stack has [`WIDE_STACK`] entries
//! ([`MAX_BVH_DEPTH`], as for the binary tree) and a visit pushes at most `count - 1`
//! of a node's children (it goes on with one of them). So for every root-to-leaf path,
//! the sum of `count - 1` over the wide nodes on it must be at most [`WIDE_STACK`];
//! [`collapse`] only widens a node while that stays provable (`Collapser::node`).

use rayon::prelude::*;

use crate::blob_record;
use crate::bvh::Aabb;
use crate::limits::MAX_BVH_DEPTH;
use crate::records::layout::{NodeBoxesRecord, NodeLinksRecord, is_leaf};
use crate::records::{cuda_struct, generated_banner};

/// Most children of a wide node.
pub const WIDE_CHILDREN: usize = 8;
/// Entries of the wide traversal's stack: every root-to-leaf path of a [`WideBvh`]
/// has a sum of `count - 1` over its nodes of at most this.
pub const WIDE_STACK: u32 = MAX_BVH_DEPTH;
/// Where [`WideNodeRecord::meta`] keeps the child count.
pub const WIDE_COUNT_SHIFT: u32 = 24;

blob_record! {
    /// An 8-wide BVH node with quantized child boxes, 96 bytes (scene-compiler/src/bvh/wide.rs; Ylitie et al. 2017). Per axis, child i's box is min = origin + q_lo * scale, max = origin + q_hi * scale (f32), scale = the f32 whose bits are e << 23 (2^(e - 127)), which contains the child's exact box. A pair of lanes (a, b) holds child i < 4 in byte i of lane a (byte 0 the least significant) and child i >= 4 in byte i - 4 of lane b. Empty slots (i >= count) have q_lo = 255 and q_hi = 0 on every axis (a box no ray hits) and link 0.
    #[align(16)]
    pub struct WideNodeRecord as "WideNodeRecord" {
        /// The quantization frame's origin x: the union of the children's boxes' min corner.
        pub origin_x: f32,
        /// Origin y.
        pub origin_y: f32,
        /// Origin z.
        pub origin_z: f32,
        /// Bytes 0, 1, 2: the biased exponents ex, ey, ez (scale along an axis = 2^(e - 127), e >= 1, the f32 whose bits are e << 23); byte 3: the child count (1..=8; children occupy slots 0..count).
        pub meta: u32,
        /// Lanes 0, 1: the quantized low x of children 0..7; lanes 2, 3: low y.
        pub lo_x_y: [u32; 4],
        /// Lanes 0, 1: low z; lanes 2, 3: high x.
        pub lo_z_hi_x: [u32; 4],
        /// Lanes 0, 1: high y; lanes 2, 3: high z.
        pub hi_y_z: [u32; 4],
        /// Links of children 0..3: a wide node index (no LEAF_FLAG), or the blob's leaf link unchanged.
        pub links_lo: [u32; 4],
        /// Links of children 4..7 (0 for empty slots).
        pub links_hi: [u32; 4],
    }
}

const _: () = assert!(size_of::<WideNodeRecord>() == 96);

impl WideNodeRecord {
    /// Children in slots `0..child_count()`.
    pub fn child_count(&self) -> usize {
        (self.meta >> WIDE_COUNT_SHIFT) as usize
    }

    /// Child `i`'s link (0 for an empty slot).
    pub fn child_link(&self, i: usize) -> u32 {
        if i < 4 { self.links_lo[i] } else { self.links_hi[i - 4] }
    }

    /// The scale along each axis, 2^(e - 127).
    pub fn scales(&self) -> [f32; 3] {
        [0, 8, 16].map(|shift| f32::from_bits((self.meta >> shift & 0xff) << 23))
    }

    /// Child `i`'s quantized box per axis, `[lo, hi]`.
    pub fn child_quantized(&self, i: usize) -> [[u8; 2]; 3] {
        let byte = |lanes: &[u32; 4], pair: usize| {
            let lane = lanes[2 * pair + i / 4];
            (lane >> (8 * (i % 4))) as u8
        };
        [
            [byte(&self.lo_x_y, 0), byte(&self.lo_z_hi_x, 1)],
            [byte(&self.lo_x_y, 1), byte(&self.hi_y_z, 0)],
            [byte(&self.lo_z_hi_x, 0), byte(&self.hi_y_z, 1)],
        ]
    }

    /// Child `i`'s box as the kernels decode it: `origin + q * scale` in f32 (a
    /// multiply, then an add). Inverted (min > max) for an empty slot.
    pub fn child_bounds(&self, i: usize) -> Aabb {
        let origin = [self.origin_x, self.origin_y, self.origin_z];
        let scales = self.scales();
        let q = self.child_quantized(i);
        let decode = |axis: usize, end: usize| origin[axis] + f32::from(q[axis][end]) * scales[axis];
        Aabb {
            min: glam::Vec3::new(decode(0, 0), decode(1, 0), decode(2, 0)),
            max: glam::Vec3::new(decode(0, 1), decode(1, 1), decode(2, 1)),
        }
    }
}

/// An 8-wide tree: [`collapse`]'s result.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WideBvh {
    /// Depth-first preorder, node 0 the root; empty when the whole scene is one leaf.
    pub nodes: Vec<WideNodeRecord>,
    /// 0 (the root node), or the blob's root leaf link when there are no nodes.
    pub root: u32,
}

/// The full text of `kernels/wide_node.cuh`.
pub fn cuda_header() -> String {
    let mut out = generated_banner("scene-compiler/src/bvh/wide.rs");
    out.push_str("#include \"blob_layout.cuh\"\n\n");
    out.push_str(&format!("#define BLOB_WIDE_CHILDREN {WIDE_CHILDREN}\n"));
    out.push_str(&format!("#define BLOB_WIDE_STACK {WIDE_STACK}\n"));
    out.push_str(&format!("#define BLOB_WIDE_COUNT_SHIFT {WIDE_COUNT_SHIFT}u\n\n"));
    out.push_str(&cuda_struct::<WideNodeRecord>());
    out
}

/// The 8-wide tree of the blob's binary tree. `boxes` and `links` are the blob's
/// `node_boxes` and `node_links` sections ([`crate::BlobView`]'s fields of those
/// names), `root` its root link ([`crate::BlobView::root`]): inner node 0, or a leaf
/// when the whole scene is one leaf, in which case the result has no nodes and the
/// same root. Any node order (depth-first, van Emde Boas, other) gives the same
/// result. Deterministic.
///
/// Greedy, as tinybvh's BVH8 conversion: a wide node starts from a binary inner node's
/// two children and, while it has fewer than eight, replaces the inner child with the
/// largest surface area (the lowest slot among equals) whose expansion the stack bound
/// allows by that child's two children, in place, so slots keep the binary tree's
/// left-to-right order. Leaves are never split.
///
/// # Panics
///
/// On a tree a validated blob cannot hold: a link out of range, or deeper than
/// [`MAX_BVH_DEPTH`] levels ([`crate::BlobView::parse`] checks both).
pub fn collapse(boxes: &[NodeBoxesRecord], links: &[NodeLinksRecord], root: u32) -> WideBvh {
    collapse_with(boxes, links, root, WIDE_CHILDREN, WIDE_STACK)
}

/// The 8-wide trees of a blob with instances: the world's (`root`) and each bottom
/// level's, found as the inner nodes that are no node's child (a validated blob's trees
/// reach every inner node once), in one array in which each tree's nodes start at its
/// binary root's index. An instance's root link then names its wide root as it is (and
/// the world's root stays `root`), so the kernels walk both levels without a table of
/// new roots. A tree's wide nodes are fewer than its binary inner nodes, which the blob
/// writer numbers from its root on, so they fit where its binary nodes were; the unused
/// records between trees are never read. Each tree is [`collapse`]'s, its links moved
/// by its root's index.
///
/// An error when the trees' wide nodes would overlap, which only a blob whose trees'
/// nodes are not numbered from their roots on can cause (one our writer does not make).
///
/// # Panics
///
/// As [`collapse`].
pub fn collapse_levels(
    boxes: &[NodeBoxesRecord],
    links: &[NodeLinksRecord],
    root: u32,
) -> Result<WideBvh, String> {
    let mut is_child = vec![false; links.len()];
    for child in links.iter().flat_map(|l| [l.left, l.right]).filter(|&c| !is_leaf(c)) {
        is_child[child as usize] = true;
    }
    let roots: Vec<u32> = (0..links.len() as u32).filter(|&i| !is_child[i as usize]).collect();
    let heights = heights(links, &roots);
    let trees: Vec<Vec<WideNodeRecord>> = roots
        .par_iter()
        .map(|&r| tree_nodes(boxes, links, &heights, r, r, WIDE_CHILDREN, WIDE_STACK))
        .collect();
    let mut nodes =
        Vec::with_capacity(roots.last().map_or(0, |&r| r as usize) + trees.last().map_or(0, Vec::len));
    for (&r, tree) in roots.iter().zip(&trees) {
        if r as usize > nodes.len() {
            nodes.resize(r as usize, WideNodeRecord::default());
        } else if (r as usize) < nodes.len() {
            return Err(format!(
                "the wide nodes of the tree before node {r} reach past it: the blob's trees are not numbered from their roots on"
            ));
        }
        nodes.extend_from_slice(tree);
    }
    Ok(WideBvh { nodes, root })
}

/// [`collapse`] with at most `width` children per node and a stack of `budget`
/// entries (tests use other values to show what the bound does).
fn collapse_with(
    boxes: &[NodeBoxesRecord],
    links: &[NodeLinksRecord],
    root: u32,
    width: usize,
    budget: u32,
) -> WideBvh {
    assert!((2..=WIDE_CHILDREN).contains(&width));
    if is_leaf(root) {
        return WideBvh { nodes: Vec::new(), root };
    }
    let heights = heights(links, &[root]);
    WideBvh { nodes: tree_nodes(boxes, links, &heights, root, 0, width, budget), root: 0 }
}

/// The wide nodes of the tree at inner node `root`, numbered from `base` on (the
/// root's own first).
fn tree_nodes(
    boxes: &[NodeBoxesRecord],
    links: &[NodeLinksRecord],
    heights: &[u8],
    root: u32,
    base: u32,
    width: usize,
    budget: u32,
) -> Vec<WideNodeRecord> {
    // The stack bound at the root: a validated blob's leaves are at most MAX_BVH_DEPTH
    // levels deep counting the root as level 1, so a path has at most MAX_BVH_DEPTH - 1
    // inner nodes: h(root) <= 63. The binary tree itself, a wide tree of 2-child nodes,
    // has a sum of count - 1 = 1 per inner node on a path, at most 63 <= 64, so it
    // satisfies the bound, and every node `Collapser::node` starts is allowed.
    let h = u32::from(heights[root as usize]);
    assert!(h <= budget, "a BVH with {h} inner levels is deeper than a blob holds");
    let mut collapser = Collapser { boxes, links, heights, width, budget, nodes: Vec::new(), base };
    let top = collapser.node(root, 0);
    debug_assert_eq!(top, base);
    collapser.nodes
}

/// Per binary inner node of the trees at `roots`, its height in inner levels: 1 when
/// both children are leaves (a leaf counts 0). Saturates at 255, far past what a blob
/// holds.
fn heights(links: &[NodeLinksRecord], roots: &[u32]) -> Vec<u8> {
    let mut heights = vec![0u8; links.len()];
    let h = |heights: &[u8], link: u32| if is_leaf(link) { 0 } else { heights[link as usize] };
    // Depth-first and van Emde Boas orders place every child after its parent: one
    // backwards pass. Any other order (a hand-made tree) takes the general way.
    let children_follow = links.iter().enumerate().all(|(i, l)| {
        [l.left, l.right].iter().all(|&c| is_leaf(c) || (c as usize > i && (c as usize) < links.len()))
    });
    if children_follow {
        for i in (0..links.len()).rev() {
            let l = links[i];
            heights[i] = h(&heights, l.left).max(h(&heights, l.right)).saturating_add(1);
        }
        return heights;
    }
    // Preorder from each root (parents before children), then backwards.
    let mut order = Vec::with_capacity(links.len());
    for &root in roots {
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            order.push(node);
            let l = links[node as usize];
            stack.extend([l.right, l.left].into_iter().filter(|&c| !is_leaf(c)));
            assert!(order.len() <= links.len(), "the BVH's links are not a tree");
        }
    }
    for &node in order.iter().rev() {
        let l = links[node as usize];
        heights[node as usize] = h(&heights, l.left).max(h(&heights, l.right)).saturating_add(1);
    }
    heights
}

/// A child slot while a wide node is being formed: its binary link, exact box, height
/// (inner levels; 0 for a leaf) and, for an inner child, its surface area.
#[derive(Clone, Copy)]
struct Child {
    link: u32,
    bounds: Aabb,
    height: u32,
    area: f32,
}

struct Collapser<'a> {
    boxes: &'a [NodeBoxesRecord],
    links: &'a [NodeLinksRecord],
    heights: &'a [u8],
    width: usize,
    budget: u32,
    nodes: Vec<WideNodeRecord>,
    /// The index of `nodes[0]` in the final array.
    base: u32,
}

impl Collapser<'_> {
    /// Binary inner node `node`'s two children.
    fn children(&self, node: u32) -> [Child; 2] {
        let b = &self.boxes[node as usize];
        let l = self.links[node as usize];
        let child = |link: u32, lane: usize| {
            let bounds = Aabb {
                min: glam::Vec3::new(b.x[lane], b.y[lane], b.z[lane]),
                max: glam::Vec3::new(b.x[lane + 2], b.y[lane + 2], b.z[lane + 2]),
            };
            if is_leaf(link) {
                Child { link, bounds, height: 0, area: 0.0 }
            } else {
                let height = u32::from(self.heights[link as usize]);
                Child { link, bounds, height, area: bounds.surface_area() }
            }
        };
        [child(l.left, 0), child(l.right, 1)]
    }

    /// Appends the wide node made from binary inner node `node` and then, depth first,
    /// those of its inner children; returns its index. `used` is the sum of `count - 1`
    /// over its wide ancestors. Recursion is as deep as the wide tree: at most h(root)
    /// levels (63 in a blob), as each wide level goes down at least one binary level.
    ///
    /// The stack bound, by induction: this is called only with `used + h(node) <=
    /// budget` (at the root `collapse_with` checks it; below, the rule here). A node
    /// with children c_1..c_k is allowed when `used + (k - 1) + h(c_j) <= budget` for
    /// every child (h of a leaf is 0). Then each inner child starts its own node with
    /// `used' = used + k - 1` and `used' + h(c_j) <= budget`, the same condition one
    /// level down; and any root-to-leaf path's sum is at most `used + k - 1 <= budget`
    /// at its last node. The two children of `node` itself are always allowed:
    /// `used + 1 + max(h(left), h(right)) = used + h(node)`.
    fn node(&mut self, node: u32, used: u32) -> u32 {
        let mut kids = [Child { link: 0, bounds: Aabb::EMPTY, height: 0, area: 0.0 }; WIDE_CHILDREN];
        kids[..2].copy_from_slice(&self.children(node));
        let mut count = 2;
        while count < self.width {
            // Expanding child i gives count + 1 children (k - 1 = count) and replaces
            // h(i) by h(i) - 1, its children's largest: the deepest child afterwards is
            // the deepest of the others, or h(i) - 1.
            let (mut top, mut second, mut at_top) = (0, 0, 0);
            for kid in &kids[..count] {
                if kid.height > top {
                    (second, top, at_top) = (top, kid.height, 1);
                } else if kid.height == top {
                    at_top += 1;
                } else {
                    second = second.max(kid.height);
                }
            }
            let mut best: Option<usize> = None;
            for (i, kid) in kids[..count].iter().enumerate() {
                if kid.height == 0 {
                    continue;
                }
                let others = if kid.height == top && at_top == 1 { second } else { top };
                let deepest = others.max(kid.height - 1);
                // The largest area; the lowest slot among equals.
                if used + count as u32 + deepest <= self.budget
                    && best.is_none_or(|b| kid.area > kids[b].area)
                {
                    best = Some(i);
                }
            }
            let Some(i) = best else { break };
            let pair = self.children(kids[i].link);
            kids.copy_within(i + 1..count, i + 2);
            kids[i..i + 2].copy_from_slice(&pair);
            count += 1;
        }
        let below = used + count as u32 - 1;
        debug_assert!(kids[..count].iter().all(|c| below + c.height <= self.budget));

        let index = self.nodes.len();
        self.nodes.push(quantize(&kids[..count]));
        let mut child_links = [0u32; WIDE_CHILDREN];
        for (slot, kid) in child_links.iter_mut().zip(&kids[..count]) {
            *slot = if is_leaf(kid.link) { kid.link } else { self.node(kid.link, below) };
        }
        let record = &mut self.nodes[index];
        record.links_lo.copy_from_slice(&child_links[..4]);
        record.links_hi.copy_from_slice(&child_links[4..]);
        self.base + index as u32
    }
}

/// The record for `kids` (links still zero): the frame, the exponents, the count and
/// the quantized boxes.
fn quantize(kids: &[Child]) -> WideNodeRecord {
    let count = kids.len();
    // Per axis, the children's low and high ends in slot order; empty slots repeat the
    // last child (the union is the same) and are overwritten below.
    let mut mins = [[0f32; WIDE_CHILDREN]; 3];
    let mut maxs = [[0f32; WIDE_CHILDREN]; 3];
    for i in 0..WIDE_CHILDREN {
        let b = kids[i.min(count - 1)].bounds;
        for axis in 0..3 {
            mins[axis][i] = b.min[axis];
            maxs[axis][i] = b.max[axis];
        }
    }
    let mut origin = [0f32; 3];
    let mut exponents = [0u32; 3];
    let mut lo = [[0u8; WIDE_CHILDREN]; 3];
    let mut hi = [[0u8; WIDE_CHILDREN]; 3];
    for axis in 0..3 {
        (origin[axis], exponents[axis], lo[axis], hi[axis]) = quantize_axis(&mins[axis], &maxs[axis]);
        lo[axis][count..].fill(255);
        hi[axis][count..].fill(0);
    }
    let pack = |q: &[u8; WIDE_CHILDREN]| {
        [u32::from_le_bytes([q[0], q[1], q[2], q[3]]), u32::from_le_bytes([q[4], q[5], q[6], q[7]])]
    };
    let lanes = |a: &[u8; WIDE_CHILDREN], b: &[u8; WIDE_CHILDREN]| {
        let ([a0, a1], [b0, b1]) = (pack(a), pack(b));
        [a0, a1, b0, b1]
    };
    WideNodeRecord {
        origin_x: origin[0],
        origin_y: origin[1],
        origin_z: origin[2],
        meta: exponents[0] | exponents[1] << 8 | exponents[2] << 16 | (count as u32) << WIDE_COUNT_SHIFT,
        lo_x_y: lanes(&lo[0], &lo[1]),
        lo_z_hi_x: lanes(&lo[2], &hi[0]),
        hi_y_z: lanes(&hi[1], &hi[2]),
        links_lo: [0; 4],
        links_hi: [0; 4],
    }
}

/// One axis of [`quantize`]: the origin (the lowest `mins`), the exponent and each
/// slot's `floor((min - origin) / scale)` and `ceil((max - origin) / scale)`.
fn quantize_axis(
    mins: &[f32; WIDE_CHILDREN],
    maxs: &[f32; WIDE_CHILDREN],
) -> (f32, u32, [u8; WIDE_CHILDREN], [u8; WIDE_CHILDREN]) {
    // Plain comparisons: the boxes are finite (no NaN to care for).
    let origin = mins.iter().fold(f32::INFINITY, |a, &b| if b < a { b } else { a });
    let top = maxs.iter().fold(f32::NEG_INFINITY, |a, &b| if b > a { b } else { a });
    let e = exponent(origin, top);
    let scale = f32::from_bits(e << 23);
    // 1 / scale, exact: a power of two well inside f64's range.
    let inverse = scale_f64(254 - e);
    let o = f64::from(origin);
    let mut lo = [0u8; WIDE_CHILDREN];
    let mut hi = [0u8; WIDE_CHILDREN];
    // Straight-line code over the eight slots (the compiler vectorizes it). The
    // differences are exact in f64 unless the two ends are some 2^29 apart in
    // magnitude; the scale is a power of two, so the products are exact too.
    // Truncation is the floor of a non-negative number (and no libm call).
    for i in 0..WIDE_CHILDREN {
        let down = ((f64::from(mins[i]) - o) * inverse).clamp(0.0, 255.0);
        let up = ((f64::from(maxs[i]) - o) * inverse).clamp(0.0, 255.0);
        let up_floor = up as i32;
        lo[i] = down as i32 as u8;
        hi[i] = (up_floor + i32::from(f64::from(up_floor) < up)) as u8;
    }
    // The f32 decode of an exact floor (ceil) is at most `min` (at least `max`), as
    // rounding to nearest is monotonic; only a rounded difference can break that, and
    // then one step outwards mends it.
    let mut broken = false;
    for i in 0..WIDE_CHILDREN {
        broken |=
            (decode(origin, scale, lo[i].into()) > mins[i]) | (decode(origin, scale, hi[i].into()) < maxs[i]);
    }
    if broken {
        mend(origin, scale, mins, maxs, &mut lo, &mut hi);
    }
    (origin, e, lo, hi)
}

/// `origin + q * scale` as the kernels compute it (f32, multiply then add).
fn decode(origin: f32, scale: f32, q: u32) -> f32 {
    origin + q as f32 * scale
}

/// 2^(e - 127) in f64.
fn scale_f64(e: u32) -> f64 {
    f64::from_bits(u64::from(e + 1023 - 127) << 52)
}

/// The smallest biased exponent e >= 1 with `ceil((max - origin) / 2^(e - 127)) <= 255`,
/// i.e. `max - origin <= 255 * 2^(e - 127)`, computed exactly in f64; made larger if
/// need be until the f32 decode of 255 reaches `max` (always so, unless the difference
/// was rounded in f64).
fn exponent(origin: f32, max: f32) -> u32 {
    let extent = f64::from(max) - f64::from(origin);
    // Multiplying by 2^(127 - e) is exact.
    let fits = |e: u32| extent * scale_f64(254 - e) <= 255.0;
    // ceil(log2(extent / 255)) + 127 from the quotient's bits, off by one at most
    // (the quotient is rounded); no loop here, the rare rest is `exponent_search`'s.
    let guess = extent / 255.0;
    let bits = guess.to_bits();
    let log2 = ((bits >> 52) & 0x7ff) as i32 - 1023 + i32::from(bits & ((1 << 52) - 1) != 0);
    let mut e = (log2 + 127).clamp(2, 253) as u32;
    if fits(e - 1) {
        e -= 1;
    } else if !fits(e) {
        e += 1;
    }
    let smallest = fits(e) && !fits(e - 1);
    if guess > 0.0 && smallest && decode(origin, f32::from_bits(e << 23), 255) >= max {
        e
    } else {
        exponent_search(origin, max)
    }
}

/// [`exponent`] by search: for zero or tiny extents (e = 1), huge ones, and values
/// whose difference f64 rounds.
#[cold]
#[inline(never)]
fn exponent_search(origin: f32, max: f32) -> u32 {
    let extent = f64::from(max) - f64::from(origin);
    let mut e = 1;
    while e < 254 && extent * scale_f64(254 - e) > 255.0 {
        e += 1;
    }
    while e < 254 && decode(origin, f32::from_bits(e << 23), 255) < max {
        e += 1;
    }
    e
}

/// Steps `lo` down and `hi` up until their f32 decodes contain `mins` and `maxs`.
#[cold]
#[inline(never)]
fn mend(
    origin: f32,
    scale: f32,
    mins: &[f32; WIDE_CHILDREN],
    maxs: &[f32; WIDE_CHILDREN],
    lo: &mut [u8; WIDE_CHILDREN],
    hi: &mut [u8; WIDE_CHILDREN],
) {
    for i in 0..WIDE_CHILDREN {
        while lo[i] > 0 && decode(origin, scale, lo[i].into()) > mins[i] {
            lo[i] -= 1;
        }
        while hi[i] < 255 && decode(origin, scale, hi[i].into()) < maxs[i] {
            hi[i] += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use glam::Vec3;

    use super::*;
    use crate::blob::{BlobView, NodeLayout};
    use crate::bvh::BuildOptions;
    use crate::records::layout::{PRIM_INDEX_MASK, PrimKind, leaf_link, leaf_prims};
    use crate::rng::SplitMix64;
    use crate::scene::{Cuboid, MaterialKind, Sky};
    use crate::testing::{self, pinhole};
    use crate::{CompileOptions, compile_scene};

    /// A binary tree in the blob's form.
    #[derive(Clone, Debug)]
    struct Binary {
        boxes: Vec<NodeBoxesRecord>,
        links: Vec<NodeLinksRecord>,
        root: u32,
    }

    impl Binary {
        fn of(view: &BlobView) -> Binary {
            Binary { boxes: view.node_boxes.to_vec(), links: view.node_links.to_vec(), root: view.root() }
        }

        fn collapse(&self) -> WideBvh {
            collapse(&self.boxes, &self.links, self.root)
        }

        fn child_bounds(&self, node: u32) -> [Aabb; 2] {
            let b = &self.boxes[node as usize];
            [0, 1].map(|lane| Aabb {
                min: Vec3::new(b.x[lane], b.y[lane], b.z[lane]),
                max: Vec3::new(b.x[lane + 2], b.y[lane + 2], b.z[lane + 2]),
            })
        }

        fn root_bounds(&self) -> Aabb {
            let [l, r] = self.child_bounds(self.root);
            l.union(r)
        }
    }

    /// A tree written by hand; leaves get sphere links numbered left to right.
    enum Tree {
        Leaf(Aabb),
        Inner(Box<Tree>, Box<Tree>),
    }

    impl Tree {
        fn inner(l: Tree, r: Tree) -> Tree {
            Tree::Inner(Box::new(l), Box::new(r))
        }

        fn bounds(&self) -> Aabb {
            match self {
                Tree::Leaf(b) => *b,
                Tree::Inner(l, r) => l.bounds().union(r.bounds()),
            }
        }

        /// Depth-first, node 0 the root (an inner root).
        fn binary(&self) -> Binary {
            fn push(t: &Tree, out: &mut Binary, next_leaf: &mut u32) -> u32 {
                match t {
                    Tree::Leaf(_) => {
                        *next_leaf += 1;
                        leaf_link(PrimKind::Sphere, *next_leaf - 1, 1)
                    }
                    Tree::Inner(l, r) => {
                        let index = out.links.len();
                        let (lb, rb) = (l.bounds(), r.bounds());
                        out.boxes.push(NodeBoxesRecord {
                            x: [lb.min.x, rb.min.x, lb.max.x, rb.max.x],
                            y: [lb.min.y, rb.min.y, lb.max.y, rb.max.y],
                            z: [lb.min.z, rb.min.z, lb.max.z, rb.max.z],
                        });
                        out.links.push(NodeLinksRecord::default());
                        let left = push(l, out, next_leaf);
                        let right = push(r, out, next_leaf);
                        out.links[index] = NodeLinksRecord { left, right };
                        index as u32
                    }
                }
            }
            let mut out = Binary { boxes: Vec::new(), links: Vec::new(), root: 0 };
            out.root = push(self, &mut out, &mut 0);
            out
        }
    }

    fn unit_cube() -> Aabb {
        Aabb { min: Vec3::ZERO, max: Vec3::ONE }
    }

    /// A perfect tree of `height` inner levels over `b`, cut in halves along x.
    fn perfect(height: u32, b: Aabb) -> Tree {
        if height == 0 {
            return Tree::Leaf(b);
        }
        let mid = (b.min.x + b.max.x) * 0.5;
        let left = Aabb { max: Vec3::new(mid, b.max.y, b.max.z), ..b };
        let right = Aabb { min: Vec3::new(mid, b.min.y, b.min.z), ..b };
        Tree::inner(perfect(height - 1, left), perfect(height - 1, right))
    }

    /// The deepest tree a blob holds (leaves at level 64, 63 inner levels), built to
    /// tempt the greedy collapse: a chain whose node at level d has, on its left, a
    /// perfect tree of min(3, 63 - d) levels. Every box is the unit cube, so areas tie
    /// and the lowest slot (the side trees) is expanded first.
    fn comb() -> Tree {
        fn from(level: u32) -> Tree {
            let side = perfect(3.min(63 - level), unit_cube());
            let rest = if level == 63 { Tree::Leaf(unit_cube()) } else { from(level + 1) };
            Tree::inner(side, rest)
        }
        from(1)
    }

    /// A chain of 63 inner nodes, each with a leaf on the left (or the right).
    fn chain(leaf_left: bool) -> Tree {
        let mut t = Tree::inner(Tree::Leaf(unit_cube()), Tree::Leaf(unit_cube()));
        for i in 1..63 {
            let leaf = Tree::Leaf(Aabb { min: Vec3::splat(i as f32), max: Vec3::splat(i as f32 + 1.0) });
            t = if leaf_left { Tree::inner(leaf, t) } else { Tree::inner(t, leaf) };
        }
        t
    }

    /// What the binary tree says about one of its links: its box (from its parent),
    /// height (inner levels), its link and its children's links.
    #[derive(Clone, Copy, Debug)]
    struct BinNode {
        link: u32,
        bounds: Aabb,
        height: u32,
        children: Option<[u32; 2]>,
    }

    /// Every binary link by a key that names a subtree whatever the layout: (the
    /// smallest leaf link in it, its number of leaves). Nested subtrees differ in
    /// leaf count, disjoint ones in their smallest leaf.
    fn binary_index(bin: &Binary) -> HashMap<(u32, u32), BinNode> {
        fn walk(
            bin: &Binary,
            link: u32,
            bounds: Aabb,
            out: &mut HashMap<(u32, u32), BinNode>,
        ) -> ((u32, u32), u32) {
            let (key, height, children) = if is_leaf(link) {
                ((link, 1), 0, None)
            } else {
                let l = bin.links[link as usize];
                let [lb, rb] = bin.child_bounds(link);
                let (lk, lh) = walk(bin, l.left, lb, out);
                let (rk, rh) = walk(bin, l.right, rb, out);
                ((lk.0.min(rk.0), lk.1 + rk.1), lh.max(rh) + 1, Some([l.left, l.right]))
            };
            assert!(out.insert(key, BinNode { link, bounds, height, children }).is_none(), "keys are unique");
            (key, height)
        }
        let mut out = HashMap::new();
        if !is_leaf(bin.root) {
            walk(bin, bin.root, bin.root_bounds(), &mut out);
        }
        out
    }

    /// Child `i`'s quantized byte of lane pair `pair` (0: lanes 0, 1; 1: lanes 2, 3),
    /// read as the spec says: a pair of little-endian lanes is 8 bytes in child order.
    fn q(lanes: &[u32; 4], pair: usize, i: usize) -> u8 {
        bytemuck::bytes_of(lanes)[8 * pair + i]
    }

    /// Child `i`'s quantized (lo, hi) per axis, from the raw lanes.
    fn quantized(n: &WideNodeRecord, i: usize) -> [(u8, u8); 3] {
        [
            (q(&n.lo_x_y, 0, i), q(&n.lo_z_hi_x, 1, i)),
            (q(&n.lo_x_y, 1, i), q(&n.hi_y_z, 0, i)),
            (q(&n.lo_z_hi_x, 0, i), q(&n.hi_y_z, 1, i)),
        ]
    }

    fn origin(n: &WideNodeRecord) -> [f32; 3] {
        [n.origin_x, n.origin_y, n.origin_z]
    }

    fn exponents(n: &WideNodeRecord) -> [u32; 3] {
        [n.meta & 0xff, n.meta >> 8 & 0xff, n.meta >> 16 & 0xff]
    }

    /// Child `i`'s box decoded as the kernel does (f32 multiply, then add).
    fn decoded(n: &WideNodeRecord, i: usize) -> Aabb {
        let (o, e, qs) = (origin(n), exponents(n), quantized(n, i));
        let at = |axis: usize, q: u8| o[axis] + f32::from(q) * f32::from_bits(e[axis] << 23);
        Aabb {
            min: Vec3::new(at(0, qs[0].0), at(1, qs[1].0), at(2, qs[2].0)),
            max: Vec3::new(at(0, qs[0].1), at(1, qs[1].1), at(2, qs[2].1)),
        }
    }

    fn links(n: &WideNodeRecord) -> [u32; 8] {
        let mut l = [0; 8];
        l[..4].copy_from_slice(&n.links_lo);
        l[4..].copy_from_slice(&n.links_hi);
        l
    }

    /// Checks everything `collapse` promises about `wide` made from `bin` with a stack
    /// of `budget`; returns the largest sum of `count - 1` over a root-to-leaf path.
    fn check(bin: &Binary, wide: &WideBvh, width: usize, budget: u32) -> u32 {
        if is_leaf(bin.root) {
            assert!(wide.nodes.is_empty());
            assert_eq!(wide.root, bin.root);
            return 0;
        }
        assert_eq!(wide.root, 0, "node 0 is the root");
        let index = binary_index(bin);
        let heights: HashMap<u32, u32> =
            index.values().filter(|b| !is_leaf(b.link)).map(|b| (b.link, b.height)).collect();
        let h = |link: u32| if is_leaf(link) { 0 } else { heights[&link] };

        // Preorder: a depth-first walk in slot order visits 0, 1, 2, ... each once.
        let mut keys = vec![(u32::MAX, 0u32); wide.nodes.len()];
        let mut binary_of = vec![0u32; wide.nodes.len()];
        let mut used_at = vec![0u32; wide.nodes.len()];
        let mut wide_leaves = Vec::new();
        let mut visits = 0;
        let mut max_sum = 0;
        let mut stack = vec![(0u32, 0u32)];
        while let Some((node, used)) = stack.pop() {
            assert_eq!(node, visits, "nodes are in depth-first preorder, each reached once");
            visits += 1;
            used_at[node as usize] = used;
            let n = &wide.nodes[node as usize];
            let count = n.child_count();
            assert!((2..=width).contains(&count), "node {node} has {count} children");
            assert_eq!(count, (n.meta >> 24) as usize);
            max_sum = max_sum.max(used + count as u32 - 1);
            let l = links(n);
            for i in (0..count).rev() {
                if is_leaf(l[i]) {
                    wide_leaves.push(l[i]);
                } else {
                    assert!(
                        (l[i] as usize) < wide.nodes.len() && l[i] > node,
                        "link {} of node {node}",
                        l[i]
                    );
                    stack.push((l[i], used + count as u32 - 1));
                }
            }
            for (i, &link) in l.iter().enumerate().skip(count) {
                assert_eq!(link, 0, "an empty slot links 0");
                assert_eq!(quantized(n, i), [(255, 0); 3], "an empty slot is inverted");
            }
        }
        assert_eq!(visits as usize, wide.nodes.len(), "every node is reachable");
        let mut binary_leaves: Vec<u32> =
            index.values().filter(|b| is_leaf(b.link)).map(|b| b.link).collect();
        wide_leaves.sort_unstable();
        binary_leaves.sort_unstable();
        assert_eq!(wide_leaves, binary_leaves, "every binary leaf is a wide leaf child exactly once");

        // Keys bottom-up (children follow their parent in preorder).
        let key_of =
            |link: u32, keys: &[(u32, u32)]| if is_leaf(link) { (link, 1) } else { keys[link as usize] };
        for node in (0..wide.nodes.len()).rev() {
            let n = &wide.nodes[node];
            let l = links(n);
            keys[node] = l[..n.child_count()]
                .iter()
                .map(|&c| key_of(c, &keys))
                .fold((u32::MAX, 0), |a, k| (a.0.min(k.0), a.1 + k.1));
            binary_of[node] = index[&keys[node]].link;
        }
        assert_eq!(binary_of[0], bin.root);

        for (node, n) in wide.nodes.iter().enumerate() {
            let count = n.child_count();
            let l = links(n);
            let kids: Vec<BinNode> = l[..count]
                .iter()
                .map(|&c| *index.get(&key_of(c, &keys)).expect("every wide child is a binary subtree"))
                .collect();
            let union = kids.iter().fold(Aabb::EMPTY, |u, k| u.union(k.bounds));
            assert_eq!(
                origin(n),
                union.min.to_array(),
                "node {node}: the origin is the children's min corner"
            );
            for axis in 0..3 {
                let e = exponents(n)[axis];
                let extent = f64::from(union.max[axis]) - f64::from(union.min[axis]);
                let steps = |e: u32| (extent / 2f64.powi(e as i32 - 127)).ceil();
                assert!((1..=254).contains(&e) && steps(e) <= 255.0, "node {node} axis {axis}: e {e}");
                assert!(e == 1 || steps(e - 1) > 255.0, "node {node} axis {axis}: e {e} is not the smallest");
            }
            for (i, kid) in kids.iter().enumerate() {
                let d = decoded(n, i);
                for axis in 0..3 {
                    let (lo, hi) = (f64::from(d.min[axis]), f64::from(d.max[axis]));
                    let (min, max) = (f64::from(kid.bounds.min[axis]), f64::from(kid.bounds.max[axis]));
                    assert!(
                        lo <= min && hi >= max,
                        "node {node} child {i} axis {axis}: [{lo}, {hi}] vs [{min}, {max}]"
                    );
                    // The same bytes decoded exactly (no f32 rounding) contain it too.
                    let (o, s) = (f64::from(origin(n)[axis]), 2f64.powi(exponents(n)[axis] as i32 - 127));
                    let (qlo, qhi) = quantized(n, i)[axis];
                    assert!(o + f64::from(qlo) * s <= min && o + f64::from(qhi) * s >= max);
                    // And they are the floor and ceiling the format names (these scenes'
                    // differences are exact in f64).
                    assert_eq!(f64::from(qlo), ((min - o) / s).floor(), "node {node} child {i} axis {axis}");
                    assert_eq!(f64::from(qhi), ((max - o) / s).ceil(), "node {node} child {i} axis {axis}");
                }
                assert_eq!(n.child_bounds(i), d, "the public decoder agrees");
                assert_eq!(n.child_link(i), l[i]);
            }
            // The stack bound, node by node, and greedy: a node short of `width`
            // children has no inner child whose expansion the bound would allow.
            let used = used_at[node];
            let deepest = kids.iter().map(|k| k.height).max().unwrap();
            assert!(used + count as u32 - 1 + deepest <= budget, "node {node} breaks the stack bound");
            if count < width {
                for (i, kid) in kids.iter().enumerate() {
                    let Some([a, b]) = kid.children else { continue };
                    let others = kids.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, k)| k.height);
                    let deepest = others.chain([h(a), h(b)]).max().unwrap();
                    assert!(
                        used + count as u32 + deepest > budget,
                        "node {node} has {count} children but could expand child {i}"
                    );
                }
            }
        }
        max_sum
    }

    fn spheres_scene(spheres: &[(Vec3, f32)], boxes: &[Aabb]) -> crate::Scene {
        let camera = pinhole(Vec3::new(0.0, 0.0, -10.0), Vec3::ZERO, 40.0);
        let materials = [MaterialKind::Lambert { albedo: Vec3::splat(0.5) }];
        let spheres: Vec<_> = spheres.iter().map(|&(c, r)| (c, r, 0)).collect();
        let mut scene = testing::scene(camera, Sky::Constant(Vec3::ONE), &materials, &spheres);
        scene.boxes = boxes.iter().map(|b| Cuboid { min: b.min, max: b.max, material: 0 }).collect();
        scene
    }

    fn random_spheres(n: usize, side: f32, radii: (f32, f32), seed: u64) -> Vec<(Vec3, f32)> {
        let mut rng = SplitMix64(seed);
        (0..n).map(|_| (rng.next_vec3() * side, radii.0 + (radii.1 - radii.0) * rng.next_f32())).collect()
    }

    /// `levels` shells of `per_level` spheres, each `shrink` times the previous: the
    /// builder's trees for these reach the blob's depth limit.
    fn nested_shells(levels: usize, per_level: usize, shrink: f32) -> Vec<(Vec3, f32)> {
        let mut rng = SplitMix64(11);
        let mut spheres = Vec::new();
        for level in 0..levels {
            let scale = shrink.powi(level as i32);
            for _ in 0..per_level {
                spheres.push(((rng.next_vec3() * 2.0 - Vec3::ONE) * 100.0 * scale, 0.5 * scale));
            }
        }
        spheres
    }

    fn compiled(
        scene: &crate::Scene,
        layout: NodeLayout,
        max_leaf_size: u32,
    ) -> (crate::AlignedBytes, Binary) {
        let options =
            CompileOptions { layout, bvh: BuildOptions { max_leaf_size, ..BuildOptions::default() } };
        let blob = compile_scene(scene, &options).blob;
        let bin = Binary::of(&BlobView::parse(&blob).expect("the compiled blob loads"));
        (blob, bin)
    }

    fn scenes() -> Vec<(&'static str, crate::Scene)> {
        let mut rng = SplitMix64(5);
        let boxes: Vec<Aabb> = (0..300)
            .map(|_| {
                let min = rng.next_vec3() * 80.0;
                Aabb { min, max: min + rng.next_vec3() * 4.0 + Vec3::splat(0.01) }
            })
            .collect();
        vec![
            ("3000 random spheres", spheres_scene(&random_spheres(3000, 100.0, (0.1, 2.0), 1), &[])),
            ("spheres and boxes", spheres_scene(&random_spheres(700, 80.0, (0.05, 1.0), 2), &boxes)),
            ("nested shells 40 x 20", spheres_scene(&nested_shells(40, 20, 0.1), &[])),
            ("a plane of flat boxes", {
                let flat: Vec<Aabb> = (0..400)
                    .map(|i| {
                        let min = Vec3::new((i % 20) as f32, 0.0, (i / 20) as f32 * 1.5);
                        Aabb { min, max: min + Vec3::new(0.9, 1e-3, 1.0) }
                    })
                    .collect();
                spheres_scene(&[], &flat)
            }),
            ("one sphere", spheres_scene(&[(Vec3::ZERO, 1.0)], &[])),
            ("three spheres", spheres_scene(&random_spheres(3, 10.0, (0.5, 1.0), 3), &[])),
        ]
    }

    #[test]
    fn compiled_scenes_collapse_to_valid_wide_trees_in_any_layout() {
        for (name, scene) in scenes() {
            for max_leaf in [1, 4] {
                let (_, df) = compiled(&scene, NodeLayout::DepthFirst, max_leaf);
                let (_, veb) = compiled(&scene, NodeLayout::VanEmdeBoas, max_leaf);
                let wide = df.collapse();
                let sum = check(&df, &wide, WIDE_CHILDREN, WIDE_STACK);
                assert!(sum <= WIDE_STACK, "{name}: stack {sum}");
                assert_eq!(veb.collapse(), wide, "{name}: the van Emde Boas blob gives the same nodes");
                assert_eq!(df.collapse(), wide, "{name}: deterministic");
                if !is_leaf(df.root) {
                    let binary_inner = df.links.len();
                    let filled: usize = wide.nodes.iter().map(|n| n.child_count() - 1).sum();
                    assert_eq!(
                        filled, binary_inner,
                        "{name}: each binary inner node is in exactly one wide node"
                    );
                }
            }
        }
    }

    #[test]
    fn big_balanced_trees_fill_their_nodes() {
        let (_, bin) = compiled(
            &spheres_scene(&random_spheres(20_000, 100.0, (0.1, 0.5), 9), &[]),
            NodeLayout::DepthFirst,
            4,
        );
        let wide = bin.collapse();
        check(&bin, &wide, WIDE_CHILDREN, WIDE_STACK);
        // Greedy leaves the nodes above small subtrees short (a subtree of 5 leaves
        // is a node of 5): here (20k spheres, 19 997 binary inner nodes: a small tree's
        // leaves of one) 4941 nodes of 5.05 children on average, 925 of them full and 507
        // of two.
        let mean = wide.nodes.iter().map(|n| n.child_count()).sum::<usize>() as f64 / wide.nodes.len() as f64;
        assert!(mean > 4.5, "mean children {mean}");
        let full = wide.nodes.iter().filter(|n| n.child_count() == WIDE_CHILDREN).count();
        assert!(full * 8 > wide.nodes.len(), "{full} full nodes of {}", wide.nodes.len());
    }

    #[test]
    fn the_deepest_nested_tree_keeps_the_stack_bound_and_the_binary_tree_is_within_it() {
        let (_, bin) = compiled(&spheres_scene(&nested_shells(40, 20, 0.1), &[]), NodeLayout::DepthFirst, 1);
        let index = binary_index(&bin);
        let root_height = index.values().map(|b| b.height).max().unwrap();
        assert!(root_height >= 50, "the scene is deep: {root_height} inner levels");
        assert!(root_height < MAX_BVH_DEPTH, "a blob's tree has at most 63 inner levels");
        // Width 2 is the binary tree itself: its path sums are its inner depths.
        let binary = collapse_with(&bin.boxes, &bin.links, bin.root, 2, WIDE_STACK);
        assert_eq!(binary.nodes.len(), bin.links.len());
        assert_eq!(check(&bin, &binary, 2, WIDE_STACK), root_height);
        let sum = check(&bin, &bin.collapse(), WIDE_CHILDREN, WIDE_STACK);
        assert!(sum <= WIDE_STACK);
    }

    #[test]
    fn a_comb_of_the_deepest_blob_tree_meets_the_stack_bound_only_with_it() {
        let bin = comb().binary();
        let root_height =
            binary_index(&bin)[&(leaf_link(PrimKind::Sphere, 0, 1), bin.links.len() as u32 + 1)].height;
        assert_eq!(root_height, 63, "as deep as a blob holds");
        let wide = bin.collapse();
        let sum = check(&bin, &wide, WIDE_CHILDREN, WIDE_STACK);
        assert!(sum <= WIDE_STACK, "stack {sum}");
        // Without the bound the greedy collapse fills every node from the side trees
        // and the chain needs far more than 64 entries: the test above can fail.
        let unbounded = collapse_with(&bin.boxes, &bin.links, bin.root, WIDE_CHILDREN, u32::MAX / 2);
        let sum = check(&bin, &unbounded, WIDE_CHILDREN, u32::MAX / 2);
        assert!(sum > WIDE_STACK, "unbounded stack {sum}");
        // The binary tree, width 2, is within the bound: 63 entries.
        let binary = collapse_with(&bin.boxes, &bin.links, bin.root, 2, WIDE_STACK);
        assert_eq!(check(&bin, &binary, 2, WIDE_STACK), 63);
    }

    #[test]
    fn chains_of_depth_64_collapse_within_the_bound() {
        for leaf_left in [true, false] {
            let bin = chain(leaf_left).binary();
            assert_eq!(bin.links.len(), 63);
            let wide = bin.collapse();
            assert!(check(&bin, &wide, WIDE_CHILDREN, WIDE_STACK) <= WIDE_STACK);
            assert_eq!(wide.nodes.len(), 9, "seven binary levels per full node");
        }
    }

    #[test]
    fn perfect_trees_and_the_largest_child_first() {
        let bin = perfect(3, unit_cube()).binary();
        let wide = bin.collapse();
        check(&bin, &wide, WIDE_CHILDREN, WIDE_STACK);
        assert_eq!(wide.nodes.len(), 1);
        assert_eq!(wide.nodes[0].child_count(), 8);
        assert!(links(&wide.nodes[0]).iter().all(|&l| is_leaf(l)));

        let bin = perfect(4, unit_cube()).binary();
        let wide = bin.collapse();
        check(&bin, &wide, WIDE_CHILDREN, WIDE_STACK);
        assert_eq!(wide.nodes.len(), 9);

        // Width 3: of a small and a large inner child, the large one is expanded.
        let small = Aabb { min: Vec3::ZERO, max: Vec3::splat(0.1) };
        let large = Aabb { min: Vec3::ONE, max: Vec3::splat(3.0) };
        let bin = Tree::inner(perfect(1, small), perfect(1, large)).binary();
        let wide = collapse_with(&bin.boxes, &bin.links, bin.root, 3, WIDE_STACK);
        check(&bin, &wide, 3, WIDE_STACK);
        let l = links(&wide.nodes[0]);
        assert_eq!(wide.nodes[0].child_count(), 3);
        assert!(!is_leaf(l[0]) && is_leaf(l[1]) && is_leaf(l[2]), "{l:x?}");
    }

    #[test]
    fn any_node_numbering_gives_the_same_wide_tree() {
        let (_, df) = compiled(&scenes().swap_remove(1).1, NodeLayout::DepthFirst, 4);
        // Node 0 stays the root; the others in reverse, so children often precede parents.
        let n = df.links.len() as u32;
        let new = |old: u32| if old == 0 || is_leaf(old) { old } else { n - old };
        let mut shuffled = df.clone();
        for old in 0..n {
            let l = df.links[old as usize];
            shuffled.links[new(old) as usize] = NodeLinksRecord { left: new(l.left), right: new(l.right) };
            shuffled.boxes[new(old) as usize] = df.boxes[old as usize];
        }
        assert_eq!(shuffled.collapse(), df.collapse());
    }

    /// Rays that start inside or around `bounds`, half in random directions, half
    /// aimed at one of `targets` (so that many hit something, even tiny spheres).
    fn rays(bounds: Aabb, targets: &[Vec3], n: usize, seed: u64) -> Vec<(Vec3, Vec3)> {
        let mut rng = SplitMix64(seed);
        let size = bounds.max - bounds.min;
        (0..n)
            .map(|_| {
                let origin = bounds.min - 0.25 * size + rng.next_vec3() * 1.5 * size;
                let mut dir = rng.next_vec3() * 2.0 - Vec3::ONE;
                if rng.next_f32() < 0.5 {
                    dir = targets[rng.next_u64() as usize % targets.len()] - origin;
                }
                (origin, dir.normalize())
            })
            .filter(|(_, d)| d.is_finite() && d.abs().min_element() > 1e-6)
            .collect()
    }

    /// The ray's entry and exit distances of `b` in f64, near and far planes picked by
    /// the direction's signs as the kernel does (so an inverted box is never hit);
    /// `None` when it misses or the box is behind.
    fn slab(origin: Vec3, dir: Vec3, b: Aabb) -> Option<(f64, f64)> {
        let (mut near, mut far) = (0f64, f64::INFINITY);
        for axis in 0..3 {
            let (o, inv) = (f64::from(origin[axis]), 1.0 / f64::from(dir[axis]));
            let (lo, hi) = (f64::from(b.min[axis]), f64::from(b.max[axis]));
            let (n, f) = if inv >= 0.0 { (lo, hi) } else { (hi, lo) };
            near = near.max((n - o) * inv);
            far = far.min((f - o) * inv);
        }
        (near <= far).then_some((near, far))
    }

    /// The wide tree's traversal as the kernel will do it (tests only): the decoded
    /// boxes' slab test, an explicit stack; `leaf` returns a hit distance. With `prune`,
    /// children farther than the closest hit so far are skipped.
    fn traverse(
        wide: &WideBvh,
        origin: Vec3,
        dir: Vec3,
        prune: bool,
        mut leaf: impl FnMut(u32) -> Option<f64>,
    ) {
        let mut t_max = f64::INFINITY;
        let mut stack = vec![wide.root];
        while let Some(link) = stack.pop() {
            if is_leaf(link) {
                if let Some(t) = leaf(link)
                    && prune
                {
                    t_max = t_max.min(t);
                }
                continue;
            }
            let n = &wide.nodes[link as usize];
            for i in 0..8 {
                if let Some((near, _)) = slab(origin, dir, decoded(n, i))
                    && near <= t_max * (1.0 + 1e-5)
                {
                    assert!(i < n.child_count(), "an empty slot is hit");
                    stack.push(links(n)[i]);
                }
            }
        }
    }

    /// The nearest hit distance past 1e-4, in f64 with the stable discriminant (Ray
    /// Tracing Gems, ch. 7), so that spheres far smaller than the ray's distance are
    /// missed reliably rather than by rounding noise.
    fn hit_sphere(origin: Vec3, dir: Vec3, center_radius: [f32; 4]) -> Option<f64> {
        let [x, y, z, r] = center_radius.map(f64::from);
        let (o, d) = (origin.as_dvec3(), dir.as_dvec3());
        let oc = o - glam::DVec3::new(x, y, z);
        let b = oc.dot(d) / d.length_squared();
        let perpendicular = oc - b * d;
        let disc = (r * r - perpendicular.length_squared()) / d.length_squared();
        if disc < 0.0 {
            return None;
        }
        let root = disc.sqrt();
        [-b - root, -b + root].into_iter().find(|&t| t > 1e-4)
    }

    /// The nearer hit; equal distances keep the lower index.
    fn closer(best: Option<(u32, f64)>, hit: (u32, f64)) -> Option<(u32, f64)> {
        match best {
            Some(b) if b.1 < hit.1 || (b.1 == hit.1 && b.0 < hit.0) => best,
            _ => Some(hit),
        }
    }

    #[test]
    fn wide_traversal_finds_the_brute_force_closest_sphere() {
        let cases = [
            ("3000 random spheres", random_spheres(3000, 100.0, (0.1, 2.0), 1)),
            ("nested shells 12 x 100", nested_shells(12, 100, 0.3)),
            ("dense small spheres", random_spheres(4000, 10.0, (0.01, 0.1), 4)),
        ];
        for (name, spheres) in cases {
            for max_leaf in [1, 4] {
                let (blob, bin) = compiled(&spheres_scene(&spheres, &[]), NodeLayout::DepthFirst, max_leaf);
                let view = BlobView::parse(&blob).unwrap();
                let records: Vec<[f32; 4]> =
                    view.records::<crate::scene::Sphere>().iter().map(|s| s.center_radius).collect();
                let wide = bin.collapse();
                let mut hits = 0;
                let centers: Vec<Vec3> = records.iter().map(|s| Vec3::new(s[0], s[1], s[2])).collect();
                for (origin, dir) in rays(bin.root_bounds(), &centers, 400, 17) {
                    let brute = records
                        .iter()
                        .enumerate()
                        .filter_map(|(i, &s)| hit_sphere(origin, dir, s).map(|t| (i as u32, t)))
                        .fold(None, closer);
                    let mut best = None;
                    traverse(&wide, origin, dir, true, |link| {
                        let (first, count) = leaf_prims(link);
                        for prim in (first & PRIM_INDEX_MASK)..(first & PRIM_INDEX_MASK) + count {
                            if let Some(t) = hit_sphere(origin, dir, records[prim as usize]) {
                                best = closer(best, (prim, t));
                            }
                        }
                        best.map(|b| b.1)
                    });
                    assert_eq!(best, brute, "{name}, leaf {max_leaf}: ray {origin} {dir}");
                    hits += usize::from(brute.is_some());
                }
                assert!(hits > 50, "{name}: only {hits} rays hit anything");
            }
        }
    }

    #[test]
    fn without_pruning_every_leaf_whose_box_a_ray_hits_is_reached() {
        for (name, scene) in scenes() {
            let (_, bin) = compiled(&scene, NodeLayout::VanEmdeBoas, 4);
            if is_leaf(bin.root) {
                continue;
            }
            let leaves: Vec<BinNode> = binary_index(&bin).into_values().filter(|b| is_leaf(b.link)).collect();
            let wide = bin.collapse();
            let mut reached_total = 0;
            let centers: Vec<Vec3> = leaves.iter().map(|l| l.bounds.center()).collect();
            for (origin, dir) in rays(bin.root_bounds(), &centers, 300, 23) {
                let mut reached = Vec::new();
                traverse(&wide, origin, dir, false, |link| {
                    reached.push(link);
                    None
                });
                reached.sort_unstable();
                assert!(reached.windows(2).all(|w| w[0] < w[1]), "{name}: a leaf reached twice");
                for leaf in &leaves {
                    if slab(origin, dir, leaf.bounds).is_some() {
                        assert!(
                            reached.binary_search(&leaf.link).is_ok(),
                            "{name}: leaf {:x} missed",
                            leaf.link
                        );
                        reached_total += 1;
                    }
                }
            }
            assert!(reached_total > 100, "{name}: rays hit only {reached_total} leaf boxes");
        }
    }

    #[test]
    fn quantization_frames_of_awkward_boxes() {
        // Far from the origin, tiny, flat, negative and huge extents: containment and
        // the smallest exponent.
        let cases = [
            [(1e6, 1e6 + 0.25), (1e6 + 0.125, 1e6 + 0.125)],
            [(-3.0e7, -2.9e7), (1e-30, 2e-30)],
            [(0.0, 0.0), (0.0, 0.0)],
            [(-1e30, 1e30), (5.0, 6.0)],
            [(1.0, 1.0 + f32::EPSILON), (1.0, 1.0)],
        ];
        for pairs in cases {
            let kids: Vec<Child> = pairs
                .iter()
                .enumerate()
                .map(|(i, &(a, b))| Child {
                    link: leaf_link(PrimKind::Sphere, i as u32, 1),
                    bounds: Aabb { min: Vec3::new(a, -b, a), max: Vec3::new(b, -a, b) },
                    height: 0,
                    area: 0.0,
                })
                .collect();
            let n = quantize(&kids);
            for (i, kid) in kids.iter().enumerate() {
                assert!(decoded(&n, i).contains(kid.bounds), "{pairs:?} child {i}: {:?}", decoded(&n, i));
            }
            assert!(exponents(&n).iter().all(|&e| e >= 1));
            for i in kids.len()..8 {
                assert_eq!(quantized(&n, i), [(255, 0); 3]);
            }
        }
    }

    /// `bin`'s nodes moved up by `by` (its inner links with them).
    fn shifted(bin: &Binary, by: u32) -> Vec<NodeLinksRecord> {
        let link = |l: u32| if is_leaf(l) { l } else { l + by };
        bin.links.iter().map(|l| NodeLinksRecord { left: link(l.left), right: link(l.right) }).collect()
    }

    #[test]
    fn levels_keep_each_tree_at_its_binary_root() {
        // The writer's numbering: the world's nodes, then each bottom level's from its root.
        let world = perfect(4, unit_cube()).binary();
        let bottom = [perfect(5, unit_cube()).binary(), comb().binary()];
        let (mut boxes, mut links, mut roots) = (world.boxes.clone(), world.links.clone(), Vec::new());
        for level in &bottom {
            let at = links.len() as u32;
            roots.push(at);
            boxes.extend_from_slice(&level.boxes);
            links.extend(shifted(level, at));
        }
        let wide = collapse_levels(&boxes, &links, 0).unwrap();
        assert_eq!(wide.root, 0);
        for (bin, at) in std::iter::once((&world, 0)).chain(bottom.iter().zip(roots.iter().copied())) {
            let alone = bin.collapse();
            assert!(alone.nodes.len() < bin.links.len(), "fewer wide nodes than binary ones");
            for (i, node) in alone.nodes.iter().enumerate() {
                let placed = &wide.nodes[at as usize + i];
                let mut expected = *node;
                for slot in
                    expected.links_lo.iter_mut().chain(&mut expected.links_hi).take(node.child_count())
                {
                    *slot = if is_leaf(*slot) { *slot } else { *slot + at };
                }
                assert_eq!(*placed, expected, "node {i} of the tree at {at}");
            }
        }
        // Between trees, records no walk reaches.
        assert_eq!(wide.nodes[roots[0] as usize - 1], WideNodeRecord::default());
        // Without instances it is `collapse`.
        assert_eq!(collapse_levels(&world.boxes, &world.links, 0).unwrap(), world.collapse());

        // A bottom level numbered inside the world's range: the trees would overlap.
        let n = bottom[0].links.len() as u32;
        let world_link = |l: u32| if is_leaf(l) || l == 0 { l } else { l + n };
        let mut boxes = vec![world.boxes[0]];
        let mut links = vec![NodeLinksRecord {
            left: world_link(world.links[0].left),
            right: world_link(world.links[0].right),
        }];
        boxes.extend_from_slice(&bottom[0].boxes);
        links.extend(shifted(&bottom[0], 1));
        boxes.extend_from_slice(&world.boxes[1..]);
        links.extend(
            world.links[1..]
                .iter()
                .map(|l| NodeLinksRecord { left: world_link(l.left), right: world_link(l.right) }),
        );
        let err = collapse_levels(&boxes, &links, 0).unwrap_err();
        assert!(err.contains("before node 1"), "{err}");
    }

    #[test]
    fn a_leaf_root_has_no_nodes_and_the_header_declares_the_record() {
        let root = leaf_link(PrimKind::Sphere, 0, 3);
        assert_eq!(collapse(&[], &[], root), WideBvh { nodes: Vec::new(), root });
        let header = cuda_header();
        for line in [
            "#define BLOB_WIDE_STACK 64",
            "#define BLOB_WIDE_CHILDREN 8",
            "struct __align__(16) WideNodeRecord {",
            "    float origin_x; // offset   0:",
            "    unsigned int meta; // offset  12:",
            "    uint4 lo_x_y; // offset  16:",
            "    uint4 links_hi; // offset  80:",
            "static_assert(sizeof(WideNodeRecord) == 96, \"layout drift\");",
        ] {
            assert!(header.contains(line), "no `{line}` in:\n{header}");
        }
    }
}
