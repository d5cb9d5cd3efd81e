//! One node's decision: bin the centroids, pick the cheapest SAH split over all three
//! axes, compare it with making a leaf, and partition the refs in place.
//!
//! The method is Wald, "On fast construction of SAH-based bounding volume
//! hierarchies" (2007): evenly spaced bins over the centroid bounds make a split
//! evaluation O(n + bins) instead of the O(n log n) of a full sweep, at a small
//! cost in tree quality (measured in `tests/compiler/bvh.rs` against a full sweep). Nodes of
//! at most 16 primitives, most of the nodes of a tree, take the full sweep instead:
//! at that size it is both cheaper and at least as good.

use glam::{BVec3A, UVec3, Vec3A};
use rayon::prelude::*;

use super::prim_ref::{Box3, Extent, PrimRef};
use crate::bvh::C_TRAV;

/// Nodes of at most this many primitives are split by a full sweep over their sorted
/// centroids instead of bins. At this size sorting costs less than clearing and
/// sweeping `3 * bins` bins (most nodes of a tree are this small), and every split the
/// bins could express is a prefix of the sorted order, so the sweep is never worse.
const SWEEP_MAX_PRIMS: usize = 16;
/// Nodes with at least this many primitives are binned by several rayon tasks;
/// below it one pass is too short for the fork to pay off.
const PAR_BINNING_MIN_PRIMS: usize = 1 << 17;
/// Primitives binned by one rayon task at the top levels.
const PAR_BINNING_CHUNK: usize = 1 << 15;
/// Nodes with at least this many primitives per bin bin into two sets of bins
/// ([`fill_bins_serial`]); below it, clearing and merging the second set costs more.
const SPARE_MIN_PRIMS_PER_BIN: usize = 4;

/// The builder's options after clamping to what the algorithm can use.
#[derive(Clone, Copy, Debug)]
pub(super) struct Settings {
    pub bins: usize,
    pub max_leaf_size: usize,
    /// The deepest tree allowed, in levels (`binned_sah.rs`: `MAX_DEPTH`).
    pub max_depth: u32,
    /// Where each primitive kind after the first starts in the input numbering
    /// (`u32::MAX` where unused): a leaf holds one kind (`binned_sah.rs`: `push_leaf`).
    pub kind_starts: [u32; KIND_STARTS],
    /// Primitives numbered from here (instances; `u32::MAX`: none) each get a leaf of
    /// their own (`binned_sah.rs`: `build_kinds`).
    pub alone_from: u32,
    /// The SAH's cost of a primitive test (a node step costs `C_TRAV`): `C_INT`, or
    /// `C_INT_SMALL_TREE` for a small tree (`binned_sah.rs`: `build_kinds`).
    pub test_cost: f32,
}

/// Room for the starts of every kind but the first.
pub(super) const KIND_STARTS: usize = crate::limits::MAX_PRIM_KINDS as usize - 1;
/// One kind only: no starts.
pub(super) const ONE_KIND: [u32; KIND_STARTS] = [u32::MAX; KIND_STARTS];

impl Settings {
    /// The kind of input primitive `index`: how many kind starts are at or below it.
    #[inline]
    pub fn kind_of(&self, index: u32) -> usize {
        self.kind_starts.iter().filter(|&&start| start <= index).count()
    }

    /// The most primitives a leaf over `refs` may hold: one where any of them must be
    /// alone, else `max_leaf_size`.
    #[inline]
    pub fn max_leaf(&self, refs: &[PrimRef]) -> usize {
        if refs.iter().any(|r| r.index() >= self.alone_from) { 1 } else { self.max_leaf_size }
    }
}

/// How a node was split: `refs[..mid]` went left and `refs[mid..]` right.
#[derive(Clone, Copy, Debug)]
pub(super) struct Split {
    pub mid: usize,
    pub left: Extent,
    pub right: Extent,
}

/// The primitives whose centroids fall in one bin on one axis.
#[derive(Clone, Copy, Debug)]
struct Bin {
    bounds: Box3,
    count: u32,
}

impl Bin {
    const EMPTY: Bin = Bin { bounds: Box3::EMPTY, count: 0 };

