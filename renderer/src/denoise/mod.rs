//! AOVs and the denoiser (docs/path-tracing.md, "AOVs" and "The denoiser").
//!
//! A film rendered with AOVs holds, beside each pixel's radiance sum, the sum of one
//! [`AovSample`] per sample: the albedo and shading normal of the first surface that is
//! not a perfect mirror or glass (seen through those), the camera distance of the first
//! hit (for a pixel's first samples the averages over AOV rays of their own:
//! `backend::cpu::aov`), and the squared luminance of the sample's radiance (its second
//! moment, for the variance). [`Aovs`] are their averages, what `render --aov` writes as EXR layers.
//!
//! The filter is the spatial part of SVGF (Schied et al. 2017): edge-avoiding à-trous
//! wavelet passes (Dammertz et al. 2010) over irradiance, the radiance divided by the
//! albedo so that textures are multiplied back sharp, with weights from the normals,
//! the depths and the luminance relative to its estimated noise. [`filter`] is the CPU's
//! and the twin of kernels/denoise.cuh; [`constants`] are the numbers both use.

pub mod constants;
pub mod filter;

use bytemuck::{Pod, Zeroable};

/// What one sample adds to a pixel's AOV sums. The kernels write it as two `float4`s,
/// `(albedo, depth)` and `(normal, luminance2)`, in this order.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct AovSample {
    /// Albedo of the first hit that is not a delta lobe (a miss: the sky, at most 1).
    pub albedo: [f32; 3],
    /// Camera distance of the first hit ([`constants::MISS_DEPTH`] for a miss).
    pub depth: f32,
    /// World-space shading normal at the albedo's hit, facing the ray (zero for a miss).
    pub normal: [f32; 3],
    /// Squared luminance of the sample's radiance.
    pub luminance2: f32,
}

impl AovSample {
    /// A sample whose camera ray has hit nothing yet.
    pub const MISS: AovSample =
        AovSample { albedo: [0.0; 3], depth: constants::MISS_DEPTH, normal: [0.0; 3], luminance2: 0.0 };

    /// Adds `other` to this sum.
    #[inline]
    pub fn add(&mut self, other: &AovSample) {
        for c in 0..3 {
            self.albedo[c] += other.albedo[c];
            self.normal[c] += other.normal[c];
        }
        self.depth += other.depth;
        self.luminance2 += other.luminance2;
    }

    /// This sum divided by `n` samples.
    #[inline]
    pub fn scaled(&self, inv_n: f32) -> AovSample {
        AovSample {
            albedo: self.albedo.map(|c| c * inv_n),
            depth: self.depth * inv_n,
            normal: self.normal.map(|c| c * inv_n),
            luminance2: self.luminance2 * inv_n,
        }
    }
}

/// Why a film cannot be denoised.
pub const NO_AOVS_TO_DENOISE: &str =
    "the film has no AOVs for the denoiser: render it with them (`--denoise`)";
/// Why there is no denoised image to read.
pub const NOTHING_DENOISED: &str = "nothing denoised yet: call denoise after rendering";

/// The AOV layers of an image (top row first): per-pixel averages, normals made unit
/// length again (zero where every sample missed).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Aovs {
    pub albedo: Vec<[f32; 3]>,
    pub normal: Vec<[f32; 3]>,
    pub depth: Vec<f32>,
}

impl Aovs {
    /// The layers of a film's AOV sums over `divisor` samples, or an error that says how
    /// to get them when the film has none (`sums` empty).
    pub fn from_sums(sums: &[AovSample], divisor: f32) -> anyhow::Result<Aovs> {
        anyhow::ensure!(
            !sums.is_empty(),
            "the film has no AOVs: render it with them (`--aov` or `--denoise`)"
        );
        let inv_n = 1.0 / divisor;
        let averages = || sums.iter().map(move |a| a.scaled(inv_n));
        Ok(Aovs {
            albedo: averages().map(|a| a.albedo).collect(),
            normal: averages().map(|a| filter::unit_or_zero(a.normal)).collect(),
            depth: averages().map(|a| a.depth).collect(),
        })
    }
}

/// The filtered image of a `width × height` film of `samples` samples per pixel, from
/// its per-pixel averages: `beauty` (linear radiance) and `aovs`.
pub fn denoise(
    width: u32,
    height: u32,
    samples: u32,
    beauty: &[[f32; 3]],
    aovs: &[AovSample],
) -> Vec<[f32; 3]> {
    let prepared = filter::prepare(width as usize, height as usize, samples, beauty, aovs);
    filter::run(&prepared)
}
