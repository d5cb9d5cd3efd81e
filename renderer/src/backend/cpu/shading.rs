//! The shading normal of a Principled hit: its normal map applied in the surface's
//! tangent frame, then bent so that no view sees it from behind (docs/path-tracing.md,
//! "Normal maps"; CUDA twin: kernels/shading.cuh).

use glam::Vec3A;

use crate::backend::constants::{BEND_MAX_MARGIN, BEND_VIEW_SHARE, SHADING_MIN_LEN2};

/// Normal map texel `texel` (rgb in [0, 1], tangent space, +Y up the image as glTF and
/// Blender bake them) scaled by `scale` (glTF's `normalTexture.scale`), around the
/// shading normal `ns` of a surface whose texture coordinates grow along `dpdu` and
/// `dpdv`. The tangent is `dpdu` made orthogonal to `ns`; the bitangent is `ns × t`,
/// flipped to point where `v` falls (up the image), so mirrored UV islands read right.
/// Degenerate frames or texels leave `ns` as it is.
#[inline(always)]
pub fn normal_mapped(texel: Vec3A, scale: f32, ns: Vec3A, dpdu: Vec3A, dpdv: Vec3A) -> Vec3A {
    let t = dpdu - ns * ns.dot(dpdu);
    let len2 = t.length_squared();
    if !(len2 > SHADING_MIN_LEN2 && len2.is_finite()) {
        return ns;
    }
    let t = t / len2.sqrt();
    let b = ns.cross(t);
    let b = if b.dot(dpdv) > 0.0 { -b } else { b };
    let m = (texel * 2.0 - 1.0) * Vec3A::new(scale, scale, 1.0);
    let n = t * m.x + b * m.y + ns * m.z;
    let n2 = n.length_squared();
    if n2 > SHADING_MIN_LEN2 && n2.is_finite() { n / n2.sqrt() } else { ns }
}

/// `n` (a unit shading normal) bent towards the geometric normal `ng` (unit, on the
/// side of `wo`) just enough that the mirror reflection of `wo` about it stays above
/// the surface by `min(0.9 wo·ng, 0.01)` (Cycles' rule for shading normals). Without
/// it a normal map turned away from the viewer reflects into the surface: black spots
/// at grazing angles (the "terminator" problem). Reflections below the geometric
/// surface and refractions above it are still refused by the integrator, so no light
/// leaks through.
#[inline(always)]
pub fn valid_shading_normal(ng: Vec3A, wo: Vec3A, n: Vec3A) -> Vec3A {
    let iz = wo.dot(ng);
    let threshold = (BEND_VIEW_SHARE * iz).min(BEND_MAX_MARGIN);
    let r = 2.0 * n.dot(wo) * n - wo;
    if r.dot(ng) >= threshold || iz <= 0.0 {
        return n;
    }
    // In the plane of `n` and `ng`: n' = nx x + nz ng, with x the part of n across ng.
    let across = n - n.dot(ng) * ng;
    let len2 = across.length_squared();
    // Also a NaN length: no plane to bend in.
    if len2.is_nan() || len2 <= SHADING_MIN_LEN2 {
        return ng;
    }
    let x = across / len2.sqrt();
    let ix = wo.dot(x);
    // reflect(wo, n')·ng = threshold is a quadratic in nz²; the root on the side of wo.
    let a = ix * ix + iz * iz;
    let b = 2.0 * (a + iz * threshold);
    let c = (threshold + iz) * (threshold + iz);
    let root = (b * b - 4.0 * a * c).max(0.0).sqrt();
    let nz2 = if ix < 0.0 { 0.25 * (b + root) / a } else { 0.25 * (b - root) / a };
    let nz = nz2.clamp(0.0, 1.0).sqrt();
    let nx = (1.0 - nz2).clamp(0.0, 1.0).sqrt();
    (nx * x + nz * ng).normalize_or(ng)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flat texel (0.5, 0.5, 1) leaves the normal alone; a texel leaning along +X
    /// tilts it towards the tangent, along +Y towards decreasing v.
    #[test]
    fn normal_maps_tilt_along_the_tangent_frame() {
        let (ns, dpdu, dpdv) = (Vec3A::Y, Vec3A::X, Vec3A::Z);
        let flat = normal_mapped(Vec3A::new(0.5, 0.5, 1.0), 1.0, ns, dpdu, dpdv);
        assert!((flat - ns).length() < 1e-6);
        let right = normal_mapped(Vec3A::new(1.0, 0.5, 0.5), 1.0, ns, dpdu, dpdv);
        assert!((right - Vec3A::X).length() < 1e-6, "{right}");
        let up = normal_mapped(Vec3A::new(0.5, 1.0, 0.5), 1.0, ns, dpdu, dpdv);
        assert!((up - Vec3A::NEG_Z).length() < 1e-6, "+Y must point where v falls: {up}");
        // Scale 0 flattens the map.
        assert!((normal_mapped(Vec3A::new(1.0, 0.5, 0.5), 0.0, ns, dpdu, dpdv) - ns).length() < 1e-6);
        // A degenerate frame keeps the normal.
        assert_eq!(normal_mapped(Vec3A::new(1.0, 0.5, 0.5), 1.0, ns, Vec3A::Y, dpdv), ns);
    }

    /// After the bend, the mirror direction of every view is above the surface by the
    /// threshold; normals that already reflect above it are unchanged.
    #[test]
    fn bent_normals_reflect_every_view_above_the_surface() {
        let ng = Vec3A::Y;
        let mut worst = f32::INFINITY;
        for i in 1..40 {
            for j in 0..40 {
                let theta = i as f32 / 40.0 * std::f32::consts::FRAC_PI_2;
                let wo = Vec3A::new(theta.sin(), theta.cos(), 0.0);
                let tilt = (j as f32 / 40.0 - 0.5) * 3.0;
                let n = Vec3A::new(tilt.sin(), tilt.cos().abs().max(0.05), 0.3 * tilt).normalize();
                let bent = valid_shading_normal(ng, wo, n);
                assert!((bent.length() - 1.0).abs() < 1e-4);
                let r = 2.0 * bent.dot(wo) * bent - wo;
                let threshold = (0.9 * wo.dot(ng)).min(0.01);
                worst = worst.min(r.dot(ng) - threshold);
                let r0 = 2.0 * n.dot(wo) * n - wo;
                if r0.dot(ng) >= threshold {
                    assert_eq!(bent, n);
                }
            }
        }
        assert!(worst > -1e-3, "a reflection below the threshold by {worst}");
    }
}