    #[inline]
    fn merge(self, other: Bin) -> Bin {
        Bin { bounds: self.bounds.union(other.bounds), count: self.count + other.count }
    }

    /// This side's SAH term, `SA * n`.
    #[inline]
    fn weighted_count(self) -> f32 {
        self.bounds.surface_area() * self.count as f32
    }
}

/// Per-task scratch space, so that deciding a node allocates nothing.
pub(super) struct Scratch {
    /// For each bin, the bins of the x, y and z axes: sweeping the three axes in one
    /// loop gives three independent dependency chains instead of one.
    bins: Vec<[Bin; 3]>,
    /// A second set of bins that every other primitive goes to ([`fill_bins_serial`]).
    spare: Vec<[Bin; 3]>,
    /// For each bin `i` and axis, `SA * n` of bins `i..`: the right side of a split before `i`.
    right_cost: Vec<[f32; 3]>,
}

impl Scratch {
    /// Scratch space for `settings.bins` bins per axis.
    pub fn new(settings: &Settings) -> Scratch {
        Scratch {
            bins: vec![[Bin::EMPTY; 3]; settings.bins],
            spare: vec![[Bin::EMPTY; 3]; settings.bins],
            right_cost: vec![[0.0; 3]; settings.bins],
        }
    }
}

/// Maps a centroid to its bin on each axis; bins split the centroid bounds evenly.
#[derive(Clone, Copy, Debug)]
struct BinMap {
    origin: Vec3A,
    scale: Vec3A,
    last: u32,
}

impl BinMap {
    fn new(centroids: Box3, bins: usize) -> BinMap {
        let extent = centroids.max - centroids.min;
        let scale = Vec3A::splat(bins as f32) / extent;
        // An axis without extent (or one so thin that bins/extent overflows) cannot
        // be split by binning: scale 0 puts every centroid in bin 0 there.
        let usable = extent.cmpgt(Vec3A::ZERO) & scale.is_finite_mask();
        BinMap {
            origin: centroids.min,
            scale: Vec3A::select(usable, scale, Vec3A::ZERO),
            last: bins as u32 - 1,
        }
    }

    /// The bin of `c` on each axis: `v as u32` clamped to the last bin, for `v` the
    /// lane of `(c - origin) * scale` (so NaN and negative `v` give bin 0).
    #[inline]
    fn bins_of(&self, c: Vec3A) -> UVec3 {
        // Clamped as floats first (`max` gives 0 for a NaN lane), so truncating
        // gives what the saturating `as u32` gives: one SIMD conversion instead of
        // three scalar ones with their range checks, the binning loop's largest cost.
        let v = ((c - self.origin) * self.scale).max(Vec3A::ZERO).min(Vec3A::splat(self.last as f32));
        truncate(v)
    }

    /// Whether `c`'s bin on `axis` is below `bin`, i.e. `bins_of(c)[axis] < bin`, by the
    /// same IEEE operations as that lane, so partitioning sends every primitive to the
    /// side its bin was counted on, bit for bit. A float compare instead of the
    /// saturating cast: `v as u32 < bin` exactly when `v < bin` (bins are small
    /// integers, exact in f32; negative `v` casts to 0), or when `v` is NaN (cast to 0).
    #[inline]
    fn is_below(&self, c: Vec3A, axis: usize, bin: u32) -> bool {
        let v = (c[axis] - self.origin[axis]) * self.scale[axis];
        v < bin as f32 || v.is_nan()
    }
}

/// Each lane of `v` (in `0..=2^24`, no NaN) truncated to an integer.
#[cfg(target_arch = "x86_64")]
#[inline]
fn truncate(v: Vec3A) -> UVec3 {
    use std::arch::x86_64::{__m128, _mm_cvttps_epi32};
    // SAFETY: SSE2 is part of every x86_64 target.
    let lanes: [u32; 4] = bytemuck::cast(unsafe { _mm_cvttps_epi32(__m128::from(v)) });
    UVec3::new(lanes[0], lanes[1], lanes[2])
}

/// Each lane of `v` (in `0..=2^24`, no NaN) truncated to an integer.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn truncate(v: Vec3A) -> UVec3 {
    v.as_uvec3()
}

