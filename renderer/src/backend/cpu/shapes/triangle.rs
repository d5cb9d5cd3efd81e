//! The triangle on the CPU: watertight intersection (Woop, Benthin and Wald,
//! "Watertight Ray/Triangle Intersection", JCGT 2013), the hit re-computed from its
//! barycentrics with pbrt-v4's error bound, and uniform area sampling as a light
//! (docs/path-tracing.md, "Intersection", "Robust hits", "Next-event estimation";
//! CUDA twin: kernels/shape_triangle.cuh).
//!
//! Watertight: the test shears the triangle into the ray's frame and decides on which
//! side of each edge the ray passes with the edge functions U, V, W evaluated the same
//! way for both triangles that share the edge, so a ray through an edge or a vertex
//! hits at least one of them; an edge function of exactly 0 is recomputed in f64,
//! where it is exact.

use glam::{Vec2, Vec3A, Vec4};
use scene_compiler::blob::layout::{TriangleRecord, VertexRecord, VertexUvRecord};
use scene_compiler::blob::normal;

use super::shape::{CpuShape, LightSample, Surface, area_pdf_towards};
use crate::backend::constants::{TRIANGLE_ERR, UV_MIN_DET, gamma};

/// A triangle: its three vertices, as stored (so neighbours share them bit for bit),
/// and its vertex normals and texture coordinates when its mesh has them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Triangle {
    pub v: [Vec3A; 3],
    pub normals: Option<[Vec3A; 3]>,
    pub uvs: Option<[Vec2; 3]>,
}

impl Triangle {
    /// The triangle a record names, its vertices gathered from the blob's (its first
    /// vertex says whether it has normals and coordinates: the loader checked that the
    /// other two agree).
    pub fn from_record(r: &TriangleRecord, vertices: &[VertexRecord], uvs: &[VertexUvRecord]) -> Triangle {
        let vertex = r.v.map(|i| &vertices[i as usize]);
        let uv = |i: u32| uvs.get(i as usize).and_then(VertexUvRecord::get).map(Vec2::from_array);
        Triangle {
            v: vertex.map(|v| Vec3A::from_array(v.position)),
            normals: match vertex.map(|v| normal::decode(v.normal).map(Vec3A::from)) {
                [Some(a), Some(b), Some(c)] => Some([a, b, c]),
                _ => None,
            },
            uvs: uv(r.v[0]).map(|a| [a, uv(r.v[1]).unwrap_or(a), uv(r.v[2]).unwrap_or(a)]),
        }
    }

    /// A normal map's frame at `hit` from the triangle's vertex tangents (the blob's
    /// `triangle_tangents`, glTF's convention): `(T, -B)`, T the tangents interpolated
    /// with the hit's barycentrics and B = w (n × T) glTF's bitangent, n the shading
    /// normal and w the sign of the interpolated bitangent signs. `normal_mapped`
    /// (`shading.rs`), which turns its bitangent away from the second direction, then
    /// ends with B (CUDA twin: `triangle_dpduv` with `params.triangle_tangents`).
    #[inline(always)]
    pub fn tangent_dpduv(&self, tangents: &[Vec4; 3], hit: &Surface) -> (Vec3A, Vec3A) {
        let [b0, b1, b2] = barycentrics(&self.v, hit.point);
        let t = tangents[0] * b0 + tangents[1] * b1 + tangents[2] * b2;
        let tangent = Vec3A::from_vec4(t);
        let bitangent = hit.shading.cross(tangent);
        (tangent, if t.w < 0.0 { bitangent } else { -bitangent })
    }

    /// The unnormalised geometric normal, `(v1 - v0) × (v2 - v0)`.
    #[inline(always)]
    fn cross(&self) -> Vec3A {
        (self.v[1] - self.v[0]).cross(self.v[2] - self.v[0])
    }
}

/// Where the ray meets the triangle: distance `t` and the barycentrics of `v0, v1, v2`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleHit {
    pub t: f32,
    pub b: [f32; 3],
}

