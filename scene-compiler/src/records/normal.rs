//! The octahedral code of a unit normal in 32 bits ([`VertexRecord::normal`]): the
//! sphere folded onto the octahedron |x| + |y| + |z| = 1 and flattened onto its square
//! (Cigolle et al., "A Survey of Efficient Representations for Independent Unit
//! Vectors", JCGT 2014), each coordinate a signed 16-bit fraction of 32767. Decoded
//! normals are within 6.4e-5 rad (0.0037°) of the encoded ones (measured by the test
//! below over 200 000 directions; rounding to the nearest step, not the best of the
//! four neighbours, which would halve it at four decodes per vertex); they only shade.
//! The renderers decode it the same way (CUDA twin: `decode_normal` in
//! kernels/shape_triangle.cuh).
//!
//! [`VertexRecord::normal`]: super::layout::VertexRecord

use glam::{Vec2, Vec3};

use super::layout::NO_NORMAL;

/// What one step of a coordinate is worth.
const STEPS: f32 = 32767.0;

/// The code of unit vector `n` (never [`NO_NORMAL`]).
pub fn encode(n: Vec3) -> u32 {
    let p = Vec2::new(n.x, n.y) / (n.x.abs() + n.y.abs() + n.z.abs());
    let folded = if n.z < 0.0 { fold(p) } else { p };
    let q = |x: f32| (x.clamp(-1.0, 1.0) * STEPS).round() as i16 as u16 as u32;
    q(folded.x) | q(folded.y) << 16
}

/// The unit vector of `code`, `None` for [`NO_NORMAL`].
pub fn decode(code: u32) -> Option<Vec3> {
    (code != NO_NORMAL).then(|| {
        let half = |bits: u32| f32::from(bits as u16 as i16) * (1.0 / STEPS);
        let p = Vec2::new(half(code), half(code >> 16));
        let z = 1.0 - p.x.abs() - p.y.abs();
        let xy = if z < 0.0 { fold(p) } else { p };
        Vec3::new(xy.x, xy.y, z).normalize()
    })
}

/// Whether `code` is one that [`encode`] can write, or [`NO_NORMAL`]: a half of
/// -32768 appears only in `NO_NORMAL`.
pub fn is_valid(code: u32) -> bool {
    code == NO_NORMAL || (code & 0xffff != 0x8000 && code >> 16 != 0x8000)
}

/// The lower half of the octahedron onto the square's corners, and back.
fn fold(p: Vec2) -> Vec2 {
    let sign = |x: f32| if x >= 0.0 { 1.0 } else { -1.0 };
    Vec2::new((1.0 - p.y.abs()) * sign(p.x), (1.0 - p.x.abs()) * sign(p.y))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unit vectors spread over the sphere (a Fibonacci lattice), the axes and the
    /// octahedron's edges among them.
    fn directions() -> impl Iterator<Item = Vec3> {
        let n = 200_000;
        let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
        let lattice = (0..n).map(move |i| {
            let z = 1.0 - 2.0 * (i as f32 + 0.5) / n as f32;
            let r = (1.0 - z * z).sqrt();
            let phi = golden * i as f32;
            Vec3::new(r * phi.cos(), r * phi.sin(), z)
        });
        let special =
            [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::X, -Vec3::Y, -Vec3::Z, Vec3::new(1.0, -1.0, 0.0).normalize()];
        lattice.chain(special)
    }

    #[test]
    fn normals_come_back_within_the_documented_angle() {
        let mut worst = 0.0f64;
        for n in directions() {
            let code = encode(n);
            assert!(is_valid(code) && code != NO_NORMAL, "{n}");
            let back = decode(code).expect("a normal");
            assert!((back.length() - 1.0).abs() < 1e-6, "{n}: {back} is not unit");
            let angle = n.as_dvec3().angle_between(back.as_dvec3());
            worst = worst.max(angle);
        }
        assert!(worst < 6.4e-5, "worst error {worst} rad");
        assert!(worst > 1e-6, "16-bit steps cannot be exact everywhere: {worst}");
    }

    #[test]
    fn no_normal_is_not_a_normal_and_codes_with_a_half_of_minus_32768_are_invalid() {
        assert_eq!(decode(NO_NORMAL), None);
        assert!(is_valid(NO_NORMAL));
        assert!(!is_valid(0x8000_0000) && !is_valid(0x0000_8000));
        assert!(is_valid(0x7fff_8001));
    }
}