/// Where the cheapest split found cuts the node.
#[derive(Clone, Copy, Debug)]
enum Cut {
    /// Bins `..bin` of `axis` go left.
    Bin { map: BinMap, axis: usize, bin: u32 },
    /// The primitives at positions `order[..mid]` go left, `order[mid..n]` right.
    Sorted { order: [u8; SWEEP_MAX_PRIMS], mid: usize },
}

/// The cheapest split found for a node.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    cut: Cut,
    /// `SA_l * n_l + SA_r * n_r`, the SAH cost without the constants and the parent area.
    weighted_count: f32,
}

/// Decides the node over `refs` (with extent `extent`): `None` makes it a leaf,
/// `Some` means `refs` were partitioned into the two children.
///
/// SAH termination: a node of at most `max_leaf_size` primitives becomes a leaf when
/// `n * c <= C_TRAV + (SA_l * n_l + SA_r * n_r) * c / SA_parent` (`c` the settings'
/// `test_cost`). Larger
/// nodes are always split, by the cheapest split found, or in the middle of the range
/// when no split separates the primitives (all centroids equal).
pub(super) fn split(
    refs: &mut [PrimRef],
    extent: &Extent,
    settings: &Settings,
    scratch: &mut Scratch,
) -> Option<Split> {
    let n = refs.len();
    if n <= 1 {
        return None;
    }
    let best = if extent.centroids.min == extent.centroids.max {
        None
    } else if n == 2 {
        // Two primitives have one cut on every axis: skip the sweep for the most common
        // inner node of a tree with single-primitive leaves, keeping the current order.
        let weighted_count = refs[0].bounds().surface_area() + refs[1].bounds().surface_area();
        Some(Candidate { cut: Cut::Sorted { order: IDENTITY_ORDER, mid: 1 }, weighted_count })
    } else if n <= SWEEP_MAX_PRIMS {
        best_sorted_split(refs)
    } else {
        best_binned_split(refs, extent.centroids, settings.bins, scratch)
    };
    if n <= settings.max_leaf_size && n <= settings.max_leaf(refs) {
        // Both sides multiplied by SA_parent, so a node of zero area (all points)
        // compares 0 <= 0 and stays a leaf instead of dividing by zero.
        let parent_area = extent.bounds.surface_area();
        let leaf_cost = n as f32 * settings.test_cost * parent_area;
        let split_cost =
            best.map_or(f32::INFINITY, |c| C_TRAV * parent_area + c.weighted_count * settings.test_cost);
        if leaf_cost <= split_cost {
            return None;
        }
    }
    Some(match best.map(|c| c.cut) {
        Some(Cut::Bin { map, axis, bin }) => {
            let goes_left = |c| map.is_below(c, axis, bin);
            let (mid, left_centroids, right_centroids) = if refs.len() >= PAR_BINNING_MIN_PRIMS {
                partition_on_all_cores(refs, goes_left)
            } else {
                partition(refs, goes_left)
            };
            // The children's bounds are the unions of their bins: exact, and free.
            let side = |bins: &[[Bin; 3]]| bins.iter().fold(Box3::EMPTY, |b, bin| b.union(bin[axis].bounds));
            let (left_bins, right_bins) = scratch.bins.split_at(bin as usize);
            Split {
                mid,
                left: Extent { bounds: side(left_bins), centroids: left_centroids },
                right: Extent { bounds: side(right_bins), centroids: right_centroids },
            }
        }
        Some(Cut::Sorted { order, mid }) => {
            let mut sorted = [refs[0]; SWEEP_MAX_PRIMS];
            for (slot, &i) in sorted.iter_mut().zip(&order[..n]) {
                *slot = refs[i as usize];
            }
            refs.copy_from_slice(&sorted[..n]);
            Split { mid, left: Extent::of(&refs[..mid]), right: Extent::of(&refs[mid..]) }
        }
        None => split_middle(refs),
    })
}

