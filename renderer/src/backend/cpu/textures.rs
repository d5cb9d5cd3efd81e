//! Textures on the CPU: a material's colour at a surface point (docs/path-tracing.md,
//! "Textures"; CUDA twin: kernels/textures.cuh, function for function).

use glam::{Vec2, Vec3A, Vec4};
use scene_compiler::BlobView;
use scene_compiler::blob::layout::{
    NOISE_POINTS, NoiseRecord, TEXTURE_CHECKER, TEXTURE_IMAGE, TEXTURE_NOISE, TextureRecord, WRAP_CLAMP,
};

/// Octaves of the noise texture's turbulence ("The Next Week": 7).
const TURBULENCE_DEPTH: u32 = 7;

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
            TEXTURE_IMAGE => self.image(t.image, uv),
            TEXTURE_CHECKER => checker(t, p).extend(1.0),
            TEXTURE_NOISE => {
                Vec3A::splat(0.5 * (1.0 + (t.a[0] * p.z + 10.0 * self.turbulence(p)).sin())).extend(1.0)
            }
            kind => unreachable!("BlobView::parse refuses texture kind {kind}"),
        }
    }

    /// Bilinear between the four texels around `uv` (texel centres at half-integers, v
    /// down from the top row), repeating or clamping at the edges.
    #[inline(always)]
    fn image(&self, [first, width, height, wrap]: [u32; 4], uv: Vec2) -> Vec4 {
        let (w, h) = (width as f32, height as f32);
        let (u, v) = if wrap == WRAP_CLAMP {
            (uv.x.clamp(0.0, 1.0), uv.y.clamp(0.0, 1.0))
        } else {
            (uv.x - uv.x.floor(), uv.y - uv.y.floor())
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

/// The cell `floor(p / size)` is even when the sum of its three integers is.
#[inline(always)]
fn checker(t: &TextureRecord, p: Vec3A) -> Vec3A {
    let cell = (p / t.a[3]).floor();
    let sum = cell.x + cell.y + cell.z;
    let even = sum - 2.0 * (0.5 * sum).floor() == 0.0;
    let lanes = |v: [f32; 4]| Vec3A::new(v[0], v[1], v[2]);
    if even { lanes(t.a) } else { lanes(t.b) }
}
