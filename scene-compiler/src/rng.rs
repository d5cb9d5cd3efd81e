//! splitmix64 (Steele et al. 2014): a tiny generator whose stream depends on the seed
//! alone, without a dependency on `rand`. The blob's Perlin table is drawn from it
//! (`blob/textures.rs`), so every blob holds the same table; tests and benchmarks
//! draw their deterministic inputs from it too.

use glam::Vec3;

/// The generator's state; `SplitMix64(seed)` starts a stream.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`, from the top 24 bits (every value exact in an f32).
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in the unit cube `[0, 1)³`, x drawn first.
    pub fn next_vec3(&mut self) -> Vec3 {
        let x = self.next_f32();
        let y = self.next_f32();
        Vec3::new(x, y, self.next_f32())
    }
}