/// Bins `refs` and sweeps the bins of all axes for the split with the lowest SAH cost.
/// Ties keep the lowest bin, then the lowest axis, so the choice depends on the input only.
fn best_binned_split(
    refs: &[PrimRef],
    centroids: Box3,
    bins: usize,
    scratch: &mut Scratch,
) -> Option<Candidate> {
    let map = BinMap::new(centroids, bins);
    fill_bins(refs, &map, &mut scratch.bins, &mut scratch.spare);
    let total = refs.len() as u32;
    let mut right = [Bin::EMPTY; 3];
    for i in (1..bins).rev() {
        for ((right, bin), cost) in right.iter_mut().zip(&scratch.bins[i]).zip(&mut scratch.right_cost[i]) {
            *right = right.merge(*bin);
            *cost = right.weighted_count();
        }
    }
    let mut best: Option<Candidate> = None;
    let mut left = [Bin::EMPTY; 3];
    for i in 1..bins {
        let axes = left.iter_mut().zip(&scratch.bins[i - 1]).zip(&scratch.right_cost[i]).enumerate();
        for (axis, ((left, bin), right_cost)) in axes {
            *left = left.merge(*bin);
            if left.count == 0 || left.count == total {
                continue;
            }
            let weighted_count = left.weighted_count() + right_cost;
            if best.is_none_or(|b| weighted_count < b.weighted_count) {
                best = Some(Candidate { cut: Cut::Bin { map, axis, bin: i as u32 }, weighted_count });
            }
        }
    }
    best
}

/// Counts and bounds the primitives of each bin, on all three axes in one pass.
fn fill_bins(refs: &[PrimRef], map: &BinMap, out: &mut [[Bin; 3]], spare: &mut [[Bin; 3]]) {
    if refs.len() >= PAR_BINNING_MIN_PRIMS {
        // Bin chunks in parallel and merge: min, max and integer sums are exact, so
        // the result does not depend on how rayon splits or orders the chunks.
        let merged = refs
            .par_chunks(PAR_BINNING_CHUNK)
            .map(|chunk| {
                let mut local = vec![[Bin::EMPTY; 3]; out.len()];
                fill_bins_serial(chunk, map, &mut local, &mut vec![[Bin::EMPTY; 3]; out.len()]);
                local
            })
            .reduce_with(|mut a, b| {
                for (x, y) in a.iter_mut().flatten().zip(b.iter().flatten()) {
                    *x = x.merge(*y);
                }
                a
            });
        if let Some(merged) = merged {
            out.copy_from_slice(&merged);
            return;
        }
    }
    fill_bins_serial(refs, map, out, spare);
}

/// [`fill_bins`] in the calling thread. Neighbouring primitives of a mesh mostly fall
/// in the same bins, so each update waits for the previous one's store to the same
/// bin: every other primitive goes to `spare` instead, which halves those chains
/// (merged at the end: exact, so the bins are the same).
fn fill_bins_serial(refs: &[PrimRef], map: &BinMap, out: &mut [[Bin; 3]], spare: &mut [[Bin; 3]]) {
    let add = |bins: &mut [[Bin; 3]], r: &PrimRef| {
        let k = map.bins_of(r.centroid());
        for (axis, k) in k.to_array().into_iter().enumerate() {
            let bin = &mut bins[k as usize][axis];
            bin.bounds = bin.bounds.union(r.bounds());
            bin.count += 1;
        }
    };
    out.fill([Bin::EMPTY; 3]);
    if refs.len() < SPARE_MIN_PRIMS_PER_BIN * out.len() {
        refs.iter().for_each(|r| add(out, r));
        return;
    }
    spare.fill([Bin::EMPTY; 3]);
    let pairs = refs.chunks_exact(2);
    if let [last] = pairs.remainder() {
        add(out, last);
    }
    for pair in pairs {
        add(out, &pair[0]);
        add(spare, &pair[1]);
    }
    for (x, y) in out.iter_mut().flatten().zip(spare.iter().flatten()) {
        *x = x.merge(*y);
    }
}

