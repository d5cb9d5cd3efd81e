//! Where a sample's random numbers come from (docs/path-tracing.md, "Random numbers" and
//! "Sobol sampler"): the [`Sampler`] the integrator draws from, by dimension.
//!
//! Two samplers, picked per render ([`scene_compiler::scene::SamplerKind`]) and
//! monomorphized into the integrator, so neither pays a branch per draw:
//!
//! - [`Rng`], the independent sampler: the PCG stream of each (pixel, sample), which
//!   ignores the dimension and returns its next number. The integrator asks in the
//!   spec's order, so its images are those of the renderer before samplers, bit for bit.
//! - [`Sobol`]: Owen-scrambled Sobol points (Burley 2020, "Practical Hash-based Owen
//!   Scrambling", JCGT 9(4)), a function of (pixel, sample index, dimension) alone.
//!
//! The kernels implement the same functions in `kernels/sampler.cuh`; `tests/cpu/sobol.rs`
//! pins their values and `tests/gpu/render.rs` holds the GPU's to them.

use super::rng::{Rng, pcg_hash};
use crate::backend::constants::{
    LAINE_KARRAS_MULTIPLIERS, SOBOL_DIRECTIONS, SOBOL_GROUP_DIMS, UNIT_FLOAT_SCALE, UNIT_FLOAT_SHIFT,
};

/// The random numbers of one camera sample, by dimension.
pub trait Sampler {
    /// The sampler of sample `sample_index` of pixel `pixel_index`; `seed_hash` is
    /// `pcg_hash(seed)`, computed once per frame by the caller.
    fn start(pixel_index: u32, sample_index: u32, seed_hash: u32) -> Self;

    /// A uniform number in `[0, 1)` for dimension `dim` (`backend::constants`, `DIM_*`).
    fn get(&mut self, dim: u32) -> f32;
}

impl Sampler for Rng {
    #[inline(always)]
    fn start(pixel_index: u32, sample_index: u32, seed_hash: u32) -> Rng {
        Rng::from_seed_hash(pixel_index, sample_index, seed_hash)
    }

    /// The stream's next number, whatever the dimension.
    #[inline(always)]
    fn get(&mut self, _dim: u32) -> f32 {
        self.next_f32()
    }
}

/// The Sobol sampler of one (pixel, sample): nothing but the pixel's scramble seed and
/// the sample index, so every value is a pure function of them and the dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sobol {
    /// `pcg_hash(pixel_index ^ pcg_hash(seed))`: decorrelates pixels and seeds.
    pub pixel_seed: u32,
    pub index: u32,
}

impl Sampler for Sobol {
    #[inline(always)]
    fn start(pixel_index: u32, sample_index: u32, seed_hash: u32) -> Sobol {
        Sobol { pixel_seed: pcg_hash(pixel_index ^ seed_hash), index: sample_index }
    }

    #[inline(always)]
    fn get(&mut self, dim: u32) -> f32 {
        (sobol_sample(self.index, dim, self.pixel_seed) >> UNIT_FLOAT_SHIFT) as f32 * UNIT_FLOAT_SCALE
    }
}

/// Point `index` of Sobol dimension `dim` (0..4), unscrambled, as a 32-bit fraction:
/// the XOR of the direction numbers of the index's set bits.
#[inline(always)]
pub fn sobol(index: u32, dim: usize) -> u32 {
    let directions = &SOBOL_DIRECTIONS[dim];
    let mut x = 0;
    let mut i = index;
    let mut bit = 0;
    while i != 0 {
        x ^= directions[bit] & 0u32.wrapping_sub(i & 1);
        i >>= 1;
        bit += 1;
    }
    x
}

/// Burley's Laine-Karras style hash (his paper's improved constants): a permutation of
/// the 32-bit values in which every bit depends only on the bits below it, so that on
/// bit-reversed input it permutes subtrees of the binary digit tree, as Owen scrambling does.
#[inline(always)]
pub fn laine_karras_permutation(mut x: u32, seed: u32) -> u32 {
    x = x.wrapping_add(seed);
    for m in LAINE_KARRAS_MULTIPLIERS {
        x ^= x.wrapping_mul(m);
    }
    x
}

/// Nested uniform (Owen) scrambling of a 32-bit fraction in base 2, by `seed`.
#[inline(always)]
pub fn nested_uniform_scramble(x: u32, seed: u32) -> u32 {
    laine_karras_permutation(x.reverse_bits(), seed).reverse_bits()
}

/// Sampler dimension `dim` of sample `index` of the pixel with scramble seed
/// `pixel_seed`, as a 32-bit fraction: dimension `dim % 4` of the first four Sobol
/// dimensions, in padded group `dim / 4` whose seed shuffles the index (Owen-scrambling
/// it, so that groups decorrelate while the first 2^k samples of each stay a net) and
/// scrambles each dimension's value with a seed of its own.
#[inline(always)]
pub fn sobol_sample(index: u32, dim: u32, pixel_seed: u32) -> u32 {
    let group = dim / SOBOL_GROUP_DIMS as u32;
    let within = dim % SOBOL_GROUP_DIMS as u32;
    let group_seed = pcg_hash(pixel_seed ^ pcg_hash(group));
    let shuffled = nested_uniform_scramble(index, group_seed);
    nested_uniform_scramble(sobol(shuffled, within as usize), pcg_hash(group_seed ^ within))
}
