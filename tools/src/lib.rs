//! Shared pieces of the developer tools: a seeded RNG for generated scenes, and the
//! procedural city of `scene-gen terrain`.

pub mod city;

/// PCG32 (O'Neill): small, fast, and the same stream on every platform, so a
/// generated scene depends only on its seed.
pub struct Pcg32 {
    state: u64,
    inc: u64,
}

impl Pcg32 {
    /// A generator for `seed` (stream 0).
    pub fn new(seed: u64) -> Pcg32 {
        let mut rng = Pcg32 { state: 0, inc: 0xda3e_39cb_94b9_5bdb | 1 };
        rng.next_u32();
        rng.state = rng.state.wrapping_add(seed);
        rng.next_u32();
        rng
    }

    pub fn next_u32(&mut self) -> u32 {
        let old = self.state;
        self.state = old.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(self.inc);
        let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
        xorshifted.rotate_right((old >> 59) as u32)
    }

    /// Uniform in [0, 1).
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 * (1.0 / (1u32 << 24) as f32)
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next_f32()
    }

    /// Uniform in `lo..=hi` (`lo <= hi`).
    pub fn between(&mut self, lo: u32, hi: u32) -> u32 {
        lo + ((u64::from(self.next_u32()) * u64::from(hi - lo + 1)) >> 32) as u32
    }
}
