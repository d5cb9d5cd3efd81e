//! The CPU film: per-pixel f32 sums of samples, and the output conversions
//! (docs/path-tracing.md, "Accumulation and output").

use glam::Vec3A;

use crate::backend::{FilmShape, FilmSums, Tonemap};

/// Accumulated radiance sums, top row first.
#[derive(Clone, Debug, Default)]
pub struct Film {
    pub shape: FilmShape,
    pub sums: Vec<Vec3A>,
}

impl Film {
    /// Clears the film to `width × height` black pixels with no samples.
    pub fn reset(&mut self, width: u32, height: u32) {
        self.shape = FilmShape { width, height, samples: 0, end: 0 };
        self.sums.clear();
        self.sums.resize(width as usize * height as usize, Vec3A::ZERO);
    }

    /// The sums themselves, with the film's shape.
    pub fn sums(&self) -> FilmSums {
        FilmSums { shape: self.shape, sums: self.sums.iter().map(|s| [s.x, s.y, s.z]).collect() }
    }

    /// The linear average per pixel, alpha 1.
    pub fn linear(&self) -> Vec<[f32; 4]> {
        let n = self.shape.divisor();
        self.sums
            .iter()
            .map(|s| {
                let c = *s / n;
                [c.x, c.y, c.z, 1.0]
            })
            .collect()
    }

    /// 8-bit RGBA through `tonemap` (the host's one, [`crate::backend::tonemap`]), alpha
    /// 255; the Standard view at exposure 0 is `u8(255.99 * clamp(sqrt(c), 0, 1))`.
    pub fn rgba8(&self, tonemap: Tonemap) -> Vec<u8> {
        let n = self.shape.divisor();
        tonemap.image(self.sums.iter().map(|s| {
            let c = *s / n;
            [c.x, c.y, c.z]
        }))
    }
}
