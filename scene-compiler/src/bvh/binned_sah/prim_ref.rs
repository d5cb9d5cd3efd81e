//! The builder's working set: one compact [`PrimRef`] per primitive, partitioned in
//! place, and the SIMD box type the hot loops use.
//!
//! Not here: the public [`Aabb`] (plain `Vec3`, what the rest of the crate reads).

use glam::{Vec3A, Vec4};

use crate::bvh::Aabb;

/// A box held in 16-byte SIMD lanes; the builder's hot loops only use this one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Box3 {
    pub min: Vec3A,
    pub max: Vec3A,
}

impl Box3 {
    /// Contains nothing; the identity for [`Box3::union`] and [`Box3::grow`].
    pub const EMPTY: Box3 = Box3 { min: Vec3A::splat(f32::INFINITY), max: Vec3A::splat(f32::NEG_INFINITY) };

    /// The smallest box holding both.
    #[inline]
    pub fn union(self, other: Box3) -> Box3 {
        Box3 { min: self.min.min(other.min), max: self.max.max(other.max) }
    }

    /// The smallest box holding `self` and the point `p`.
    #[inline]
    pub fn grow(self, p: Vec3A) -> Box3 {
        Box3 { min: self.min.min(p), max: self.max.max(p) }
    }

    /// Surface area; 0 for an empty box (the SAH weight of nothing).
    #[inline]
    pub fn surface_area(self) -> f32 {
        let d = (self.max - self.min).max(Vec3A::ZERO);
        2.0 * (d.x * d.y + d.y * d.z + d.z * d.x)
    }

    /// The same box as the public type.
    pub fn to_aabb(self) -> Aabb {
        Aabb { min: self.min.into(), max: self.max.into() }
    }
}

/// One primitive as the builder sees it: its bounds and its index in the input.
///
/// 32 bytes, two SIMD lanes of four: the passes over the refs are bound by memory
/// traffic at the top levels of a 1M-primitive build, and every byte is read and
/// swapped once per level (the 48-byte layout, bounds plus an index field, built a
/// 1M-sphere tree in 0.36 s on 2 cores). The index rides in the `w` lane of the
/// lower corner, which the builder's `Vec3A` arithmetic carries along and ignores
/// (Embree packs its references the same way). It is stored biased by
/// [`INDEX_BIAS`], so that lane always holds a normal float: a denormal there would
/// make every SIMD add and multiply over the box take the CPU's slow path.
/// The centroid is not stored: `(min + max) / 2` from lanes already loaded costs two
/// SIMD ops, storing it 16 more bytes per ref.
#[derive(Clone, Copy, Debug)]
pub(super) struct PrimRef {
    min_and_index: Vec4,
    max: Vec3A,
}

/// The bit pattern of 1.0: `index + INDEX_BIAS` is a normal float for every index
/// below [`MAX_INDEX`] (up to the largest finite float's pattern).
const INDEX_BIAS: u32 = 0x3F80_0000;
/// The largest input index a [`PrimRef`] holds (`2^30 - 1`).
pub(super) const MAX_INDEX: u32 = 0x7F7F_FFFF - INDEX_BIAS;

impl PrimRef {
    /// The reference to primitive `index` with bounds `aabb`.
    pub fn new(index: u32, aabb: &Aabb) -> PrimRef {
        debug_assert!(index <= MAX_INDEX);
        PrimRef { min_and_index: aabb.min.extend(f32::from_bits(index + INDEX_BIAS)), max: aabb.max.into() }
    }

    /// The primitive's index in the builder's input.
    #[inline]
    pub fn index(&self) -> u32 {
        self.min_and_index.w.to_bits() - INDEX_BIAS
    }

    /// The primitive's bounds (the index lane comes along in `min`, unused).
    #[inline]
    pub fn bounds(&self) -> Box3 {
        Box3 { min: Vec3A::from_vec4(self.min_and_index), max: self.max }
    }

    /// The point SAH binning sorts by.
    #[inline]
    pub fn centroid(&self) -> Vec3A {
        (Vec3A::from_vec4(self.min_and_index) + self.max) * 0.5
    }
}

/// What a node's range of refs spans: the node bounds, and the bounds of the
/// centroids, which the bins are laid over (Wald 2007: binning centroids, not boxes,
/// puts every primitive in exactly one bin).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Extent {
    pub bounds: Box3,
    pub centroids: Box3,
}

impl Extent {
    /// Nothing yet; grow with [`Extent::add`].
    pub const EMPTY: Extent = Extent { bounds: Box3::EMPTY, centroids: Box3::EMPTY };

    /// The extent after adding one primitive.
    #[inline]
    pub fn add(self, r: &PrimRef) -> Extent {
        Extent { bounds: self.bounds.union(r.bounds()), centroids: self.centroids.grow(r.centroid()) }
    }

    /// The extent of both.
    #[inline]
    pub fn union(self, other: Extent) -> Extent {
        Extent { bounds: self.bounds.union(other.bounds), centroids: self.centroids.union(other.centroids) }
    }

    /// The extent of a range of refs.
    pub fn of(refs: &[PrimRef]) -> Extent {
        refs.iter().fold(Extent::EMPTY, |e, r| e.add(r))
    }
}
