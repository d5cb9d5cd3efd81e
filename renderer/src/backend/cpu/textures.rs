//! Textures on the CPU: a material's colour at a surface point (docs/path-tracing.md,
//! "Textures"; CUDA twin: kernels/textures.cuh, function for function).

use glam::{Vec2, Vec3A, Vec4};
use scene_compiler::BlobView;
use scene_compiler::blob::layout::{
    NOISE_POINTS, NoiseRecord, TEXTURE_CHECKER, TEXTURE_IMAGE, TEXTURE_NOISE, TextureRecord, WRAP_CLAMP,
};

use crate::backend::constants::{MARBLE_TURBULENCE_WEIGHT, TURBULENCE_DEPTH};

/// The blob's texture sections.
#[derive(Clone, Debug, Default)]
pub struct Textures {
    pub records: Vec<TextureRecord>,
    /// rgb and alpha.
    pub texels: Vec<Vec4>,
    pub noise: Vec<NoiseRecord>,
}

impl Textures {
    pub fn from_blob(blob: &BlobView<'_>) -> Textures {
        Textures {
            records: blob.textures.to_vec(),
            texels: blob.texels.iter().map(|&t| Vec4::from_array(t)).collect(),
            noise: blob.noise.to_vec(),
        }
    }

    /// Texture `index`'s colour at world point `p` with texture coordinates `uv`.
    #[inline(always)]
    pub fn eval(&self, index: u32, p: Vec3A, uv: Vec2) -> Vec3A {
        Vec3A::from_vec4(self.eval4(index, p, uv))
    }

    /// [`Textures::eval`] with alpha: an image's alpha channel (1 where it has none),
    /// 1 for the procedural textures.
    #[inline(always)]
    pub fn eval4(&self, index: u32, p: Vec3A, uv: Vec2) -> Vec4 {
        let t = &self.records[index as usize];
        match t.kind {
            TEXTURE_IMAGE => self.image(t.image, uv_transformed(t, uv)),
            TEXTURE_CHECKER => checker(t, p).extend(1.0),
            TEXTURE_NOISE => Vec3A::splat(
                0.5 * (1.0 + (t.a[0] * p.z + MARBLE_TURBULENCE_WEIGHT * self.turbulence(p)).sin()),
            )
            .extend(1.0),
            kind => unreachable!("BlobView::parse refuses texture kind {kind}"),
        }
    }

    /// Bilinear between the four texels around `uv` (texel centres at half-integers, v
    /// down from the top row), repeating or clamping at the edges.
    #[inline(always)]
    fn image(&self, [first, width, height, wrap]: [u32; 4], uv: Vec2) -> Vec4 {
        let (w, h) = (width as f32, height as f32);
        // `max` and `min` as CUDA's fmaxf and fminf: a NaN (a transformed coordinate past
        // f32, see `uv_transformed`) becomes 0 on both backends, where `clamp` keeps it.
        #[allow(clippy::manual_clamp)]
        let (u, v) = if wrap == WRAP_CLAMP {
            (uv.x.max(0.0).min(1.0), uv.y.max(0.0).min(1.0))
        } else {
            ((uv.x - uv.x.floor()).max(0.0), (uv.y - uv.y.floor()).max(0.0))
        };
        let (x, y) = (u * w - 0.5, v * h - 0.5);
        let (x0, y0) = (x.floor(), y.floor());
        let (fx, fy) = (x - x0, y - y0);
        // x0 is in [-1, width - 1]: one step of wrapping or clamping brings it back.
        let index = |i: f32, n: u32| -> u32 {
            let i = i as i32;
            if wrap == WRAP_CLAMP { i.clamp(0, n as i32 - 1) as u32 } else { i.rem_euclid(n as i32) as u32 }
        };
        let (ix0, ix1, iy0, iy1) =
            (index(x0, width), index(x0 + 1.0, width), index(y0, height), index(y0 + 1.0, height));
        let texel = |ix: u32, iy: u32| self.texels[(first + iy * width + ix) as usize];
        let top = texel(ix0, iy0) * (1.0 - fx) + texel(ix1, iy0) * fx;
        let bottom = texel(ix0, iy1) * (1.0 - fx) + texel(ix1, iy1) * fx;
        top * (1.0 - fy) + bottom * fy
    }

