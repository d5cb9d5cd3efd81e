//! Directions drawn for next-event estimation: a cone (sphere lights, a sun's disc)
//! and the orthonormal basis it is built in (CUDA twin: kernels/sampling.cuh). The
//! density of a point drawn over an area is the shapes' (`shapes::area_pdf_towards`).

use std::f32::consts::TAU;

use glam::Vec3A;

/// A direction uniform in solid angle within the cone of `1 - cos θmax =
/// one_minus_cos` around unit `axis`.
#[inline(always)]
pub fn sample_cone(axis: Vec3A, one_minus_cos: f32, u1: f32, u2: f32) -> Vec3A {
    let cos_theta = 1.0 - u1 * one_minus_cos;
    let sin_theta = ((1.0 - cos_theta) * (1.0 + cos_theta)).max(0.0).sqrt();
    let (sin_phi, cos_phi) = (TAU * u2).sin_cos();
    let (t, b) = onb(axis);
    t * (sin_theta * cos_phi) + b * (sin_theta * sin_phi) + axis * cos_theta
}

/// Two unit vectors completing unit `n` to an orthonormal basis, without a branch on
/// a near-zero component (Duff et al. 2017, "Building an Orthonormal Basis, Revisited").
#[inline(always)]
pub fn onb(n: Vec3A) -> (Vec3A, Vec3A) {
    let sign = 1.0f32.copysign(n.z);
    let a = -1.0 / (sign + n.z);
    let b = n.x * n.y * a;
    (Vec3A::new(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x), Vec3A::new(b, sign + n.y * n.y * a, -n.y))
}
