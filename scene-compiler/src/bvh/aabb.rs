//! Axis-aligned bounding boxes.

use glam::Vec3;

/// An axis-aligned box; [`Aabb::EMPTY`] is the identity for [`Aabb::union`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    pub min: Vec3,
    pub max: Vec3,
}

impl Aabb {
    /// Contains nothing; growing it by any box gives that box.
    pub const EMPTY: Aabb = Aabb { min: Vec3::splat(f32::INFINITY), max: Vec3::splat(f32::NEG_INFINITY) };

    /// The bounds of a sphere.
    pub fn of_sphere(center: Vec3, radius: f32) -> Aabb {
        Aabb { min: center - Vec3::splat(radius), max: center + Vec3::splat(radius) }
    }

    /// The smallest box holding both.
    #[inline]
    pub fn union(self, other: Aabb) -> Aabb {
        Aabb { min: self.min.min(other.min), max: self.max.max(other.max) }
    }

    /// The smallest box holding `self` and the point `p`.
    #[inline]
    pub fn grow(self, p: Vec3) -> Aabb {
        Aabb { min: self.min.min(p), max: self.max.max(p) }
    }

    /// The midpoint; for a primitive's box, its centroid in the SAH sense.
    #[inline]
    pub fn center(self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    #[inline]
    pub fn is_empty(self) -> bool {
        self.min.cmpgt(self.max).any()
    }

    /// Surface area; 0 for an empty box.
    #[inline]
    pub fn surface_area(self) -> f32 {
        if self.is_empty() {
            return 0.0;
        }
        let d = self.max - self.min;
        2.0 * (d.x * d.y + d.y * d.z + d.z * d.x)
    }

    /// True when `other` lies inside `self` (boundaries included).
    pub fn contains(self, other: Aabb) -> bool {
        self.min.cmple(other.min).all() && self.max.cmpge(other.max).all()
    }
}
