//! The axis-aligned box on the CPU, docs/path-tracing.md "Intersection" and "Robust
//! hits" (CUDA twin: kernels/shape_box.cuh).
//!
//! The slabs are closed: a ray parallel to an axis is inside that axis's slab when its
//! origin is within `[min, max]`, bounds included. That case is decided explicitly
//! (`0 · ∞` would make a NaN): a shadow ray that starts on a wall and runs along it,
//! straight up to a sun overhead, must still meet the box it starts in.

use glam::{Vec3A, Vec4};
use scene_compiler::blob::layout::BoxRecord;

use super::shape::{CpuShape, LightSample, Surface, area_pdf_towards};
use crate::backend::constants::BOX_ERR;

/// An axis-aligned box, its corners in SIMD registers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cuboid {
    pub min: Vec3A,
    pub max: Vec3A,
}

impl Cuboid {
    pub fn from_record(r: &BoxRecord) -> Cuboid {
        let corner = |v: [f32; 4]| Vec3A::from_vec4(Vec4::from_array(v));
        Cuboid { min: corner(r.min), max: corner(r.max) }
    }

    /// Per axis, the area of the face `p` sees on that axis (it is on the outer side of
    /// the face's plane), or 0; their sum is what light sampling spreads over.
    #[inline(always)]
    fn visible_face_areas(&self, p: Vec3A) -> [f32; 3] {
        let e = self.max - self.min;
        let area = [e.y * e.z, e.z * e.x, e.x * e.y];
        [0, 1, 2].map(|a| if p[a] < self.min[a] || p[a] > self.max[a] { area[a] } else { 0.0 })
    }
}

impl CpuShape for Cuboid {
    /// Per face, the hit's place across it: on ±x faces (z, -y), on ±y faces (x, z), on
    /// ±z faces (x, -y), each from 0 to 1 over the face, so an image stands upright on
    /// the side faces.
    #[inline(always)]
    fn uv(&self, hit: &Surface) -> glam::Vec2 {
        let f = (hit.point - self.min) / (self.max - self.min);
        let n = hit.normal.abs();
        if n.x > 0.5 {
            glam::Vec2::new(f.z, 1.0 - f.y)
        } else if n.y > 0.5 {
            glam::Vec2::new(f.x, f.z)
        } else {
            glam::Vec2::new(f.x, 1.0 - f.y)
        }
    }

    /// Per face, the axes [`CpuShape::uv`] maps to `u` and `v`.
    fn dpduv(&self, hit: &Surface) -> (Vec3A, Vec3A) {
        let n = hit.normal.abs();
        if n.x > 0.5 {
            (Vec3A::Z, Vec3A::NEG_Y)
        } else if n.y > 0.5 {
            (Vec3A::X, Vec3A::Z)
        } else {
            (Vec3A::X, Vec3A::NEG_Y)
        }
    }

    #[inline(always)]
    fn intersect(&self, origin: Vec3A, dir: Vec3A, t_max: f32) -> Option<f32> {
        intersect_box(self.min, self.max, origin, dir, t_max)
    }

    #[inline(always)]
    fn surface(&self, origin: Vec3A, dir: Vec3A, t: f32) -> Surface {
        box_surface(self.min, self.max, origin, dir, t)
    }

    /// Uniform by area over the faces `p` sees (at most three): `u[0]` picks the face
    /// and, rescaled, the point along the face's first axis; `u[1]` along its second.
    /// Faces turned away are never drawn: a shadow ray to one would pass through the
    /// box itself, which the shadow test skips.
    #[inline(always)]
    fn sample_towards(&self, p: Vec3A, o: Vec3A, u: [f32; 2]) -> Option<LightSample> {
        let areas = self.visible_face_areas(p);
        let total = areas[0] + areas[1] + areas[2];
        if total <= 0.0 {
            return None;
        }
        let mut pick = u[0] * total;
        // The last visible face takes what rounding leaves past the others.
        let mut axis = if areas[2] > 0.0 {
            2
        } else if areas[1] > 0.0 {
            1
        } else {
            0
        };
        for (a, &area) in areas.iter().enumerate().take(axis) {
            if pick < area {
                axis = a;
                break;
            }
            pick -= area;
        }
        let along = (pick / areas[axis]).clamp(0.0, 1.0);
        let (b, c) = ((axis + 1) % 3, (axis + 2) % 3);
        let mut x = Vec3A::ZERO;
        x[axis] = if p[axis] < self.min[axis] { self.min[axis] } else { self.max[axis] };
        x[b] = self.min[b] + along * (self.max[b] - self.min[b]);
        x[c] = self.min[c] + u[1] * (self.max[c] - self.min[c]);
        let to = x - p;
        let dist2 = to.length_squared();
        let wi = to / dist2.sqrt();
        let inv_pdf = total * wi[axis].abs() / dist2;
        if !(inv_pdf > 0.0 && inv_pdf.is_finite()) {
            return None;
        }
        Some(LightSample { wi, t_max: (x[axis] - o[axis]) / wi[axis], inv_pdf })
    }

