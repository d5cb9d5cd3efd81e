//! The sphere shape on the CPU, docs/path-tracing.md "Intersection" (CUDA twin:
//! kernels/shape_sphere.cuh).

use glam::{Vec3A, Vec4};

use super::T_MIN;

/// Ray/sphere distance in `(T_MIN, t_max)` with the precise discriminant (Ray Tracing
/// Gems, ch. 7): the textbook `b² - c` loses all precision on the radius-1000 ground.
/// `dir` must be unit length.
#[inline(always)]
pub fn intersect_sphere(center_radius: Vec4, origin: Vec3A, dir: Vec3A, t_max: f32) -> Option<f32> {
    let radius = center_radius.w;
    let oc = Vec3A::from_vec4(center_radius) - origin;
    let b = oc.dot(dir);
    let l = oc - b * dir;
    let disc = radius * radius - l.dot(l);
    if disc < 0.0 {
        return None;
    }
    let h = disc.sqrt();
    let mut t = b - h;
    if t <= T_MIN {
        t = b + h;
    }
    (T_MIN < t && t < t_max).then_some(t)
}

/// The unit normal pointing out of the sphere at `point` on its surface.
#[inline(always)]
pub fn sphere_normal(center_radius: Vec4, point: Vec3A) -> Vec3A {
    (point - Vec3A::from_vec4(center_radius)) / center_radius.w
}