/// The full sweep for small nodes: orders `refs` along each axis and evaluates every
/// split position; refs are moved only for the cut that is taken.
fn best_sorted_split(refs: &[PrimRef]) -> Option<Candidate> {
    let n = refs.len();
    let mut centroids = [Vec3A::ZERO; SWEEP_MAX_PRIMS];
    for (c, r) in centroids.iter_mut().zip(refs) {
        *c = r.centroid();
    }
    let mut right_cost = [0.0f32; SWEEP_MAX_PRIMS];
    let mut best: Option<Candidate> = None;
    for axis in 0..3 {
        let order = sorted_order(&centroids[..n], axis);
        let mut right = Bin::EMPTY;
        for i in (1..n).rev() {
            right = right.merge(Bin { bounds: refs[order[i] as usize].bounds(), count: 1 });
            right_cost[i] = right.weighted_count();
        }
        let mut left = Bin::EMPTY;
        for mid in 1..n {
            left = left.merge(Bin { bounds: refs[order[mid - 1] as usize].bounds(), count: 1 });
            let weighted_count = left.weighted_count() + right_cost[mid];
            if best.is_none_or(|b| weighted_count < b.weighted_count) {
                best = Some(Candidate { cut: Cut::Sorted { order, mid }, weighted_count });
            }
        }
    }
    best
}

/// `0, 1, 2, ...`: the current order.
const IDENTITY_ORDER: [u8; SWEEP_MAX_PRIMS] = {
    let mut order = [0u8; SWEEP_MAX_PRIMS];
    let mut i = 0;
    while i < SWEEP_MAX_PRIMS {
        order[i] = i as u8;
        i += 1;
    }
    order
};

/// The positions of `centroids` (at most [`SWEEP_MAX_PRIMS`]) in ascending order along
/// `axis`, ties in their current order. By counting ranks: n² branch-free compares cost
/// less than a sort's mispredicted branches at this size.
fn sorted_order(centroids: &[Vec3A], axis: usize) -> [u8; SWEEP_MAX_PRIMS] {
    let mut keys = [0u64; SWEEP_MAX_PRIMS];
    for (i, (key, c)) in keys.iter_mut().zip(centroids).enumerate() {
        *key = (u64::from(total_order_bits(c[axis])) << 8) | i as u64;
    }
    let keys = &keys[..centroids.len()];
    let mut order = [0u8; SWEEP_MAX_PRIMS];
    for (i, &key) in keys.iter().enumerate() {
        let rank = keys.iter().filter(|&&other| other < key).count();
        order[rank] = i as u8;
    }
    order
}

/// Bits of `x` that compare as unsigned integers like [`f32::total_cmp`] compares floats.
#[inline]
fn total_order_bits(x: f32) -> u32 {
    let bits = x.to_bits();
    if bits >> 31 == 1 { !bits } else { bits | 0x8000_0000 }
}

/// Moves the refs whose centroid `goes_left` to the front and returns how many went,
/// with the centroid bounds of both sides. Branch-free (Lomuto with an unconditional
/// swap): in a random scene the side of a primitive is a coin flip, which a branch
/// would mispredict half the time.
fn partition(refs: &mut [PrimRef], goes_left: impl Fn(Vec3A) -> bool) -> (usize, Box3, Box3) {
    let (mut left, mut right) = (Box3::EMPTY, Box3::EMPTY);
    let mut mid = 0;
    for i in 0..refs.len() {
        let r = refs[i];
        let c = r.centroid();
        let is_left = goes_left(c);
        // The other side grows by an infinite point, which changes nothing: four selects
        // of points instead of two of boxes (the BVH stage 3 % faster at 5.2M triangles;
        // the compiler still keeps both boxes on the stack across iterations).
        let mask = BVec3A::splat(is_left);
        let (inf, neg_inf) = (Vec3A::INFINITY, Vec3A::NEG_INFINITY);
        left.min = left.min.min(Vec3A::select(mask, c, inf));
        left.max = left.max.max(Vec3A::select(mask, c, neg_inf));
        right.min = right.min.min(Vec3A::select(mask, inf, c));
        right.max = right.max.max(Vec3A::select(mask, neg_inf, c));
        refs[i] = refs[mid];
        refs[mid] = r;
        mid += usize::from(is_left);
    }
    (mid, left, right)
}

