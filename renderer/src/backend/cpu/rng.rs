//! PCG random numbers (docs/path-tracing.md, "Random numbers: PCG").
//!
//! Every (pixel, sample) pair seeds its own stream, so an image does not depend on
//! thread count, tile order or how the samples are split across render calls. The
//! kernels implement the same functions; `tests/cpu/rng.rs` pins their first values.

use crate::backend::constants::{
    PCG_INCREMENT, PCG_MULTIPLIER, PCG_OUTPUT_MULTIPLIER, PCG_RXS_MIN_SHIFT, PCG_RXS_SELECT_SHIFT,
    PCG_XS_SHIFT, UNIT_FLOAT_SCALE, UNIT_FLOAT_SHIFT,
};

/// PCG's RXS-M-XS output permutation of one state.
#[inline(always)]
fn permute(state: u32) -> u32 {
    let word = ((state >> ((state >> PCG_RXS_SELECT_SHIFT) + PCG_RXS_MIN_SHIFT)) ^ state)
        .wrapping_mul(PCG_OUTPUT_MULTIPLIER);
    (word >> PCG_XS_SHIFT) ^ word
}

/// One LCG step.
#[inline(always)]
fn step(state: u32) -> u32 {
    state.wrapping_mul(PCG_MULTIPLIER).wrapping_add(PCG_INCREMENT)
}

/// The PCG hash of one 32-bit value (Jarzynski & Olano 2020, "Hash Functions for GPU Rendering").
#[inline(always)]
pub fn pcg_hash(v: u32) -> u32 {
    permute(step(v))
}

/// A uniform float in `[0, 1)` fixed by a ray and a primitive: the threshold a Blend
/// surface's alpha is held against inside traversal (stochastic transparency, as
/// pbrt-v4 hashes its rays for alpha), so the closest-hit and shadow queries need no
/// random stream. The same ray through the same surface always makes the same choice.
#[inline(always)]
pub fn ray_hash(origin: [f32; 3], dir: [f32; 3], prim: u32) -> f32 {
    let h = origin.into_iter().chain(dir).fold(pcg_hash(prim), |h, x| pcg_hash(h ^ x.to_bits()));
    (h >> UNIT_FLOAT_SHIFT) as f32 * UNIT_FLOAT_SCALE
}

/// One random stream: PCG-RXS-M-XS-32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rng {
    state: u32,
}

impl Rng {
    /// The stream of one camera sample: `pcg_hash(pixel ^ pcg_hash(sample ^ pcg_hash(seed)))`.
    #[inline(always)]
    pub fn new(pixel_index: u32, sample_index: u32, seed: u32) -> Rng {
        Rng::from_seed_hash(pixel_index, sample_index, pcg_hash(seed))
    }

    /// As [`Rng::new`] with `pcg_hash(seed)` computed once per frame by the caller.
    #[inline(always)]
    pub fn from_seed_hash(pixel_index: u32, sample_index: u32, seed_hash: u32) -> Rng {
        Rng { state: pcg_hash(pixel_index ^ pcg_hash(sample_index ^ seed_hash)) }
    }

    /// The next 32 random bits.
    #[inline(always)]
    pub fn next_u32(&mut self) -> u32 {
        self.state = step(self.state);
        permute(self.state)
    }

    /// A uniform float in `[0, 1)` from the top 24 bits (every value exactly representable).
    #[inline(always)]
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u32() >> UNIT_FLOAT_SHIFT) as f32 * UNIT_FLOAT_SCALE
    }
}