    #[inline(always)]
    fn pdf_towards(&self, from: Vec3A, hit: &Surface) -> f32 {
        let areas = self.visible_face_areas(from);
        area_pdf_towards(areas[0] + areas[1] + areas[2], from, hit)
    }
}

/// Per axis, the ray's distance to the near and the far plane of the box.
#[inline(always)]
fn slabs(min: Vec3A, max: Vec3A, origin: Vec3A, dir: Vec3A) -> ([f32; 3], [f32; 3]) {
    let inv = dir.recip();
    let (t0, t1) = ((min - origin) * inv, (max - origin) * inv);
    let slab = |a: usize| {
        if dir[a] != 0.0 {
            (t0[a].min(t1[a]), t0[a].max(t1[a]))
        } else if min[a] <= origin[a] && origin[a] <= max[a] {
            (f32::NEG_INFINITY, f32::INFINITY)
        } else {
            (f32::INFINITY, f32::NEG_INFINITY)
        }
    };
    let [x, y, z] = [slab(0), slab(1), slab(2)];
    ([x.0, y.0, z.0], [x.1, y.1, z.1])
}

/// The distance to the box in `(0, t_max)`: where the ray enters it, or, from inside,
/// where it leaves.
#[inline(always)]
pub fn intersect_box(min: Vec3A, max: Vec3A, origin: Vec3A, dir: Vec3A, t_max: f32) -> Option<f32> {
    let (near, far) = slabs(min, max, origin, dir);
    let t_near = near[0].max(near[1]).max(near[2]);
    let t_far = far[0].min(far[1]).min(far[2]);
    let t = if t_near > 0.0 { t_near } else { t_far };
    (t_near <= t_far && 0.0 < t && t < t_max).then_some(t)
}