/// [`partition`] for the top levels' large nodes, on all cores: each chunk of
/// `PAR_BINNING_CHUNK` refs is partitioned alone, then the right refs that lie before
/// the split are swapped with the left refs after it, the k-th of one with the k-th of
/// the other. The sides hold what the serial partition's hold, in another order; the
/// chunks are fixed, so the order (and the tree) is the same on any number of threads.
/// The serial partition of the 21M-triangle mesh's top levels took about a second of
/// one core of the GPU machine's sixteen.
fn partition_on_all_cores(
    refs: &mut [PrimRef],
    goes_left: impl Fn(Vec3A) -> bool + Sync,
) -> (usize, Box3, Box3) {
    let chunks: Vec<(usize, Box3, Box3)> =
        refs.par_chunks_mut(PAR_BINNING_CHUNK).map(|chunk| partition(chunk, &goes_left)).collect();
    let mid: usize = chunks.iter().map(|c| c.0).sum();
    let (left, right) =
        chunks.iter().fold((Box3::EMPTY, Box3::EMPTY), |(l, r), c| (l.union(c.1), r.union(c.2)));
    // The misplaced runs, in order: right refs in `..mid`, left refs in `mid..`.
    let (mut rights_before, mut lefts_after) = (Vec::new(), Vec::new());
    for (k, &(lefts, ..)) in chunks.iter().enumerate() {
        let start = k * PAR_BINNING_CHUNK;
        let (split, end) = (start + lefts, (start + PAR_BINNING_CHUNK).min(refs.len()));
        if split < mid {
            rights_before.push(split..end.min(mid));
        }
        if split > mid {
            lefts_after.push(start.max(mid)..split);
        }
    }
    // Pair them off into swaps of equal lengths (as many misplaced on each side).
    let mut swaps = Vec::new();
    let (mut a, mut b) = (rights_before.into_iter(), lefts_after.into_iter());
    let (mut ra, mut rb) = (a.next(), b.next());
    while let (Some(x), Some(y)) = (ra.clone(), rb.clone()) {
        let len = x.len().min(y.len());
        swaps.push((x.start, y.start, len));
        ra = if len < x.len() { Some(x.start + len..x.end) } else { a.next() };
        rb = if len < y.len() { Some(y.start + len..y.end) } else { b.next() };
    }
    // Carve the disjoint, ascending runs out of each side and swap them pairwise.
    let (before, after) = refs.split_at_mut(mid);
    let xs = runs(before, 0, swaps.iter().map(|&(x, _, len)| (x, len)));
    let ys = runs(after, mid, swaps.iter().map(|&(_, y, len)| (y, len)));
    xs.into_par_iter().zip(ys).for_each(|(x, y)| x.swap_with_slice(y));
    (mid, left, right)
}

/// The runs `(start, len)` of `rest` (which starts at `offset`), ascending and
/// disjoint, as slices of their own.
fn runs(
    mut rest: &mut [PrimRef],
    mut offset: usize,
    starts: impl Iterator<Item = (usize, usize)>,
) -> Vec<&mut [PrimRef]> {
    let mut out = Vec::new();
    for (start, len) in starts {
        let (_, tail) = std::mem::take(&mut rest).split_at_mut(start - offset);
        let (run, tail) = tail.split_at_mut(len);
        out.push(run);
        (rest, offset) = (tail, start + len);
    }
    out
}

/// The split near the depth limit (`binned_sah.rs` proves the bound it keeps): the
/// lower half of the centroids along the axis where they spread most goes left, the
/// upper half right, so children hold `floor(n / 2)` and `ceil(n / 2)` primitives
/// even when centroids coincide. `None` (a leaf) for at most `max_leaf_size`
/// primitives: that is never deeper than splitting further.
pub(super) fn split_median(refs: &mut [PrimRef], extent: &Extent, settings: &Settings) -> Option<Split> {
    let n = refs.len();
    if n <= settings.max_leaf_size.max(1) && n <= settings.max_leaf(refs).max(1) {
        return None;
    }
    let spread = extent.centroids.max - extent.centroids.min;
    // Ties keep the lowest axis, like the SAH sweep.
    let axis = if spread.x >= spread.y && spread.x >= spread.z {
        0
    } else if spread.y >= spread.z {
        1
    } else {
        2
    };
    let mid = n / 2;
    // The key is unique (the input index breaks ties), so which primitives go left
    // depends on the input only; the order within each half, on the input and the
    // (deterministic) selection algorithm.
    refs.select_nth_unstable_by_key(mid, |r| (total_order_bits(r.centroid()[axis]), r.index()));
    Some(Split { mid, left: Extent::of(&refs[..mid]), right: Extent::of(&refs[mid..]) })
}