/// The watertight test: the hit in `(0, t_max)`, or `None`. Both faces are hit.
#[inline(always)]
pub fn intersect_triangle(v: &[Vec3A; 3], origin: Vec3A, dir: Vec3A, t_max: f32) -> Option<TriangleHit> {
    // The ray's frame: z along the largest component of dir, x and y after it, swapped
    // when dir.z < 0 so the winding is kept.
    let abs = dir.abs();
    let kz = if abs.x > abs.y {
        if abs.x > abs.z { 0 } else { 2 }
    } else if abs.y > abs.z {
        1
    } else {
        2
    };
    let (mut kx, mut ky) = ((kz + 1) % 3, (kz + 2) % 3);
    if dir[kz] < 0.0 {
        std::mem::swap(&mut kx, &mut ky);
    }
    let (sx, sy, sz) = (dir[kx] / dir[kz], dir[ky] / dir[kz], 1.0 / dir[kz]);
    let [a, b, c] = [v[0] - origin, v[1] - origin, v[2] - origin];
    let shear = |p: Vec3A| (p[kx] - sx * p[kz], p[ky] - sy * p[kz]);
    let ((ax, ay), (bx, by), (cx, cy)) = (shear(a), shear(b), shear(c));
    let mut u = cx * by - cy * bx;
    let mut w_v = ax * cy - ay * cx;
    let mut w = bx * ay - by * ax;
    if u == 0.0 || w_v == 0.0 || w == 0.0 {
        let d = |p: f64, q: f64, r: f64, s: f64| (p * q - r * s) as f32;
        u = d(f64::from(cx), f64::from(by), f64::from(cy), f64::from(bx));
        w_v = d(f64::from(ax), f64::from(cy), f64::from(ay), f64::from(cx));
        w = d(f64::from(bx), f64::from(ay), f64::from(by), f64::from(ax));
    }
    if (u < 0.0 || w_v < 0.0 || w < 0.0) && (u > 0.0 || w_v > 0.0 || w > 0.0) {
        return None;
    }
    let det = u + w_v + w;
    if det == 0.0 {
        return None;
    }
    let (az, bz, cz) = (sz * a[kz], sz * b[kz], sz * c[kz]);
    let t_scaled = u * az + w_v * bz + w * cz;
    // t = t_scaled / det in (0, t_max), compared without the division.
    let (t_signed, det_abs) = if det < 0.0 { (-t_scaled, -det) } else { (t_scaled, det) };
    if t_signed <= 0.0 || t_signed >= t_max * det_abs {
        return None;
    }
    let inv = 1.0 / det;
    let t = t_scaled * inv;
    // pbrt-v4's bound on t's rounding error: a hit closer than it may be behind the
    // origin (a ray leaving a triangle's plane, whose hit point is exact there and so
    // gets no offset, would meet the triangle again).
    let max3 = |p: f32, q: f32, r: f32| p.abs().max(q.abs()).max(r.abs());
    let (max_xt, max_yt, max_zt) = (max3(ax, bx, cx), max3(ay, by, cy), max3(az, bz, cz));
    let delta_z = gamma(3) * max_zt;
    let (delta_x, delta_y) = (gamma(5) * (max_xt + max_zt), gamma(5) * (max_yt + max_zt));
    let delta_e = 2.0 * (gamma(2) * max_xt * max_yt + delta_y * max_xt + delta_x * max_yt);
    let max_e = max3(u, w_v, w);
    let delta_t = 3.0 * (gamma(3) * max_e * max_zt + delta_e * max_zt + delta_z * max_e) * inv.abs();
    // Within the bound the sign of t is in doubt. Decided in f64 from the same vertices
    // and origin, where it is reliable: the triangle a ray leaves (whose origin the hit's
    // error bound offset off its plane) stays behind, while a neighbour that a grazing ray
    // crosses just ahead of its origin, inside a closed mesh, is hit (f32 alone rejected
    // it: light leaked through stretched closed meshes by next-event estimation).
    if t <= delta_t && plane_distance_f64(v, origin, dir) <= 0.0 {
        return None;
    }
    Some(TriangleHit { t, b: [u * inv, w_v * inv, w * inv] })
}

/// The distance along `dir` from `origin` to the plane of `v`, in f64 (CUDA twin:
/// `plane_distance_f64`).
#[inline(never)]
fn plane_distance_f64(v: &[Vec3A; 3], origin: Vec3A, dir: Vec3A) -> f64 {
    let [a, b, c] = v.map(|p| p.as_dvec3());
    let n = (b - a).cross(c - a);
    n.dot(a - origin.as_dvec3()) / n.dot(dir.as_dvec3())
}

/// The hit with barycentrics `b`: the interpolated point, its error bound, the unit
/// geometric normal (`(v1 - v0) × (v2 - v0)`'s direction: counter-clockwise seen from
/// outside is out) and the shading normal: the vertex normals interpolated, turned to
/// the geometric normal's side (the winding decides outside), or the geometric normal.
#[inline(always)]
pub fn triangle_surface(tri: &Triangle, b: [f32; 3]) -> Surface {
    let [p0, p1, p2] = [tri.v[0] * b[0], tri.v[1] * b[1], tri.v[2] * b[2]];
    let normal = tri.cross().normalize();
    let shading = match tri.normals {
        Some([n0, n1, n2]) => {
            let n = (n0 * b[0] + n1 * b[1] + n2 * b[2]).normalize_or(normal);
            if n.dot(normal) < 0.0 { -n } else { n }
        }
        None => normal,
    };
    Surface { point: p0 + p1 + p2, error: TRIANGLE_ERR * (p0.abs() + p1.abs() + p2.abs()), normal, shading }
}