/// The hit at distance `t` (from [`intersect_box`]): on the face's plane exactly, the
/// other two coordinates clamped strictly inside the face, and the outward face normal.
///
/// Strictly: far from the origin, `origin + t · dir` can round onto (or past) the plane
/// of a side face, and a shadow ray from a point on that plane heading out through it
/// meets it at `t = 0`, which does not count: light leaked through closed boxes 10^4
/// from the origin. A true hit is inside the face (an edge has no area), so the point
/// is kept one ulp in from every edge.
#[inline(always)]
pub fn box_surface(min: Vec3A, max: Vec3A, origin: Vec3A, dir: Vec3A, t: f32) -> Surface {
    let (near, far) = slabs(min, max, origin, dir);
    let t_near = near[0].max(near[1]).max(near[2]);
    // Entering: the axis whose near plane is farthest; leaving: whose far plane is nearest.
    // Ties (an edge or a corner) go to the first axis, as on the GPU.
    let entering = t_near > 0.0;
    let axis = if entering {
        (1..3).fold(0, |best, a| if near[a] > near[best] { a } else { best })
    } else {
        (1..3).fold(0, |best, a| if far[a] < far[best] { a } else { best })
    };
    let towards = dir[axis] > 0.0;
    // The plane the ray crosses: entering heading +axis it is `min`, leaving it is `max`.
    let on_max = entering != towards;
    let mut normal = Vec3A::ZERO;
    normal[axis] = if on_max { 1.0 } else { -1.0 };
    let travelled = t * dir;
    let inside = |a: usize| {
        let (lo, hi) = (min[a].next_up(), max[a].next_down());
        if lo <= hi { (lo, hi) } else { (0.5 * (min[a] + max[a]), 0.5 * (min[a] + max[a])) }
    };
    let raw = origin + travelled;
    let mut point = Vec3A::from([0, 1, 2].map(|a| {
        let (lo, hi) = inside(a);
        raw[a].max(lo).min(hi)
    }));
    point[axis] = if on_max { max[axis] } else { min[axis] };
    let mut error = BOX_ERR * (origin.abs() + travelled.abs());
    error[axis] = 0.0;
    Surface { point, error, normal, shading: normal }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: Vec3A = Vec3A::new(-1.0, -2.0, -3.0);
    const MAX: Vec3A = Vec3A::new(1.0, 2.0, 3.0);

    fn hit(origin: [f32; 3], dir: [f32; 3]) -> Option<(f32, Surface)> {
        let (o, d) = (Vec3A::from(origin), Vec3A::from(dir).normalize());
        intersect_box(MIN, MAX, o, d, f32::INFINITY).map(|t| (t, box_surface(MIN, MAX, o, d, t)))
    }

    #[test]
    fn from_outside_the_entry_face_with_its_normal() {
        let (t, s) = hit([5.0, 0.5, 0.25], [-1.0, 0.0, 0.0]).expect("hits +x face");
        assert_eq!(t, 4.0);
        assert_eq!(s.point, Vec3A::new(1.0, 0.5, 0.25));
        assert_eq!(s.normal, Vec3A::X);
        assert_eq!(s.error.x, 0.0, "the face coordinate is exact");
        let (t, s) = hit([0.0, -10.0, 0.0], [0.0, 1.0, 0.0]).expect("hits -y face");
        assert_eq!((t, s.normal, s.point.y), (8.0, -Vec3A::Y, -2.0));
    }

    #[test]
    fn from_inside_the_exit_face_with_the_outward_normal() {
        let (t, s) = hit([0.0, 0.0, 0.0], [0.0, 0.0, -1.0]).expect("leaves through -z");
        assert_eq!((t, s.normal, s.point.z), (3.0, -Vec3A::Z, -3.0));
    }

    #[test]
    fn misses_beside_behind_and_in_a_face_plane() {
        assert!(hit([5.0, 2.5, 0.0], [-1.0, 0.0, 0.0]).is_none(), "passes above");
        assert!(hit([5.0, 0.0, 0.0], [1.0, 0.0, 0.0]).is_none(), "box behind");
        assert!(hit([5.0, 2.0001, 0.0], [-1.0, 0.0, 0.0]).is_none(), "just outside the slab");
        let (t, s) = hit([5.0, 2.0, 0.0], [-1.0, 0.0, 0.0]).expect("in the y = max plane: closed slabs");
        assert_eq!((t, s.normal), (4.0, Vec3A::X));
        // Starting on a wall and running along it, from inside: it meets the far wall.
        let (t, s) = hit([-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]).expect("along the -x wall");
        assert_eq!((t, s.normal), (2.0, Vec3A::Y));
    }

    #[test]
    fn grazing_a_diagonal_edge_and_t_max() {
        // Through the edge x = 1, y = 2 at 45°: enters at the edge exactly.
        let (t, s) = hit([3.0, 4.0, 0.0], [-1.0, -1.0, 0.0]).expect("touches the edge");
        assert!((t - 2.0 * 2f32.sqrt()).abs() < 1e-5);
        // A tie goes to x: on the x = 1 face, one ulp in from the y = 2 edge.
        assert_eq!(s.point, Vec3A::new(1.0, 2f32.next_down(), 0.0));
        let o = Vec3A::new(5.0, 0.0, 0.0);
        assert!(intersect_box(MIN, MAX, o, -Vec3A::X, 4.0).is_none(), "t_max is exclusive");
        assert!(intersect_box(MIN, MAX, o, -Vec3A::X, 4.0001).is_some());
    }

    #[test]
    fn a_ray_leaving_a_face_does_not_hit_its_own_box_again() {
        let (t, s) = hit([0.3, 10.0, 0.7], [0.02, -1.0, 0.01]).expect("hits the top");
        assert!(t > 0.0 && s.normal == Vec3A::Y && s.point.y == 2.0);
        let reflected = Vec3A::new(0.02, 1.0, 0.01).normalize();
        let origin = crate::backend::cpu::shapes::offset_ray_origin(&s, reflected);
        assert_eq!(intersect_box(MIN, MAX, origin, reflected, f32::INFINITY), None);
        let refracted = Vec3A::new(0.1, -1.0, 0.0).normalize();
        let origin = crate::backend::cpu::shapes::offset_ray_origin(&s, refracted);
        let t = intersect_box(MIN, MAX, origin, refracted, f32::INFINITY).expect("crosses to the bottom");
        assert!((t - 4.0 / refracted.y.abs()).abs() < 1e-5);
    }
}