    /// Perlin noise with random gradients and Hermite-smoothed trilinear interpolation
    /// ("The Next Week", section 5), in about [-1, 1].
    #[inline(always)]
    fn noise(&self, p: Vec3A) -> f32 {
        let f = p.floor();
        let (u, v, w) = (p.x - f.x, p.y - f.y, p.z - f.z);
        // The cell's integer corner modulo the table, in floats so huge points stay defined.
        let n = NOISE_POINTS as f32;
        let wrap = |c: f32| (c - n * (c / n).floor()) as usize % NOISE_POINTS;
        let (i, j, k) = (wrap(f.x), wrap(f.y), wrap(f.z));
        let (uu, vv, ww) = (u * u * (3.0 - 2.0 * u), v * v * (3.0 - 2.0 * v), w * w * (3.0 - 2.0 * w));
        let mut accum = 0.0;
        for di in 0..2 {
            for dj in 0..2 {
                for dk in 0..2 {
                    let x = self.noise[(i + di) % NOISE_POINTS].perm[0];
                    let y = self.noise[(j + dj) % NOISE_POINTS].perm[1];
                    let z = self.noise[(k + dk) % NOISE_POINTS].perm[2];
                    let g = self.noise[(x ^ y ^ z) as usize].gradient;
                    let (fi, fj, fk) = (di as f32, dj as f32, dk as f32);
                    let dot = g[0] * (u - fi) + g[1] * (v - fj) + g[2] * (w - fk);
                    accum += (fi * uu + (1.0 - fi) * (1.0 - uu))
                        * (fj * vv + (1.0 - fj) * (1.0 - vv))
                        * (fk * ww + (1.0 - fk) * (1.0 - ww))
                        * dot;
                }
            }
        }
        accum
    }

    /// `|Σ 0.5^i noise(2^i p)|` over [`TURBULENCE_DEPTH`] octaves.
    #[inline(always)]
    fn turbulence(&self, p: Vec3A) -> f32 {
        let (mut accum, mut weight, mut q) = (0.0, 1.0, p);
        for _ in 0..TURBULENCE_DEPTH {
            accum += weight * self.noise(q);
            weight *= 0.5;
            q *= 2.0;
        }
        accum.abs()
    }
}

/// An image's texture coordinates moved by its uv transform (rows `a` and `b` of the
/// record; glTF's KHR_texture_transform), in the kernels' order of operations: each
/// product rounded, then summed left to right, no fused multiply-add (the kernel uses
/// `__fmul_rn` and `__fadd_rn`), so both backends look up the same point. Huge finite
/// coordinates may come out infinite; the lookup's wrap turns what that makes into 0.
#[inline(always)]
fn uv_transformed(t: &TextureRecord, uv: Vec2) -> Vec2 {
    let (a, b) = (t.a, t.b);
    Vec2::new(a[0] * uv.x + a[1] * uv.y + a[2], b[0] * uv.x + b[1] * uv.y + b[2])
}

/// The cell `floor(p / size)` is even when the sum of its three integers is.
#[inline(always)]
fn checker(t: &TextureRecord, p: Vec3A) -> Vec3A {
    let cell = (p / t.a[3]).floor();
    let sum = cell.x + cell.y + cell.z;
    let even = sum - 2.0 * (0.5 * sum).floor() == 0.0;
    let lanes = |v: [f32; 4]| Vec3A::new(v[0], v[1], v[2]);
    if even { lanes(t.a) } else { lanes(t.b) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scene_compiler::blob::layout::WRAP_REPEAT;

    /// A finite uv transform of finite coordinates that overflows f32 (inf, or inf − inf
    /// = NaN) still reads a texel, with either wrap: never a NaN colour.
    #[test]
    fn an_overflowing_uv_transform_reads_a_texel() {
        for wrap in [WRAP_REPEAT, WRAP_CLAMP] {
            let big = 3e38;
            let textures = Textures {
                records: vec![TextureRecord {
                    a: [big, big, 0.0, 0.0],
                    b: [big, -big, 0.0, 0.0],
                    image: [0, 2, 1, wrap],
                    kind: TEXTURE_IMAGE,
                    reserved: [0; 3],
                }],
                texels: vec![Vec4::new(0.25, 0.5, 1.0, 1.0), Vec4::ONE],
                noise: Vec::new(),
            };
            for uv in [Vec2::new(2.0, 2.0), Vec2::new(-2.0, 2.0), Vec2::new(1e30, -1e30)] {
                let c = textures.eval4(0, Vec3A::ZERO, uv);
                assert!(c.is_finite(), "wrap {wrap} at {uv}: {c}");
            }
        }
    }
}