impl CpuShape for Triangle {
    #[inline(always)]
    fn intersect(&self, origin: Vec3A, dir: Vec3A, t_max: f32) -> Option<f32> {
        intersect_triangle(&self.v, origin, dir, t_max).map(|h| h.t)
    }

    /// The ray hit the triangle at `t` (closest-hit search), so the test, run again
    /// with no bound, gives its barycentrics.
    #[inline(always)]
    fn surface(&self, origin: Vec3A, dir: Vec3A, _t: f32) -> Surface {
        let b = intersect_triangle(&self.v, origin, dir, f32::INFINITY).map_or([1.0 / 3.0; 3], |h| h.b);
        triangle_surface(self, b)
    }

    /// A point uniform by area (`b0 = 1 - sqrt(u0)`, `b1 = u1 sqrt(u0)`), the direction
    /// to it, and the shadow ray's length to the triangle's plane. Both faces emit.
    #[inline(always)]
    fn sample_towards(&self, p: Vec3A, o: Vec3A, u: [f32; 2]) -> Option<LightSample> {
        let root = u[0].sqrt();
        let b = [1.0 - root, u[1] * root, root * (1.0 - u[1])];
        let x = self.v[0] * b[0] + self.v[1] * b[1] + self.v[2] * b[2];
        let cross = self.cross();
        let area = 0.5 * cross.length();
        let normal = cross / (2.0 * area);
        let to = x - p;
        let dist2 = to.length_squared();
        let wi = to / dist2.sqrt();
        let cos = normal.dot(wi);
        let inv_pdf = area * cos.abs() / dist2;
        if !(inv_pdf > 0.0 && inv_pdf.is_finite()) {
            return None;
        }
        Some(LightSample { wi, t_max: normal.dot(self.v[0] - o) / cos, inv_pdf })
    }

    #[inline(always)]
    fn pdf_towards(&self, from: Vec3A, hit: &Surface) -> f32 {
        area_pdf_towards(0.5 * self.cross().length(), from, hit)
    }

    /// The vertices' coordinates interpolated with the hit's barycentrics (recovered
    /// from its point), or the barycentrics `(b1, b2)` themselves without any.
    #[inline(always)]
    fn uv(&self, hit: &Surface) -> Vec2 {
        let [b0, b1, b2] = barycentrics(&self.v, hit.point);
        match self.uvs {
            Some([a, b, c]) => a * b0 + b * b1 + c * b2,
            None => Vec2::new(b1, b2),
        }
    }

    /// From the edges and their texture coordinates (per triangle, as MikkTSpace's
    /// per-face step); the edges themselves when the coordinates are degenerate. A
    /// triangle whose blob stores its tangents uses [`Triangle::tangent_dpduv`] instead.
    fn dpduv(&self, _hit: &Surface) -> (Vec3A, Vec3A) {
        let (e1, e2) = (self.v[1] - self.v[0], self.v[2] - self.v[0]);
        let Some([a, b, c]) = self.uvs else { return (e1, e2) };
        let (d1, d2) = (b - a, c - a);
        let det = d1.x * d2.y - d2.x * d1.y;
        if det.abs() < UV_MIN_DET || !det.is_finite() {
            return (e1, e2);
        }
        let inv = 1.0 / det;
        ((e1 * d2.y - e2 * d1.y) * inv, (e2 * d1.x - e1 * d2.x) * inv)
    }
}

/// The barycentrics of point `p` (on the triangle's plane) with respect to `v`.
#[inline(always)]
pub fn barycentrics(v: &[Vec3A; 3], p: Vec3A) -> [f32; 3] {
    let (e1, e2, d) = (v[1] - v[0], v[2] - v[0], p - v[0]);
    let (d00, d01, d11) = (e1.dot(e1), e1.dot(e2), e2.dot(e2));
    let (d20, d21) = (d.dot(e1), d.dot(e2));
    let inv = 1.0 / (d00 * d11 - d01 * d01);
    let b1 = (d11 * d20 - d01 * d21) * inv;
    let b2 = (d00 * d21 - d01 * d20) * inv;
    [1.0 - b1 - b2, b1, b2]
}
