//! What every shape is to the CPU backend: the [`CpuShape`] operations, the hit
//! [`Surface`] with its error bound, a [`LightSample`] towards a shape, and the two
//! functions of a surface the shapes and the integrator share.

use glam::{Vec2, Vec3A};

/// What the CPU backend needs of every shape; its CUDA twin is one case per operation
/// in kernels/shapes.cuh.
pub trait CpuShape {
    /// The distance to the shape along unit `dir` in `(0, t_max)`.
    fn intersect(&self, origin: Vec3A, dir: Vec3A, t_max: f32) -> Option<f32>;
    /// The hit at distance `t` (from [`CpuShape::intersect`]), with its error bound.
    fn surface(&self, origin: Vec3A, dir: Vec3A, t: f32) -> Surface;
    /// A direction from surface point `p` towards a point of the shape, for a shadow
    /// ray from `o` (`p` offset off its surface); `None` when `p` sees none of it.
    fn sample_towards(&self, p: Vec3A, o: Vec3A, u: [f32; 2]) -> Option<LightSample>;
    /// The solid-angle density with which [`CpuShape::sample_towards`] from `from`
    /// picks the direction that reaches `hit` on the shape (0 if it never does).
    fn pdf_towards(&self, from: Vec3A, hit: &Surface) -> f32;
    /// The texture coordinates of `hit` on the shape (docs/path-tracing.md, "Textures").
    fn uv(&self, hit: &Surface) -> Vec2;
    /// The directions in which [`CpuShape::uv`]'s `u` and `v` grow at `hit`, not
    /// normalised: a normal map's tangent frame (docs/path-tracing.md, "Normal maps").
    fn dpduv(&self, hit: &Surface) -> (Vec3A, Vec3A);
}

/// A direction towards a light's shape, drawn for next-event estimation.
#[derive(Clone, Copy, Debug)]
pub struct LightSample {
    /// Unit direction from the shading point.
    pub wi: Vec3A,
    /// The shadow ray's length: where it reaches the shape.
    pub t_max: f32,
    /// One over the direction's solid-angle density (for a cone: its solid angle).
    pub inv_pdf: f32,
}

/// A hit point on a surface (docs/path-tracing.md "Robust hits").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Surface {
    /// On the surface, as exactly as f32 allows.
    pub point: Vec3A,
    /// A per-component bound of `point`'s floating-point error.
    pub error: Vec3A,
    /// The unit normal pointing out of the primitive: it decides inside and outside and
    /// where a ray leaving the surface starts.
    pub normal: Vec3A,
    /// The unit normal that shades: `normal`, but for a mesh with vertex normals their
    /// interpolation (docs/path-tracing.md, "Shading normals").
    pub shading: Vec3A,
}

/// The solid-angle density, seen from `from`, of a point drawn uniformly over `area`
/// that lands at `hit`: `d² / (area |cos|)`; 0 where that is not finite (no area seen,
/// a grazing direction).
#[inline(always)]
pub fn area_pdf_towards(area: f32, from: Vec3A, hit: &Surface) -> f32 {
    let to = hit.point - from;
    let dist2 = to.length_squared();
    let cos = hit.normal.dot(to).abs() / dist2.sqrt();
    let pdf = dist2 / (area * cos);
    if pdf.is_finite() { pdf } else { 0.0 }
}

/// Where a ray leaving `surface` towards the side of `w` starts: off the surface
/// along the normal by the error bound, so it cannot start on the wrong side.
#[inline(always)]
pub fn offset_ray_origin(surface: &Surface, w: Vec3A) -> Vec3A {
    let n = surface.normal;
    let d = n.abs().dot(surface.error);
    let offset = if w.dot(n) < 0.0 { -d * n } else { d * n };
    surface.point + offset
}