/// Halves the range as it stands: the fallback when no split separates the
/// primitives (all centroids equal), which still bounds every leaf's size.
fn split_middle(refs: &[PrimRef]) -> Split {
    let mid = refs.len() / 2;
    Split { mid, left: Extent::of(&refs[..mid]), right: Extent::of(&refs[mid..]) }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::bvh::Aabb;

    fn refs_of(centers: &[[f32; 3]]) -> Vec<PrimRef> {
        centers
            .iter()
            .enumerate()
            .map(|(i, c)| PrimRef::new(i as u32, &Aabb::of_sphere(Vec3::from_array(*c), 0.5)))
            .collect()
    }

    const SETTINGS: Settings = Settings {
        bins: 16,
        max_leaf_size: 4,
        max_depth: 64,
        kind_starts: super::ONE_KIND,
        alone_from: u32::MAX,
        test_cost: crate::bvh::C_INT,
    };

    #[test]
    fn two_far_apart_primitives_are_split() {
        let mut refs = refs_of(&[[100.0, 0.0, 0.0], [0.0, 0.0, 0.0]]);
        let extent = Extent::of(&refs);
        let halves = split(&mut refs, &extent, &SETTINGS, &mut Scratch::new(&SETTINGS)).expect("a split");
        assert_eq!(halves.mid, 1);
        assert_eq!(refs[0].index(), 0, "two primitives keep their order");
        assert_eq!(halves.left, Extent::of(&refs[..1]));
        assert_eq!(halves.right, Extent::of(&refs[1..]));
    }

    #[test]
    fn overlapping_primitives_under_the_leaf_size_make_a_leaf() {
        let mut refs = refs_of(&[[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.0, 0.1, 0.0]]);
        let extent = Extent::of(&refs);
        assert!(split(&mut refs, &extent, &SETTINGS, &mut Scratch::new(&SETTINGS)).is_none());
    }

    #[test]
    fn equal_centroids_over_the_leaf_size_split_in_the_middle() {
        let mut refs = refs_of(&[[1.0, 2.0, 3.0]; 9]);
        let extent = Extent::of(&refs);
        let halves =
            split(&mut refs, &extent, &SETTINGS, &mut Scratch::new(&SETTINGS)).expect("forced split");
        assert_eq!(halves.mid, 4);
    }

    /// On all cores, the sides hold what the serial partition's hold, with their bounds.
    #[test]
    fn the_partition_on_all_cores_keeps_the_sides() {
        let n = 3 * PAR_BINNING_CHUNK + 1234;
        let centers: Vec<[f32; 3]> = (0..n as u32)
            .map(|i| [(i.wrapping_mul(2654435761) % 10007) as f32, (i % 97) as f32, 0.0])
            .collect();
        for threshold in [0.0, 1500.0, 5003.0, 9000.0, 20000.0] {
            let goes_left = |c: Vec3A| c.x < threshold;
            let (mut serial, mut parallel) = (refs_of(&centers), refs_of(&centers));
            let (mid, left, right) = partition(&mut serial, goes_left);
            let (par_mid, par_left, par_right) = partition_on_all_cores(&mut parallel, goes_left);
            assert_eq!((par_mid, par_left, par_right), (mid, left, right), "threshold {threshold}");
            let sorted = |refs: &[PrimRef]| {
                let mut indices: Vec<u32> = refs.iter().map(|r| r.index()).collect();
                indices.sort_unstable();
                indices
            };
            assert_eq!(sorted(&parallel[..mid]), sorted(&serial[..mid]));
            assert_eq!(sorted(&parallel[mid..]), sorted(&serial[mid..]));
        }
    }

    #[test]
    fn partition_agrees_with_the_bin_counts() {
        let centers: Vec<[f32; 3]> =
            (0..1000u32).map(|i| [(i * 7919 % 1000) as f32 * 0.37, (i * 104729 % 997) as f32, 0.0]).collect();
        let mut refs = refs_of(&centers);
        let extent = Extent::of(&refs);
        let mut scratch = Scratch::new(&SETTINGS);
        let best = best_binned_split(&refs, extent.centroids, SETTINGS.bins, &mut scratch).expect("a split");
        let Cut::Bin { map, axis, bin } = best.cut else { panic!("a binned cut") };
        let expected_left: u32 = scratch.bins[..bin as usize].iter().map(|b| b[axis].count).sum();
        let (mid, left, right) = partition(&mut refs, |c| map.is_below(c, axis, bin));
        assert_eq!(mid, expected_left as usize);
        assert_eq!(left, Extent::of(&refs[..mid]).centroids);
        assert_eq!(right, Extent::of(&refs[mid..]).centroids);
        assert!(refs[..mid].iter().all(|r| map.bins_of(r.centroid())[axis] < bin));
        assert!(refs[mid..].iter().all(|r| map.bins_of(r.centroid())[axis] >= bin));
    }

    #[test]
    fn binned_splits_measure_their_children_exactly() {
        let centers: Vec<[f32; 3]> =
            (0..500u32).map(|i| [(i * 37 % 101) as f32, (i * 11 % 7) as f32, i as f32]).collect();
        let mut refs = refs_of(&centers);
        let extent = Extent::of(&refs);
        let halves = split(&mut refs, &extent, &SETTINGS, &mut Scratch::new(&SETTINGS)).expect("a split");
        assert_eq!(halves.left, Extent::of(&refs[..halves.mid]));
        assert_eq!(halves.right, Extent::of(&refs[halves.mid..]));
    }

    #[test]
    fn median_split_halves_along_the_widest_axis() {
        // Spread 7 on y, 3 on x: y decides; the three lowest y go left.
        let mut refs = refs_of(&[
            [0.0, 7.0, 0.0],
            [3.0, 1.0, 0.0],
            [1.0, 0.0, 0.0],
            [2.0, 5.0, 0.0],
            [0.5, 2.0, 0.0],
            [0.0, 6.0, 0.0],
            [0.0, 3.0, 0.0],
        ]);
        let extent = Extent::of(&refs);
        let halves = split_median(&mut refs, &extent, &SETTINGS).expect("7 > max leaf size");
        assert_eq!(halves.mid, 3);
        let mut left: Vec<u32> = refs[..3].iter().map(|r| r.index()).collect();
        left.sort();
        assert_eq!(left, [1, 2, 4]);
        assert_eq!(halves.left, Extent::of(&refs[..3]));
        assert_eq!(halves.right, Extent::of(&refs[3..]));
        // Equal centroids still halve; at most max_leaf_size primitives make a leaf.
        let mut same = refs_of(&[[1.0, 1.0, 1.0]; 9]);
        let extent = Extent::of(&same);
        assert_eq!(split_median(&mut same, &extent, &SETTINGS).map(|h| h.mid), Some(4));
        let four = Extent::of(&same[..4]);
        assert!(split_median(&mut same[..4], &four, &SETTINGS).is_none());
    }

    #[test]
    fn total_order_bits_order_like_total_cmp() {
        let values = [f32::NEG_INFINITY, -3.5, -1e-30, -0.0, 0.0, 1e-30, 2.0, f32::INFINITY];
        for a in values {
            for b in values {
                assert_eq!(total_order_bits(a).cmp(&total_order_bits(b)), a.total_cmp(&b), "{a} vs {b}");
            }
        }
    }

    #[test]
    fn small_nodes_take_the_cheapest_sorted_split() {
        // Two clusters along y: the sweep must cut between them whatever the input order.
        let mut refs =
            refs_of(&[[0.0, 10.0, 0.0], [0.2, 0.0, 0.0], [0.1, 10.2, 0.0], [0.3, 0.1, 0.0], [0.0, 0.2, 0.1]]);
        let extent = Extent::of(&refs);
        let halves = split(&mut refs, &extent, &SETTINGS, &mut Scratch::new(&SETTINGS)).expect("a split");
        assert_eq!(halves.mid, 3);
        let mut left: Vec<u32> = refs[..3].iter().map(|r| r.index()).collect();
        left.sort();
        assert_eq!(left, [1, 3, 4]);
    }
}
